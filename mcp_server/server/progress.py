"""Progress notifications of one call: a heartbeat at least every second, saying what the call is doing.

Every call that carries a progress token gets ``notifications/progress`` every
:data:`INTERVAL` seconds once it has run that long, whatever the action: waiting for a lock
("waiting for navigate (running 3.2 s)"), for a condition, for Chrome. Handlers only say
what they are doing (:meth:`Progress.status`, or ``ctx.report_progress``); this module
does the sending.

The value sent is the seconds elapsed since the call arrived (the spec wants it to grow with
every notification, so one unit for the whole call) and ``total`` is how long the call may
take when the handler knows (time spent so far plus ``wait_for``'s timeout, capped at the call
bound). The message carries the handler's own units: "12.3 MB of trace read", "text 'Saved' not
on the page yet".
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable

__all__ = ["Progress", "INTERVAL", "SendFn"]

#: Seconds between two heartbeats: docs/tools.md promises one every half second, so a client sees
#: progress well within a second, jitter included.
INTERVAL = 0.5

SendFn = Callable[[float, float | None, str | None], Awaitable[None]]


class Progress:
    """The progress of one call. ``send`` is the SDK's ``report_progress`` (None: nothing is sent)."""

    def __init__(self, send: SendFn | None, label: str = "", *, started: float | None = None) -> None:
        self.send = send
        self.label = label
        self.started = time.monotonic() if started is None else started
        self.total: float | None = None
        self._status: str | None = None
        self._waiting: str | None = None
        self._last = 0.0
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    # -- what handlers say -------------------------------------------------------------------

    def status(self, text: str | None, *, total: float | None = None) -> None:
        """What the call is doing now (shown in the next heartbeat); ``total``: seconds it may still take.

        The wire's ``total`` counts from the call's start, like the values: time already spent
        (waiting for a lock, finding the page) plus ``total``.
        """
        self._status = text
        if total is not None:
            self.total = round(time.monotonic() - self.started + total, 2)

    def waiting_for(self, text: str | None) -> None:
        """Set while the call waits for a lock; shown before the status."""
        self._waiting = text

    def message(self) -> str:
        parts = [p for p in (self._waiting, self._status) if p]
        text = "; ".join(parts) if parts else "working"
        return f"{self.label}: {text}" if self.label else text

    async def emit(self) -> None:
        """Send one notification now (the heartbeat calls this; handlers may too, for a new status)."""
        if self.send is None:
            return
        async with self._lock:  # one sender at a time keeps the values increasing on the wire
            value = max(round(time.monotonic() - self.started, 2), round(self._last + 0.01, 2))
            self._last = value
            total = self.total if self.total is not None and self.total >= value else None
            try:
                await self.send(value, total, self.message())
            except Exception:  # noqa: BLE001 - a lost progress message must never fail the call
                pass

    # -- the heartbeat -----------------------------------------------------------------------

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(INTERVAL)
            await self.emit()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Progress]:
        """Heartbeats while the block runs (only when there is someone to send to)."""
        if self.send is not None:
            self._task = asyncio.get_running_loop().create_task(self._beat())
        try:
            yield self
        finally:
            task, self._task = self._task, None
            if task is not None:
                task.cancel()  # synchronous: this may run inside a cancelled scope
