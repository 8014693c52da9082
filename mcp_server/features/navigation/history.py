"""Tab actions of ``browser_session``: back, forward, reload, new_page, close_page.

Each moves a tab only because the call asks, in the internal browser and in the user's
Chrome alike, and answers like ``navigate``: where the tab is now, its title and HTTP status.
``close_page`` refuses the last tab of the user's Chrome (closing it would close Chrome).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import Field

from mcp_server.answers.lean import page_title
from mcp_server.answers.pages import move_notes
from mcp_server.evidence.dialogs import no_dialog
from mcp_server.page.loading import LOAD_TAKES, StatusFn, WaitUntil, bounded_load
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, action

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
    text = f"{verb} {url}" + (f" ({page_title(title)})" if title else "")
    if data.get("httpStatus"):
        text += f", HTTP {data['httpStatus']}"
    if data.get("sameDocument"):
        text += "; same document (no load)"
    if data.get("fromBackForwardCache"):
        text += "; restored from the back/forward cache (no load, no requests)"
    text += move_notes(data)
    return ActionResult(text=text, data=data)


#: A tab move: ``move(timeout_ms, on_status)`` -> the report of the move, as navigate gives it.
Move = Callable[[int, StatusFn], Awaitable[dict[str, Any]]]


async def _move(ctx: ToolContext, verb: str, name: str, args: HistoryArgs, move: Move) -> ActionResult:
    """The tab move of action ``name`` within the call bound (loading.bounded_load): its answer, or the
    "waiting" one; refused at once if a dialog is open."""
    page = await ctx.page(launch_if_needed=False)  # the page to ourselves until the call ends
    watch = await no_dialog(ctx, page, name)  # Chrome holds a navigation until an open dialog is answered
    outcome = await bounded_load(
        ctx, what=name.replace("_", " "), wait_until=args.wait_until, timeout_ms=args.timeout_ms, load=move, watch=watch
    )
    return outcome if isinstance(outcome, ActionResult) else _moved(verb, outcome)


async def _go(ctx: ToolContext, args: HistoryArgs, delta: int, verb: str, name: str) -> ActionResult:
    def move(timeout_ms: int, on_status: StatusFn) -> Awaitable[dict[str, Any]]:
        return ctx.manager.go_history(delta, wait_until=args.wait_until, timeout_ms=timeout_ms, on_status=on_status)

    return await _move(ctx, verb, name, args, move)


@action(S, "go_back", HistoryArgs, destructive=True, lock="page", takes=LOAD_TAKES)
async def go_back(ctx: ToolContext, args: HistoryArgs) -> ActionResult:
    """Go back one entry in the selected tab's history (like its back button)."""
    return await _go(ctx, args, -1, "Went back to", "go_back")


@action(S, "go_forward", HistoryArgs, destructive=True, lock="page", takes=LOAD_TAKES)
async def go_forward(ctx: ToolContext, args: HistoryArgs) -> ActionResult:
    """Go forward one entry in the selected tab's history."""
    return await _go(ctx, args, 1, "Went forward to", "go_forward")


@action(S, "reload", ReloadArgs, destructive=True, lock="page", takes=LOAD_TAKES)
async def reload(ctx: ToolContext, args: ReloadArgs) -> ActionResult:
    """Reload the selected tab (ignore_cache: bypass the cache)."""

    def move(timeout_ms: int, on_status: StatusFn) -> Awaitable[dict[str, Any]]:
        return ctx.manager.reload(
            ignore_cache=args.ignore_cache, wait_until=args.wait_until, timeout_ms=timeout_ms, on_status=on_status
        )

    return await _move(ctx, "Reloaded", "reload", args, move)
