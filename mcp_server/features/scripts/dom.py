"""get_dom: the page's (or the selected frame's) DOM as HTML, bounded, page-set text marked as the page's."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from mcp_server.answers.lean import Keep
from mcp_server.evidence.dialogs import no_dialog
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action
from targets.errors import ErrorCode, ToolFailure

S = "browser_session"


class DomResult(Answer):
    url: str
    html: str
    length: int
    truncated: bool = False


class GetDomArgs(ActionArgs):
    selector: str | None = Field(None, description="CSS selector: only this subtree")
    max_chars: int = Field(20000, ge=100, le=500000, description="Cap on returned text")


@action(S, "get_dom", GetDomArgs, legacy="browser_get_dom", read_only=True, result=DomResult, lock="page")
async def get_dom(ctx: ToolContext, args: GetDomArgs) -> ActionResult:
    """Cleaned HTML of the page or a subtree (no scripts/styles, trimmed, size-capped)."""
    from mcp_server.features.scripts.dom_reader import read_dom
    from mcp_server.page.snapshots import child_sessions

    page = await ctx.page()
    await no_dialog(ctx, page, "get_dom")
    # An isolated world of ours: the page's CSP, Trusted Types and scripts do not see the read.
    out = await read_dom(page, child_sessions(page), selector=args.selector, max_chars=args.max_chars)
    if out is None:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"no element matches {args.selector!r}",
            hint="check the selector (get_dom without selector returns the whole page)",
        )
    truncated = out["truncated"]
    about = "about " if out.get("lengthEstimated") else ""
    note = f"\n[truncated: {about}{out['length']} chars, showing {args.max_chars}]" if truncated else ""
    data: dict[str, Any] = {"url": out["url"], "html": Keep(out["html"]), "length": out["length"]}
    data["truncated"] = truncated
    if out["redactedValues"]:
        data["redactedValues"] = out["redactedValues"]  # token-carrying input values shown as [redacted]
    text = f"DOM of {out['url']}:\n" + out["html"] + note
    if out.get("noRoot"):  # an empty read (html "", length 0) that is not an empty page: say which
        text = f"DOM of {out['url']}: the document has no root element (a script removed it, or it is being replaced)"
    return ActionResult(text=text, data=data)
