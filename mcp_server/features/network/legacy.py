"""get_network_errors, the legacy tool's answer: failed requests and HTTP errors from the capture, as text lines."""

from __future__ import annotations

from pydantic import Field

from cdp_core.recorders.listing import Selection
from mcp_server.answers.models import ListAnswer
from mcp_server.answers.network import network_listing
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, action

S = "browser_session"


class NetworkErrorsArgs(ActionArgs):
    limit: int = Field(50, ge=1, le=1000, description="Newest entries")


@action(
    S,
    "get_network_errors",
    NetworkErrorsArgs,
    legacy="browser_get_network_errors",
    read_only=True,
    result=ListAnswer,
    lock="read",
)
async def get_network_errors(ctx: ToolContext, args: NetworkErrorsArgs) -> ActionResult:
    """Failed requests and HTTP >= 400 responses captured on the selected page."""
    from mcp_server.evidence.capture import network_of

    page = await ctx.page()
    recorder = network_of(page)
    by_id = {e["id"]: e for e in recorder.list(status_min=400)}
    by_id.update({e["id"]: e for e in recorder.list(failed_only=True)})
    errors = [by_id[k] for k in sorted(by_id)]
    sel = Selection(errors[-args.limit :], earlier=max(0, len(errors) - args.limit))
    text, data = network_listing(
        sel,
        page_url=page.url,
        since=recorder.captured_since,
        evicted=recorder.evicted,
        since_id=None,
        noun="network error",
    )
    return ActionResult(text=text, data=data)
