"""``memory_snapshot``: a heap snapshot of the selected page under ``<artifacts>/memory/``, summarized.

The snapshot streams to disk (:mod:`cdp_core.recorders.heap`) and is summarized from the
file in a worker thread with compact arrays (:mod:`cdp_core.heap_snapshot`); a small
``.summary.json`` beside it keeps the per-constructor table, so ``compare_to`` an earlier
snapshot needs no second parse. The file opens in DevTools (Memory > Load profile).
Taking it runs a garbage collection in the page and pauses its scripts for the walk; it
changes nothing the user sees, so it is allowed on the user's Chrome and on background tabs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field

from cdp_core.errors import CDPException
from cdp_core.heap_snapshot import HeapSnapshotError, compare, read_heap_snapshot, summarize_heap
from cdp_core.recorders.heap import take_heap_snapshot
from mcp_server.server.registry import ActionArgs, ActionResult, action
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from mcp_server.server.context import ToolContext

__all__ = ["MemorySnapshotArgs", "heap_summary"]

KIND = "memory"
SUFFIX = ".heapsnapshot"
SIDECAR = ".summary.json"
TOP = 6


class MemorySnapshotArgs(ActionArgs):
    compare_to: str | None = Field(None, description=".heapsnapshot to diff against")


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + SIDECAR)


def heap_summary(path: Path) -> dict[str, Any]:
    """The summary of a snapshot file: from its sidecar when there is one, else parsed (slow)."""
    side = _sidecar(path)
    try:
        stat = path.stat()
        cached: dict[str, Any] = json.loads(side.read_text(encoding="utf-8"))
        if cached.get("fileBytes") == stat.st_size:
            return cached
    except (OSError, ValueError):
        pass
    summary = summarize_heap(read_heap_snapshot(path), top=TOP)
    summary["fileBytes"] = path.stat().st_size
    try:
        side.write_text(json.dumps(summary, separators=(",", ":")), encoding="utf-8")
    except OSError:
        pass  # a read-only folder: the summary is still returned
    return summary


def _kb(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if abs(size) >= 1e6 else f"{size / 1e3:.0f} KB" if abs(size) >= 1e3 else f"{size} B"


def _signed_kb(size: int) -> str:
    return ("+" if size >= 0 else "") + _kb(size)


def _resolve_earlier(ctx: ToolContext, raw: str) -> Path:
    path = ctx.artifacts.resolve_inside(raw)
    if not path.is_file():
        in_kind = ctx.artifacts.resolve_inside(raw, kind=KIND)
        path = in_kind if in_kind.is_file() else path
    if not path.is_file():
        raise ToolFailure(
            ErrorCode.FILE_NOT_FOUND,
            f"no heap snapshot at {raw}",
            hint="pass the snapshotPath of an earlier memory_snapshot answer",
            compare_to=raw,
        )
    return path


@action(
    "browser_session",
    "memory_snapshot",
    MemorySnapshotArgs,
    description="Heap snapshot to artifacts/memory/ (DevTools opens it): sizes, top constructors, detached DOM",
    lock="page",
    takes="seconds for a large heap (the summary runs in a worker thread); progress: bytes written, then summarizing",
)
async def memory_snapshot(ctx: ToolContext, args: MemorySnapshotArgs) -> ActionResult:
    """Take a heap snapshot of the selected page, save it and summarize it (optionally against an earlier one)."""
    earlier = _resolve_earlier(ctx, args.compare_to) if args.compare_to else None
    page = await ctx.page()
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    dest = ctx.artifacts.dir(KIND) / f"heap-{stamp}{SUFFIX}"
    n = 2
    while dest.exists():
        dest = dest.with_name(f"heap-{stamp}-{n}{SUFFIX}")
        n += 1
    try:
        # Like a trace, a heap snapshot being streamed to its file must not be cut at the call bound.
        with ctx.hold.overrun_allowed() if ctx.hold is not None else contextlib.nullcontext():
            result = await take_heap_snapshot(page.session, dest, progress_cb=ctx.report_progress)
    except CDPException as exc:
        lost = page.closed or page.session.closed
        raise ToolFailure(
            ErrorCode.PAGE_CLOSED if lost else ErrorCode.CDP_ERROR,
            f"the heap snapshot could not be taken: {exc}",
            hint="select a live page and retry",
            stable_page_id=page.stable_page_id,
        ) from None
    await ctx.report_progress(result.bytes_written, None, "summarizing the snapshot")

    def both() -> tuple[dict[str, Any], dict[str, Any] | None]:
        # The earlier one first: its sidecar usually makes it instant, so a cut leaves the new one.
        earlier_summary = heap_summary(earlier) if earlier is not None else None
        return heap_summary(result.path), earlier_summary

    # The summary of a very large heap can outlast the call bound: the answer then gives the
    # file, and the summary goes on in its thread (it writes the sidecar a later call reads).
    work = asyncio.ensure_future(asyncio.to_thread(both))
    wait_s, _cut = ctx.bound(600.0, reserve_s=2.0)
    try:
        summary, before = await asyncio.wait_for(asyncio.shield(work), wait_s)
    except TimeoutError:
        work.add_done_callback(lambda f: f.exception() if not f.cancelled() else None)
        rel = ctx.artifacts.relative(result.path)
        return ActionResult(
            text=(
                f"Heap snapshot {rel} ({_kb(result.bytes_written)}) saved; its summary takes longer than this call "
                f"may (MCP_MAX_CALL_SECONDS) and goes on in the background. Open the file in DevTools > Memory, "
                f"or pass it as compare_to of a later memory_snapshot (by then summarized)."
            ),
            data={"snapshotPath": rel, "bytes": result.bytes_written, "summaryPending": True},
        )
    except HeapSnapshotError as exc:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"cannot read the heap snapshot: {exc}",
            hint="compare_to must be a .heapsnapshot saved by memory_snapshot or DevTools",
        ) from None
    rel = ctx.artifacts.relative(result.path)
    data: dict[str, Any] = {
        "snapshotPath": rel,
        "bytes": result.bytes_written,
        "seconds": round(result.seconds, 2),
        "nodeCount": summary["nodeCount"],
        "totalSize": summary["totalSize"],
        # constructor rows [name, count, bytes] (self size in one list, retained size in the other)
        "columns": ["name", "count", "bytes"],
        "topBySelfSize": [_row(c, "selfSize") for c in summary["topBySelfSize"]],
        "topByRetainedSize": [_row(c, "retainedSize") for c in summary["topByRetainedSize"]],
    }
    detached = summary["detachedNodes"]
    if detached["count"]:
        data["detachedDomNodes"] = {
            "count": detached["count"],
            "selfSize": detached["selfSize"],
            "byTag": {d["tag"]: d["count"] for d in detached["byTag"]},
        }
    lines = [
        f"Heap snapshot {rel} ({_kb(result.bytes_written)}, open in DevTools > Memory): "
        f"{summary['nodeCount']:,} objects, {_kb(summary['totalSize'])} self size.",
        "Top by retained size: "
        + ", ".join(f"{c['name']} {_kb(c['retainedSize'])} ({c['count']:,})" for c in summary["topByRetainedSize"])
        + ".",
        "Top by self size: "
        + ", ".join(f"{c['name']} {_kb(c['selfSize'])} ({c['count']:,})" for c in summary["topBySelfSize"])
        + ".",
    ]
    if detached["count"]:
        tags = ", ".join(f"{d['tag']} {d['count']}" for d in detached["byTag"])
        lines.append(f"Detached DOM nodes: {detached['count']} ({tags}), {_kb(detached['selfSize'])}.")
    else:
        lines.append("Detached DOM nodes: none.")
    if before is not None and earlier is not None:
        growth = compare(before, summary, top=TOP)
        data["comparedTo"] = ctx.artifacts.relative(earlier)
        data["growth"] = [[g["name"], g["countDelta"], g["sizeDelta"]] for g in growth]  # the same columns
        data["totalSizeDelta"] = summary["totalSize"] - before["totalSize"]
        grew = ", ".join(f"{g['name']} {g['countDelta']:+,} ({_signed_kb(g['sizeDelta'])})" for g in growth)
        lines.append(
            f"Since {data['comparedTo']}: total {_signed_kb(data['totalSizeDelta'])}; "
            f"{grew or 'no constructor changed'}."
        )
    return ActionResult(text="\n".join(lines), data=data)


def _row(c: dict[str, Any], key: str) -> list[Any]:
    return [c["name"], c["count"], c[key]]
