"""The stdio wire read and written from the event loop, not from a worker thread per line.

Why: every request line was read by ``os.read`` in a worker thread and every answer written by
``os.write`` in another hop; each hop is a thread wake-up plus a wake-up of the event loop, and
on 2 loaded cores that was 0.4-1.8 ms of a call that the server spent 3 ms on (measured with
time stamps on both sides of the pipe, the bench's form snapshot). A pipe can be read and
written without blocking and waited on by the loop (``anyio.wait_readable``), so a line that is
there is read at once and an answer that fits the pipe is written at once.

Only a pipe or socket of our own goes non-blocking: O_NONBLOCK belongs to the open file, so a
stdout that is also our stderr (``2>&1``) stays blocking (logging must not get EAGAIN), and a
regular file or anything else keeps the worker thread.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys

__all__ = ["WireEnd"]

CHUNK = 65536
#: Pipe capacity asked for on the answer side (Linux; capped by /proc/sys/fs/pipe-max-size).
PIPE_BYTES = 1 << 20


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _may_go_nonblocking(fd: int) -> bool:
    """A pipe or socket that is not also this process's stderr (never on Windows: no non-blocking pipes)."""
    if sys.platform == "win32":
        return False
    try:
        import anyio
    except ImportError:  # pragma: no cover - anyio comes with the SDK
        return False
    if not hasattr(anyio, "wait_readable"):  # anyio < 4.7
        return False
    try:
        mine = os.fstat(fd)
        err = os.fstat(2)
    except OSError:
        return False
    if not (stat.S_ISFIFO(mine.st_mode) or stat.S_ISSOCK(mine.st_mode)):
        return False
    return (mine.st_dev, mine.st_ino) != (err.st_dev, err.st_ino)


def _widen(fd: int) -> None:
    """Let the pipe hold a whole list answer (Linux; the default 64 KiB does not).

    Why: a 2000-entry console list is ~112 KB on the wire; through a 64 KiB pipe the server
    writes, sleeps until the client has read, and writes the rest, a round of wake-ups on
    each side for one answer. The kernel allocates the pages only as they fill.
    """
    if sys.platform == "win32":
        return
    try:
        import fcntl
    except ImportError:  # not a POSIX system
        return
    setter = getattr(fcntl, "F_SETPIPE_SZ", None)  # Linux only
    if setter is None:
        return
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, setter, PIPE_BYTES)


class WireEnd:
    """One descriptor of the stdio wire: read or written from the event loop when it can be."""

    def __init__(self, fd: int, *, answers: bool = False) -> None:
        self.fd = fd
        self.direct = _may_go_nonblocking(fd)
        if self.direct and sys.platform != "win32":
            os.set_blocking(fd, False)
            if answers and stat.S_ISFIFO(os.fstat(fd).st_mode):
                _widen(fd)

    async def read(self) -> bytes:
        """Up to :data:`CHUNK` bytes; ``b""`` at the end of the input."""
        import anyio

        if not self.direct:
            return await anyio.to_thread.run_sync(os.read, self.fd, CHUNK, abandon_on_cancel=True)
        while True:
            try:
                return os.read(self.fd, CHUNK)
            except BlockingIOError:
                await anyio.wait_readable(self.fd)

    async def write(self, data: bytes) -> None:
        """All of ``data``; waits (without a thread) while the reader lets the pipe fill."""
        import anyio

        if not self.direct:
            await anyio.to_thread.run_sync(_write_all, self.fd, data)
            return
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.fd, view) :]
            except BlockingIOError:
                await anyio.wait_writable(self.fd)
