"""Tab actions of ``browser_session``: back, forward, reload, new_page, close_page.

Each moves a tab only because the call asks, in the internal browser and in the user's
Chrome alike, and answers like ``navigate``: where the tab is now, its title and HTTP status.
``close_page`` refuses the last tab of the user's Chrome (closing it would close Chrome).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mcp_server.actions.page.pagejs import no_dialog
from mcp_server.core.context import ToolContext
from mcp_server.core.registry import ActionArgs, ActionResult, action
from mcp_server.guards.script_urls import refuse_script_url
from mcp_server.render.pages_render import move_notes, page_brief
from targets.errors import ToolFailure

from .loading import LOAD_TAKES, StatusFn, bounded_load

S = "browser_session"

WaitUntil = Literal["load", "domcontentloaded", "networkidle", "commit"]


class HistoryArgs(ActionArgs):
    wait_until: WaitUntil = Field("load", description="Wait for this event")
    timeout_ms: int = Field(30000, ge=0, le=300000, description="Timeout in ms")


class ReloadArgs(HistoryArgs):
    ignore_cache: bool = Field(False, description="Bypass the cache")


class NewPageArgs(ActionArgs):
    url: str | None = Field(None, description="URL to open")
    background: bool = Field(False, description="Open unfocused")
    wait_until: WaitUntil = Field("load", description="Wait for this event")
    timeout_ms: int = Field(30000, ge=0, le=300000, description="Timeout in ms")


class ClosePageArgs(ActionArgs):
    stable_page_id: str = Field(description="From list_pages (p1, p2...)")


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


async def _no_dialog_on_selected(ctx: ToolContext, what: str) -> Any:
    """The selected page's dialog watch, refusing at once if a dialog is open."""
    page = await ctx.page(launch_if_needed=False)  # the page to ourselves until the call ends
    return await no_dialog(ctx, page, what)  # Chrome holds a navigation until an open dialog is answered


async def _move(ctx: ToolContext, verb: str, what: str, args: HistoryArgs, move: Any, watch: Any) -> ActionResult:
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

    def move(timeout_ms: int, on_status: StatusFn) -> Any:
        return ctx.manager.go_history(-1, wait_until=args.wait_until, timeout_ms=timeout_ms, on_status=on_status)

    return await _move(ctx, "Went back to", "go back", args, move, watch)


@action(S, "go_forward", HistoryArgs, destructive=True, lock="page", takes=LOAD_TAKES)
async def go_forward(ctx: ToolContext, args: HistoryArgs) -> ActionResult:
    """Go forward one entry in the selected tab's history."""
    watch = await _no_dialog_on_selected(ctx, "go_forward")

    def move(timeout_ms: int, on_status: StatusFn) -> Any:
        return ctx.manager.go_history(1, wait_until=args.wait_until, timeout_ms=timeout_ms, on_status=on_status)

    return await _move(ctx, "Went forward to", "go forward", args, move, watch)


@action(S, "reload", ReloadArgs, destructive=True, lock="page", takes=LOAD_TAKES)
async def reload(ctx: ToolContext, args: ReloadArgs) -> ActionResult:
    """Reload the selected tab (ignore_cache: bypass the cache)."""
    watch = await _no_dialog_on_selected(ctx, "reload")

    def move(timeout_ms: int, on_status: StatusFn) -> Any:
        return ctx.manager.reload(
            ignore_cache=args.ignore_cache, wait_until=args.wait_until, timeout_ms=timeout_ms, on_status=on_status
        )

    return await _move(ctx, "Reloaded", "reload", args, move, watch)


@action(S, "new_page", NewPageArgs, lock="state")
async def new_page(ctx: ToolContext, args: NewPageArgs) -> ActionResult:
    """Open a tab (in the user's Chrome too), select it, and load url if given."""
    refuse_script_url(args.url, evaluate_enabled=ctx.settings.evaluate_enabled)
    before = ctx.manager.last_selected_page()  # a URL the policy refuses opens no tab at all
    try:
        page = await ctx.manager.new_page(
            args.url, background=args.background, explicit=True, wait_until=args.wait_until, timeout_ms=args.timeout_ms
        )
    except ToolFailure as exc:
        opened = ctx.manager.last_selected_page()
        new_tab = opened is not None and opened is not before
        if args.url and new_tab and opened is not None and not opened.closed and opened.url in ("about:blank", ""):
            # The tab is open (and selected) but the URL did not load: say which tab it is.
            exc.details.setdefault("stable_page_id", opened.stable_page_id)
            exc.message += f" (the new tab {opened.stable_page_id} stays open on about:blank)"
        raise
    listing = {p["stable_page_id"]: p for p in await ctx.manager.list_pages()}
    info = listing.get(page.stable_page_id) or page.info(selected=True)
    where = " in the background" if args.background else ""
    data = {
        # the tab's lean record: its CDP target id and the attach time (= capturedSince) left out
        "page": {k: v for k, v in (page_brief(info) or {}).items() if k != "selected"},
        "background": args.background,
        "pageCount": len(listing),
    }
    text = f"Opened {page.stable_page_id}{where} ({page.target}) and selected it: <{page.url}>"
    if page.title:
        text += f" ({page.title})"
    text += f"; {len(listing)} tab(s) open"
    return ActionResult(text=text, data=data)


@action(S, "close_page", ClosePageArgs, destructive=True, lock="state")
async def close_page(ctx: ToolContext, args: ClosePageArgs) -> ActionResult:
    """Close one tab by stable_page_id (never the last tab of the user's Chrome)."""
    info = await ctx.manager.close_page(args.stable_page_id)
    closed, selected = info["closed"], info.get("selected")
    text = f"Closed {closed['stable_page_id']} <{closed['url']}>; {info['pageCount']} tab(s) left"
    if selected:
        text += f"; selected: {selected['stable_page_id']} <{selected['url']}>"
    data = {k: v for k, v in info.items() if v is not None}
    if selected:
        data["selected"] = {k: selected[k] for k in ("stable_page_id", "url", "title") if selected.get(k)}
    return ActionResult(text=text, data=data)
