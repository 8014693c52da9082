"""Which tab the agent works on: list_pages, select_page (by id, URL or title), get_current_page.

Selecting never brings a tab to front and never navigates: the selection is the server's, the
user's Chrome stays as they left it.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from mcp_server.answers.models import PageBrief, PagesAnswer
from mcp_server.answers.pages import (
    page_brief,
    page_line,
    pages_listing,
)
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action

S = "browser_session"


class NoArgs(ActionArgs):
    pass


class SelectPageArgs(ActionArgs):
    page_id: int | None = Field(None, description="Index from list_pages")
    stable_page_id: str | None = Field(None, description="From list_pages (p1, p2...)")
    url_contains: str | None = Field(None, description="URL substring")
    title_contains: str | None = Field(None, description="Title substring")
    bring_to_front: bool = Field(False, description="Also focus the tab")


class SelectByUrlArgs(ActionArgs):
    url_contains: str = Field(description="URL substring")
    bring_to_front: bool = Field(False, description="Also focus the tab")


class SelectByTitleArgs(ActionArgs):
    title_contains: str = Field(description="Title substring")
    bring_to_front: bool = Field(False, description="Also focus the tab")


class SelectedAnswer(Answer):
    selected: PageBrief


class CurrentPageAnswer(Answer):
    page: PageBrief


@action(S, "list_pages", NoArgs, read_only=True, lock="read", result=PagesAnswer)
async def list_pages(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """Tabs of the active target with page_id, stable_page_id and the selected one."""
    lines, data = pages_listing(await ctx.manager.list_pages())
    return ActionResult(text="\n".join(lines), data=data)


async def _select(ctx: ToolContext, **selector: Any) -> ActionResult:
    info = await ctx.manager.select_page(**selector)
    page = page_brief(info.get("selected") if isinstance(info, dict) else None)
    if page is None:
        return ActionResult(text="no page selected", data={})
    # "selected" and the target are what the call did and where: said by the answer, not per tab
    brief = {k: v for k, v in page.items() if k not in ("selected", "target")}
    return ActionResult(
        text=f"selected {page_line(brief).strip()}",
        data={"selected": brief},
        message=f"selected {brief['stable_page_id']}",
    )


@action(S, "select_page", SelectPageArgs, lock="state", result=SelectedAnswer)
async def select_page(ctx: ToolContext, args: SelectPageArgs) -> ActionResult:
    """Select a tab by page_id, stable_page_id, url_contains or title_contains (never navigates)."""
    return await _select(ctx, **args.model_dump())


@action(S, "select_page_by_url", SelectByUrlArgs, lock="state", result=SelectedAnswer)
async def select_page_by_url(ctx: ToolContext, args: SelectByUrlArgs) -> ActionResult:
    """Select the one tab whose URL contains url_contains."""
    return await _select(ctx, url_contains=args.url_contains, bring_to_front=args.bring_to_front)


@action(S, "select_page_by_title", SelectByTitleArgs, lock="state", result=SelectedAnswer)
async def select_page_by_title(ctx: ToolContext, args: SelectByTitleArgs) -> ActionResult:
    """Select the one tab whose title contains title_contains."""
    return await _select(ctx, title_contains=args.title_contains, bring_to_front=args.bring_to_front)


@action(S, "get_current_page", NoArgs, read_only=True, lock="read", result=CurrentPageAnswer)
async def get_current_page(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """The selected page (no launch): ids, title, url, capturedSince."""
    page = await ctx.page(launch_if_needed=False)
    listing = await ctx.manager.list_pages()
    info = next((p for p in listing if p.get("stable_page_id") == page.stable_page_id), None)
    if info is None:
        info = page.info(selected=True)
    brief = page_brief(info)
    return ActionResult(text=f"current page: {page_line(brief).strip()}", data={"page": brief})
