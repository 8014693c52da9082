"""A tiny threaded HTTP server on 127.0.0.1 for the test pages.

Static files come from ``tests/pages``; tests add dynamic routes with
:meth:`TestServer.route` (a handler gets the request and returns status, headers and
body). Nagle is disabled on the handler, otherwise fetch bursts are about 6x slower.
"""

from __future__ import annotations

import mimetypes
import threading
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from paths import PAGES


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes


@dataclass
class Reply:
    status: int = 200
    body: bytes | str = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[Request], Reply]


class TestServer:
    """Serve ``tests/pages`` plus registered routes; records every request it saw."""

    __test__ = False  # not a pytest class

    def __init__(self, root: Path = PAGES) -> None:
        self.root = root
        self.routes: dict[str, Handler] = {}
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        server = self

        class _Handler(BaseHTTPRequestHandler):
            disable_nagle_algorithm = True
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _serve(self) -> None:
                parsed = urllib.parse.urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                req = Request(
                    self.command,
                    parsed.path,
                    urllib.parse.parse_qs(parsed.query),
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                )
                with server._lock:
                    server.requests.append(req)
                reply = server._dispatch(req)
                data = reply.body.encode() if isinstance(reply.body, str) else reply.body
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(data)))
                    self.send_header("Cache-Control", "no-store")
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = _serve

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base + (path if path.startswith("/") else "/" + path)

    def route(self, path: str, handler: Handler | Reply) -> None:
        """Serve ``path`` (no query) with ``handler`` (or a fixed :class:`Reply`)."""
        self.routes[path] = handler if callable(handler) else (lambda _req, r=handler: r)

    def _dispatch(self, req: Request) -> Reply:
        handler = self.routes.get(req.path)
        if handler is not None:
            return handler(req)
        rel = urllib.parse.unquote(req.path).lstrip("/") or "index.html"
        path = (self.root / rel).resolve()
        if self.root.resolve() in path.parents and path.is_file():
            ctype = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            if path.suffix in (".cfm", ".php"):
                ctype = "text/html"
            if ctype.startswith("text/") or ctype in ("application/javascript", "application/json"):
                ctype += "; charset=utf-8"
            return Reply(200, path.read_bytes(), ctype)
        return Reply(404, "<h1>Not found</h1>")

    def start(self) -> TestServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
