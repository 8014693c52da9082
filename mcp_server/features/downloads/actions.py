"""read_downloaded_file: a file the page downloaded, read from the downloads folder of the artifacts root only."""

from __future__ import annotations

import asyncio
import mimetypes
import os
import time
from pathlib import Path
from typing import Any

from pydantic import Field

from mcp_server.answers.lean import Keep
from mcp_server.features.downloads.file_reader import read_text_prefix
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action
from targets.errors import ErrorCode, ToolFailure

S = "browser_session"


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
    inProgress: int | None = None


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


#: How long a read waits for downloads the page began and the browser has not saved yet.
SETTLE_SECONDS = 30.0


async def _settle(ctx: ToolContext) -> int:
    """Wait (bounded by the call) for the downloads the internal browser's pages began to be saved,
    so a file whose download event came late is listed; how many are still not saved.

    The pages' network capture saw each begin (``Page.downloadWillBegin``); the browser's saver
    gets it on another connection, possibly later. The wait ends ``SETTLE_SECONDS`` after the newest
    download began, so one that never arrives (cancelled in the browser) costs no later call a wait."""
    begun = [
        d
        for page in ctx.manager.launch.registry.pages
        if (network := page.data.get("network")) is not None
        for d in list(network.downloads)
    ]
    if not begun:
        return 0
    newest = max(float(d.get("began") or 0.0) for d in begun)
    timeout = min(ctx.bound(SETTLE_SECONDS)[0], max(0.0, SETTLE_SECONDS - (time.monotonic() - newest)))
    return len(await ctx.manager.settle_downloads([str(d.get("url") or "") for d in begun], timeout))


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
    arriving = await _settle(ctx)
    files = await asyncio.to_thread(_download_files, folder)
    listing = [{"path": str(p.relative_to(folder)), "bytes": p.stat().st_size} for p in files[:200]]
    if not args.path:
        lines = [f"{f['path']} ({f['bytes']} bytes)" for f in listing]
        more = f"\n[{len(files) - len(listing)} more not listed]" if len(files) > len(listing) else ""
        data: dict[str, Any] = {"columns": ["path", "bytes"] if listing else None}
        data["files"] = [[f["path"], f["bytes"]] for f in listing]
        data["total"] = len(files)
        if arriving:
            data["inProgress"] = arriving
            more += f"\n[{arriving} download(s) begun by the page and not saved yet: call again to see them]"
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
    data = {"path": str(target), "bytes": read.size, "mimeType": mime, "sha256": read.sha256}
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
