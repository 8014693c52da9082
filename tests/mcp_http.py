"""Start ``mcp-browser --http`` as users do, on a free loopback port, for transport tests.

Shared by the transport, security and concurrency tests so the three of them start, wait
for and stop the server the same way (no proxy variables, bounded start-up, terminate
then kill).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import IO, Any

from paths import ROOT

ENTRY = [sys.executable, "-m", "mcp_server.cli"]
#: The bearer secret the test servers are started with (MCP_HTTP_TOKEN): every HTTP request needs it.
TEST_SECRET = "test-secret-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TEST_SECRET}"}


class StdoutLines:
    """JSON-RPC messages read from a server's stdout pipe, waiting at most a deadline for each.

    Why not ``select`` on ``proc.stdout`` and then ``readline()``: the buffered reader may take
    two answers in one read and hand out one; the second sits in its buffer, ``select`` on the
    descriptor never wakes for it, and the test waits for an answer that already came. Here the
    bytes are read from the descriptor and split into lines by us.
    """

    def __init__(self, pipe: IO[bytes]) -> None:
        self.fd = pipe.fileno()
        self.pending = b""

    def next(self, timeout: float) -> dict[str, Any] | None:
        """The next message, or None when none came within ``timeout`` seconds (or the pipe ended)."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return None
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(artifacts: Path, **extra: str) -> dict[str, str]:
    """The test's environment without proxy variables, with its own artifacts root."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(MCP_ARTIFACT_DIR=str(artifacts), NO_PROXY="127.0.0.1,localhost,::1", **extra)
    return env


@contextlib.asynccontextmanager
async def authed_transport(url: str, secret: str = TEST_SECRET) -> AsyncIterator[Any]:
    """The SDK's streamable HTTP transport, sending ``Authorization: Bearer <secret>`` on every request."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with create_mcp_http_client(headers={"Authorization": f"Bearer {secret}"}) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            yield streams


def http_client(url: str, secret: str = TEST_SECRET, **kwargs: Any) -> Any:
    """An MCP ``Client`` for ``url`` that authenticates with ``secret`` (as a configured client does)."""
    from mcp.client import Client

    return Client(authed_transport(url, secret), **kwargs)


@contextlib.contextmanager
def running_http_server(
    artifacts: Path, *args: str, timeout: float = 30.0, env: dict[str, str] | None = None
) -> Iterator[int]:
    """Run the server with ``--http`` (plus ``args``, and ``env`` on top) until the block ends; yields its port.

    The server's bearer secret is :data:`TEST_SECRET` unless ``env`` sets another (or removes it
    with ``MCP_HTTP_TOKEN=""``: the server then generates one).
    """
    with http_server_process(artifacts, *args, timeout=timeout, env=env) as (port, _proc):
        yield port


@contextlib.contextmanager
def http_server_process(
    artifacts: Path,
    *args: str,
    timeout: float = 30.0,
    env: dict[str, str] | None = None,
    stderr_file: Path | None = None,
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """:func:`running_http_server`, yielding the process too (for tests that look at its sockets).

    ``stderr_file``: the server's stderr goes there (read it when a long test fails), not to a pipe.
    """
    port = free_port()
    log = open(stderr_file, "wb") if stderr_file is not None else None  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(
        [*ENTRY, "--http", "--port", str(port), *args],
        env=server_env(artifacts, **{"MCP_HTTP_TOKEN": TEST_SECRET, **(env or {})}),
        cwd=str(ROOT),
        stdout=subprocess.DEVNULL,
        stderr=log if log is not None else subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                if stderr_file is not None:
                    raise AssertionError(stderr_file.read_text(errors="replace"))
                raise AssertionError(proc.stderr.read().decode() if proc.stderr else "server exited")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "the HTTP server did not start"
            time.sleep(0.05)
        yield port, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if log is not None:
            log.close()
