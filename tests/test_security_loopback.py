"""Attach cannot be sent off loopback (issue 16, finding 2).

The attacks of the review, each from a local endpoint the agent points ``attach_cdp`` at:

- ``/json/version`` advertises an ``http://`` URL of another endpoint, whose own ``/json/version``
  advertises a remote websocket: the second discovery was not checked;
- the websocket handshake answers ``302`` to ``ws://10.255.255.1/...``: our websocket client
  followed it;
- ``http://localhost.:PORT`` passed the loopback check and was resolved through DNS;
- Playwright's own connection (``connect_over_cdp``, in its driver process) follows one redirect
  of the handshake; here the endpoint serves our socket and redirects only Playwright's.

Every connect and name lookup of the test process is watched (:mod:`netwatch`); the redirect
target of Playwright's socket is a loopback listener that records whether anyone came.
``attach_cdp cdp_url="[[["`` answers INVALID_ARGUMENT instead of an internal error.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from httpserver import Reply, TestServer
from mcp.client import Client
from netwatch import NetWatch

from mcp_server.cli import build_app
from mcp_server.settings import Settings
from targets.errors import ToolFailure

REMOTE_WS = "ws://10.255.255.1:9222/devtools/browser/x"


@pytest.fixture
def netwatch(monkeypatch: pytest.MonkeyPatch) -> NetWatch:
    return NetWatch(monkeypatch)


@pytest.fixture
async def agent(tmp_path: Path) -> AsyncIterator[tuple[Client, Any]]:
    manager, server = build_app(Settings(artifact_dir=str(tmp_path / "artifacts")))
    try:
        async with Client(server) as client:
            yield client, manager
    finally:
        await manager.close()


async def _attach(client: Client, url: str) -> tuple[bool, dict[str, Any]]:
    result = await client.call_tool("browser_session", {"action": "attach_cdp", "cdp_url": url})
    return bool(result.is_error), result.structured_content or {}


def _version(ws_url: str) -> Reply:
    return Reply(200, json.dumps({"Browser": "Chrome/1", "webSocketDebuggerUrl": ws_url}), "application/json")


async def test_names_that_only_look_local_are_refused_without_a_lookup(agent, netwatch: NetWatch, http_server):
    client, _ = agent
    port = http_server.port
    for url in (
        f"http://localhost.:{port}",
        f"http://LOCALHOST.:{port}",
        f"ws://localhost.:{port}/devtools/browser/x",
        f"http://127.0.0.1.:{port}",
        f"http://2130706433:{port}",
        f"http://0x7f000001:{port}",
        f"http://localhost%2e:{port}",
    ):
        is_error, sc = await _attach(client, url)
        assert is_error and sc["code"] in ("NOT_ALLOWED", "INVALID_ARGUMENT"), (url, sc)
    assert netwatch.attempts == [] and netwatch.lookups == []


async def test_localhost_is_connected_as_127_0_0_1_without_a_lookup(agent, netwatch: NetWatch, chromium):
    client, _ = agent
    is_error, sc = await _attach(client, f"http://localhost:{chromium.port}")
    assert not is_error, sc
    assert sc["cdpUrl"] == f"http://127.0.0.1:{chromium.port}"
    assert netwatch.lookups == [] and netwatch.attempts == []
    await client.call_tool("browser_session", {"action": "detach_cdp"})


async def test_an_advertised_http_url_starts_no_second_discovery(agent, netwatch: NetWatch, http_server):
    client, _ = agent
    second = TestServer().start()
    try:
        second.route("/json/version", _version(REMOTE_WS))
        http_server.route("/json/version", _version(second.base))
        is_error, sc = await _attach(client, http_server.base)
        assert is_error and sc["code"] == "CDP_UNREACHABLE", sc
        assert "not a websocket URL" in sc["message"]
        assert second.requests == []  # the advertised endpoint was never asked
    finally:
        http_server.routes.pop("/json/version", None)
        second.stop()
    assert netwatch.attempts == []


async def test_redirects_of_discovery_and_of_the_websocket_are_not_followed(agent, netwatch: NetWatch, http_server):
    client, _ = agent
    try:
        http_server.route("/json/version", Reply(302, "", headers={"Location": "http://10.255.255.1:9222/json/version"}))
        is_error, sc = await _attach(client, http_server.base)
        assert is_error and sc["code"] == "CDP_UNREACHABLE" and "not followed" in sc["message"], sc

        ws_path = "/devtools/browser/redirecting"
        http_server.route("/json/version", _version(f"ws://127.0.0.1:{http_server.port}{ws_path}"))
        http_server.route(ws_path, Reply(302, "", headers={"Location": REMOTE_WS}))
        is_error, sc = await _attach(client, http_server.base)
        assert is_error and sc["code"] == "CDP_UNREACHABLE" and "redirect" in sc["message"], sc
        assert any(r.path == ws_path for r in http_server.requests)  # the handshake did reach the endpoint
    finally:
        http_server.routes.pop("/json/version", None)
        http_server.routes.pop("/devtools/browser/redirecting", None)
    assert netwatch.attempts == []


async def test_a_cdp_url_that_is_no_url_is_an_invalid_argument(agent):
    client, _ = agent
    for url in ("[[[", "http://[::1", "http://127.0.0.1:99999", "http://127.0.0.1:port"):
        is_error, sc = await _attach(client, url)
        assert is_error and sc["code"] == "INVALID_ARGUMENT", (url, sc)
        assert "Traceback" not in json.dumps(sc)


class Door:
    """A loopback front of a real Chromium that redirects Playwright's websocket handshake elsewhere.

    HTTP requests and websocket handshakes from any other client are relayed to the browser as
    they are, so our own attach works through it; a handshake whose User-Agent says Playwright is
    answered ``302`` to ``sink``. ``sink`` records every connection it gets.
    """

    def __init__(self, browser_port: int) -> None:
        self.browser_port = browser_port
        self.redirected = 0
        self.sink_connections = 0
        self._servers: list[asyncio.Server] = []
        self.port = 0
        self.sink_port = 0

    async def start(self) -> Door:
        door = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        sink = await asyncio.start_server(self._sink, "127.0.0.1", 0)
        self._servers = [door, sink]
        self.port = door.sockets[0].getsockname()[1]
        self.sink_port = sink.sockets[0].getsockname()[1]
        return self

    async def close(self) -> None:
        for server in self._servers:
            server.close()

    async def _sink(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.sink_connections += 1
        writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, OSError):
            writer.close()
            return
        if b"upgrade: websocket" in head.lower() and b"playwright" in head.lower():
            self.redirected += 1
            location = f"ws://127.0.0.1:{self.sink_port}/devtools/browser/stolen"
            writer.write(f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode())
            await writer.drain()
            writer.close()
            return
        up_r, up_w = await asyncio.open_connection("127.0.0.1", self.browser_port)
        up_w.write(head)

        async def pipe(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            try:
                while data := await r.read(65536):
                    w.write(data)
                    await w.drain()
            except OSError:
                pass
            finally:
                w.close()

        await asyncio.gather(pipe(reader, up_w), pipe(up_r, writer))


async def test_playwrights_connection_follows_no_redirect_either(agent, fresh_chromium):
    client, manager = agent
    door = await Door(fresh_chromium.port).start()
    try:
        is_error, sc = await _attach(client, f"http://127.0.0.1:{door.port}")
        assert not is_error, sc  # our own socket went through the door to the real browser
        with pytest.raises(ToolFailure) as info:
            await manager.cdp._playwright_contexts()  # what every Playwright-driven action does first
        assert info.value.code == "BROWSER_DISCONNECTED"
        assert door.redirected >= 1  # Playwright did ask, and was answered with a redirect
        await asyncio.sleep(0.2)
        assert door.sink_connections == 0  # ... which it did not follow
        # The attachment itself is intact: capture reads still answer.
        listed = await client.call_tool("browser_session", {"action": "list_pages"})
        assert not listed.is_error
    finally:
        await client.call_tool("browser_session", {"action": "detach_cdp"})
        await door.close()
