"""The quick start's wire: one reader of the client's lines and one writer of every answer.

Why a module of its own: the front (quick_front.py) sorts lines and runs calls; these two own
the file descriptors. The same reader and writer serve the front and then the SDK server, so no
byte is read twice or lost at the hand-over and answers never interleave (one lock, whole lines).
A pipe or socket is read and written without blocking from the loop; anything else (a file, a
terminal) is read by a thread. Windows never gets here (the quick start is off there).
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
import threading

__all__ = ["EOF", "direct", "LineReader", "LineWriter"]

#: what :meth:`LineReader.line` gives at the end of the input
EOF = None


def direct(fd: int) -> bool:
    """A pipe or socket that is not also our stderr: read and written without blocking (see wire_io.py)."""
    try:
        mine, err = os.fstat(fd), os.fstat(2)
    except OSError:
        return False
    if not (stat.S_ISFIFO(mine.st_mode) or stat.S_ISSOCK(mine.st_mode)):
        return False
    return (mine.st_dev, mine.st_ino) != (err.st_dev, err.st_ino)


class LineReader:
    """The client's lines, from the loop (non-blocking fd) or, for other files, a reader thread."""

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop) -> None:
        self.fd = fd
        self.loop = loop
        self.partial = b""
        self.lines: list[bytes] = []
        self.eof = False
        self.direct = direct(fd)
        self.chunks: asyncio.Queue[bytes] | None = None
        if self.direct and sys.platform != "win32":  # never on Windows (quickstart is off there)
            os.set_blocking(fd, False)
        else:
            self.direct = False
            self.chunks = asyncio.Queue()
            threading.Thread(target=self._pump, name="mcp-browser-stdin", daemon=True).start()

    def _pump(self) -> None:
        assert self.chunks is not None
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                chunk = b""
            self.loop.call_soon_threadsafe(self.chunks.put_nowait, chunk)
            if not chunk:
                return

    async def _chunk(self) -> bytes:
        if self.chunks is not None:
            return await self.chunks.get()
        while True:
            try:
                return os.read(self.fd, 65536)
            except BlockingIOError:
                ready = self.loop.create_future()
                self.loop.add_reader(self.fd, ready.set_result, None)
                try:
                    await ready
                finally:
                    self.loop.remove_reader(self.fd)

    async def line(self) -> bytes | None:
        """The next non-empty line; None at the end of the input (an unterminated last line included)."""
        while not self.lines:
            if self.eof:
                if self.partial.strip():
                    last, self.partial = self.partial, b""
                    return last
                return EOF
            chunk = await self._chunk()
            if not chunk:
                self.eof = True
                continue
            self.partial += chunk
            *complete, self.partial = self.partial.split(b"\n")
            self.lines.extend(line for line in complete if line.strip())
        return self.lines.pop(0)


class LineWriter:
    """The one writer of the wire: the front's answers and the SDK's, a whole line at a time under a lock."""

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop) -> None:
        self.fd = fd
        self.loop = loop
        self.lock = asyncio.Lock()
        self.direct = direct(fd) and sys.platform != "win32"
        if self.direct and sys.platform != "win32":  # never on Windows (quickstart is off there)
            os.set_blocking(fd, False)
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                from mcp_server.surface.wire_io import _widen

                _widen(fd)

    async def write(self, data: bytes) -> None:
        async with self.lock:
            view = memoryview(data)
            while view:
                try:
                    view = view[os.write(self.fd, view) :]
                except BlockingIOError:
                    ready = self.loop.create_future()
                    self.loop.add_writer(self.fd, ready.set_result, None)
                    try:
                        await ready
                    finally:
                        self.loop.remove_writer(self.fd)
