"""Several MCP sessions on one ``mcp-browser --http`` server, as several agents use it (issue 46).

Each :func:`session` is a real SDK client with its own streamable-HTTP session (its own
``Mcp-Session-Id``, in the 2025-11-25 era); leaving the block ends that session the way a client that quits does
(the SDK sends DELETE). :func:`websockets_to` counts the server's open connections to a
browser's debugging port as ``ss`` shows them, which is what a person checks when asking
"how many times is this server connected to my Chrome?".
"""

from __future__ import annotations

import contextlib
import re
import subprocess
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from faults_util import Agent
from mcp_http import http_client, http_server_process


@dataclass
class HttpServer:
    """One running ``mcp-browser --http`` (a process of its own, started as a user starts it)."""

    port: int
    pid: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


@contextlib.contextmanager
def http_server_running(artifacts: Path, env: dict[str, str] | None = None) -> Iterator[HttpServer]:
    """The server as users start it; its stderr goes to ``server-stderr.log`` beside ``artifacts``."""
    log = artifacts.parent / "server-stderr.log"
    with http_server_process(artifacts, "--toolset", "condensed", env=env, stderr_file=log) as (port, proc):
        yield HttpServer(port, proc.pid)


@contextlib.asynccontextmanager
async def session(server: HttpServer) -> AsyncIterator[Agent]:
    """One agent's MCP session on ``server``; it ends (DELETE) when the block ends.

    The 2025-11-25 era (``mode="legacy"``), as Claude Code speaks it: sessions exist there only.
    In the stateless 2026-07-28 revision every request stands alone, with no session id.
    """
    async with http_client(server.url, mode="legacy") as client:
        yield Agent(client)


def websockets_to(pid: int, port: int) -> int:
    """How many established TCP connections process ``pid`` holds to ``127.0.0.1:port`` (``ss -tnp``).

    A CDP client keeps exactly one such connection per websocket; the short HTTP requests of
    discovery are closed when they are answered, so once calls are done the count is the
    number of websockets.
    """
    out = subprocess.run(
        ["ss", "-H", "-t", "-n", "-p", "state", "established", "dst", f"127.0.0.1:{port}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=20,
    ).stdout
    return sum(1 for line in out.splitlines() if re.search(rf"\bpid={pid},", line))


async def wait_for_websockets(pid: int, port: int, count: int, timeout: float = 30.0) -> None:
    """Wait (bounded) until ``pid`` holds ``count`` connections to ``port``: closing one takes a moment."""
    with anyio.fail_after(timeout):
        while websockets_to(pid, port) != count:
            await anyio.sleep(0.1)


def browsers_started_by(pid: int) -> int:
    """How many Chromium browsers (not their renderers, helpers or crash handlers) run under process ``pid``.

    The browser may be a grandchild (Debian's ``/usr/bin/chromium`` is a script that runs it).
    """
    parents: dict[int, int] = {}
    commands: dict[int, list[bytes]] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
            commands[int(proc.name)] = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parents[int(proc.name)] = int(stat.rsplit(")", 1)[1].split()[1])

    def under(child: int) -> bool:
        seen = set()
        while child in parents and child not in seen:
            seen.add(child)
            child = parents[child]
            if child == pid:
                return True
        return False

    count = 0
    for child, cmdline in commands.items():
        name = Path(cmdline[0].decode(errors="replace")).name
        browser = "chrom" in name and "crashpad" not in name and not any(a.startswith(b"--type=") for a in cmdline)
        if browser and under(child):
            count += 1
    return count


async def text_of(agent: Agent, action: str, **args: Any) -> str:
    """The text an agent reads for ``browser_session action=...`` (which must succeed)."""
    await agent.s(action, **args)
    return agent.last_text
