"""A loopback relay in front of the user's Chrome, so Playwright's socket goes where ours was checked.

Our own clients follow no redirect (``cdp_core``), but Playwright's ``connect_over_cdp`` follows
one redirect of the websocket handshake to wherever it points, in its own driver process where
we cannot check the address. So Playwright connects to this relay on ``127.0.0.1`` instead; the
relay opens the connection to the address checked at attach, forwards the handshake and passes
the answer back only when it is the websocket upgrade (``101``). Any other answer, a redirect in
particular, becomes a ``502`` that names it, and the connection ends there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import urllib.parse

__all__ = ["LoopbackRelay"]

log = logging.getLogger("targets.relay")

#: A handshake answer is a few hundred bytes; more than this before the blank line is not Chrome.
_MAX_HEAD = 64 * 1024
_CONNECT_TIMEOUT = 10.0
_CHUNK = 256 * 1024


class LoopbackRelay:
    """Relays connections from ``127.0.0.1:<port>`` to one checked ``host:port``, refusing redirects."""

    def __init__(self, ws_url: str) -> None:
        parts = urllib.parse.urlsplit(ws_url)
        self.ws_url = ws_url
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or (443 if parts.scheme == "wss" else 80)
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        #: Handshake answers that were not an upgrade (status line), newest last; for tests and logs.
        self.refused: list[str] = []

    async def start(self) -> str:
        """Listen on a free loopback port; returns the websocket URL Playwright should use."""
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        parts = urllib.parse.urlsplit(self.ws_url)
        # wss stays wss only if the relay spoke TLS, which it does not: Chrome's port is plain ws.
        return urllib.parse.urlunsplit(("ws", f"127.0.0.1:{port}", parts.path, parts.query, ""))

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for writer in list(self._writers):
            writer.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 2)

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.get_running_loop().create_task(self._serve(reader, writer))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        self._writers.add(client_w)
        upstream_w: asyncio.StreamWriter | None = None
        try:
            try:
                upstream_r, upstream_w = await asyncio.wait_for(
                    asyncio.open_connection(self.host, self.port, limit=_MAX_HEAD), _CONNECT_TIMEOUT
                )
            except (OSError, TimeoutError) as exc:
                await self._refuse(client_w, f"cannot reach {self.host}:{self.port}: {exc}")
                return
            self._writers.add(upstream_w)
            to_upstream = asyncio.get_running_loop().create_task(_pipe(client_r, upstream_w))
            try:
                head = await upstream_r.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError) as exc:
                to_upstream.cancel()
                await self._refuse(client_w, f"no websocket answer from {self.host}:{self.port}: {exc!r}")
                return
            status = head.split(b"\r\n", 1)[0].decode("latin-1", "replace")
            if status.split(" ")[1:2] != ["101"]:
                to_upstream.cancel()
                self.refused.append(status)
                location = _header(head, b"location")
                reason = f"the endpoint answered {status!r}" + (f" to {location!r}" if location else "")
                log.warning("Playwright's connection refused by the relay: %s", reason)
                await self._refuse(client_w, reason + "; redirects are not followed")
                return
            client_w.write(head)
            await _pipe(upstream_r, client_w)
            to_upstream.cancel()
        finally:
            for writer in (client_w, upstream_w):
                if writer is not None:
                    self._writers.discard(writer)
                    writer.close()

    @staticmethod
    async def _refuse(writer: asyncio.StreamWriter, reason: str) -> None:
        body = reason.encode("utf-8", "replace")[:1000]
        writer.write(
            b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer.drain(), 2)


def _header(head: bytes, name: bytes) -> str | None:
    for line in head.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == name:
            return value.strip().decode("latin-1", "replace")[:200]
    return None


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            data = await reader.read(_CHUNK)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(Exception):
            if writer.can_write_eof():
                writer.write_eof()
