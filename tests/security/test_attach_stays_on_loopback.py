"""Attach cannot be sent off loopback.

The attacks, each from a local endpoint the agent points ``attach_cdp`` at:

- ``/json/version`` advertises an ``http://`` URL of another endpoint, whose own ``/json/version``
  advertises a remote websocket: the second discovery was not checked;
- the websocket handshake answers ``302`` to ``ws://10.255.255.1/...``: our websocket client
  followed it;
- ``http://localhost.:PORT`` passed the loopback check and was resolved through DNS;
- Playwright's own connection (``connect_over_cdp``, in its driver process) followed one redirect
  of the handshake: Playwright no longer connects to the user's Chrome at all, and a loopback
  front of the browser counts that the attachment opens exactly one websocket whatever it does.

Every connect and name lookup of the test process is watched (:mod:`netwatch`).
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

from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings

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
        http_server.route(
            "/json/version", Reply(302, "", headers={"Location": "http://10.255.255.1:9222/json/version"})
        )
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
    """A loopback front of a real Chromium that counts websocket handshakes and relays everything."""

    def __init__(self, browser_port: int) -> None:
        self.browser_port = browser_port
        self.upgrades = 0
        self._server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> Door:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, OSError):
            writer.close()
            return
        if b"upgrade: websocket" in head.lower():
            self.upgrades += 1  # with Chrome's toggle, each of these is an "Allow remote debugging?" dialog
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


async def test_the_users_chrome_gets_one_websocket_whatever_the_actions_do(agent, fresh_chromium, http_server):
    client, manager = agent
    door = await Door(fresh_chromium.port).start()
    try:
        is_error, sc = await _attach(client, f"http://127.0.0.1:{door.port}")
        assert not is_error, sc
        calls = [
            ("browser_session", {"action": "new_page", "url": http_server.url("/a.html")}),
            ("browser_session", {"action": "snapshot"}),
            ("browser_session", {"action": "screenshot", "full_page": True}),
            ("browser_session", {"action": "performance_start_trace"}),
            ("browser_interact", {"action": "click", "selector": "body"}),
            ("browser_session", {"action": "performance_stop_trace"}),
            ("browser_session", {"action": "get_dom"}),
            ("browser_session", {"action": "debug_bundle"}),
            ("browser_session", {"action": "attach_cdp"}),
            ("browser_session", {"action": "list_pages"}),
        ]
        for tool, args in calls:
            result = await client.call_tool(tool, args)
            assert not result.is_error, (args, result.content[0].text)
        assert door.upgrades == 1  # every call went through the one websocket: no second one (no Playwright)
    finally:
        await client.call_tool("browser_session", {"action": "detach_cdp"})
        await door.close()
