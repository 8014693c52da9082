"""When a Chromium we started is ready, and whether a port is free: what ``ChromiumProcess`` waits on.

A browser on port 0 writes ``DevToolsActivePort``; one on a fixed port does not, so readiness
also comes from Chrome's stderr line ``DevTools listening on ws://...`` (:class:`StderrTail`)
and from an answer on ``/json/version`` (:func:`probe_version`, :func:`aprobe_version`),
whichever comes first.
"""

from __future__ import annotations

import asyncio
import collections
import http.client
import json
import os
import re
import socket
import threading
from collections.abc import Callable
from typing import IO

__all__ = ["StderrTail", "aprobe_version", "port_is_free", "probe_version"]


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
_LISTENING = re.compile(rb"DevTools listening on ws://[^\s/]+:(\d+)(/devtools/browser/\S+)")


def _version_path(raw: bytes) -> str:
    """The browser websocket's path from a ``/json/version`` answer ('' when it is not one)."""
    try:
        url = str(json.loads(raw).get("webSocketDebuggerUrl", ""))
    except (ValueError, AttributeError):
        return ""
    match = re.match(r"ws://[^/]+(/devtools/browser/\S+)$", url)
    return match.group(1) if match else ""


def probe_version(port: int) -> str:
    """Ask ``/json/version`` on a fixed port; the websocket path, or '' while nothing answers."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=0.5)
    try:
        conn.request("GET", "/json/version")
        response = conn.getresponse()
        return _version_path(response.read()) if response.status == 200 else ""
    except (OSError, http.client.HTTPException):
        return ""
    finally:
        conn.close()


async def aprobe_version(port: int) -> str:
    """:func:`probe_version` on the event loop (Chrome serves HTTP/1.1 only)."""
    try:
        async with asyncio.timeout(0.5):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            try:
                writer.write(f"GET /json/version HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
                head = await reader.readuntil(b"\r\n\r\n")
                length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
                body = await reader.readexactly(int(length.group(1))) if length else b""
            finally:
                writer.close()
    except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        return ""
    return _version_path(body) if head.startswith(b"HTTP/1.1 200") else ""


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
        self.seen = threading.Event()
        self._on_listening = on_listening
        self._thread = threading.Thread(target=self._drain, args=(stream,), name="chromium-stderr", daemon=True)
        self._thread.start()

    def _drain(self, stream: IO[bytes]) -> None:
        with stream:
            for line in iter(stream.readline, b""):
                if self.listening is None and (match := _LISTENING.search(line)):
                    self.listening = (int(match.group(1)), match.group(2).decode())
                    self.seen.set()
                    if self._on_listening is not None:
                        self._on_listening()
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
