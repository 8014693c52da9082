"""The internal browser's loopback proxy: ``ALLOWED_URLS`` for what the ``Fetch`` interception never sees.

``Fetch`` (:class:`targets.policies.policy.PolicyInterceptor`) pauses documents, subresources and
fetches, but not WebSockets (from a page, a worker or a service worker), speculation-rules
prefetch and prerender, ``<link rel=preconnect>`` (a bare connection) or the browser's own
``Network.loadNetworkResource`` (source maps) and the redirects it follows: in the second
review each of them reached a host the list did not name. So when ``ALLOWED_URLS`` is set, the
internal browser is started with ``--proxy-server`` pointing here (``<-loopback>`` so that
loopback goes through it too), and every connection it opens to any server is one of ours:

- ``GET http://host:port/path`` (plain HTTP, absolute form): checked as a whole URL, then sent
  to the server with ``Connection: close`` both ways, so the next request comes on a new
  connection and is checked in turn; ``Host`` is rewritten from the checked URL, exactly the
  request's ``Content-Length`` bytes follow it (nothing pipelined after them), and a chunked
  request body is refused (a browser sends none over HTTP/1.1);
- ``CONNECT host:port`` (https, and every WebSocket, ``ws:`` included): only the host and port
  can be seen, so the tunnel opens when an entry of the list admits that host and port.

A refused request gets ``403`` and never leaves the machine's loopback proxy.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import urllib.parse
from collections import deque
from typing import Any

from .policy import ParsedUrl, UrlPolicy, Verdict

__all__ = ["PolicyProxy", "proxy_flags"]

log = logging.getLogger("targets.policies.policy_proxy")

_MAX_HEAD = 64 * 1024
_HEAD_TIMEOUT_S = 30.0
_HOP_HEADERS = {"proxy-connection", "proxy-authorization", "connection", "keep-alive"}


def proxy_flags(port: int) -> list[str]:
    """Chromium flags that send every connection of the browser through the proxy on ``port``."""
    return [f"--proxy-server=http://127.0.0.1:{port}", "--proxy-bypass-list=<-loopback>"]


class PolicyProxy:
    """An HTTP proxy on 127.0.0.1 that lets through only what ``policy`` admits; one per internal browser."""

    def __init__(self, policy: UrlPolicy) -> None:
        self.policy = policy
        self.blocked: deque[dict[str, Any]] = deque(maxlen=100)
        self.blocked_total = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    async def start(self) -> int:
        """Listen (once; later calls return the same port)."""
        if self._server is None:
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=_MAX_HEAD)
        return self.port

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for task in list(self._tasks):
            task.cancel()
        if server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 2)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._one(reader, writer)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _HEAD_TIMEOUT_S)
        request_line, *header_lines = head[:-4].decode("latin-1").split("\r\n")
        method, target, version = request_line.split(" ", 2)
        if method.upper() == "CONNECT":
            host, port = _host_port(target, 443)
            verdict = self.policy.check_origin(host, port)
            if not verdict.allowed:
                return await self._refuse(writer, f"{host}:{port}", verdict)
            up_reader, up_writer = await asyncio.open_connection(host, port)
            try:
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                await writer.drain()
                await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
            finally:
                up_writer.close()
            return
        verdict = self.policy.check_url(target)
        parts = urllib.parse.urlsplit(target)
        if verdict.allowed and parts.scheme.lower() != "http":
            verdict = Verdict(False, f"{parts.scheme}: is not proxied in plain text")
        if not verdict.allowed:
            return await self._refuse(writer, target, verdict)
        host, port = _host_port(parts.netloc, 80)
        path = urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))
        names = [line.split(":", 1)[0].strip().lower() for line in header_lines]
        if "transfer-encoding" in names:
            # a browser never sends a chunked body over HTTP/1.1; with it (and Content-Length beside
            # it) what the server reads as the next request is not what was checked here
            return await self._refuse(writer, target, Verdict(False, "chunked request bodies are not proxied"))
        lengths = {
            line.split(":", 1)[1].strip()
            for line, name in zip(header_lines, names, strict=True)
            if name == "content-length"
        }
        if len(lengths) > 1 or not all(v.isdigit() for v in lengths):
            return await self._refuse(writer, target, Verdict(False, "an unclear Content-Length"))
        body_bytes = int(next(iter(lengths), "0"))
        # Host is the checked URL's, whatever the client wrote: the server routes by it
        headers = [
            line for line, name in zip(header_lines, names, strict=True) if name not in _HOP_HEADERS and name != "host"
        ]
        headers.insert(0, f"Host: {parts.netloc}")
        upgrade = "upgrade" in names
        headers.append("Connection: Upgrade" if upgrade else "Connection: close")
        up_reader, up_writer = await asyncio.open_connection(host, port)
        upload: asyncio.Task[None] | None = None
        try:
            up_writer.write("\r\n".join([f"{method} {path} {version}", *headers, "", ""]).encode("latin-1"))
            await up_writer.drain()
            # The body (a form POST, a fetch POST) goes up while we wait for the answer: the
            # server answers only once it has the body, so waiting for the answer first hung.
            # Exactly this request's body: bytes after it (a pipelined request) are never forwarded.
            upload = asyncio.create_task(_copy_exactly(reader, up_writer, body_bytes))
            # The answer's head gets ``Connection: close`` as well: the browser then opens a new
            # connection (checked anew) for its next request instead of reusing this one.
            answer = await asyncio.wait_for(up_reader.readuntil(b"\r\n\r\n"), _HEAD_TIMEOUT_S * 4)
            status_line, *answer_lines = answer[:-4].decode("latin-1").split("\r\n")
            if " 101 " not in f"{status_line} ":
                answer_lines = [line for line in answer_lines if line.split(":", 1)[0].strip().lower() != "connection"]
                answer_lines.append("Connection: close")
            writer.write("\r\n".join([status_line, *answer_lines, "", ""]).encode("latin-1"))
            await writer.drain()
            if " 101 " in f"{status_line} ":  # switched protocols: the connection is the new protocol's
                await upload
                upload = asyncio.create_task(_pipe(reader, up_writer))
            await _pipe(up_reader, writer)
        finally:
            # Also on a timeout or a cancel (close()): neither the upload nor the server's socket outlives us.
            if upload is not None:
                upload.cancel()
            up_writer.close()

    async def _refuse(self, writer: asyncio.StreamWriter, what: str, verdict: Verdict) -> None:
        self.blocked.append({"url": what, "reason": verdict.reason})
        self.blocked_total += 1
        log.info("proxy refused %s: %s", what[:200], verdict.reason)
        body = f"refused by ALLOWED_URLS: {verdict.reason}\n".encode()
        writer.write(
            b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        await writer.drain()


def _host_port(authority: str, default: int) -> tuple[str, int]:
    parsed = ParsedUrl.parse(f"http://{authority}/")  # refuses userinfo, backslashes, odd hosts
    port = urllib.parse.urlsplit(f"http://{authority}/").port
    return parsed.host.strip("[]"), port if port is not None else default


async def _copy_exactly(src: asyncio.StreamReader, dst: asyncio.StreamWriter, size: int) -> None:
    """Copy ``size`` bytes (a request's body), no more."""
    with contextlib.suppress(OSError, asyncio.IncompleteReadError):
        while size > 0:
            chunk = await src.read(min(size, 65536))
            if not chunk:
                return
            dst.write(chunk)
            size -= len(chunk)
            await dst.drain()


async def _pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
    """Copy until ``src`` ends, then close ``dst``: the other direction then ends too."""
    try:
        while chunk := await src.read(65536):
            dst.write(chunk)
            await dst.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            dst.close()
