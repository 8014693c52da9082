"""Tab actions of ``browser_session``: back, forward, reload, new_page, close_page.

Each moves a tab only because the call asks, in the internal browser and in the user's
Chrome alike, and answers like ``navigate``: where the tab is now, its title and HTTP status.
``close_page`` refuses the last tab of the user's Chrome (closing it would close Chrome).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pydantic import Field

from mcp_server.answers.pages import move_notes
from mcp_server.evidence.dialogs import no_dialog
from mcp_server.page.loading import LOAD_TAKES, StatusFn, WaitUntil, bounded_load
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, action

if TYPE_CHECKING:
    from mcp_server.evidence.dialogs import DialogWatch

S = "browser_session"


class HistoryArgs(ActionArgs):
    wait_until: WaitUntil = Field("load", description="Wait for this event")
    timeout_ms: int = Field(30000, ge=0, le=300000, description="Timeout in ms")


class ReloadArgs(HistoryArgs):
    ignore_cache: bool = Field(False, description="Bypass the cache")


def _moved(verb: str, info: dict[str, Any]) -> ActionResult:
    """The answer of every tab move, as navigate gives it: url, title, HTTP status (never nulls)."""
    data = {k: v for k, v in info.items() if v is not None and v != ""}
    if "status" in data:  # the HTTP status; "status" is the envelope's ok/error
        data["httpStatus"] = data.pop("status")
    url, title = data.get("url", ""), data.get("title")
    text = f"{verb} {url}" + (f" ({title})" if title else "")
    if data.get("httpStatus"):
        text += f", HTTP {data['httpStatus']}"
    if data.get("sameDocument"):
        text += "; same document (no load)"
    if data.get("fromBackForwardCache"):
        text += "; restored from the back/forward cache (no load, no requests)"
    text += move_notes(data)
    return ActionResult(text=text, data=data)


async def _no_dialog_on_selected(ctx: ToolContext, what: str) -> DialogWatch:
    """The selected page's dialog watch, refusing at once if a dialog is open."""
    page = await ctx.page(launch_if_needed=False)  # the page to ourselves until the call ends
    return await no_dialog(ctx, page, what)  # Chrome holds a navigation until an open dialog is answered


#: A tab move: ``move(timeout_ms, on_status)`` -> the report of the move, as navigate gives it.
Move = Callable[[int, StatusFn], Awaitable[dict[str, Any]]]


async def _move(
    ctx: ToolContext, verb: str, what: str, args: HistoryArgs, move: Move, watch: DialogWatch
) -> ActionResult:
    """A tab move within the call bound (loading.bounded_load): its answer, or the "waiting" one."""

    async def load(timeout_ms: int, on_status: StatusFn) -> dict[str, Any]:
        return await move(timeout_ms, on_status)

    outcome = await bounded_load(
        ctx, what=what, wait_until=args.wait_until, timeout_ms=args.timeout_ms, load=load, watch=watch
    )
    return outcome if isinstance(outcome, ActionResult) else _moved(verb, outcome)


@action(S, "go_back", HistoryArgs, destructive=True, lock="page", takes=LOAD_TAKES)
async def go_back(ctx: ToolContext, args: HistoryArgs) -> ActionResult:
    """Go back one entry in the selected tab's history (like its back button)."""
    watch = await _no_dialog_on_selected(ctx, "go_back")

    def move(timeout_ms: int, on_status: StatusFn) -> Awaitable[dict[str, Any]]:
        return ctx.manager.go_history(-1, wait_until=args.wait_until, timeout_ms=timeout_ms, on_status=on_status)

    return await _move(ctx, "Went back to", "go back", args, move, watch)


@action(S, "go_forward", HistoryArgs, destructive=True, lock="page", takes=LOAD_TAKES)
async def go_forward(ctx: ToolContext, args: HistoryArgs) -> ActionResult:
    """Go forward one entry in the selected tab's history."""
    watch = await _no_dialog_on_selected(ctx, "go_forward")

    def move(timeout_ms: int, on_status: StatusFn) -> Awaitable[dict[str, Any]]:
        return ctx.manager.go_history(1, wait_until=args.wait_until, timeout_ms=timeout_ms, on_status=on_status)

    return await _move(ctx, "Went forward to", "go forward", args, move, watch)


@action(S, "reload", ReloadArgs, destructive=True, lock="page", takes=LOAD_TAKES)
async def reload(ctx: ToolContext, args: ReloadArgs) -> ActionResult:
    """Reload the selected tab (ignore_cache: bypass the cache)."""
    watch = await _no_dialog_on_selected(ctx, "reload")

    def move(timeout_ms: int, on_status: StatusFn) -> Awaitable[dict[str, Any]]:
        return ctx.manager.reload(
            ignore_cache=args.ignore_cache, wait_until=args.wait_until, timeout_ms=timeout_ms, on_status=on_status
        )

    return await _move(ctx, "Reloaded", "reload", args, move, watch)
