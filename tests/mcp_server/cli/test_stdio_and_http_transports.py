"""The server as users start it: ``mcp-browser`` over stdio and over streamable HTTP on loopback.

Each test runs the real entry point in a subprocess and talks to it through the SDK's client.
Also: bad settings stop the server with a clear message; the ``hook`` subcommand dispatches;
the HTTP transport refuses a foreign Host header (DNS rebinding).
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_http import AUTH, ENTRY, http_client, running_http_server, server_env
from paths import ROOT

from targets.errors import ErrorCode


async def test_stdio_lists_tools_and_answers(tmp_path: Path, http_server):
    params = StdioServerParameters(
        command=ENTRY[0],
        args=[*ENTRY[1:], "--toolset", "condensed"],
        env=server_env(tmp_path / "artifacts"),
        cwd=str(ROOT),
    )
    async with Client(params) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        assert tools == {"browser_session", "browser_interact"}
        caps = await client.call_tool("browser_session", {"action": "get_capabilities"})
        assert not caps.is_error and caps.structured_content["server"]["name"] == "mcp-browser-debug"
        nav = await client.call_tool("browser_session", {"action": "navigate", "url": http_server.url("/a.html")})
        assert not nav.is_error, nav.content[0].text
        assert nav.structured_content["title"] == "Page A"
        bad = await client.call_tool("browser_session", {"action": "fly"})
        assert bad.is_error and bad.structured_content["code"] == ErrorCode.UNKNOWN_ACTION
    audit = (tmp_path / "artifacts" / "audit.jsonl").read_text().splitlines()
    assert [json.loads(line)["action"] for line in audit] == ["get_capabilities", "navigate", "fly"]


@pytest.fixture
def http_server_process(tmp_path: Path) -> Iterator[int]:
    with running_http_server(tmp_path / "artifacts", "--toolset", "all") as port:
        yield port


async def test_http_initialize_and_call(http_server_process: int):
    url = f"http://127.0.0.1:{http_server_process}/mcp"
    async with http_client(url, mode="legacy") as client:
        assert client.server_info is not None and client.server_info.name == "mcp-browser-debug"
        tools = {t.name for t in (await client.list_tools()).tools}
        assert {"browser_session", "browser_interact", "browser_navigate"} <= tools
        result = await client.call_tool("browser_session", {"action": "get_capabilities"})
        assert not result.is_error
        assert result.structured_content["adapter"]["entryTool"] == "browser_session"
        legacy = await client.call_tool("browser_list_frames", {"bogus": True})
        assert legacy.is_error and legacy.structured_content["code"] == ErrorCode.INVALID_ARGUMENT


async def test_http_refuses_foreign_host_and_origin(http_server_process: int):
    url = f"http://127.0.0.1:{http_server_process}/mcp"
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", **AUTH}
    async with httpx.AsyncClient(trust_env=False) as http:
        evil_host = await http.post(url, json=body, headers={**headers, "Host": "evil.example:80"})
        evil_origin = await http.post(url, json=body, headers={**headers, "Origin": "http://evil.example"})
        good = await http.post(url, json=body, headers={**headers, "Origin": f"http://127.0.0.1:{http_server_process}"})
    assert evil_host.status_code in (403, 421), evil_host.status_code
    assert evil_origin.status_code in (403, 421), evil_origin.status_code
    assert good.status_code == 200


def test_bad_setting_stops_with_a_clear_message(tmp_path: Path):
    proc = subprocess.run(
        ENTRY,
        env=server_env(tmp_path, BROWSER_HEADLESS="maybe"),
        cwd=str(ROOT),
        capture_output=True,
        timeout=60,
        input=b"",
    )
    assert proc.returncode == 2
    assert "BROWSER_HEADLESS" in proc.stderr.decode() and "true or false" in proc.stderr.decode()
    proc = subprocess.run(
        ENTRY,
        env=server_env(tmp_path, NETWORK_MAX_ENTRIES="0"),
        cwd=str(ROOT),
        capture_output=True,
        timeout=60,
        input=b"",
    )
    assert proc.returncode == 2 and "NETWORK_MAX_ENTRIES" in proc.stderr.decode()


def test_hook_subcommand_dispatches(tmp_path: Path):
    prompt = json.dumps({"prompt": "Chrome is already open on the failing form, attach to it"})
    proc = subprocess.run(
        [*ENTRY, "hook", "user-prompt"],
        env=server_env(tmp_path),
        cwd=str(ROOT),
        capture_output=True,
        timeout=60,
        input=prompt.encode(),
    )
    assert proc.returncode == 0
    assert "attach_cdp" in proc.stdout.decode()


def _descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (read from /proc; Linux only, like the CI)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_sigterm_exits_and_leaves_no_browser_behind(tmp_path: Path, http_server):
    proc = subprocess.Popen(
        ENTRY,
        env=server_env(tmp_path / "artifacts"),
        cwd=str(ROOT),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def rpc(message: dict) -> None:
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()

    try:
        rpc(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        )
        assert json.loads(proc.stdout.readline())["id"] == 1
        rpc({"jsonrpc": "2.0", "method": "notifications/initialized"})
        rpc(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "browser_navigate", "arguments": {"url": http_server.url("/a.html")}},
            }
        )
        answer = json.loads(proc.stdout.readline())
        assert answer["id"] == 2 and not answer["result"].get("isError"), answer
        browser = {
            p
            for p in _descendants(proc.pid)
            if "chrom" in Path(f"/proc/{p}/cmdline").read_bytes().decode(errors="replace")
        }
        assert browser, "the internal browser should be running below the server"
        proc.terminate()
        assert proc.wait(timeout=30) == 0
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in browser) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(p) for p in browser), "the internal browser outlived the server"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def test_http_two_clients_at_once(http_server_process: int):
    url = f"http://127.0.0.1:{http_server_process}/mcp"
    answers: list[bool] = []

    async def one_client() -> None:
        async with http_client(url, mode="legacy") as client:
            for _ in range(10):
                result = await client.call_tool("browser_session", {"action": "get_browser_status"})
                answers.append(not result.is_error and result.structured_content["status"] == "ok")

    async with anyio.create_task_group() as tg:
        tg.start_soon(one_client)
        tg.start_soon(one_client)
    assert answers == [True] * 20
