"""The signals that stop the server, on every system: one helper for stdio, HTTP and ``chromium``.

Why not ``anyio.open_signal_receiver(SIGTERM, SIGHUP, SIGINT)``: ``SIGHUP`` does not exist on
Windows (an ``AttributeError`` before the handshake) and every Windows event loop refuses
``loop.add_signal_handler`` with ``NotImplementedError``, so the server exited 1 before it
answered ``initialize``. Here each signal the system has is taken by the loop when it accepts
handlers (POSIX: the handler runs in the loop), else by ``signal.signal`` with a handler that
hands the signal to the loop through ``call_soon_threadsafe`` (Windows: Ctrl-C is ``SIGINT``,
Ctrl-Break is ``SIGBREAK``). A client's usual way to stop a stdio server, closing its stdin,
needs no signal at all: the SDK's reader ends and the server shuts down the same way.
"""

from __future__ import annotations

import asyncio
import signal
from types import FrameType, ModuleType, TracebackType
from typing import Any

__all__ = ["STOP_SIGNAL_NAMES", "StopSignals", "stop_signals"]

#: In order of preference; those the running system lacks are skipped (``SIGHUP``: POSIX only,
#: ``SIGBREAK``: Windows only, sent by Ctrl-Break and by ``GenerateConsoleCtrlEvent``).
STOP_SIGNAL_NAMES = ("SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK")


def stop_signals(module: ModuleType | Any = signal) -> tuple[int, ...]:
    """The stop signals this system has (``module`` is injectable so tests can take names away)."""
    found: list[int] = []
    for name in STOP_SIGNAL_NAMES:
        value = getattr(module, name, None)
        if value is not None and value not in found:
            found.append(value)
    return tuple(found)


class StopSignals:
    """``async with StopSignals() as stops: signum = await stops.wait()``: the first stop signal.

    Handlers are installed on entry and the previous ones restored on exit. Outside the main
    thread (where ``signal.signal`` is refused) a signal the loop cannot take is left alone:
    the process's default handling stands, as before.
    """

    def __init__(self, signals: tuple[int, ...] | None = None) -> None:
        self.signals = stop_signals() if signals is None else signals
        self._queue: asyncio.Queue[int] = asyncio.Queue()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._in_loop: list[int] = []
        self._previous: dict[int, Any] = {}
        #: How each signal is taken: ``"loop"``, ``"signal.signal"`` or ``"default"`` (tests, logs).
        self.how: dict[int, str] = {}

    async def __aenter__(self) -> StopSignals:
        loop = self._loop = asyncio.get_running_loop()
        for signum in self.signals:
            try:
                loop.add_signal_handler(signum, self._queue.put_nowait, signum)
            except (NotImplementedError, RuntimeError, ValueError):
                pass  # Windows loops (and a loop not in the main thread): fall back below
            else:
                self._in_loop.append(signum)
                self.how[signum] = "loop"
                continue
            try:
                self._previous[signum] = signal.signal(signum, self._from_handler)
                self.how[signum] = "signal.signal"
            except (ValueError, OSError, RuntimeError):
                self.how[signum] = "default"
        return self

    def _from_handler(self, signum: int, frame: FrameType | None) -> None:
        # Runs in the main thread between bytecodes, maybe while the loop is inside select():
        # call_soon_threadsafe also wakes the loop.
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._queue.put_nowait, signum)

    async def wait(self) -> int:
        """The next stop signal's number."""
        return await self._queue.get()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        loop = self._loop
        for signum in self._in_loop:
            if loop is not None and not loop.is_closed():
                loop.remove_signal_handler(signum)
        for signum, handler in self._previous.items():
            try:
                signal.signal(signum, handler)
            except (ValueError, OSError, TypeError):
                pass
        self._in_loop.clear()
        self._previous.clear()
