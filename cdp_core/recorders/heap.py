"""Heap snapshots streamed to disk: ``HeapProfiler.takeHeapSnapshot`` chunk by chunk.

Chrome sends the snapshot as ``HeapProfiler.addHeapSnapshotChunk`` events (a few hundred
KB each) before it answers the command. The event handler only queues each chunk (it runs
in the connection's reader, where nothing may block); a writer task appends them to
``<dest>.part`` from a worker thread, renamed to ``dest`` once the command answered and every
chunk is on disk, so a failed snapshot never leaves a file that looks complete. Memory stays
at a few chunks whatever the heap's size. The file is what DevTools' Memory panel saves and
loads (``.heapsnapshot``).

Taking a snapshot runs a full garbage collection in the page and pauses its JavaScript
while V8 walks the heap (longer the larger the heap); nothing else changes.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from ..connection import CDPSession
from ..errors import CDPException
from ..events import CDPEvent

__all__ = ["take_heap_snapshot", "HeapSnapshotResult"]

ProgressCallback = Callable[[int, int | None, str], Awaitable[None] | None]


@dataclass
class HeapSnapshotResult:
    path: Path
    bytes_written: int
    chunks: int
    seconds: float


async def take_heap_snapshot(
    session: CDPSession,
    dest: str | os.PathLike[str],
    *,
    progress_cb: ProgressCallback | None = None,
    timeout: float = 300.0,
) -> HeapSnapshotResult:
    """Take a heap snapshot of the session's page and stream it to ``dest``.

    ``progress_cb(done, total, message)`` gets V8's progress (objects walked of total) and
    then the bytes written. Raises ``CDPException`` (the page went away, the browser refused)
    or ``OSError`` (the file); ``dest`` exists only after success.
    """
    path = Path(dest)
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    progress: list[tuple[int, int]] = []

    def on_event(event: CDPEvent) -> None:  # in the reader: only queue
        if event.method == "HeapProfiler.addHeapSnapshotChunk":
            queue.put_nowait(str(event.params.get("chunk", "")))
        elif event.method == "HeapProfiler.reportHeapSnapshotProgress":
            progress.append((int(event.params.get("done", 0)), int(event.params.get("total", 0))))

    written = 0
    chunks = 0

    async def report(done: int, total: int | None, message: str) -> None:
        if progress_cb is not None:
            outcome = progress_cb(done, total, message)
            if outcome is not None:
                await outcome

    async def writer() -> None:
        nonlocal written, chunks
        fh = await asyncio.to_thread(open, part, "w", encoding="utf-8", newline="")
        try:
            while True:
                chunk = await queue.get()
                if chunk is None:
                    return
                await asyncio.to_thread(fh.write, chunk)
                written += len(chunk.encode("utf-8")) if not chunk.isascii() else len(chunk)
                chunks += 1
                if chunks % 16 == 0:
                    await report(written, None, f"saved {written / 1e6:.1f} MB of heap snapshot")
        finally:
            await asyncio.to_thread(fh.close)

    started = time.perf_counter()
    sub = session.on(("HeapProfiler.addHeapSnapshotChunk", "HeapProfiler.reportHeapSnapshotProgress"), on_event)
    task = asyncio.create_task(writer())
    ok = False
    try:
        await report(0, None, "V8 is walking the heap")
        await session.send(
            "HeapProfiler.takeHeapSnapshot",
            {"reportProgress": progress_cb is not None, "captureNumericValue": False},
            timeout=timeout,
        )
        queue.put_nowait(None)
        await task
        os.replace(part, path)
        ok = True
    finally:
        sub.cancel()
        if not ok:
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, OSError, CDPException):
                pass
            part.unlink(missing_ok=True)
    return HeapSnapshotResult(path=path, bytes_written=written, chunks=chunks, seconds=time.perf_counter() - started)
