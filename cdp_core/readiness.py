"""When a Chromium we started is ready, and whether a port is free: what ``ChromiumProcess`` waits on.

A browser on port 0 writes ``DevToolsActivePort``; one on a fixed port does not, so readiness
also comes from Chrome's stderr line ``DevTools listening on ws://...`` (:class:`StderrTail`).
No ``/json/version`` probe: on a fixed port its answer may come from another browser that took
the port between our free-port check and Chrome's listen. Chrome then listens on ``[::1]``
instead (or prints ``Cannot start http server``), which its line says, and the start fails.
"""

from __future__ import annotations

import collections
import os
import re
import socket
import threading
from collections.abc import Callable
from typing import IO

__all__ = ["StderrTail", "port_is_free"]


def port_is_free(port: int) -> bool:
    """Nobody listens on ``127.0.0.1:port``; connections in TIME-WAIT don't count.

    A connect probe catches a listener; the bind probe (with ``SO_REUSEADDR``, which Linux
    and macOS refuse only for a live listener) catches one that does not accept yet. Without
    ``SO_REUSEADDR`` the port of a browser stopped a moment ago reads as taken for ~60 s.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            return False
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        if os.name != "nt":  # on Windows SO_REUSEADDR would let us bind over a live listener
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


#: Chrome's own announcement on stderr, for any port: ``DevTools listening on ws://HOST:PORT/devtools/browser/ID``.
_LISTENING = re.compile(rb"DevTools listening on ws://([^\s/]+):(\d+)(/devtools/browser/\S+)")


#: Chrome's line when another process holds the fixed port (then an answer there is not ours).
_PORT_TAKEN = b"Cannot start http server"


class StderrTail:
    """Keeps the last few KB Chrome wrote to stderr, to explain a failed start; drops the rest.

    It also watches for Chrome's ``DevTools listening on`` line: :attr:`listening` is then
    ``(port, websocket path)`` and ``on_listening`` is called (from the reader thread).
    """

    def __init__(self, stream: IO[bytes], limit: int = 4096, on_listening: Callable[[], None] | None = None) -> None:
        self._chunks: collections.deque[bytes] = collections.deque()
        self._size = 0
        self._limit = limit
        self.listening: tuple[int, str] | None = None
        #: The host of that line: ``[::1]`` instead of ``127.0.0.1`` when 127.0.0.1's port was taken.
        self.listening_host = ""
        #: Chrome said it could not open its debugging port (another process listens there).
        self.port_taken = False
        self.seen = threading.Event()
        self._on_listening = on_listening
        self._thread = threading.Thread(target=self._drain, args=(stream,), name="chromium-stderr", daemon=True)
        self._thread.start()

    def _drain(self, stream: IO[bytes]) -> None:
        with stream:
            for line in iter(stream.readline, b""):
                if self.listening is None and (match := _LISTENING.search(line)):
                    self.listening_host = match.group(1).decode()
                    self.listening = (int(match.group(2)), match.group(3).decode())
                    self.seen.set()
                    if self._on_listening is not None:
                        self._on_listening()
                if _PORT_TAKEN in line:
                    self.port_taken = True
                    self.seen.set()
                self._chunks.append(line)
                self._size += len(line)
                while self._size > self._limit and len(self._chunks) > 1:
                    self._size -= len(self._chunks.popleft())
        self.seen.set()  # the browser closed stderr (it exited): wake whoever waits
        on_listening = self._on_listening
        if on_listening is not None:
            on_listening()

    def forget_listener(self) -> None:
        self._on_listening = None

    def text(self, wait: float = 0.5) -> str:
        self._thread.join(wait)
        return b"".join(self._chunks).decode(errors="replace").strip()[-self._limit :]
