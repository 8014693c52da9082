"""One stdio session with the server as a bare JSON-RPC client: lines written at once, answers read.

Shared by the quick-start tests (test_early_calls.py, test_first_call.py): both start
``mcp-browser`` over stdio, send the handshake and calls without waiting, and read the answers
(notifications skipped) and the server's log.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from mcp_http import ENTRY

ROOT = Path(__file__).resolve().parents[1]

__all__ = ["handshake", "spawn_server", "stdio_session"]


def handshake(version: str = "2025-11-25") -> list[dict[str, Any]]:
    """``initialize``, ``notifications/initialized`` and ``tools/list``, as a client sends them first."""
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
    return [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]


async def spawn_server(env: dict[str, str]) -> asyncio.subprocess.Process:
    """``mcp-browser`` over stdio with its log at INFO on stderr, all three pipes ours."""
    return await asyncio.create_subprocess_exec(
        *ENTRY, "--log-level", "INFO",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env=env, cwd=str(ROOT),
    )  # fmt: skip


async def stdio_session(
    env: dict[str, str], messages: list[Any], answers: int, *, close_at_once: bool = False
) -> tuple[list[bytes], str]:
    """Start the server, write ``messages`` (dicts, or raw lines as bytes) at once, read ``answers`` answers.

    Returns the answer lines (notifications skipped) and the server's stderr with its exit code.
    ``close_at_once``: stdin ends right after the messages (the end of input while calls run).
    """
    proc = await spawn_server(env)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(b"".join((m if isinstance(m, bytes) else json.dumps(m).encode()) + b"\n" for m in messages))
    await proc.stdin.drain()
    if close_at_once:
        proc.stdin.close()
    out: list[bytes] = []
    try:
        while len(out) < answers:
            line = await asyncio.wait_for(proc.stdout.readline(), 60)
            assert line, "the server closed its stdout"
            if b'"method"' not in line[:40]:
                out.append(line)
    finally:
        proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            proc.kill()
            await proc.wait()
    return out, (await proc.stderr.read()).decode() + f"\nexit code {proc.returncode}"
