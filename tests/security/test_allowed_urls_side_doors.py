"""ALLOWED_URLS holds for every request the internal browser's pages make.

The attack: with ``ALLOWED_URLS`` set, page WebSockets (from the page, a worker and a
service worker), speculation-rules prefetch and prerender, ``<link rel=preconnect>`` and a
source map whose URL redirects elsewhere all reached a host the list did not name (the ``Fetch``
interception never sees them). Here the allowed app is the tests' server on 127.0.0.1, the
refused host is a second loopback port that counts every connection made to it (a preconnect
sends no request: only a TCP connection), and each page also does the same thing towards the
allowed server, whose log says when the page got that far: only then is the count read.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from httpserver import Reply
from mcp.client import Client

from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings


class CountingHost:
    """A loopback port that counts connections and keeps the first line each one sent (a refused host)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.hits: list[str] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                first = conn.recv(4096).split(b"\r\n", 1)[0].decode(errors="replace")
            except OSError:
                first = ""
            self.hits.append(first[:60] if first.isprintable() else "(TLS or binary)" if first else "(connection only)")
            try:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\nok")
            except OSError:
                pass

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def refused_host() -> Iterator[CountingHost]:
    host = CountingHost()
    yield host
    host.close()


def _pages(http_server: Any, other: int) -> dict[str, str]:
    """Each side door as a page of the allowed server; ``/side/ok-*`` marks that the page got that far."""
    b = f"127.0.0.1:{other}"
    ws_worker = f"new WebSocket('ws://{b}/worker-ws'); new WebSocket('ws://' + location.host + '/side/ok-worker-ws');"
    http_server.route("/side/worker.js", Reply(200, ws_worker, "application/javascript"))
    sw = f"new WebSocket('ws://{b}/sw-ws'); new WebSocket('ws://127.0.0.1:' + location.port + '/side/ok-sw-ws');"
    http_server.route("/side/sw.js", Reply(200, sw, "application/javascript"))
    http_server.route("/side/app.min.js", Reply(200, "function boom(){throw new Error('side boom')}\nboom();\n"
                      "//# sourceMappingURL=/side/ok-map-redirect\n", "application/javascript"))  # fmt: skip
    http_server.route("/side/ok-map-redirect", Reply(302, "", headers={"Location": f"http://{b}/app.min.js.map"}))
    rules = {
        "prefetch": {"prefetch": [{"source": "list", "urls": [f"http://{b}/prefetch", "/side/ok-prefetch"]}]},
        "prerender": {"prerender": [{"source": "list", "urls": [f"http://{b}/prerender", "/side/ok-prerender"]}]},
    }
    import json

    pages = {
        "websocket": f"<script>new WebSocket('ws://{b}/page-ws'); new WebSocket('ws://' + location.host + "
        "'/side/ok-ws');</script>",
        "worker-websocket": "<script>new Worker('/side/worker.js')</script>",
        "service-worker-websocket": "<script>navigator.serviceWorker.register('/side/sw.js')</script>",
        "prefetch": f"<script type=speculationrules>{json.dumps(rules['prefetch'])}</script>",
        "prerender": f"<script type=speculationrules>{json.dumps(rules['prerender'])}</script>",
        "preconnect": f"<link rel=preconnect href='http://{b}'><link rel=preconnect href='https://{b}'>"
        f"<link rel=dns-prefetch href='http://{b}'><script>setTimeout(() => fetch('/side/ok-preconnect'), 1500)"
        "</script>",
        "source-map-redirect": "<script src='/side/app.min.js'></script>",
    }
    urls = {}
    for name, body in pages.items():
        http_server.route(f"/side/{name}.html", Reply(200, f"<!doctype html><title>{name}</title>{body}"))
        urls[name] = http_server.url(f"/side/{name}.html")
    return urls


#: the allowed server's request that says the page reached the side door
MARKS = {
    "websocket": "/side/ok-ws",
    "worker-websocket": "/side/ok-worker-ws",
    "service-worker-websocket": "/side/ok-sw-ws",
    "prefetch": "/side/ok-prefetch",
    "prerender": "/side/ok-prerender",
    "preconnect": "/side/ok-preconnect",
    "source-map-redirect": "/side/ok-map-redirect",
}


@pytest.mark.parametrize("door", sorted(MARKS))
async def test_no_side_door_reaches_a_host_the_allow_list_does_not_name(
    door: str, tmp_path: Path, http_server, refused_host: CountingHost
):
    urls = _pages(http_server, refused_host.port)
    settings = Settings(artifact_dir=str(tmp_path / "artifacts"), allowed_urls=[http_server.base])
    manager, server = build_app(settings)
    try:
        async with Client(server) as client:
            since = len(http_server.requests)
            nav = await client.call_tool("browser_session", {"action": "navigate", "url": urls[door]})
            assert not nav.is_error, nav.structured_content
            if door == "source-map-redirect":  # the server fetches the map when the stack is shown
                with anyio.fail_after(20):
                    while True:
                        listing = await client.call_tool(
                            "browser_session", {"action": "console_list", "types": ["error"], "include_stack": True}
                        )
                        if listing.structured_content.get("total"):
                            break
                        await anyio.sleep(0.1)
            with anyio.fail_after(20):
                while not any(r.path == MARKS[door] for r in http_server.requests[since:]):
                    await anyio.sleep(0.1)
            await anyio.sleep(0.5)  # the refused request, if any, left with the allowed one
    finally:
        await manager.close()
    assert refused_host.hits == [], f"{door}: {refused_host.hits}"


async def test_the_proxy_checks_each_request_and_never_reuses_a_connection_for_the_next(http_server, refused_host):
    """Plain HTTP is checked per URL (path included); a kept-alive connection cannot carry a second request."""
    from targets.policies.policy import UrlPolicy
    from targets.policies.policy_proxy import PolicyProxy

    http_server.route("/side/app/ok", Reply(200, "ok"))
    proxy = PolicyProxy(UrlPolicy(allowed_urls=[http_server.url("/side/app")]))
    port = await proxy.start()
    try:

        async def exchange(*requests: str) -> bytes:
            reader, writer = await _open(port)
            for request in requests:
                writer.write(request.encode())
            await writer.drain()
            data = await reader.read()
            writer.close()
            return data

        base = http_server.base
        assert b" 200 " in (await exchange(f"GET {base}/side/app/ok HTTP/1.1\r\nHost: x\r\n\r\n")).split(b"\r\n")[0]
        refused = await exchange(f"GET {base}/side/other HTTP/1.1\r\nHost: x\r\n\r\n")
        assert refused.startswith(b"HTTP/1.1 403") and b"ALLOWED_URLS" in refused
        since = len(http_server.requests)
        both = await exchange(
            f"GET {base}/side/app/ok HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n"
            f"GET {base}/side/other HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        assert b"Connection: close" in both
        assert [r.path for r in http_server.requests[since:]] == ["/side/app/ok"]
        other = f"127.0.0.1:{refused_host.port}"
        tunnel = await exchange(f"CONNECT {other} HTTP/1.1\r\nHost: {other}\r\n\r\n")
        assert tunnel.startswith(b"HTTP/1.1 403")
        sneaky = await exchange(f"GET http://{other}@{base[7:]}/side/app/ok HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sneaky.startswith(b"HTTP/1.1 403")
    finally:
        await proxy.close()
    assert refused_host.hits == [] and proxy.blocked_total == 3


async def _open(port: int) -> Any:
    import asyncio

    return await asyncio.open_connection("127.0.0.1", port)


async def test_a_form_post_and_a_fetch_post_through_the_proxy_get_their_answer(tmp_path: Path, http_server):
    """A request with a body (a form POST, a fetch POST) completes through the ALLOWED_URLS proxy.

    The proxy used to wait for the server's answer before forwarding the body, while the server
    waited for the body: every POST of an allowed local app hung until it timed out.
    """

    def posted(request: Any) -> Reply:
        return Reply(200, f"<!doctype html><title>posted {request.body.decode()}</title>")

    http_server.route("/side/posted", posted)
    http_server.route("/side/fetched", lambda r: Reply(200, b"fetched " + r.body, "text/plain"))
    http_server.route(
        "/side/form.html",
        Reply(
            200,
            "<!doctype html><title>form</title><form method=post action=/side/posted>"
            "<input name=field value=sent-by-form></form>",
        ),  # fmt: skip
    )
    settings = Settings(artifact_dir=str(tmp_path / "artifacts"), allowed_urls=[http_server.base])
    manager, server = build_app(settings)
    try:
        async with Client(server) as client:
            nav = await client.call_tool(
                "browser_session", {"action": "navigate", "url": http_server.url("/side/form.html")}
            )
            assert not nav.is_error, nav.structured_content
            fetched = await client.call_tool(
                "browser_session",
                {
                    "action": "evaluate_js",
                    "expression": "fetch('/side/fetched', {method: 'POST', body: 'x'.repeat(100000)})"
                    ".then(r => r.text()).then(t => t.length + ':' + t.slice(0, 10))",
                },
            )
            assert not fetched.is_error, fetched.structured_content
            assert fetched.structured_content["result"] == f"{len('fetched ') + 100000}:fetched xx"
            await client.call_tool(
                "browser_session", {"action": "evaluate_js", "expression": "document.forms[0].submit(); 1"}
            )
            with anyio.fail_after(20):
                while True:
                    title = await client.call_tool(
                        "browser_session", {"action": "evaluate_js", "expression": "document.title"}
                    )
                    if title.structured_content.get("result") == "posted field=sent-by-form":
                        break
                    await anyio.sleep(0.2)
    finally:
        await manager.close()
    assert [r.method for r in http_server.requests if r.path in ("/side/fetched", "/side/posted")] == ["POST", "POST"]


async def test_the_proxy_forwards_a_body_sent_after_the_head(http_server):
    """The body may come in a later packet than the head: the proxy forwards it before the answer exists."""
    import asyncio

    from targets.policies.policy import UrlPolicy
    from targets.policies.policy_proxy import PolicyProxy

    http_server.route("/side/echo", lambda r: Reply(200, b"got " + r.body, "text/plain"))
    proxy = PolicyProxy(UrlPolicy(allowed_urls=[http_server.base]))
    port = await proxy.start()
    try:
        reader, writer = await _open(port)
        writer.write(f"POST {http_server.url('/side/echo')} HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n".encode())
        await writer.drain()
        await asyncio.sleep(0.1)  # the head alone first, as a browser may send it
        writer.write(b"hello")
        await writer.drain()
        async with asyncio.timeout(10):
            answer = await reader.read()
        writer.close()
    finally:
        await proxy.close()
    assert answer.split(b"\r\n")[0].endswith(b"200 OK") and answer.endswith(b"got hello")


async def test_the_proxy_sends_the_checked_host_and_one_request_per_connection(http_server):
    """Third review: the proxy forwarded the client's Host and any bytes after the first request head."""
    import asyncio

    from targets.policies.policy import UrlPolicy
    from targets.policies.policy_proxy import PolicyProxy

    http_server.route("/side/app/echo", lambda r: Reply(200, b"got " + r.body, "text/plain"))
    http_server.route("/side/other", Reply(200, "should never be asked"))
    proxy = PolicyProxy(UrlPolicy(allowed_urls=[http_server.url("/side/app")]))
    port = await proxy.start()
    base = http_server.base
    try:

        async def exchange(raw: str) -> bytes:
            reader, writer = await _open(port)
            writer.write(raw.encode())
            await writer.drain()
            async with asyncio.timeout(15):
                data = await reader.read()
            writer.close()
            return data

        since = len(http_server.requests)
        smuggled = (
            f"POST {base}/side/app/echo HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 5\r\n\r\nhello"
            f"GET /side/other HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        )
        answer = await exchange(smuggled)
        assert answer.split(b"\r\n")[0].endswith(b"200 OK") and answer.endswith(b"got hello"), answer
        asked = http_server.requests[since:]
        assert [r.path for r in asked] == ["/side/app/echo"], [r.path for r in asked]
        assert asked[0].headers.get("host") == base.removeprefix("http://"), asked[0].headers
        chunked = await exchange(
            f"POST {base}/side/app/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
            "0\r\n\r\nGET /side/other HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        assert chunked.startswith(b"HTTP/1.1 403") and b"chunked" in chunked
        assert [r.path for r in http_server.requests[since:]] == ["/side/app/echo"]
    finally:
        await proxy.close()
