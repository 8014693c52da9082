"""Taking an accessibility snapshot of a tab with the tab's own uid registry, for every feature that needs one.

The snapshot action, debug_bundle and the element readers all go through here, so a uid means
the same node whichever of them handed it out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cdp_core import CDPSession
from cdp_core.recorders.accessibility import FrameNotFound, SelectorNotFound, SnapshotOptions, take_snapshot
from cdp_core.recorders.accessibility.format import Snapshot, SnapshotLine
from mcp_server.evidence.dialogs import dialog_watch, require_no_dialog
from mcp_server.input.element import registry_of
from mcp_server.server.context import ToolContext
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from targets import PageHandle


def child_sessions(page: PageHandle) -> dict[str, CDPSession]:
    """Out-of-process iframe sessions of the page by frame id (their target id)."""
    out: dict[str, CDPSession] = {}
    for record in list(page.sessions):
        if record.kind == "iframe" and not record.session.closed:
            target_id = record.target_info.get("targetId") or record.session.target_info.get("targetId")
            if target_id:
                out[target_id] = record.session
    return out


async def snapshot_page(ctx: ToolContext, page: PageHandle, options: SnapshotOptions) -> Snapshot:
    """Take a snapshot of ``page`` with our registry (also for other layers, e.g. debug_bundle)."""
    watch = await dialog_watch(ctx, page)
    require_no_dialog(watch, "snapshot")
    frame = options.frame
    if frame is None and page.active_frame:
        options.frame = page.active_frame  # select_frame applies to snapshots too
    options.engine = ctx.settings.snapshot_engine
    try:
        return await take_snapshot(page.session, registry_of(page), options, child_sessions=child_sessions(page))
    except SelectorNotFound as exc:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT, str(exc), hint="check the selector (frame: pick the frame with `frame`)"
        ) from None
    except FrameNotFound as exc:
        raise ToolFailure(ErrorCode.FRAME_NOT_FOUND, str(exc), hint="frames are listed in the snapshot") from None


async def on_screen(ctx: ToolContext, page: PageHandle) -> list[SnapshotLine]:
    """What the page tells the person now: its alerts, status and toast messages, error messages and
    invalid fields with what they say, whole, with the snapshot's uids (hidden ones are not shown).

    The base of the agent's snapshot diffs stays where it was: this is not a snapshot the agent took.
    """
    registry = registry_of(page)
    previous = registry.previous
    try:
        snap = await snapshot_page(ctx, page, SnapshotOptions(messages_only=True))
    finally:
        registry.previous = previous
    return snap.lines
