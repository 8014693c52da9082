"""``capture_mark``: a named point in the capture, for ``debug_bundle since_mark`` to read after.

The workflow it serves: after a patch, the agent marks, the person repeats the failing action,
and the bundle since the mark says whether the failure is gone. The mark notes the selected tab's
newest network and console ids (so "after" is exact, not by clock) and what the tab shows the
person (alerts, messages, invalid fields), which the bundle compares with what it shows then.
Nothing here navigates or changes the page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cdp_core.errors import CDPException
from mcp_server.evidence.dialogs import dialog_watch
from mcp_server.evidence.followup import last_id
from mcp_server.evidence.marks import marks_of
from mcp_server.features.bundle.actions import on_screen_items
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action
from targets.errors import ToolFailure

if TYPE_CHECKING:
    from mcp_server.server.context import ToolContext

__all__ = ["CaptureMarkArgs"]


class CaptureMarkArgs(ActionArgs):
    """No arguments: the mark is named ``m1``, ``m2``... (a label would cost every tools/list its tokens)."""


class MarkAnswer(Answer):
    #: name (m1), at, page, the newest network and console ids then (what comes after has higher
    #: ids), how many messages were on screen. One object, the key debug_bundle since_mark answers
    #: it under too: every key costs each tools/list its outputSchema bytes
    mark: dict[str, Any] | None = None
    hint: str | None = None


@action(
    "browser_session",
    "capture_mark",
    CaptureMarkArgs,
    lock="page",
    read_only=True,
    result=MarkAnswer,
)
async def capture_mark(ctx: ToolContext, args: CaptureMarkArgs) -> ActionResult:
    """Mark the capture now; debug_bundle since_mark= shows what came after, and what changed."""
    page = await ctx.page()
    network, console = page.data.get("network"), page.data.get("console")
    screen: tuple[dict[str, Any], ...] = ()
    notes = []
    try:
        blocked = (await dialog_watch(ctx, page)).open is not None
    except CDPException:
        blocked = False
    if blocked:
        notes.append("a JavaScript dialog is open: what the page shows was not read")
    else:
        try:
            screen = tuple(await on_screen_items(ctx, page))
        except (CDPException, ToolFailure) as exc:
            notes.append(f"on-screen messages unavailable: {exc}")
    since = [r.captured_since for r in (network, console) if r is not None and r.captured_since]
    mark = marks_of(ctx).add(
        page=page.stable_page_id,
        network_id=last_id(network),
        console_id=last_id(console),
        captured_since=min(since) if since else None,
        on_screen=screen,
    )
    data: dict[str, Any] = {"mark": {**mark.brief(), "onScreen": len(screen)}}
    hint = f"let the person repeat the action, then debug_bundle since_mark={mark.name}"
    data["hint"] = "; ".join([*notes, hint])
    text = (
        f"mark {mark.name} at {mark.at} on {page.stable_page_id}: after network #{mark.network_id}, "
        f"console #{mark.console_id}; {len(screen)} message(s) on screen"
    )
    text += "".join(f"\nnote: {n}" for n in notes) + f"\nnext: {hint}"
    return ActionResult(text=text, data=data, message=f"mark {mark.name}")
