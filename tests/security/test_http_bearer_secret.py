"""The HTTP transport answers only a client that sends its bearer secret.

The attack: ``mcp-browser --http`` had no authentication, and another local user drove
``navigate`` and ``evaluate_js`` through it. Now every request (POST, GET, DELETE) needs
``Authorization: Bearer <secret>``; the secret is generated per start and written 0600 (the
path printed on stderr, the value never), or fixed by ``MCP_HTTP_TOKEN`` / ``MCP_HTTP_TOKEN_FILE``.
"""

from __future__ import annotations

import json
import os
import select
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp_http import AUTH, ENTRY, ROOT, TEST_SECRET, free_port, http_client, running_http_server, server_env

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
EVALUATE = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "browser_session", "arguments": {"action": "evaluate_js", "expression": "1+1"}},
}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    with running_http_server(tmp_path / "artifacts") as port:
        yield f"http://127.0.0.1:{port}/mcp", tmp_path / "artifacts" / "audit.jsonl"


async def test_every_method_without_the_secret_gets_401_and_reaches_no_tool(served):
    url, audit = served
    async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
        # a session opened by the rightful client: the intruder knows its id (it is not a credential)
        init = await http.post(url, json=INIT, headers={**HEADERS, **AUTH})
        assert init.status_code == 200
        sid = init.headers["mcp-session-id"]
        session = {**HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"}
        ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await http.post(url, json=ready, headers={**session, **AUTH})).status_code in (200, 202)
        wrongs = [
            {},
            {"Authorization": "Bearer wrong-secret-0123456789"},
            {"Authorization": TEST_SECRET},
            {"Authorization": f"Basic {TEST_SECRET}"},
            {"Authorization": f"Bearer {TEST_SECRET}x"},
        ]
        for wrong in wrongs:
            for method in ("POST", "GET", "DELETE"):
                body = json.dumps(EVALUATE) if method == "POST" else None
                answer = await http.request(method, url, content=body, headers={**session, **wrong})
                assert answer.status_code == 401, (method, wrong, answer.status_code)
                assert answer.headers["www-authenticate"].startswith("Bearer")
                assert "Authorization: Bearer" in answer.json()["error"]["message"]
            other_path = await http.get(url.replace("/mcp", "/"), headers=wrong)
            assert other_path.status_code == 401
        ok = await http.post(url, json=EVALUATE, headers={**session, "Authorization": f"bearer {TEST_SECRET}"})
        assert ok.status_code == 200 and '"result":2' in ok.text.replace(" ", "")
    entries = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [e["action"] for e in entries] == ["evaluate_js"]  # only the authorised call reached a tool


def _start_and_read_stderr(tmp_path: Path, **env: str) -> tuple[subprocess.Popen[bytes], int, str]:
    port = free_port()
    proc = subprocess.Popen(
        [*ENTRY, "--http", "--port", str(port)],
        env=server_env(tmp_path / "artifacts", **env),
        cwd=str(ROOT),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    text = ""
    deadline = time.monotonic() + 60
    while "Bearer" not in text:
        assert proc.poll() is None and time.monotonic() < deadline, text
        ready, _, _ = select.select([proc.stderr], [], [], 1)
        if ready:
            text += os.read(proc.stderr.fileno(), 4096).decode()
    return proc, port, text


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


async def test_a_generated_secret_is_written_0600_and_its_path_printed_never_its_value(tmp_path: Path):
    proc, port, text = _start_and_read_stderr(tmp_path, MCP_HTTP_TOKEN="")
    try:
        token_file = tmp_path / "artifacts" / "http-token"
        assert str(token_file.resolve()) in text
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        secret = token_file.read_text().strip()
        assert len(secret) >= 32 and secret not in text
        async with http_client(f"http://127.0.0.1:{port}/mcp", secret=secret, mode="legacy") as client:
            result = await client.call_tool("browser_session", {"action": "get_capabilities"})
            assert not result.is_error
    finally:
        _stop(proc)
    # the next start has a new secret
    proc, _, _ = _start_and_read_stderr(tmp_path, MCP_HTTP_TOKEN="")
    try:
        assert token_file.read_text().strip() != secret
    finally:
        _stop(proc)


async def test_a_secret_file_for_a_static_client_config(tmp_path: Path):
    secret_file = tmp_path / "conf" / "mcp-browser.token"
    proc, port, text = _start_and_read_stderr(tmp_path, MCP_HTTP_TOKEN="", MCP_HTTP_TOKEN_FILE=str(secret_file))
    try:
        secret = secret_file.read_text().strip()
        assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600 and secret not in text
    finally:
        _stop(proc)
    proc, port, _ = _start_and_read_stderr(tmp_path, MCP_HTTP_TOKEN="", MCP_HTTP_TOKEN_FILE=str(secret_file))
    try:
        assert secret_file.read_text().strip() == secret  # kept across restarts
        async with http_client(f"http://127.0.0.1:{port}/mcp", secret=secret, mode="legacy") as client:
            assert not (await client.call_tool("browser_session", {"action": "get_capabilities"})).is_error
    finally:
        _stop(proc)


def test_a_secret_file_others_can_read_or_a_short_secret_stops_the_start(tmp_path: Path):
    secret_file = tmp_path / "mcp-browser.token"
    secret_file.write_text("a-secret-long-enough-0123456789\n")
    secret_file.chmod(0o644)  # readable by other users: refused at start, not served
    refused = subprocess.run(
        [*ENTRY, "--http", "--port", str(free_port())],
        env=server_env(tmp_path / "artifacts", MCP_HTTP_TOKEN="", MCP_HTTP_TOKEN_FILE=str(secret_file)),
        cwd=str(ROOT),
        capture_output=True,
        timeout=60,
    )
    assert refused.returncode == 2 and "chmod 600" in refused.stderr.decode(), refused.stderr.decode()
    short = subprocess.run(
        [*ENTRY, "--http", "--port", str(free_port())],
        env=server_env(tmp_path / "artifacts", MCP_HTTP_TOKEN="short"),
        cwd=str(ROOT),
        capture_output=True,
        timeout=60,
    )
    assert short.returncode == 2 and "MCP_HTTP_TOKEN" in short.stderr.decode()


def test_on_windows_a_new_secret_file_is_restricted_to_its_owner_before_the_secret_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """chmod 0600 means nothing to a Windows ACL: a file in a shared folder inherited its readers."""
    from mcp_server.safety import http_auth

    restricted: list[tuple[Path, str]] = []
    monkeypatch.setattr(http_auth.sys, "platform", "win32")  # the owner-only call is stood in for below
    monkeypatch.setattr(http_auth, "restrict_to_owner", lambda path: restricted.append((path, path.read_text())))
    secret = http_auth.resolve_secret(None, tmp_path / "shared" / "token", tmp_path / "artifacts")
    assert restricted == [(tmp_path / "shared" / "token", "")]  # the file itself, while still empty
    assert (tmp_path / "shared" / "token").read_text().strip() == secret.value
