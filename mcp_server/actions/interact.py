"""``browser_interact`` actions on snapshot uids: ``click_uid``, ``fill_uid``, ``hover_uid``, ``press_uid``.

How a uid becomes a Playwright element, and why this way: the uid is resolved through
CDP (:func:`cdp_core.recorders.accessibility.resolve_uid` checks it is the same node of
the same live document, so a stale uid is refused instead of hitting another element),
the node gets a unique temporary ``data-mcp-uid`` attribute, and Playwright finds it by
that attribute in whichever frame holds it (out-of-process iframes included). Playwright
then performs the action with its actionability checks (visible, stable, enabled,
scrolled into view) on both targets; the attribute is removed afterwards.

An ``alert()`` fired by the action blocks the page, and with it Playwright's click; the
action returns as soon as the dialog opens and says so (``handle_dialog`` next).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pydantic import Field

from cdp_core import CDPException
from cdp_core.recorders.accessibility import ResolvedNode, resolve_uid
from cdp_core.recorders.uids import StaleUid
from targets.errors import ErrorCode, ToolFailure

from ..context import ToolContext
from ..registry import ActionArgs, ActionResult, action
from .snapshot import DialogWatch, Followup, describe_followup, dialog_watch, registry_of, require_no_dialog

if TYPE_CHECKING:
    from playwright.async_api import Locator, Page

    from targets import PageHandle

__all__ = ["UidArgs", "FillUidArgs", "PressUidArgs"]

I = "browser_interact"  # noqa: E741 - the tool's short name, used as a tag
ATTR = "data-mcp-uid"

_TAG_JS = f"""function(token) {{
  var el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return null;
  el.setAttribute('{ATTR}', token);
  return {{tag: el.tagName, type: (el.getAttribute('type') || '').toLowerCase(),
           editable: !!el.isContentEditable, multiple: !!el.multiple}};
}}"""
_UNTAG_JS = f"""function(token) {{
  var el = this.nodeType === 1 ? this : this.parentElement;
  if (el && el.getAttribute('{ATTR}') === token) el.removeAttribute('{ATTR}');
}}"""
_TRUE = {"true", "on", "1", "yes", "checked", "x"}


class UidArgs(ActionArgs):
    uid: int = Field(ge=1, description="uid from the latest snapshot")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


class FillUidArgs(UidArgs):
    value: str = Field(description="Text to type (replaces the field's content)")


class PressUidArgs(UidArgs):
    key: str = Field(description="Key, e.g. Enter, Tab, ArrowDown, Control+a")


async def _keep_dialogs_open(page: PageHandle, pw_page: Page) -> None:
    """Without a listener Playwright dismisses every dialog itself: subscribe once per context."""
    context = pw_page.context
    hooked = page.data.setdefault("snapshot_pw_dialog_hooks", set())
    if id(context) in hooked:
        return
    hooked.add(id(context))
    context.on("dialog", _leave_dialog_open)


def _leave_dialog_open(_dialog: Any) -> None:
    """The dialog stays open for handle_dialog (reported by the page session's events)."""


async def _locate(pw_page: Page, token: str, frame_url: str) -> Locator | None:
    from playwright.async_api import Error as PlaywrightError

    selector = f'[{ATTR}="{token}"]'
    frames = sorted(pw_page.frames, key=lambda f: f.url != frame_url)
    for frame in frames:
        try:
            locator = frame.locator(selector)
            if await locator.count():
                return locator.first
        except PlaywrightError:
            continue
    return None


def _playwright_failure(exc: Exception, what: str) -> ToolFailure:
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    message = str(exc).split("\n")[0]
    if isinstance(exc, PlaywrightTimeout):
        return ToolFailure(
            ErrorCode.ELEMENT_NOT_INTERACTABLE,
            f"{what}: {message}",
            hint="the element may be hidden, disabled or covered; take a snapshot, or raise timeout_ms",
        )
    if "closed" in message.lower():
        return ToolFailure(ErrorCode.PAGE_CLOSED, f"{what}: {message}", hint="call list_pages")
    return ToolFailure(ErrorCode.ELEMENT_NOT_INTERACTABLE, f"{what}: {message}")


async def _resolve(page: PageHandle, uid: int) -> ResolvedNode:
    try:
        return await resolve_uid(registry_of(page), uid)
    except StaleUid as exc:
        raise ToolFailure(
            ErrorCode.STALE_UID,
            f"uid {uid} is stale: {exc.reason}",
            hint="take a new snapshot (browser_session action=snapshot) and use its uids",
            uid=uid,
        ) from None


Perform = Callable[["Locator", dict[str, Any]], Awaitable[str]]


async def _act(ctx: ToolContext, args: UidArgs, what: str, perform: Perform) -> ActionResult:
    """Resolve, tag, act through Playwright (racing a dialog), untag, report what followed."""
    page = await ctx.page()
    watch = await dialog_watch(ctx, page)
    require_no_dialog(watch, what)
    node = await _resolve(page, args.uid)
    entry = node.entry
    token = secrets.token_hex(8)
    described = f'[uid={entry.uid}] {entry.role} "{entry.name[:80]}"'.replace(' ""', "")
    untagged = False

    async def untag() -> None:
        try:
            await node.call(_UNTAG_JS, token)
        except CDPException:
            pass  # the node went away with a navigation: nothing to clean
        await node.release()

    try:
        info = await node.call(_TAG_JS, token)
        if not info:
            raise ToolFailure(ErrorCode.ELEMENT_NOT_INTERACTABLE, f"{what}: {described} is not an element")
        follow = await Followup(page, watch).start()
        pw_page = await page.playwright_page()
        await _keep_dialogs_open(page, pw_page)
        frame = registry_of(page).frame(entry.frame_id)
        locator = await _locate(pw_page, token, frame.url if frame else "")
        if locator is None:
            raise ToolFailure(
                ErrorCode.ELEMENT_NOT_INTERACTABLE,
                f"{what}: Playwright does not see {described}",
                hint="take a new snapshot; the element may be in a frame that is still loading",
            )
        did = await _race_dialog(perform(locator, info), watch, what)
        if watch.open is not None:
            watch.cleanups.append(untag)  # the page is blocked: clean up after handle_dialog
        else:
            await untag()
        untagged = True
        await follow.settle()
        followed = await follow.report()
    finally:
        if not untagged and watch.open is None:
            await untag()
    text = f"{did} {described}; then: {describe_followup(followed)}"
    return ActionResult(
        text=text,
        data={"uid": entry.uid, "role": entry.role, "name": entry.name, "did": did, "followed": followed},
    )


async def _race_dialog(action: Awaitable[str], watch: DialogWatch, what: str) -> str:
    """Run the Playwright action; return early if it opens a dialog (the action then waits on it)."""
    task = asyncio.ensure_future(action)
    opened = asyncio.ensure_future(watch.opened.wait())
    try:
        await asyncio.wait({task, opened}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:  # the call was cancelled: stop its work too, now
        task.cancel()
        raise
    finally:
        opened.cancel()
    if task.done():
        try:
            return task.result()
        except ToolFailure:
            raise
        except Exception as exc:  # noqa: BLE001 - Playwright's errors become stable codes
            raise _playwright_failure(exc, what) from None
    # The dialog blocks the page; Playwright's call finishes once it is handled.
    task.add_done_callback(lambda t: t.cancelled() or t.exception())
    return f"{what} started (a dialog opened)"


@action(I, "click_uid", UidArgs, lock="page")
async def click_uid(ctx: ToolContext, args: UidArgs) -> ActionResult:
    """Click the element with this snapshot uid (Playwright actionability checks apply)."""

    async def perform(locator: Locator, info: dict[str, Any]) -> str:
        await locator.click(timeout=args.timeout_ms)
        return "clicked"

    return await _act(ctx, args, "click_uid", perform)


@action(I, "fill_uid", FillUidArgs, lock="page")
async def fill_uid(ctx: ToolContext, args: FillUidArgs) -> ActionResult:
    """Fill a text field, pick a <select> option (by value or label) or set a checkbox, by uid."""

    async def perform(locator: Locator, info: dict[str, Any]) -> str:
        if info.get("tag") == "SELECT":
            chosen = await locator.select_option(args.value, timeout=args.timeout_ms)
            return f"selected {chosen!r} in"
        if info.get("tag") == "INPUT" and info.get("type") in ("checkbox", "radio"):
            if args.value.strip().lower() in _TRUE:
                await locator.check(timeout=args.timeout_ms)
                return "checked"
            await locator.uncheck(timeout=args.timeout_ms)
            return "unchecked"
        await locator.fill(args.value, timeout=args.timeout_ms)
        return f"filled ({len(args.value)} chars)"

    return await _act(ctx, args, "fill_uid", perform)


@action(I, "hover_uid", UidArgs, lock="page")
async def hover_uid(ctx: ToolContext, args: UidArgs) -> ActionResult:
    """Move the mouse over the element with this uid (reveals tooltips and menus)."""

    async def perform(locator: Locator, info: dict[str, Any]) -> str:
        await locator.hover(timeout=args.timeout_ms)
        return "hovering"

    return await _act(ctx, args, "hover_uid", perform)


@action(I, "press_uid", PressUidArgs, lock="page")
async def press_uid(ctx: ToolContext, args: PressUidArgs) -> ActionResult:
    """Focus the element with this uid and press a key (Enter submits a form)."""

    async def perform(locator: Locator, info: dict[str, Any]) -> str:
        await locator.press(args.key, timeout=args.timeout_ms)
        return f"pressed {args.key} in"

    return await _act(ctx, args, "press_uid", perform)
