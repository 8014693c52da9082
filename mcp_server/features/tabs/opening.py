"""new_page and close_page: a tab opened for the agent, and closing one (refused for the user's own
tabs unless the call asks)."""

from __future__ import annotations

from pydantic import Field

from mcp_server.answers.pages import page_brief
from mcp_server.page.loading import WaitUntil
from mcp_server.safety.script_urls import refuse_script_url
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, action
from targets.errors import ToolFailure

S = "browser_session"


class NewPageArgs(ActionArgs):
    url: str | None = Field(None, description="URL to open")
    background: bool = Field(False, description="Open unfocused")
    wait_until: WaitUntil = Field("load", description="Wait for this event")
    timeout_ms: int = Field(30000, ge=0, le=300000, description="Timeout in ms")


class ClosePageArgs(ActionArgs):
    stable_page_id: str = Field(description="From list_pages (p1, p2...)")


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
