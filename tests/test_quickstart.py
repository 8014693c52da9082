"""The quick start: the stdio handshake answered from the SDK's recorded answers while the SDK loads.

What a client must not be able to tell apart, byte for byte: the answers to ``initialize`` and
``tools/list`` on a quick start and on an ordinary one, for every protocol version the SDK
negotiates. Then: requests sent before the server is ready are answered, in order; a whole SDK
client session works; a bad setting still stops the server with its message; the cache follows
the code, the installed packages and the toolset, and nothing else changes ``tools/list``.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_http import ENTRY, server_env
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from mcp_server.commands import quickstart
from mcp_server.core.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def recorded(handshake_recorded: dict) -> dict:
    """The recorded handshake (conftest), holding every protocol version the SDK speaks."""
    assert set(handshake_recorded["versions"]) == set(HANDSHAKE_PROTOCOL_VERSIONS)
    return handshake_recorded


class RawServer:
    """``mcp-browser`` on stdio, spoken to line by line (no client library in between)."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(cls, tmp_path: Path, *, quick: bool, args: tuple[str, ...] = ()) -> RawServer:
        env = server_env(tmp_path / "artifacts", MCP_QUICKSTART="1" if quick else "0")
        proc = await asyncio.create_subprocess_exec(
            *ENTRY, "--log-level", "INFO", *args,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=env, cwd=str(ROOT),
        )  # fmt: skip
        return cls(proc)

    async def send(self, *messages: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        await self.proc.stdin.drain()

    async def lines(self, count: int, timeout: float = 60) -> list[str]:
        assert self.proc.stdout is not None
        out = []
        for _ in range(count):
            out.append((await asyncio.wait_for(self.proc.stdout.readline(), timeout)).decode().rstrip("\n"))
        return out

    async def stop(self) -> str:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 30)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        return (await self.proc.stderr.read()).decode()


def handshake(version: str, init_id: object = "init-1") -> list[dict]:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
    return [
        {"jsonrpc": "2.0", "id": init_id, "method": "initialize", "params": params},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 7, "method": "tools/list"},
    ]


@pytest.mark.parametrize("version", [*HANDSHAKE_PROTOCOL_VERSIONS, "1999-01-01"])
async def test_quick_answers_are_the_sdks_byte_for_byte(tmp_path: Path, recorded: dict, version: str):
    answers = {}
    for quick in (False, True):
        server = await RawServer.start(tmp_path, quick=quick)
        await server.send(*handshake(version))
        answers[quick] = await server.lines(2)
        log = await server.stop()
        assert ("answered the handshake from the recorded answers" in log) is quick, log
    assert answers[True] == answers[False]
    init, tools = (json.loads(line) for line in answers[True])
    assert init["id"] == "init-1" and init["result"]["serverInfo"]["name"] == "mcp-browser-debug"
    expected = version if version in HANDSHAKE_PROTOCOL_VERSIONS else HANDSHAKE_PROTOCOL_VERSIONS[-1]
    assert init["result"]["protocolVersion"] == expected
    assert tools["id"] == 7 and {"browser_session", "browser_interact"} <= {t["name"] for t in tools["result"]["tools"]}


async def test_requests_sent_before_the_server_is_ready_are_answered_in_order(tmp_path: Path, recorded: dict):
    server = await RawServer.start(tmp_path, quick=True)
    call = {"action": "get_capabilities"}
    await server.send(
        *handshake("2025-06-18", init_id=1)[:2],
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "browser_session", "arguments": call}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 4, "method": "ping"},
    )
    replies = [json.loads(line) for line in await server.lines(4)]
    await server.stop()
    assert [r["id"] for r in replies] == [1, 2, 3, 4]
    assert replies[1]["result"]["structuredContent"]["status"] == "ok"
    assert len(replies[2]["result"]["tools"]) > 2 and replies[3]["result"] == {}


async def test_an_sdk_client_session_on_the_quick_path(tmp_path: Path, recorded: dict, http_server):
    results = {}
    for quick in (True, False):
        env = server_env(tmp_path / "artifacts", MCP_QUICKSTART="1" if quick else "0")
        params = StdioServerParameters(command=ENTRY[0], args=ENTRY[1:], env=env, cwd=str(ROOT))
        async with Client(params, mode="legacy") as client:
            tools = [t.model_dump(mode="json") for t in (await client.list_tools()).tools]
            nav = await client.call_tool("browser_session", {"action": "navigate", "url": http_server.url("/a.html")})
            assert not nav.is_error and nav.structured_content["title"] == "Page A"
            results[quick] = (client.server_info.model_dump(mode="json"), tools)
    assert results[True] == results[False]


async def test_a_bad_setting_still_stops_the_quick_start_with_its_message(tmp_path: Path, recorded: dict):
    import subprocess

    env = server_env(tmp_path, BROWSER_HEADLESS="maybe", MCP_QUICKSTART="1")
    run = [*ENTRY]
    proc = await asyncio.to_thread(
        subprocess.run, run, env=env, cwd=str(ROOT), capture_output=True, timeout=60, input=b""
    )
    assert proc.returncode == 2
    assert "BROWSER_HEADLESS" in proc.stderr.decode()


def test_cache_key_follows_the_code_the_packages_and_the_toolset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    for package in ("mcp_server", "targets", "cdp_core"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "mod.py").write_text("x = 1\n")
    monkeypatch.setattr(quickstart, "_ROOT", tmp_path)
    first = quickstart.fingerprint("")
    assert quickstart.fingerprint("") == first
    condensed = quickstart.fingerprint("condensed")
    assert condensed != first and condensed.split("-")[0] == first.split("-")[0]
    (tmp_path / "targets" / "mod.py").write_text("x = 22\n")
    assert quickstart.fingerprint("").split("-")[0] != first.split("-")[0]
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    before = quickstart.fingerprint("")
    (site / "mcp-9.9.dist-info").mkdir()
    assert quickstart.fingerprint("") != before


@pytest.mark.parametrize(
    "changes",
    [
        {"headless": False, "block_media": True, "evaluate_enabled": False},
        {"allowed_urls": ["http://127.0.0.1:*"], "allow_file_urls": True, "network_max_entries": 50},
        {"default_target": "cdp", "cdp_url": "http://127.0.0.1:9333", "max_call_seconds": 10},
        {"console_max_entries": 20, "network_redact_headers": ["x-token"], "chrome_path": "/usr/bin/chromium"},
    ],
)
def test_only_the_toolset_changes_tools_list(tmp_path: Path, changes: dict):
    """The cache is keyed on the toolset alone: no other setting may change what tools/list says."""

    def tools(**settings: object) -> list[dict]:
        from mcp_server.surface.server import BrowserMCP

        app = BrowserMCP(Settings(artifact_dir=str(tmp_path), **settings), manager=None)
        return [t.model_dump(mode="json") for t in app.list_tools()]

    assert tools(**changes) == tools()
    assert tools(toolset="condensed") != tools()


def test_quick_start_can_be_turned_off(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MCP_QUICKSTART", "0")
    assert quickstart.serve("", lambda: 0, lambda *a: 0) is None
    assert quickstart.cache_to_record("") is None
    monkeypatch.setenv("MCP_QUICKSTART", "1")
    assert quickstart.enabled() and os.environ["MCP_QUICKSTART"] == "1"
    from mcp_server.core import settings

    assert quickstart.FALSE_WORDS == settings._FALSE  # the same words as the validated setting
    assert Settings.load().quickstart and not Settings.load(env={"MCP_QUICKSTART": "off"}).quickstart


def test_the_cache_lives_in_the_user_cache_folder_not_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Read-only installs and several users: the handshake is cached under $XDG_CACHE_HOME only."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    package = Path(quickstart.__file__).resolve().parent
    assert quickstart._cache_dirs() == [tmp_path / "cache" / "mcp-browser-debug"]
    assert not any(package in folder.parents or folder == package for folder in quickstart._cache_dirs())
    quickstart._store("abc-1", {"versions": {}})
    assert quickstart.load("abc-1") == {"key": "abc-1", "versions": {}}
    for n in range(12):  # other versions' caches share the folder: only the newest few are kept
        quickstart._store(f"v{n}-1", {"versions": {}})
    assert len(list((tmp_path / "cache" / "mcp-browser-debug").glob("handshake-*.json"))) <= 8
