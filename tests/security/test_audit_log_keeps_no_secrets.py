"""The audit log through the SDK's real client: one JSON line per call, secrets never in it.

The server the CLI builds records every tool call (ok, failed, refused by validation, for an
unknown tool or action) with tool, action, redacted arguments, status, error code, duration
and timestamp. A password typed with fill / fill_uid / fill_form / type_text and credentials
in a URL never reach the file, only the typed value's length does.
"""

from __future__ import annotations

import json
import stat
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from httpserver import Reply
from lean_util import records
from mcp.client import Client
from mcp.shared.exceptions import MCPError

from mcp_server.cli.main import build_app
from mcp_server.safety.audit import MAX_LINE_BYTES
from mcp_server.server.settings import Settings

PLANTED = "pw-audit-planted-7f3a9c"
URL_SECRET = "url-secret-41d2"
FORM = """<!doctype html><title>Login</title><form onsubmit="return false">
<label>User <input id="user" name="user"></label>
<label>Password <input id="pw" name="password" type="password"></label>
<button>Sign in</button></form>"""


@pytest.fixture
async def served(tmp_path: Path, http_server) -> AsyncIterator[tuple[Client, Path, str]]:
    http_server.route("/sec-audit/login.html", Reply(200, FORM))
    root = tmp_path / "artifacts"
    manager, server = build_app(Settings(artifact_dir=str(root)))
    try:
        async with Client(server) as client:
            yield client, root / "audit.jsonl", http_server.url("/sec-audit/login.html")
    finally:
        await manager.close()


def _entries(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


async def test_every_call_is_one_line_with_its_outcome_and_no_secret(served):
    client, log, url = served
    calls: list[tuple[str, dict[str, Any], str | None]] = []  # tool, arguments, expected error code

    async def call(tool: str, args: dict[str, Any], expect: str | None = None) -> Any:
        result = await client.call_tool(tool, args)
        sc = result.structured_content or {}
        assert bool(result.is_error) == (expect is not None) and sc.get("code") == expect, sc
        calls.append((tool, args, expect))
        return sc

    await call("browser_session", {"action": "list_pages"})
    await call("browser_navigate", {"url": url})
    await call("browser_fill", {"selector": "#pw", "value": PLANTED})
    await call("browser_interact", {"action": "fill", "selector": "#pw", "value": PLANTED})
    snap = await call("browser_session", {"action": "snapshot", "interactive_only": True})
    uid = next(line["uid"] for line in records(snap, "lines") if line["name"] == "Password")
    await call("browser_interact", {"action": "fill_uid", "uid": uid, "value": PLANTED})
    await call("browser_interact", {"action": "fill_form", "fields": [{"uid": uid, "value": PLANTED}]})
    await call("browser_interact", {"action": "type_text", "uid": uid, "text": PLANTED})
    await call("browser_session", {"action": "get_dom", "selector": "#missing"}, "INVALID_ARGUMENT")
    await call("browser_session", {"action": "no_such_action"}, "UNKNOWN_ACTION")
    await call("browser_session", {"action": "get_dom", "max_chars": "lots"}, "INVALID_ARGUMENT")
    await call("browser_session", {"action": "attach_cdp", "cdp_url": "http://10.255.255.1:9222"}, "NOT_ALLOWED")
    creds = url.replace("http://", f"http://admin:{URL_SECRET}@") + f"?token={URL_SECRET}&page=2"
    await call("browser_session", {"action": "wait_for", "url_matches": creds, "timeout_ms": 100}, "TIMEOUT")
    typed = await client.call_tool("browser_session", {"action": "evaluate_js", "expression": "pw.value"})
    assert typed.structured_content["result"] == PLANTED * 2  # the fills really typed it (type_text appended)
    calls.append(("browser_session", {"action": "evaluate_js"}, None))

    entries = _entries(log)
    assert len(entries) == len(calls)
    previous = None
    for entry, (tool, args, expect) in zip(entries, calls, strict=True):
        assert set(entry) >= {"timestamp", "tool", "action", "arguments", "status", "errorCode", "durationMs"}
        assert entry["tool"] == tool
        if tool == "browser_session" or tool == "browser_interact":
            assert entry["action"] == args["action"]
        assert entry["status"] == ("error" if expect else "ok") and entry["errorCode"] == expect
        assert isinstance(entry["durationMs"], int | float) and entry["durationMs"] >= 0
        stamp = datetime.fromisoformat(entry["timestamp"])
        assert stamp.tzinfo is not None and (previous is None or stamp >= previous)
        previous = stamp
    assert entries[1]["action"] == "navigate" and entries[1]["arguments"] == {"url": url}
    fills = [e for e in entries if e["action"] in ("fill", "fill_uid")]
    assert len(fills) == 3 and all(e["arguments"]["value"] == f"[{len(PLANTED)} chars]" for e in fills)
    assert fills[0]["arguments"]["selector"] == "#pw" and fills[2]["arguments"]["uid"] == uid
    form = next(e for e in entries if e["action"] == "fill_form")  # typed values nested in fields too
    assert form["arguments"]["fields"] == [{"uid": uid, "value": f"[{len(PLANTED)} chars]"}]
    typing = next(e for e in entries if e["action"] == "type_text")
    assert typing["arguments"] == {"uid": uid, "text": f"[{len(PLANTED)} chars]"}
    assert "admin:[redacted]@" in entries[-2]["arguments"]["url_matches"]
    text = log.read_text(encoding="utf-8")
    assert PLANTED not in text and URL_SECRET not in text
    assert stat.S_IMODE(log.stat().st_mode) == 0o600  # the log lists every URL the agent visited


async def test_a_cancelled_call_is_recorded(served):
    client, log, url = served
    await client.call_tool("browser_navigate", {"url": url})
    with anyio.move_on_after(1.0):  # the wait never succeeds: the client gives up and cancels it
        await client.call_tool("browser_session", {"action": "wait_for", "text": "never there", "timeout_ms": 30000})
    for _ in range(200):  # the server learns of the cancellation from a notification
        entries = _entries(log)
        if len(entries) == 2:
            break
        await anyio.sleep(0.02)
    assert entries[-1]["action"] == "wait_for" and entries[-1]["status"] == "cancelled", entries
    # the server is still fine afterwards, and goes on logging
    after = await client.call_tool("browser_session", {"action": "get_current_page"})
    assert not after.is_error and _entries(log)[-1]["action"] == "get_current_page"


async def test_hostile_arguments_still_leave_one_bounded_line(served):
    client, log, _ = served
    deep: dict = {}
    node = deep
    for _ in range(60):
        node["k"] = {}
        node = node["k"]
    node["password"] = PLANTED
    huge = {f"field{i}": "v" * 10000 for i in range(80)}
    await client.call_tool("browser_session", {"action": "list_pages", "deep": deep})
    await client.call_tool("browser_session", {"action": "list_pages", **huge})
    with pytest.raises(MCPError) as unknown:  # an unknown tool is a protocol error (-32602), logged all the same
        await client.call_tool("x" * 5000, {"token": PLANTED})
    assert unknown.value.error.code == -32602 and len(unknown.value.error.message) < 300
    entries = _entries(log)
    assert [e["status"] for e in entries] == ["error", "error", "error"]
    assert "[nested]" in json.dumps(entries[0]["arguments"])
    args = entries[1]["arguments"]
    assert entries[1]["argumentsShrunk"] and "field0" in args and len(args) <= 21
    assert len(entries[2]["tool"]) == 200 and entries[2]["errorCode"] == "UNKNOWN_ACTION"
    assert all(len(line) <= MAX_LINE_BYTES for line in log.read_bytes().splitlines())
    assert PLANTED not in log.read_text()


def _all_entries(log: Path) -> list[dict[str, Any]]:
    """Every line of the log and its rotated files, oldest file first."""
    files = sorted(log.parent.glob(log.name + ".*"), key=lambda p: -int(p.suffix[1:])) + [log]
    return [json.loads(line) for p in files if p.exists() for line in p.read_text(encoding="utf-8").splitlines()]


async def test_a_burst_of_oversized_refused_calls_cannot_flush_the_log(served):
    # Once 53 refused calls with ~800 KB arguments each rotated the evidence out of all files.
    client, log, url = served
    evidence = url + "?m=evidence-before-the-burst"
    assert not (await client.call_tool("browser_navigate", {"url": evidence})).is_error
    bulk = [[["a" * 8] * 50] * 50] * 40  # about 1 MB of JSON, logged as sent by the old log
    for _ in range(60):
        result = await client.call_tool("browser_session", {"action": "get_capabilities", "bulk": bulk})
        assert result.is_error and result.structured_content["code"] == "INVALID_ARGUMENT"
    assert not (await client.call_tool("browser_session", {"action": "list_pages"})).is_error
    entries = _all_entries(log)
    assert any(e.get("arguments") == {"url": evidence} for e in entries)  # the evidence survived
    files = list(log.parent.glob(log.name + "*"))
    assert sum(p.stat().st_size for p in files) < 1024 * 1024
    assert all(len(line) <= MAX_LINE_BYTES for p in files for line in p.read_bytes().splitlines())
    assert entries[-1]["action"] == "list_pages"
    refused = [e for e in entries if e.get("action") == "get_capabilities"]
    assert refused and all(e["errorCode"] == "INVALID_ARGUMENT" for e in refused)  # each line says what it was


async def test_tokens_in_urls_scripts_and_keystrokes_stay_out_of_the_log(served):
    client, log, url = served
    fragment = "frag-token-5c1d"
    script_secret = "script-pw-09ab"
    typed = "kbd"
    assert not (await client.call_tool("browser_navigate", {"url": f"{url}#access_token={fragment}&x=1"})).is_error
    await client.call_tool(
        "browser_session",
        {"action": "evaluate_js", "expression": f"document.querySelector('#pw').value = '{script_secret}'; 1"},
    )
    await client.call_tool(
        "browser_session",
        {"action": "evaluate_js", "expression": f"JSON.stringify({{password: '{script_secret}'}}).length"},
    )
    predicate = f"window.token === '{script_secret}'"
    await client.call_tool("browser_session", {"action": "wait_for", "predicate": predicate, "timeout_ms": 100})
    for char in typed:
        await client.call_tool("browser_press_key", {"selector": "#pw", "key": char})
    await client.call_tool("browser_press_key", {"selector": "#pw", "key": "Enter"})
    text = log.read_text(encoding="utf-8")
    assert fragment not in text and script_secret not in text
    entries = _entries(log)
    assert "access_token=[redacted]" in entries[0]["arguments"]["url"] and "x=1" in entries[0]["arguments"]["url"]
    assert "querySelector('#pw')" in entries[1]["arguments"]["expression"]  # the script is still reviewable
    keys = [e["arguments"]["key"] for e in entries if e["tool"] == "browser_press_key"]
    assert keys == ["[1 chars]"] * len(typed) + ["Enter"]


async def test_get_browser_status_says_when_the_audit_log_cannot_be_written(tmp_path):
    manager, server = build_app(Settings(artifact_dir=str(tmp_path / "artifacts"), audit_log="/dev/full"))
    try:
        async with Client(server) as client:
            await client.call_tool("browser_session", {"action": "list_pages"})
            result = await client.call_tool("browser_session", {"action": "get_browser_status"})
            text = "\n".join(getattr(b, "text", "") for b in result.content)
            assert "audit log /dev/full not written" in text and "No space left" in text, text
            assert "/dev/full" in json.dumps(result.structured_content["auditLog"])
    finally:
        await manager.close()
        from mcp_server.safety.audit import flush_all

        flush_all()
