"""switch_tab, the legacy tool: selects a tab by index or id; never brings it to front."""

from __future__ import annotations

from pydantic import Field

from mcp_server.answers.models import PageBrief
from mcp_server.answers.pages import page_brief, page_line
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action

S = "browser_session"


class SelectedResult(Answer):
    selected: PageBrief


class SwitchTabArgs(ActionArgs):
    page_id: int | None = Field(None, description="Index from list_pages")
    stable_page_id: str | None = Field(None, description="From list_pages (p1, p2...)")


@action(S, "switch_tab", SwitchTabArgs, legacy="browser_switch_tab", result=SelectedResult, lock="state")
async def switch_tab(ctx: ToolContext, args: SwitchTabArgs) -> ActionResult:
    """Select another tab by page_id or stable_page_id (never navigates)."""
    selector = {k: v for k, v in args.model_dump().items() if v is not None}
    info = await ctx.manager.select_page(**selector)
    page = page_brief(info.get("selected") if isinstance(info, dict) else None) or {}
    return ActionResult(text=f"switched to {page_line(page).strip()}", data={"selected": page})
