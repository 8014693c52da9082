"""Performance traces through the ``Tracing`` domain, streamed straight to a file.

Which session: ``Tracing`` works on a page's own flattened session (measured on Chromium
156: ``Tracing.start`` on the page session is accepted, ``Tracing.tracingComplete`` and the
``IO`` stream come back on that same session). Such a trace holds the page's renderer
process(es) plus the browser and GPU processes, not the other tabs' renderers; the same
call on the browser session traces every process (a much larger trace, even for one tab). We use
the page session: the trace is about the page the agent asked for, and attached to a
user's Chrome it does not record what their other tabs do. Chrome runs one trace at a
time per browser, so a second tracer (another page, or another client such as DevTools)
is refused by the browser; :class:`TraceAlreadyRunning` says so.

What is written: ``transferMode: ReturnAsStream`` makes Chrome keep the trace and hand
out an ``IO`` stream handle once ``Tracing.tracingComplete`` arrives. We read it with
``IO.read`` in chunks and write each chunk to disk as it comes, so memory stays flat
however big the trace is, and always ``IO.close`` the handle (Chrome keeps the data until
then). The stream is the Trace Event "JSON Object Format", ``{"traceEvents": [...],
"metadata": {...}}``, one event per line: the format Chrome DevTools' Performance panel,
``chrome://tracing`` and Perfetto open. We write it as it comes, to ``<dest>.part``
first and renamed on success, so a failed read never leaves a truncated file that looks
complete; the values of secret-named URL parameters (``?token=``) are masked on the way
(:mod:`.masking`: values only, the file stays the same JSON), unless ``mask_urls=False``.
"""

from __future__ import annotations

import asyncio
import base64
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...connection import CDPSession
from ...errors import CDPError, CDPException, CDPTimeout, ConnectionClosed
from ...events import CDPEvent
from .masking import TraceMasker

__all__ = [
    "DEFAULT_CATEGORIES",
    "Tracer",
    "TraceResult",
    "TraceError",
    "TraceAlreadyRunning",
    "NoTraceRunning",
]

#: The categories Chrome DevTools' Performance panel records (with JS samples from the CPU
#: profiler), so a saved trace looks in DevTools like one recorded there. Left out on
#: purpose: ``toplevel`` and ``v8`` (each roughly doubles the trace with scheduler and
#: compiler internals nobody reads) and invalidation tracking (DevTools' opt-in extra).
DEFAULT_CATEGORIES: tuple[str, ...] = (
    "-*",
    "devtools.timeline",
    "v8.execute",
    "blink.user_timing",
    "blink.console",
    "loading",
    "latencyInfo",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.timeline.frame",
    "disabled-by-default-devtools.timeline.stack",
    "disabled-by-default-v8.cpu_profiler",
)

#: IO.read chunk size. 1 MiB keeps each websocket message and each Python string small;
#: larger chunks gain little (see tests/bench/trace_bench.py).
DEFAULT_CHUNK_SIZE = 1024 * 1024

ProgressCallback = Callable[[int, str], Awaitable[None] | None]


async def _call(progress_cb: ProgressCallback | None, written: int, message: str) -> None:
    if progress_cb is not None:
        outcome = progress_cb(written, message)
        if outcome is not None:
            await outcome


class TraceError(CDPException):
    """A trace could not be started, completed or saved."""


class TraceAlreadyRunning(TraceError):
    """``start`` while this tracer (or another client of the browser) is tracing."""


class NoTraceRunning(TraceError):
    """``stop`` without a running trace."""


@dataclass
class TraceResult:
    """What :meth:`Tracer.stop` saved, and whether Chrome says it lost events."""

    path: Path
    bytes_written: int
    chunks: int
    data_loss_occurred: bool
    trace_format: str
    stream_compression: str
    started_at: float  # time.time() at start
    stopped_at: float  # time.time() when the file was complete
    categories: list[str] = field(default_factory=list)
    #: Seconds from ``Tracing.end`` to ``tracingComplete`` (Chrome flushing its buffers)
    #: and seconds spent reading the stream to disk.
    end_wait_s: float = 0.0
    read_s: float = 0.0
    #: Highest fill level (0..1) of Chrome's trace buffer reported while recording; near 1
    #: with ``data_loss_occurred`` means the buffer filled up and the end is missing.
    buffer_usage: float = 0.0


class Tracer:
    """One trace at a time on one session: ``await start()``, then ``await stop(path)``.

    The tracer never touches the page (no reload, no navigation); callers that want a
    page-load trace reload the page themselves after :meth:`start`.
    """

    def __init__(self, session: CDPSession, *, chunk_size: int = DEFAULT_CHUNK_SIZE, mask_urls: bool = True) -> None:
        self.session = session
        self.chunk_size = chunk_size
        #: mask secret-named URL parameters in the saved file (:mod:`.masking`); False: byte for byte
        self.mask_urls = mask_urls
        self._state = "idle"  # idle | starting | running | stopping
        self._categories: list[str] = []
        self._started_at = 0.0
        self._complete: asyncio.Future[CDPEvent] | None = None
        self._sub: Any = None
        self._unwatch_close: Any = None
        #: Highest ``Tracing.bufferUsage`` percentFull seen (0..1), when Chrome reports it.
        self.buffer_usage = 0.0

    @property
    def running(self) -> bool:
        """True from a successful :meth:`start` until :meth:`stop` finishes (or fails)."""
        return self._state in ("running", "stopping")

    @property
    def started_at(self) -> float | None:
        return self._started_at if self.running else None

    @property
    def categories(self) -> list[str]:
        return list(self._categories)

    def _on_event(self, event: CDPEvent) -> None:
        # Runs inline in the reader: only record, never await.
        if event.method == "Tracing.tracingComplete":
            if self._complete is not None and not self._complete.done():
                self._complete.set_result(event)
        elif event.method == "Tracing.bufferUsage":
            value = event.params.get("percentFull")
            if isinstance(value, int | float):
                self.buffer_usage = max(self.buffer_usage, float(value))

    async def start(self, categories: Sequence[str] | None = None) -> None:
        """``Tracing.start`` with ``ReturnAsStream``; raises :class:`TraceAlreadyRunning`.

        ``categories`` are Chrome category patterns (``-*`` excludes everything not
        listed, ``disabled-by-default-...`` opts in). The default is DevTools' set.
        """
        if self._state != "idle":
            raise TraceAlreadyRunning("a trace is already running on this page; stop it first")
        cats = list(categories) if categories else list(DEFAULT_CATEGORIES)
        included = [c for c in cats if not c.startswith("-")]
        excluded = [c[1:] for c in cats if c.startswith("-")]
        self._state = "starting"
        complete: asyncio.Future[CDPEvent] = asyncio.get_running_loop().create_future()
        self._complete = complete
        self.buffer_usage = 0.0

        def session_gone(session: CDPSession) -> None:
            if not complete.done():
                complete.set_exception(ConnectionClosed("the page's session closed during the trace"))
                complete.exception()  # mark retrieved: nobody may be waiting yet

        self._unwatch_close = self.session.on_close(session_gone)
        # Subscribe before starting: tracingComplete must not slip past us.
        self._sub = self.session.on(("Tracing.tracingComplete", "Tracing.bufferUsage"), self._on_event)
        try:
            await self.session.send(
                "Tracing.start",
                {
                    "traceConfig": {
                        "recordMode": "recordUntilFull",
                        "includedCategories": included,
                        "excludedCategories": excluded,
                    },
                    "transferMode": "ReturnAsStream",
                    "streamFormat": "json",
                    "streamCompression": "none",
                    "bufferUsageReportingInterval": 1000,
                },
            )
        except CDPError as exc:
            self._reset()
            if "already" in exc.message.lower():
                raise TraceAlreadyRunning(
                    f"the browser is already tracing (another page or client): {exc.message}"
                ) from exc
            raise TraceError(f"Tracing.start failed: {exc.message}") from exc
        except BaseException:
            self._reset()
            raise
        self._categories = cats
        self._started_at = time.time()
        self._state = "running"

    def _reset(self) -> None:
        if self._sub is not None:
            self._sub.cancel()
            self._sub = None
        if self._unwatch_close is not None:
            self._unwatch_close()
            self._unwatch_close = None
        self._state = "idle"

    async def stop(
        self,
        dest_path: str | os.PathLike[str],
        progress_cb: ProgressCallback | None = None,
        *,
        complete_timeout: float = 120.0,
    ) -> TraceResult:
        """End the trace and stream it to ``dest_path``; raises :class:`NoTraceRunning`.

        ``progress_cb(bytes_written, message)`` (sync or async) is called once with 0 while
        Chrome flushes (that alone takes seconds for a large trace), then after each chunk.
        The tracer is idle afterwards whatever happens, so a failed stop can be followed
        by a new start.
        """
        if self._state != "running":
            raise NoTraceRunning("no trace is running on this page; start one first")
        self._state = "stopping"
        dest = Path(dest_path)
        try:
            complete = self._complete
            assert complete is not None
            t_end = time.perf_counter()
            if not complete.done():
                await self.session.send("Tracing.end")
                # Chrome flushes its buffers before tracingComplete: seconds for a big trace.
                await _call(progress_cb, 0, "Chrome is flushing the trace buffers")
            # else: Chrome ended the trace by itself (buffer full or crash); just collect it.
            event = await asyncio.wait_for(asyncio.shield(complete), complete_timeout)
            params = event.params
            handle = params.get("stream")
            if not handle:
                raise TraceError("Tracing.tracingComplete came without a stream handle")
            t_read = time.perf_counter()
            written, chunks = await self._drain(handle, dest, progress_cb)
            t_done = time.perf_counter()
            return TraceResult(
                path=dest,
                bytes_written=written,
                chunks=chunks,
                data_loss_occurred=bool(params.get("dataLossOccurred", False)),
                trace_format=str(params.get("traceFormat", "json")),
                stream_compression=str(params.get("streamCompression", "none")),
                started_at=self._started_at,
                stopped_at=time.time(),
                categories=list(self._categories),
                end_wait_s=t_read - t_end,
                read_s=t_done - t_read,
                buffer_usage=self.buffer_usage,
            )
        except (CDPTimeout, TimeoutError) as exc:
            raise TraceError(f"the trace did not complete in time: {exc}") from exc
        except CDPError as exc:
            raise TraceError(f"{exc.method} failed: {exc.message}") from exc
        except ConnectionClosed as exc:
            raise TraceError(f"the page went away while the trace was being saved: {exc.reason}") from exc
        except OSError as exc:
            raise TraceError(f"cannot write the trace to {dest}: {exc}") from exc
        finally:
            self._reset()

    async def abort(self, *, complete_timeout: float = 30.0) -> None:
        """End a running trace and throw it away (``IO.close`` without reading); never raises.

        For callers that started a trace and then failed at the next step: Chrome must
        not stay in tracing mode, or every later ``Tracing.start`` in the browser fails.
        """
        if self._state != "running":
            return
        self._state = "stopping"
        complete = self._complete
        try:
            if complete is not None and not complete.done():
                await self.session.send("Tracing.end")
            if complete is not None:
                event = await asyncio.wait_for(asyncio.shield(complete), complete_timeout)
                handle = event.params.get("stream")
                if handle:
                    await self.session.send("IO.close", {"handle": handle}, timeout=5)
        except (CDPException, TimeoutError):
            pass
        finally:
            self._reset()

    async def _drain(self, handle: str, dest: Path, progress_cb: ProgressCallback | None) -> tuple[int, int]:
        """``IO.read`` until eof, chunk by chunk to ``<dest>.part``; always ``IO.close``."""
        dest.parent.mkdir(parents=True, exist_ok=True)
        part = dest.with_name(dest.name + ".part")
        written = 0
        chunks = 0
        try:
            # Disk writes run in a worker thread so a slow disk never stalls the CDP reader.
            fh = await asyncio.to_thread(open, part, "wb")
            masker = TraceMasker() if self.mask_urls else None
            try:
                while True:
                    reply = await self.session.send("IO.read", {"handle": handle, "size": self.chunk_size})
                    data = reply.get("data", "")
                    raw = base64.b64decode(data) if reply.get("base64Encoded") else data.encode("utf-8")
                    if masker is not None:
                        raw = masker.feed(raw)
                        if reply.get("eof"):
                            raw += masker.finish()
                    if raw:
                        await asyncio.to_thread(fh.write, raw)
                        written += len(raw)
                        chunks += 1
                        await _call(progress_cb, written, f"saved {written / 1e6:.1f} MB of trace")
                    if reply.get("eof"):
                        break
            finally:
                await asyncio.to_thread(fh.close)
            os.replace(part, dest)
        except BaseException:
            part.unlink(missing_ok=True)
            raise
        finally:
            try:
                await self.session.send("IO.close", {"handle": handle}, timeout=5)
            except CDPException:
                pass  # the session is gone or the handle already closed: nothing to free
        return written, chunks
