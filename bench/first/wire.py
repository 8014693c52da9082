"""The server's side of the first answer: a bare stdio JSON-RPC client with timestamps only.

Why: a client's start-up time mixes the server's work with the client's own (the SDK's
models, the outputSchema compile). This client does nothing but write lines and wait
for answers, so its timeline is the server's: spawn, the first line read from stdin,
``initialize``, ``tools/list`` and the first ``tools/call`` answered. Subtracting it from
an SDK client's timeline leaves that client's part.

When the server *reads* its first line is seen from outside: the harness owns the
write end of the server's stdin pipe, and ``FIONREAD`` on it says how many bytes are
still unread in the pipe. It drops to 0 when the server's first read took the
``initialize`` line. Nothing in the server is changed or instrumented.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import signal
import struct
import subprocess
import termios
import time
from pathlib import Path
from typing import Any

__all__ = ["wire_first_answer"]

#: What the Python SDK's legacy mode sends (mcp_types.version.LATEST_HANDSHAKE_VERSION).
PROTOCOL = "2025-11-25"


def _unread(fd: int) -> int:
    """Bytes written to the pipe that the reader has not taken yet."""
    buf = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
    return struct.unpack("i", buf)[0]


class _Lines:
    """Newline-framed JSON-RPC messages from the server's stdout, with a deadline."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = b""

    def answer(self, want_id: int, deadline: float, on_idle: Any = None) -> dict[str, Any]:
        """The response with id ``want_id`` (notifications and other ids skipped)."""
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                if not line.strip():
                    continue
                msg = json.loads(line)
                if msg.get("id") == want_id and ("result" in msg or "error" in msg):
                    return msg
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"no answer to request {want_id}")
            # Poll in short steps while someone waits for a side event (the first read).
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.0005 if on_idle else 0.5))
            if on_idle:
                on_idle()
            if ready:
                chunk = os.read(self.fd, 1 << 20)
                if not chunk:
                    raise EOFError("the server closed its stdout")
                self.buf += chunk


def _send(proc: subprocess.Popen, msg: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(msg).encode() + b"\n")
    proc.stdin.flush()


def wire_first_answer(
    cmd: list[str],
    env: dict[str, str],
    cwd: Path,
    calls: list[tuple[str, dict[str, Any]]],
    stderr_log: Path,
    timeout: float = 60.0,
    *,
    keep_tools: bool = False,
) -> dict[str, Any]:
    """Spawn ``cmd``, do the handshake and ``calls``; ms since spawn of each step (blocking: run in a thread).

    ``keep_tools``: the ``tools/list`` result goes in the answer too, under ``tools``.
    """
    marks: dict[str, float] = {}
    with open(stderr_log, "w") as errlog:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errlog,
            env=env,
            cwd=cwd,
            start_new_session=True,  # its own process group, so everything it spawned is stopped with it
        )
        marks["spawned"] = time.perf_counter()
        try:
            assert proc.stdin is not None and proc.stdout is not None
            deadline = t0 + timeout
            lines = _Lines(proc.stdout.fileno())
            params = {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "bench-wire", "version": "0"},
            }
            _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
            stdin_fd = proc.stdin.fileno()

            def first_read() -> None:
                if "first_line_read" not in marks and _unread(stdin_fd) == 0:
                    marks["first_line_read"] = time.perf_counter()

            lines.answer(1, deadline, on_idle=first_read)
            marks["initialize"] = time.perf_counter()
            marks.setdefault("first_line_read", marks["initialize"])  # read and answered between two polls
            _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
            listed = lines.answer(2, deadline)
            marks["tools_list"] = time.perf_counter()
            answer: dict[str, Any] = {}
            for i, (tool, args) in enumerate(calls, start=3):
                _send(
                    proc,
                    {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": tool, "arguments": args}},
                )
                answer = lines.answer(i, deadline)
                marks[f"call{i - 2}"] = time.perf_counter()
        finally:
            _stop(proc)
    out = {k: round((v - t0) * 1000, 1) for k, v in marks.items()}
    out["first_call"] = out.get(f"call{len(calls)}")
    out["tools_list_bytes"] = len(json.dumps(listed.get("result", {}), separators=(",", ":")))
    if keep_tools:
        out["tools"] = listed.get("result", {})
    out["call_error"] = bool(answer.get("error") or answer.get("result", {}).get("isError"))
    return out


def _stop(proc: subprocess.Popen) -> None:
    """Close stdin (the MCP way to end a stdio server), then stop its process group."""
    with contextlib.suppress(OSError):
        if proc.stdin:
            proc.stdin.close()
    try:
        proc.wait(timeout=3)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    with contextlib.suppress(ProcessLookupError):  # children the server left behind
        os.killpg(proc.pid, signal.SIGKILL)
    if proc.stdout:
        proc.stdout.close()
