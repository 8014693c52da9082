"""list_frames and select_frame: the frames of the selected page, and the one later actions run in.

Both are legacy tools too (``browser_list_frames``, ``browser_select_frame``) and keep the semantics those had.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from mcp_server.evidence.dialogs import no_dialog
from mcp_server.page.js import frames_of
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action
from targets.errors import ErrorCode, ToolFailure

S = "browser_session"


class FrameInfo(Answer):
    frame_id: str
    parent_id: str | None = None
    name: str = ""
    url: str | None = None
    frame_index: int
    selected: bool = False
    outOfProcess: bool | None = None


class FramesResult(Answer):
    frames: list[FrameInfo]


class FrameResult(Answer):
    frame: FrameInfo


def _frame_line(f: dict[str, Any]) -> str:
    parent = f" parent={f['parent_id']}" if f.get("parent_id") else ""
    return (
        f"{'*' if f['selected'] else ' '} [{f['frame_index']}] {f['name'] or '-'} <{f['url']}> id={f['frame_id']}"
        + parent
    )


@action(S, "list_frames", ActionArgs, legacy="browser_list_frames", read_only=True, result=FramesResult, lock="page")
async def list_frames(ctx: ToolContext, args: ActionArgs) -> ActionResult:
    """Frames of the selected page (index 0 is the main frame), with the selected one."""
    page = await ctx.page()
    await no_dialog(ctx, page, "list_frames")  # Page.getFrameTree waits for an open dialog too
    frames = await frames_of(page)
    lines = [_frame_line(f) for f in frames]
    return ActionResult(text=f"{len(frames)} frame(s):\n" + "\n".join(lines), data={"frames": frames})


class SelectFrameArgs(ActionArgs):
    frame_index: int | None = Field(None, ge=0, description="From list_frames (0 = main)")
    frame_id: str | None = Field(None, description="Frame id from list_frames")
    frame_name: str | None = Field(None, description="Frame name")
    url_contains: str | None = Field(None, description="Substring of the page/frame URL")


@action(S, "select_frame", SelectFrameArgs, legacy="browser_select_frame", result=FrameResult, lock="page")
async def select_frame(ctx: ToolContext, args: SelectFrameArgs) -> ActionResult:
    """Pick the frame later actions run in (frame_index 0 or no argument: the main frame)."""
    page = await ctx.page()
    await no_dialog(ctx, page, "select_frame")
    frames = await frames_of(page)
    given = {k: v for k, v in args.model_dump().items() if v is not None}
    if len(given) > 1:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"give one frame selector, got {', '.join(given)}")
    if not given:
        matches = frames[:1]
    elif args.frame_index is not None:
        matches = [f for f in frames if f["frame_index"] == args.frame_index]
    elif args.frame_id is not None:
        matches = [f for f in frames if f["frame_id"] == args.frame_id]
    elif args.frame_name is not None:
        matches = [f for f in frames if f["name"] == args.frame_name]
    else:
        matches = [f for f in frames if args.url_contains in (f["url"] or "")]
    if not matches:
        raise ToolFailure(
            ErrorCode.FRAME_NOT_FOUND,
            f"no frame matches {given}",
            hint="call list_frames and pick a frame_index",
            frames=[{k: f[k] for k in ("frame_index", "name", "url")} for f in frames],
        )
    if len(matches) > 1:
        raise ToolFailure(
            ErrorCode.AMBIGUOUS_MATCH,
            f"{len(matches)} frames match {given}",
            hint="use frame_index or frame_id",
            candidates=[{k: f[k] for k in ("frame_index", "frame_id", "name", "url")} for f in matches],
        )
    chosen = matches[0]
    page.active_frame = None if chosen["frame_index"] == 0 else chosen["frame_id"]
    chosen = {**chosen, "selected": True}
    return ActionResult(text=f"selected {_frame_line(chosen).strip()}", data={"frame": chosen})
