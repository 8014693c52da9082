"""navigate: the selected tab to a URL (the legacy ``browser_navigate``), bounded by the call.

A navigation the agent asked for is the only kind this server makes in the user's Chrome. The
answer says where the tab landed, the HTTP status and the server's redirects (a 302 to a login
page), and launches the internal browser when no browser is attached."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mcp_server.answers.lean import page_title
from mcp_server.answers.pages import move_notes
from mcp_server.evidence.dialogs import no_dialog
from mcp_server.evidence.followup import last_id
from mcp_server.evidence.redirects import server_redirects
from mcp_server.page.loading import LOAD_TAKES, StatusFn, bounded_load
from mcp_server.safety.script_urls import refuse_script_url
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action

S = "browser_session"


class NavigateResult(Answer):
    url: str
    title: str | None = None
    httpStatus: int | None = None
    target: str
    stable_page_id: str
    relaunched: bool = False
    #: the user's Chrome had been detached: this navigate started the internal browser
    launchedAfterDetach: bool = False
    #: the server's redirects that led here, oldest first: ``{url, status}`` (a 302 to a login page)
    redirects: list[dict[str, Any]] = []


# -- navigate -------------------------------------------------------------------------------


class NavigateArgs(ActionArgs):
    url: str = Field(description="URL to open")
    wait_until: Literal["load", "domcontentloaded", "networkidle", "commit"] = Field(
        "load", description="Wait for this event"
    )
    timeout_ms: int = Field(30000, ge=0, le=300000, description="Timeout in ms")


@action(
    S,
    "navigate",
    NavigateArgs,
    legacy="browser_navigate",
    destructive=True,
    result=NavigateResult,
    lock="page",
    takes=LOAD_TAKES,
)
async def navigate(ctx: ToolContext, args: NavigateArgs) -> ActionResult:
    """Open a URL in the selected page (starts the internal browser when no target is active)."""
    refuse_script_url(args.url, evaluate_enabled=ctx.settings.evaluate_enabled)
    if ctx.ready_page() is None:
        # Nothing to navigate in yet (navigate launches or attaches first), or the tab is gone (it
        # says so): a change of browser state, so no other call runs meanwhile.
        async with ctx.exclusively():
            return await _navigate(ctx, args)
    page = await ctx.page(launch_if_needed=False)  # the page to ourselves until the call ends
    watch = await no_dialog(ctx, page, "navigate")  # Chrome would hold the navigation until it is answered
    return await _navigate(ctx, args, watch)


async def _navigate(ctx: ToolContext, args: NavigateArgs, watch: Any = None) -> ActionResult:
    before = ctx.ready_page()
    since_id = last_id(before.data.get("network")) if before is not None else 0

    async def load(timeout_ms: int, on_status: StatusFn) -> dict[str, Any]:
        return await ctx.manager.navigate(
            args.url, wait_until=args.wait_until, timeout_ms=timeout_ms, on_status=on_status
        )

    outcome = await bounded_load(
        ctx,
        what=f"navigate to {args.url}",
        wait_until=args.wait_until,
        timeout_ms=args.timeout_ms,
        load=load,
        watch=watch,  # the page's beforeunload prompt answers at once
    )
    if isinstance(outcome, ActionResult):
        return outcome  # status "waiting": the page goes on loading, wait_for continues
    info = dict(outcome)
    if "status" in info:  # the HTTP status; "status" is the envelope's ok/error
        info["httpStatus"] = info.pop("status")
    url = info.get("url", args.url)
    title = info.get("title")
    text = f"Navigated {info.get('stable_page_id')} ({info.get('target')}) to {url}"
    if title:
        text += f" ({page_title(title)})"
    if info.get("httpStatus") is not None:
        text += f", HTTP {info['httpStatus']}"
    after = ctx.ready_page()
    hops = server_redirects(after.data.get("network"), url, since_id if after is before else 0) if after else []
    if hops:
        info["redirects"] = hops
        text += ", redirected by the server from " + " -> ".join(f"{h['url']} ({h['status']})" for h in hops)
    if info.get("relaunched"):
        text += "; the internal browser had gone away and was relaunched"
    if info.get("launchedAfterDetach"):
        text += "; the user's Chrome was detached, so this started the internal browser (not the user's Chrome)"
    text += move_notes(info)
    return ActionResult(text=text, data=info)
