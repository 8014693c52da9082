"""``browser_interact`` actions on snapshot uids: ``click_uid``, ``fill_uid``, ``hover_uid``, ``press_uid``.

The uid is resolved through CDP (:func:`cdp_core.recorders.accessibility.resolve_uid` checks
it is the same node of the same live document, so a stale uid is refused instead of hitting
another element) and the action goes through :mod:`mcp_server.input`: our own actionability
checks (visible, enabled, editable, stable, not covered) and trusted CDP input on the session
that runs the element. That works in a tab the user is not looking at, in out-of-process
iframes, and on both targets, without bringing the tab to front.

An ``alert()`` fired by the action blocks the page; the action returns as soon as the dialog
opens and says so (``handle_dialog`` next). The answer lists what the action caused.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import Field

from mcp_server.evidence.dialogs import dialog_watch, race_dialog, require_no_dialog
from mcp_server.evidence.followup import Followed, Followup
from mcp_server.evidence.followup_text import then_line
from mcp_server.input import actions as inp
from mcp_server.input.actionability import ACTIONABILITY_TAKES
from mcp_server.input.element import Element, element_from_uid
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action

__all__ = ["UidArgs", "FillUidArgs", "PressUidArgs"]

I = "browser_interact"  # noqa: E741 - the tool's short name, used as a tag


class UidActionAnswer(Answer):
    uid: int
    role: str
    name: str = ""
    did: str
    followed: Followed


class UidArgs(ActionArgs):
    uid: int = Field(ge=1, description="Snapshot uid")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


class FillUidArgs(UidArgs):
    value: str = Field(description="Text (replaces content)")


class PressUidArgs(UidArgs):
    key: str = Field(description="e.g. Enter, Tab, Control+a")


Perform = Callable[[Element], Awaitable[str]]


async def _act(ctx: ToolContext, args: UidArgs, what: str, perform: Perform) -> ActionResult:
    """Resolve, act (racing a dialog), report what followed."""
    page = await ctx.page()
    watch = await dialog_watch(ctx, page)
    require_no_dialog(watch, what)
    element = await element_from_uid(page, args.uid)
    entry = element.entry
    # the wait for actionability, within the call bound (perform reads args.timeout_ms)
    args.timeout_ms = ctx.bound_ms(
        args.timeout_ms,
        status=f"{what} {element.label}: waiting until it is visible, stable, enabled and receives events",
    )
    try:
        follow = await Followup(page, watch).start()
        dialog = await race_dialog(perform(element), watch, what)
    finally:
        if watch.open is None:
            await element.release()
        else:
            watch.cleanups.append(element.release)  # the page is blocked: free it after handle_dialog
    did = f"{what} started (a dialog opened)" if dialog else element.meta.get("did", what)
    await follow.settle(typing=element.typing_watched)
    followed = await follow.report()
    text = f"{did} {element.label}{then_line(followed)}"
    data: dict[str, Any] = {"uid": entry.uid, "role": entry.role, "name": entry.name, "did": did, "followed": followed}
    return ActionResult(text=text, data=data)


def _done(element: Element, did: str) -> str:
    element.meta["did"] = did
    return did


@action(I, "click_uid", UidArgs, lock="page", destructive=True, result=UidActionAnswer, takes=ACTIONABILITY_TAKES)
async def click_uid(ctx: ToolContext, args: UidArgs) -> ActionResult:
    """Click the element with this snapshot uid (waits until visible, enabled, stable and not covered)."""

    async def perform(element: Element) -> str:
        await inp.click(element, "click_uid", timeout_ms=args.timeout_ms)
        return _done(element, "clicked")

    return await _act(ctx, args, "click_uid", perform)


@action(I, "fill_uid", FillUidArgs, lock="page", result=UidActionAnswer, takes=ACTIONABILITY_TAKES)
async def fill_uid(ctx: ToolContext, args: FillUidArgs) -> ActionResult:
    """Fill a text field, pick a <select> option (by value or label) or set a checkbox, by uid."""

    async def perform(element: Element) -> str:
        role = element.entry.role if element.entry is not None else ""
        did = await inp.set_value(element, args.value, "fill_uid", timeout_ms=args.timeout_ms, role=role)
        return _done(element, did)

    return await _act(ctx, args, "fill_uid", perform)


@action(I, "hover_uid", UidArgs, lock="page", result=UidActionAnswer, takes=ACTIONABILITY_TAKES)
async def hover_uid(ctx: ToolContext, args: UidArgs) -> ActionResult:
    """Move the mouse over the element with this uid (reveals tooltips and menus)."""

    async def perform(element: Element) -> str:
        await inp.hover(element, "hover_uid", timeout_ms=args.timeout_ms)
        return _done(element, "hovering")

    return await _act(ctx, args, "hover_uid", perform)


@action(I, "press_uid", PressUidArgs, lock="page", destructive=True, result=UidActionAnswer, takes=ACTIONABILITY_TAKES)
async def press_uid(ctx: ToolContext, args: PressUidArgs) -> ActionResult:
    """Focus the element with this uid and press a key (Enter submits a form)."""

    async def perform(element: Element) -> str:
        await inp.press_key(element, None, args.key, "press_uid", timeout_ms=args.timeout_ms)
        return _done(element, f"pressed {args.key} in")

    return await _act(ctx, args, "press_uid", perform)
