"""get_console_logs, the legacy tool's answer: the console timeline as text lines, by type."""

from __future__ import annotations

from pydantic import Field

from mcp_server.answers.console import console_listing
from mcp_server.answers.models import ListAnswer
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, action

S = "browser_session"


class ConsoleLogsArgs(ActionArgs):
    types: list[str] | None = Field(None, description="error, warning, log, pageerror, issue...")
    limit: int = Field(50, ge=1, le=1000, description="Newest entries")


@action(
    S,
    "get_console_logs",
    ConsoleLogsArgs,
    legacy="browser_get_console_logs",
    read_only=True,
    result=ListAnswer,
    lock="read",
)
async def get_console_logs(ctx: ToolContext, args: ConsoleLogsArgs) -> ActionResult:
    """Console messages, uncaught errors and browser log entries of the selected page."""
    from mcp_server.evidence.capture import console_of
    from mcp_server.features.console.actions import check_console_types

    check_console_types(args.types)
    page = await ctx.page()
    recorder = console_of(page)
    sel = recorder.query(types=args.types, limit=args.limit)
    text, data = console_listing(
        sel, page_url=page.url, since=recorder.captured_since, evicted=recorder.evicted, since_id=None
    )
    return ActionResult(text=text, data=data)
