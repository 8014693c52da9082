"""The first calls of a quick start run before the SDK server is ready (issue 36), and nobody can tell.

A warm start (the handshake recorded) answers ``initialize`` and ``tools/list`` from the
recording, and now also runs the first ``tools/call`` requests for real while the SDK's server
side loads (mcp_server/commands/early_calls.py, quick_front.py). What a client must not be able
to tell apart: such an answer and the same call answered by the SDK (``MCP_EARLY_CALLS=0``),
byte for byte where nothing volatile is in it, in shape where it is (ids, times). Requests the
early path does not take (a ``progressToken``, an unknown tool) wait for the SDK and get its
answer; calls sent while an early call runs are all answered once; a cancel silences one.
The answers validate in the Python SDK's client and in the TypeScript SDK's.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_http import ENTRY, server_env
from mcp_types import CallToolRequestParams, methods
from mcp_types.jsonrpc import JSONRPCResponse, jsonrpc_message_adapter
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from stdio_session import handshake, spawn_server, stdio_session

from cdp_core import ChromiumProcess
from mcp_server.commands import early_calls
from mcp_server.core.registry import ActionResult
from mcp_server.surface import stdio_guard
from mcp_server.surface.envelope import error_result, ok_result, wire_form
from targets.errors import ErrorCode, ToolFailure

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "bench" / "peers"
EARLY = "started before the SDK server was ready"


async def _session(
    tmp_path: Path, messages: list[Any], answers: int, *, early: bool, close_at_once: bool = False
) -> tuple[list[bytes], str]:
    """A quick start fed ``messages`` (dicts, or raw lines as bytes) at once; its first answers and its log."""
    env = server_env(tmp_path / "artifacts", MCP_QUICKSTART="1", MCP_EARLY_CALLS="1" if early else "0")
    return await stdio_session(env, messages, answers, close_at_once=close_at_once)


def _call(msg_id: Any, name: str, arguments: Any, **params: Any) -> dict:
    call = {"name": name, "arguments": arguments, **params}
    return {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": call}


def _by_id(lines: list[bytes]) -> dict[Any, bytes]:
    return {json.loads(line)["id"]: line for line in lines}


#: what differs between two attaches to the same Chrome: times, ids, tab and port numbers
_VOLATILE = re.compile(rb'\d+(\.\d+)?|"[0-9A-F]{32}"|"[0-9a-f-]{36}"')


def _shape(line: bytes) -> bytes:
    return _VOLATILE.sub(b"N", line)


# -- the wire form, against the SDK's own serializer -------------------------------------------


def _answers() -> list[Any]:
    ok = ActionResult(
        text='héllo\u2028 <b>&</b> "q"\n2nd line',
        data={"n": 1.0, "big": 1e20, "small": 1e-7, "s": "é\u0000", "rows": [[1, "a", {"x": True}]], "k": [1.5]},
        images=[("AAAA", "image/png")],
    )
    error = ToolFailure(ErrorCode.INVALID_ARGUMENT, "bad", hint="h", errors=[{"field": "x", "problem": "p"}])
    return [
        ok_result(ok, {"entryTool": "browser_session", "action": "x", "legacyTool": None}),
        ok_result(ActionResult(text="plain", data={}), None),
        error_result(error, None),
    ]


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
@pytest.mark.parametrize("msg_id", [7, "call-é", 2**40])
def test_an_early_answer_is_the_sdks_bytes(version: str, msg_id: Any):
    for answer in _answers():
        wire = wire_form(answer)
        sdk = methods.serialize_server_result("tools/call", version, dict(wire))
        response = JSONRPCResponse(jsonrpc="2.0", id=msg_id, result=sdk)
        expected = response.model_dump_json(by_alias=True, exclude_unset=True)
        assert early_calls.answer_line(msg_id, wire, version) == expected.encode() + b"\n"


def test_only_plain_calls_of_known_tools_are_taken_early():
    tools = {"browser_session"}

    def take(msg: dict, version: str | None = "2025-11-25") -> bool:
        return early_calls.eligible(json.dumps(msg).encode(), msg, version, tools)

    assert take(_call(3, "browser_session", {"action": "list_pages"}))
    assert take(_call("a", "browser_session", None))
    assert not take(_call(3, "browser_session", {"action": "list_pages"}), version="2026-07-28")
    assert not take(_call(3, "browser_session", {}), version=None)
    assert not take(_call(3, "no_such_tool", {}))
    assert not take(_call(3, "browser_session", [1]))
    assert not take(_call(True, "browser_session", {}))
    assert not take(_call(2**60, "browser_session", {}))
    assert not take(_call(3, "browser_session", {}, _meta={"progressToken": "p"}))
    assert take(_call(3, "browser_session", {}, _meta={}))
    assert not take(_call(3, "browser_session", {}, extra=1))
    assert not take({**_call(3, "browser_session", {}), "method": "tools/list"})
    deep: Any = 1
    for _ in range(150):
        deep = [deep]
    assert not take(_call(3, "browser_session", {"x": deep}))


def _sdk_takes(line: bytes, version: str) -> dict[str, Any] | None:
    """What the SDK's stdio path makes of a ``tools/call`` line: its params as the handler gets them, or None."""
    if stdio_guard.problem_of(line.decode("utf-8", "replace")) is not None:
        return None
    try:
        message = jsonrpc_message_adapter.validate_json(line, by_name=False)
        raw = getattr(message, "params", None)
        methods.validate_client_request("tools/call", version, raw)
        params = CallToolRequestParams.model_validate(raw or {}, by_name=False)
    except Exception:  # noqa: BLE001 - whatever the SDK refuses
        return None
    return {"name": params.name, "arguments": params.arguments}


def _raw(arguments: str, *, msg_id: str = "3", meta: str = "") -> bytes:
    """A tools/call line of browser_session, its arguments (and _meta) given as raw JSON text."""
    tail = f',"_meta":{meta}' if meta else ""
    call = f'"method":"tools/call","params":{{"name":"browser_session","arguments":{arguments}{tail}}}'
    return f'{{"jsonrpc":"2.0","id":{msg_id},{call}}}'.encode()


#: lines json.loads and the SDK's parser (pydantic-core's) may read apart, and ordinary ones
_AWKWARD = [
    _raw('{"a":1}'),
    _raw('{"a":NaN}'),
    _raw('{"a":"\\ud800"}'),  # a lone surrogate: json.loads takes it, the SDK's parser does not
    _raw('{"a":1e400}'),
    _raw('{"a":1,"a":2}'),
    _raw("{}", msg_id='3,"id":"x"'),
    _raw('{"a":"\\u00e9\\n"}'),
    _raw('{"a":-0.0}'),
    _raw('{"n":12345678901234567890123}'),
    _raw("{}", meta='{"x":[1]}'),
    _raw("null", meta="null"),
    _raw("{}", msg_id="3.0"),
    _raw('{"s":"é\u2028"}'),
    _raw('{"s":"a\tb"}'),  # a raw tab in a string: no JSON
    b"\xef\xbb\xbf" + _raw("{}"),  # a byte-order mark
]


@pytest.mark.parametrize("line", _AWKWARD)
def test_a_call_is_taken_early_only_when_the_sdk_reads_it_the_same(line: bytes):
    """The early path's own check (no mcp_types: its import is what the first call would wait for)
    takes a line only if the SDK's parser and models take it and hand the handler the same params."""
    try:
        msg = json.loads(line)
    except ValueError:
        msg = None
    taken = isinstance(msg, dict) and early_calls.eligible(line, msg, "2025-11-25", {"browser_session"})
    sdk = _sdk_takes(line, "2025-11-25")
    if taken:
        assert sdk is not None, "taken early, but the SDK would refuse it"
        assert sdk == {"name": msg["params"]["name"], "arguments": msg["params"].get("arguments")}
    if line == _AWKWARD[0]:
        assert taken  # an ordinary call is taken


# -- real sessions -----------------------------------------------------------------------------


async def test_a_first_attach_answered_early_is_the_sdks_answer(tmp_path: Path, handshake_recorded: dict):
    chrome = ChromiumProcess.start()
    try:
        attach = _call(3, "browser_session", {"action": "attach_cdp", "cdp_url": chrome.cdp_url})
        lines = {}
        for early in (True, False):
            out, log = await _session(tmp_path, [*handshake(), attach], 3, early=early)
            assert "answered the handshake from the recorded answers" in log, log
            assert (f"tools/call 3, {EARLY}" in log) is early, log
            lines[early] = _by_id(out)
    finally:
        chrome.stop()
    answer = json.loads(lines[True][3])["result"]
    assert not answer.get("isError") and answer["structuredContent"]["status"] == "ok", answer
    assert chrome.cdp_url.split("//")[1] in json.dumps(answer["structuredContent"])
    assert _shape(lines[True][3]) == _shape(lines[False][3])
    assert lines[True][1] == lines[False][1] and lines[True][2] == lines[False][2]


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
async def test_a_bad_first_call_gets_the_sdks_answer_byte_for_byte(
    tmp_path: Path, handshake_recorded: dict, version: str
):
    calls = [
        _call(3, "browser_session", {"action": "attach_cdp", "cdp_url": 9222}),
        _call(4, "browser_session", {"action": "no_such_action"}),
        _call(5, "browser_navigate", {}),
    ]
    lines = {}
    for early in (True, False):
        out, log = await _session(tmp_path, [*handshake(version), *calls], 5, early=early)
        assert (f"tools/call 3, {EARLY}" in log) is early, log
        lines[early] = _by_id(out)
    assert lines[True] == lines[False]
    bad = json.loads(lines[True][3])["result"]
    assert bad["isError"] and bad["structuredContent"]["code"] == "INVALID_ARGUMENT"
    assert "cdp_url" in bad["structuredContent"]["message"]


async def test_what_the_early_path_leaves_to_the_sdk_gets_the_sdks_answer(tmp_path: Path, handshake_recorded: dict):
    progress = _call(3, "browser_session", {"action": "get_capabilities"}, _meta={"progressToken": "tok"})
    unknown = _call(4, "no_such_tool", {})
    lines = {}
    for early in (True, False):
        out, log = await _session(tmp_path, [*handshake(), progress, unknown], 4, early=early)
        assert EARLY not in log, log  # a progressToken waits for the SDK, and everything after it
        lines[early] = _by_id(out)
    assert lines[True] == lines[False]
    assert json.loads(lines[True][4])["error"]["code"] == -32602
    assert json.loads(lines[True][3])["result"]["structuredContent"]["status"] == "ok"

    out, log = await _session(tmp_path, [*handshake(), unknown, _call(5, "browser_session", {})], 4, early=True)
    assert EARLY not in log  # after a line only the SDK answers, the SDK answers everything
    assert set(_by_id(out)) == {1, 2, 4, 5}

    broken = [*handshake(), b'{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {', _call(7, "x", {})]
    lines = {}
    for early in (True, False):
        out, log = await _session(tmp_path, broken, 4, early=early)
        assert EARLY not in log, log
        lines[early] = out
    assert lines[True] == lines[False]
    assert json.loads(lines[True][2])["error"]["code"] == -32700  # the stdio guard's answer to broken JSON


async def test_calls_sent_while_an_early_call_runs_are_each_answered_once(tmp_path: Path, handshake_recorded: dict):
    chrome = ChromiumProcess.start()
    try:
        messages = [
            *handshake(),
            _call(3, "browser_session", {"action": "attach_cdp", "cdp_url": chrome.cdp_url}),
            _call(4, "browser_session", {"action": "list_pages"}),
            {"jsonrpc": "2.0", "id": 5, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 6, "method": "ping"},
            _call(7, "browser_session", {"action": "get_browser_status"}),
        ]
        out, log = await _session(tmp_path, messages, 7, early=True)
    finally:
        chrome.stop()
    answers = _by_id(out)
    assert sorted(answers) == [1, 2, 3, 4, 5, 6, 7] and len(out) == 7
    assert f"tools/call 3, {EARLY}" in log, log
    assert json.loads(answers[3])["result"]["structuredContent"]["status"] == "ok"
    pages = json.loads(answers[4])["result"]["structuredContent"]
    assert pages["status"] == "ok", pages  # ran under the locks after the attach (state) finished
    assert json.loads(answers[5])["result"]["tools"] and json.loads(answers[6])["result"] == {}
    assert json.loads(answers[7])["result"]["structuredContent"]["status"] == "ok"


async def test_a_cancelled_early_call_gets_no_answer_and_the_session_goes_on(tmp_path: Path, handshake_recorded: dict):
    # A port that takes connections and never answers: attach_cdp's discovery waits there until cancelled.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        slow = _call(3, "browser_session", {"action": "attach_cdp", "cdp_url": url})
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}
        messages = [*handshake(), slow, cancel, _call(4, "browser_session", {"action": "get_capabilities"})]
        out, log = await _session(tmp_path, messages, 3, early=True)
    answers = _by_id(out)
    assert sorted(answers) == [1, 2, 4], answers  # no answer for the cancelled call, as the SDK does
    assert json.loads(answers[4])["result"]["structuredContent"]["status"] == "ok"
    assert f"tools/call 4, {EARLY}" in log, log


async def test_a_first_call_sent_after_the_tools_loaded_still_runs_before_the_sdk_load(
    tmp_path: Path, handshake_recorded: dict
):
    """A client that compiles our outputSchemas before calling (the TypeScript SDK, ~100 ms) sends its
    first call after the tools loaded. The SDK server's load (~0.3 s of CPU) waits for that call
    (FIRST_CALL_HOLD_S), instead of halving its CPU: the call runs here, then the SDK loads and serves."""
    env = server_env(tmp_path / "artifacts", MCP_QUICKSTART="1", MCP_EARLY_CALLS="1")
    proc = await spawn_server(env)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in handshake()))
        for _ in range(2):
            await asyncio.wait_for(proc.stdout.readline(), 60)
        # After the tools loaded (~0.1-0.2 s from the start), within FIRST_CALL_HOLD_S of it.
        await asyncio.sleep(0.25)
        proc.stdin.write(json.dumps(_call(3, "browser_session", {"action": "get_capabilities"})).encode() + b"\n")
        answer = json.loads(await asyncio.wait_for(proc.stdout.readline(), 60))
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 4, "method": "ping"}).encode() + b"\n")
        pong = json.loads(await asyncio.wait_for(proc.stdout.readline(), 60))
    finally:
        proc.stdin.close()
        await asyncio.wait_for(proc.wait(), 30)
    log = (await proc.stderr.read()).decode()
    assert answer["id"] == 3 and answer["result"]["structuredContent"]["status"] == "ok", answer
    assert f"tools/call 3, {EARLY}" in log, log
    # the SDK server's load began only once the call had been answered
    assert log.index(f"tools/call 3, {EARLY}") < log.index("the SDK server loads now"), log
    assert pong == {"jsonrpc": "2.0", "id": 4, "result": {}}  # the SDK serves after it


async def test_an_sdk_client_session_whose_first_call_ran_early(tmp_path: Path, handshake_recorded: dict):
    chrome = ChromiumProcess.start()
    try:
        log_file = tmp_path / "server.log"
        env = server_env(tmp_path / "artifacts", MCP_QUICKSTART="1", MCP_EARLY_CALLS="1")
        command = f"exec {' '.join(ENTRY)} --log-level INFO 2>{log_file}"
        params = StdioServerParameters(command="/bin/sh", args=["-c", command], env=env, cwd=str(ROOT))
        async with Client(params, mode="legacy") as client:
            await client.list_tools()
            # The Python client validates structuredContent against the tool's outputSchema.
            attach = await client.call_tool("browser_session", {"action": "attach_cdp", "cdp_url": chrome.cdp_url})
            assert not attach.is_error and attach.structured_content["status"] == "ok"
            pages = await client.call_tool("browser_session", {"action": "list_pages"})
            assert not pages.is_error
    finally:
        chrome.stop()
    assert EARLY in log_file.read_text()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the TypeScript SDK cannot run")
async def test_an_early_first_call_validates_in_the_typescript_sdk(tmp_path: Path, handshake_recorded: dict):
    assert (PEERS / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir()
    chrome = ChromiumProcess.start()
    try:
        log_file = tmp_path / "server.log"
        env = server_env(tmp_path / "artifacts", MCP_QUICKSTART="1", MCP_EARLY_CALLS="1")
        command = f"exec {sys.executable} -m mcp_server.cli --log-level INFO 2>{log_file}"
        calls = [
            ["browser_session", {"action": "attach_cdp", "cdp_url": chrome.cdp_url}],
            ["browser_session", {"action": "list_pages"}],
        ]
        plan = {"command": "/bin/sh", "args": ["-c", command], "env": env, "calls": calls}
        (tmp_path / "plan.json").write_text(json.dumps(plan))
        run = await asyncio.to_thread(
            subprocess.run,
            ["node", str(ROOT / "tests" / "ts_sdk_client.cjs"), str(PEERS), str(tmp_path / "plan.json")],
            capture_output=True, text=True, timeout=180, cwd=ROOT,
        )  # fmt: skip
    finally:
        chrome.stop()
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.splitlines()[-1])
    assert [c["status"] for c in out["calls"]] == ["ok", "ok"], out["calls"]
    assert EARLY in log_file.read_text()


async def test_the_server_leaves_when_the_client_closes_the_wire_during_an_early_call(
    tmp_path: Path, handshake_recorded: dict
):
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        messages = [*handshake(), _call(3, "browser_session", {"action": "attach_cdp", "cdp_url": url})]
        lines = {}
        for early in (True, False):
            out, log = await _session(tmp_path, messages, 3, early=early, close_at_once=True)
            assert (f"tools/call 3, {EARLY}" in log) is False  # it never answered: cancelled at the end
            assert log.endswith("exit code 0") and "Traceback" not in log, log  # it left by itself, not killed
            lines[early] = _by_id(out)
    assert lines[True] == lines[False]  # the call in flight: the SDK's "Connection closed" error, both ways
    assert json.loads(lines[True][3])["error"]["code"] == -32000


async def test_a_tools_list_with_params_that_are_no_object_gets_the_sdks_answer_and_the_session_goes_on(
    tmp_path: Path, handshake_recorded: dict
):
    # The front read params.get("cursor") of any tools/list: a list there ended its reader, and with
    # it the session (every later request unanswered). Now the SDK answers it, as without the front.
    odd = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": ["oops"]}
    ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}
    lines = {}
    for early in (True, False):
        out, log = await _session(tmp_path, [*handshake()[:2], odd, ping], 3, early=early)
        lines[early] = _by_id(out)
    assert set(lines[True]) == {1, 2, 3}, lines[True]
    assert json.loads(lines[True][3])["result"] == {}  # the ping after it is answered: the session went on
    assert lines[True][2] == lines[False][2]  # and the odd list gets what the SDK alone answers
