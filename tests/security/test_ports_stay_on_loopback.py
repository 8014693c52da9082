"""The debugging port and the MCP port stay on loopback.

- ``attach_cdp`` to a non-loopback host (argument, ``PLAYWRIGHT_CDP_URL``, or the websocket URL a
  loopback endpoint advertises) is refused with NOT_ALLOWED before anything is resolved or
  connected: every socket connect and name lookup of the test process is watched, and the
  positive control (``ALLOW_REMOTE_CDP=true``) shows the watch does see an attempt.
- The HTTP transport listens on 127.0.0.1 only and refuses a foreign ``Host`` or ``Origin``
  (DNS rebinding) before the request reaches a tool: the refused call is not in the audit log.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpserver import Reply
from mcp.client import Client
from mcp_http import AUTH, running_http_server
from netwatch import NetWatch
from paths import ROOT

from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings

REMOTE_URLS = [
    "http://10.255.255.1:9222",
    "10.255.255.1:9222",
    "ws://10.255.255.1:9222/devtools/browser/abc",
    "http://debug-box.example:9222",
    "http://127.0.0.1.nip.example:9222",
    "http://localhost.evil.example:9222",
    "http://127.0.0.1:9222@evil.example/",
    "http://[2001:db8::1]:9222",
    "http://0.0.0.0:9222",
    "https://evil.example",
]


@pytest.fixture
def netwatch(monkeypatch: pytest.MonkeyPatch) -> NetWatch:
    return NetWatch(monkeypatch)


@pytest.fixture
async def session(tmp_path: Path) -> AsyncIterator[Any]:
    async def open_with(**settings: Any) -> Client:
        manager, server = build_app(Settings(artifact_dir=str(tmp_path / "artifacts"), **settings))
        opened.append(manager)
        return Client(server)

    opened: list[Any] = []
    try:
        yield open_with
    finally:
        for manager in opened:
            await manager.close()


async def test_non_loopback_cdp_urls_are_refused_before_any_connection(session, netwatch: NetWatch):
    async with await session() as client:
        for url in REMOTE_URLS:
            result = await client.call_tool("browser_session", {"action": "attach_cdp", "cdp_url": url})
            sc = result.structured_content
            assert result.is_error and sc["code"] == "NOT_ALLOWED", (url, sc)
            assert "ALLOW_REMOTE_CDP" in sc["hint"]
        status = await client.call_tool("browser_session", {"action": "get_browser_status"})
        assert status.structured_content["browser"].get("activeTarget") is None
    assert netwatch.attempts == []


async def test_configured_remote_cdp_url_is_refused_too(session, netwatch: NetWatch):
    async with await session(cdp_url="http://10.255.255.1:9222", default_target="cdp") as client:
        attach = await client.call_tool("browser_session", {"action": "attach_cdp"})
        assert attach.is_error and attach.structured_content["code"] == "NOT_ALLOWED"
        implicit = await client.call_tool("browser_session", {"action": "list_frames"})  # first use attaches
        assert implicit.is_error and implicit.structured_content["code"] == "NOT_ALLOWED"
    assert netwatch.attempts == []


async def test_the_watch_sees_an_attempt_when_remote_cdp_is_allowed(session, netwatch: NetWatch):
    # Positive control: the same call with ALLOW_REMOTE_CDP=true does try the network.
    async with await session(allow_remote_cdp=True) as client:
        result = await client.call_tool("browser_session", {"action": "attach_cdp", "cdp_url": REMOTE_URLS[0]})
        assert result.is_error and result.structured_content["code"] == "CDP_UNREACHABLE"
    assert netwatch.attempts and netwatch.attempts[0][1][0] == "10.255.255.1"


async def test_a_loopback_endpoint_cannot_redirect_the_attach_to_another_host(session, netwatch: NetWatch, http_server):
    # Something on the loopback port answers /json/version with a remote websocket URL.
    http_server.route(
        "/json/version",
        Reply(
            200,
            json.dumps({"Browser": "Chrome/1", "webSocketDebuggerUrl": "ws://10.255.255.1:9222/devtools/browser/x"}),
            content_type="application/json",
        ),
    )
    try:
        async with await session() as client:
            result = await client.call_tool("browser_session", {"action": "attach_cdp", "cdp_url": http_server.base})
            assert result.is_error and result.structured_content["code"] == "NOT_ALLOWED", result.structured_content
    finally:
        http_server.routes.pop("/json/version", None)
    assert netwatch.attempts == []


# -- the HTTP transport ---------------------------------------------------------------------------


@pytest.fixture
def http_mcp(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    with running_http_server(tmp_path / "artifacts") as port:
        yield port, tmp_path / "artifacts" / "audit.jsonl"


def _listening_addresses(port: int) -> set[str]:
    """Local addresses of the listening sockets on ``port`` (from /proc/net/tcp and tcp6)."""
    found: set[str] = set()
    for name, size in (("/proc/net/tcp", 4), ("/proc/net/tcp6", 16)):
        try:
            lines = Path(name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state = fields[1], fields[3]
            addr_hex, port_hex = local.split(":")
            if state != "0A" or int(port_hex, 16) != port:  # 0A = LISTEN
                continue
            raw = bytes.fromhex(addr_hex)
            # /proc prints each 32-bit word little-endian
            words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
            found.add(str(ipaddress.ip_address(words if size == 16 else words[:4])))
    return found


def _other_local_addresses() -> list[str]:
    """Non-loopback IPv4 addresses of this machine (may be none in a sandbox)."""
    addrs = set()
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.1", 9))  # UDP connect sends nothing; it only picks the outgoing address
            addrs.add(s.getsockname()[0])
    except OSError:
        pass
    return [a for a in addrs if not ipaddress.ip_address(a).is_loopback]


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", **AUTH}


async def test_http_listens_on_loopback_only_and_refuses_rebinding(http_mcp):
    port, audit = http_mcp
    assert _listening_addresses(port) == {"127.0.0.1"}
    for address in _other_local_addresses():
        with socket.socket() as s:
            assert s.connect_ex((address, port)) != 0, f"reachable on {address}"
    url = f"http://127.0.0.1:{port}/mcp"
    good_origin = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
        init = await http.post(url, json=INIT, headers={**HEADERS, "Origin": good_origin})
        assert init.status_code == 200
        sid = init.headers["mcp-session-id"]
        ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        session_headers = {**HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"}
        assert (await http.post(url, json=ready, headers=session_headers)).status_code in (200, 202)

        def call(n: int) -> dict[str, Any]:
            args = {"action": "get_capabilities"}
            return {
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {"name": "browser_session", "arguments": args},
            }

        foreign = [
            {"Host": "evil.example"},
            {"Host": f"evil.example:{port}"},
            {"Host": f"127.0.0.1.evil.example:{port}"},
            {"Host": f"localhost.evil.example:{port}"},
            {"Origin": "http://evil.example"},
            {"Origin": f"http://evil.example:{port}"},
            {"Origin": f"http://127.0.0.1.evil.example:{port}"},
            {"Origin": "null"},
        ]
        for n, extra in enumerate(foreign, start=2):
            refused = await http.post(url, json=call(n), headers={**session_headers, **extra})
            assert refused.status_code in (400, 403, 421), (extra, refused.status_code)
            assert "schemaVersion" not in refused.text
        for extra in ({"Host": "evil.example"}, {"Origin": "http://evil.example"}):
            listen = await http.get(url, headers={**session_headers, "Accept": "text/event-stream", **extra})
            assert listen.status_code in (400, 403, 421)
            gone = await http.delete(url, headers={**session_headers, **extra})
            assert gone.status_code in (400, 403, 421)
        ok = await http.post(url, json=call(99), headers={**session_headers, "Origin": good_origin})
        assert ok.status_code == 200 and "mcp-browser-debug" in ok.text
    # Only the one accepted call reached a tool.
    entries = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [e["action"] for e in entries] == ["get_capabilities"]


def test_http_refuses_a_non_loopback_bind(tmp_path: Path):
    env = {**os.environ, "MCP_ARTIFACT_DIR": str(tmp_path)}
    for host in ("0.0.0.0", "192.168.1.10", "::"):
        proc = subprocess.run(
            [sys.executable, "-m", "mcp_server.cli", "--http", "--host", host, "--port", "0"],
            env=env,
            cwd=str(ROOT),
            capture_output=True,
            timeout=60,
        )
        assert proc.returncode == 2 and "--host" in proc.stderr.decode(), proc.stderr.decode()
