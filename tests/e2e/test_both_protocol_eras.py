"""One agent session, the same in both MCP eras: 2025-11-25 (TypeScript SDK) and 2026-07-28 (Python SDK).

The revision of 2026-07-28 is stateless (``server/discover`` instead of ``initialize``, the
protocol version in each request's ``_meta``); hosts built on the TypeScript SDK (Claude Code)
still speak 2025-11-25. Both drive the server as users start it (``python -m mcp_server.cli``
over stdio, ``--http`` over streamable HTTP) through the same scenario: tools/list, a navigation,
the console, an error the agent must read, and a wait long enough to send progress. Every
session must see the same outcomes, the same capabilities (no deprecated ``logging``), and
progress on the long call.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from httpserver import Reply
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_http import ENTRY, TEST_SECRET, http_client, running_http_server, server_env
from paths import ROOT

PEERS = ROOT / "bench" / "peers"
SDK = PEERS / "node_modules" / "@modelcontextprotocol" / "sdk"

#: a save that logs an error at once and shows "Saved" four seconds after the click
PAGE = """<!doctype html><title>Eras</title>
<button id="save" onclick="console.error('save failed: 500');
  setTimeout(() => { document.getElementById('out').textContent = 'Saved'; }, 4000)">Save</button>
<p id="out"></p>"""


def scenario(url: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("browser_session", {"action": "navigate", "url": url}),
        ("browser_interact", {"action": "click", "selector": "#save"}),
        ("browser_session", {"action": "console_list"}),
        ("browser_interact", {"action": "click", "selector": "#no-such-button", "timeout_ms": 300}),
        ("browser_session", {"action": "wait_for", "text": "Saved", "timeout_ms": 30000}),
    ]


def check(seen: dict[str, Any]) -> None:
    """What every session must see, whichever era and transport."""
    assert {"browser_session", "browser_interact"} <= set(seen["tools"])
    assert not seen["capabilities"].get("logging"), seen["capabilities"]
    assert seen["capabilities"].get("tools") is not None
    calls = seen["calls"]
    assert [c["isError"] for c in calls] == [False, False, False, True, False], calls
    assert "save failed: 500" in calls[2]["text"], calls[2]
    assert calls[3]["code"] == "ELEMENT_NOT_INTERACTABLE" and "#no-such-button" in calls[3]["text"], calls[3]
    assert calls[4]["progress"] >= 1, calls[4]  # the wait of seconds reported progress


def counter(into: list[float]) -> Any:
    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        into.append(done)

    return on_progress


async def python_session(client: Client, url: str) -> dict[str, Any]:
    async with client:
        seen: dict[str, Any] = {
            "protocolVersion": client.protocol_version,
            "capabilities": client.server_capabilities.model_dump(exclude_none=True),
            "tools": [t.name for t in (await client.list_tools()).tools],
            "calls": [],
        }
        for tool, args in scenario(url):
            progress: list[float] = []
            result = await client.call_tool(tool, args, progress_callback=counter(progress))
            sc = result.structured_content or {}
            text = "\n".join(getattr(b, "text", "") for b in result.content)
            seen["calls"].append(
                {"isError": bool(result.is_error), "code": sc.get("code"), "text": text, "progress": len(progress)}
            )
    return seen


def typescript_session(plan: dict[str, Any], url: str, tmp_path: Path) -> dict[str, Any]:
    plan = {**plan, "calls": scenario(url)}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    run = subprocess.run(
        ["node", str(ROOT / "tests" / "ts_sdk_session.cjs"), str(PEERS), str(tmp_path / "plan.json")],
        capture_output=True,
        text=True,
        timeout=400,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.splitlines()[-1])


@pytest.fixture
def page(http_server) -> str:
    http_server.route("/eras/save.html", Reply(200, PAGE))
    return http_server.url("/eras/save.html")


def stdio(tmp_path: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=ENTRY[0], args=ENTRY[1:], env=server_env(tmp_path / "artifacts"), cwd=str(ROOT)
    )


async def test_2026_stateless_session_over_stdio(tmp_path: Path, page: str):
    seen = await python_session(Client(stdio(tmp_path)), page)
    assert seen["protocolVersion"] == "2026-07-28"
    check(seen)


async def test_2026_stateless_session_over_streamable_http(tmp_path: Path, page: str):
    with running_http_server(tmp_path / "artifacts") as port:
        seen = await python_session(http_client(f"http://127.0.0.1:{port}/mcp"), page)
    assert seen["protocolVersion"] == "2026-07-28"
    check(seen)


needs_node = pytest.mark.skipif(
    shutil.which("node") is None or not SDK.is_dir(), reason="node or the TypeScript SDK (bench/peers) is missing"
)


@needs_node
def test_2025_session_of_the_typescript_sdk_over_stdio(tmp_path: Path, page: str):
    params = stdio(tmp_path)
    plan = {"transport": "stdio", "command": params.command, "args": params.args, "env": params.env}
    seen = typescript_session(plan, page, tmp_path)
    assert seen["protocolVersion"] == "2025-11-25"
    check(seen)


@needs_node
def test_2025_session_of_the_typescript_sdk_over_streamable_http(tmp_path: Path, page: str):
    with running_http_server(tmp_path / "artifacts") as port:
        plan = {"transport": "http", "url": f"http://127.0.0.1:{port}/mcp", "token": TEST_SECRET}
        seen = typescript_session(plan, page, tmp_path)
    assert seen["protocolVersion"] == "2025-11-25"
    check(seen)
