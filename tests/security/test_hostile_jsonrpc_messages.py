"""Hostile JSON-RPC messages get an error answer on stdio too.

The attack: arguments nested deeper than about 200 levels, or an integer of 4300+ digits, got
no answer at all over stdio (the SDK's transport dropped the line and the client waited for its
timeout), while HTTP answered a parse error. Here the server runs as clients start it, the raw
lines are written to its stdin, and each one must be answered with an error carrying the
request's id; the server keeps serving, and the audit log records the refusals. Over HTTP the
same messages are answered with an error as well.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from mcp_http import AUTH, StdoutLines, running_http_server, server_env
from paths import ROOT

from mcp_server.cli.stdio_guard import request_id

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def _call(rid: Any, arguments_json: str) -> str:
    return (
        '{"jsonrpc":"2.0","id":' + json.dumps(rid) + ',"method":"tools/call","params":{"name":"browser_session",'
        '"arguments":{"action":"get_capabilities","x":' + arguments_json + "}}}"
    )


DEEP = "[" * 300 + "]" * 300
DEEP_OBJECT = '{"a":' * 250 + "1" + "}" * 250
HUGE_INT = "9" * 5000


class StdioPeer:
    def __init__(self, artifacts: Path, *, log: Path | None = None) -> None:
        self.log = open(log, "wb") if log is not None else subprocess.DEVNULL  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mcp_server.cli", "--log-level", "INFO"],
            cwd=str(ROOT),
            env=server_env(artifacts),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        assert self.proc.stdout is not None
        self.lines = StdoutLines(self.proc.stdout)
        self.answers: dict[Any, dict[str, Any]] = {}

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def answer(self, rid: Any, timeout: float = 60.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while rid not in self.answers:
            message = self.lines.next(deadline - time.monotonic())
            assert message is not None, f"no answer for id {rid!r}"
            self.answers[message.get("id")] = message
        return self.answers[rid]

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.log is not subprocess.DEVNULL:
            self.log.close()


def test_request_ids_are_read_from_the_top_level_only():
    assert request_id('{"jsonrpc":"2.0","id":7,"method":"x"}') == 7
    assert request_id('{"params":{"id":99,"x":[{"id":5}]},"id":"abc"}') == "abc"
    assert request_id('{"method":"notifications/x","params":{"id":3}}') is None
    assert request_id(_call(12, DEEP)) == 12 and request_id('{"id": -4 , "x": 1}') == -4


async def test_hostile_messages_are_answered_over_stdio_and_the_server_goes_on(tmp_path: Path):
    log = tmp_path / "stderr.log"
    peer = StdioPeer(tmp_path / "artifacts", log=log)
    try:
        peer.send(json.dumps(INIT))
        assert "result" in peer.answer(1)
        peer.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        peer.send(_call(2, DEEP))
        peer.send(_call("three", DEEP_OBJECT))
        peer.send(_call(4, HUGE_INT))
        peer.send('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{')  # cut off: not JSON
        peer.send(_call(6, "1"))  # an ordinary bad argument: the tool's own INVALID_ARGUMENT
        peer.send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"browser_session",'
                  '"arguments":{"action":"get_capabilities"}}}')  # fmt: skip
        for rid in (2, "three", 4):
            error = peer.answer(rid)["error"]
            assert error["code"] == -32602 and error["message"], (rid, error)
        assert peer.answer(5)["error"]["code"] == -32700
        bad_argument = peer.answer(6)["result"]
        assert bad_argument["isError"] and bad_argument["structuredContent"]["code"] == "INVALID_ARGUMENT"
        ok = peer.answer(7)["result"]
        assert not ok["isError"] and ok["structuredContent"]["status"] == "ok"
    finally:
        peer.close()
    audit = [json.loads(line) for line in (tmp_path / "artifacts" / "audit.jsonl").read_text().splitlines()]
    refused = [e for e in audit if e.get("errorCode") == "INVALID_ARGUMENT"]
    assert len(refused) >= 5 and any(e["tool"] == "browser_session" for e in refused)


async def test_hostile_messages_are_answered_over_http_too(tmp_path: Path):
    with running_http_server(tmp_path / "artifacts") as port:
        url = f"http://127.0.0.1:{port}/mcp"
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", **AUTH}
        async with httpx.AsyncClient(trust_env=False, timeout=60) as http:
            init = await http.post(url, json=INIT, headers=headers)
            assert init.status_code == 200
            sid = init.headers["mcp-session-id"]
            session = {**headers, "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"}
            await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
            for body in (_call(2, DEEP), _call(3, HUGE_INT)):
                answer = await http.post(url, content=body, headers=session)
                assert "error" in answer.text or answer.status_code >= 400, answer.text[:300]
            ok = await http.post(url, content=_call(4, "1").replace(',"x":1', ""), headers=session)
            assert ok.status_code == 200 and "mcp-browser-debug" in ok.text
