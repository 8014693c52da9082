"""Shutdown removes every temporary browser profile, on both transports.

The attack: ``mcp-browser --http`` stopped with SIGTERM left the internal browser's profile in
/tmp (with a localStorage JWT in it): uvicorn re-raised the signal after its own shutdown and
the process died before closing the browser. Here a real server is started as users start it,
the internal browser opens a page that stores a token in localStorage, the server gets SIGTERM,
and the profile directory must be gone and no Chromium of that profile left running.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp_http import TEST_SECRET, StdoutLines, free_port, http_client, server_env
from paths import ROOT

STORE_TOKEN = "data:text/html,<title>t</title><script>try{localStorage.setItem('jwt','eyJ.x.y')}catch(e){}</script>"


def _descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _profile_of(server_pid: int) -> Path:
    for pid in _descendants(server_pid):
        try:
            args = (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        for arg in args:
            if arg.startswith(b"--user-data-dir=") and b"mcp-browser-launch-" in arg:
                return Path(arg.split(b"=", 1)[1].decode())
    raise AssertionError("no internal browser under the server")


def _browsers_with(profile: Path) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if f"--user-data-dir={profile}".encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _assert_cleaned_up(proc: subprocess.Popen[bytes], profile: Path) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(60)
    deadline = time.monotonic() + 10
    while (profile.exists() or _browsers_with(profile)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not profile.exists(), f"{profile} left behind"
    assert not _browsers_with(profile), "a Chromium of the profile still runs"


def _wait_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    import socket

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the server exited"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError("the HTTP server did not start")


def _start(tmp_path: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "mcp_server.cli", *args],
        cwd=str(ROOT),
        env=server_env(tmp_path / "artifacts", MCP_HTTP_TOKEN=TEST_SECRET),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.mark.slow
async def test_sigterm_over_http_removes_the_profile(tmp_path: Path):
    port = free_port()
    proc = _start(tmp_path, "--http", "--port", str(port))
    try:
        _wait_port(port, proc)
        async with http_client(f"http://127.0.0.1:{port}/mcp", mode="legacy") as client:
            result = await client.call_tool("browser_session", {"action": "navigate", "url": STORE_TOKEN})
            assert not result.is_error
        profile = _profile_of(proc.pid)
        assert profile.exists()
        _assert_cleaned_up(proc, profile)
        assert proc.returncode == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.slow
def test_sigterm_over_stdio_removes_the_profile(tmp_path: Path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_server.cli"],
        cwd=str(ROOT),
        env=server_env(tmp_path / "artifacts"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict) -> None:
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()

    lines = StdoutLines(proc.stdout)

    def answer(rid: int) -> dict:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            message = lines.next(deadline - time.monotonic())
            if message is not None and message.get("id") == rid:
                return message
        raise AssertionError(f"no answer for {rid}")

    try:
        info = {"name": "t", "version": "1"}
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info}})  # fmt: skip
        answer(1)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"name": "browser_session", "arguments": {"action": "navigate", "url": STORE_TOKEN}}
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        assert not answer(2)["result"]["isError"]
        profile = _profile_of(proc.pid)
        _assert_cleaned_up(proc, profile)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert os.path.exists(tmp_path / "artifacts")
