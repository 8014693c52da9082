"""The flat legacy tools around the page: the captured error and console lists, tabs, frames, downloads.

Split from :mod:`.legacy` (the page's own actions: navigate, DOM, screenshot, JS) by what they
read: the recorders' lists, the browser's tabs and the page's frames, and files the browser
saved, rather than the page's document. Same contract as there: each keeps the semantics the
legacy tool had and runs the same code under ``browser_session``. Listed right after ``legacy``
in :data:`mcp_server.actions.MODULES`, so tools/list keeps its order.
"""

from __future__ import annotations

import asyncio
import mimetypes
import os
from pathlib import Path
from typing import Any

from pydantic import Field

from cdp_core.recorders.listing import Selection
from mcp_server.actions.evidence.file_reader import read_text_prefix
from mcp_server.actions.page.pagejs import frames_of, no_dialog
from mcp_server.core.answers import Answer, ListAnswer, PageBrief
from mcp_server.core.context import ToolContext
from mcp_server.core.registry import ActionArgs, ActionResult, action
from mcp_server.render.capture_render import console_listing, network_listing
from mcp_server.render.lean import Keep
from mcp_server.render.pages_render import page_brief, page_line
from targets.errors import ErrorCode, ToolFailure

S = "browser_session"


class SelectedResult(Answer):
    selected: PageBrief


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


class DownloadResult(Answer):
    columns: list[str] = []
    files: list[Any] = Field([], description="rows [path, bytes] (without path: the listing)")
    total: int | None = None
    path: str | None = None
    bytes: int | None = None
    mimeType: str | None = None
    sha256: str | None = None
    binary: bool = False
    content: str | None = None
    truncated: bool = False
    length: int | None = None


# -- network errors / console logs (capture recorders) --------------------------------------


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
    from mcp_server.facts.capture import network_of

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
    from mcp_server.actions.evidence.capture import check_console_types
    from mcp_server.facts.capture import console_of

    check_console_types(args.types)
    page = await ctx.page()
    recorder = console_of(page)
    sel = recorder.query(types=args.types, limit=args.limit)
    text, data = console_listing(
        sel, page_url=page.url, since=recorder.captured_since, evicted=recorder.evicted, since_id=None
    )
    return ActionResult(text=text, data=data)


# -- tabs and frames ------------------------------------------------------------------------


def _frame_line(f: dict[str, Any]) -> str:
    parent = f" parent={f['parent_id']}" if f.get("parent_id") else ""
    return (
        f"{'*' if f['selected'] else ' '} [{f['frame_index']}] {f['name'] or '-'} <{f['url']}> id={f['frame_id']}"
        + parent
    )


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


# -- downloads ------------------------------------------------------------------------------


def _download_files(folder: Path) -> list[Path]:
    """The regular files under ``folder``; symlinks (to files or folders, dangling or not) are not
    followed: a link planted there must not list, size or read a file outside the downloads."""
    found = []
    for top, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(top, d))]
        for name in names:
            path = Path(top, name)
            if not path.is_symlink() and path.is_file():
                found.append(path)
    return sorted(found)


class ReadDownloadArgs(ActionArgs):
    path: str | None = Field(None, description="Artifacts file (state/ or downloads/)")
    max_chars: int = Field(20000, ge=100, le=500000, description="Cap on returned text")


@action(
    S,
    "read_downloaded_file",
    ReadDownloadArgs,
    legacy="browser_read_downloaded_file",
    read_only=True,
    result=DownloadResult,
    lock="read",
)
async def read_downloaded_file(ctx: ToolContext, args: ReadDownloadArgs) -> ActionResult:
    """Read a file the browser downloaded (under artifacts/downloads); without path, list them."""
    folder = ctx.artifacts.dir("downloads")
    files = await asyncio.to_thread(_download_files, folder)
    listing = [{"path": str(p.relative_to(folder)), "bytes": p.stat().st_size} for p in files[:200]]
    if not args.path:
        lines = [f"{f['path']} ({f['bytes']} bytes)" for f in listing]
        more = f"\n[{len(files) - len(listing)} more not listed]" if len(files) > len(listing) else ""
        data: dict[str, Any] = {"columns": ["path", "bytes"] if listing else None}
        data["files"] = [[f["path"], f["bytes"]] for f in listing]
        data["total"] = len(files)
        return ActionResult(text=f"{len(files)} downloaded file(s)\n" + "\n".join(lines) + more, data=data)
    target = ctx.artifacts.resolve_inside(args.path, kind="downloads")
    if not target.is_file():
        raise ToolFailure(
            ErrorCode.FILE_NOT_FOUND,
            f"no downloaded file {args.path!r}",
            hint="call read_downloaded_file without path to list downloads",
            files=listing[:50],
        )
    # Streamed: a 300 MB download costs a 1 MiB buffer and the text shown, never the whole file.
    read = await asyncio.to_thread(read_text_prefix, target, args.max_chars)
    mime = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    data: dict[str, Any] = {"path": str(target), "bytes": read.size, "mimeType": mime, "sha256": read.sha256}
    if read.binary:
        data["binary"] = True
        return ActionResult(
            text=f"{target} : binary file, {read.size} bytes ({mime}), sha256 {data['sha256']}", data=data
        )
    content, truncated = read.text, read.chars > args.max_chars
    data.update(binary=False, content=Keep(content), truncated=truncated, length=read.chars)
    note = f"\n[truncated: {read.chars} chars, showing {args.max_chars}]" if truncated else ""
    head = f"{target}: {read.size} bytes ({mime}), sha256 {data['sha256']}\n"
    return ActionResult(text=head + content + note, data=data)
