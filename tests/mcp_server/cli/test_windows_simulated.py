"""The server as it runs on Windows, simulated on Linux: what Windows lacks is taken away.

Windows has no ``signal.SIGHUP``, no ``os.O_CLOEXEC``, no ``os.geteuid``, and every event loop
there refuses ``loop.add_signal_handler`` (NotImplementedError). Each of these stopped the
server before (exit 1 before ``initialize``; INTERNAL_ERROR on every launch; no audit line).
A ``sitecustomize`` on ``PYTHONPATH`` removes them from the server process before any of our
code runs; the server must then answer over stdio and HTTP, launch the internal browser,
write its audit lines, stop on a client closing stdin and on a stop signal, and leave no
browser profile behind. What this cannot show (ACLs, job objects, case-insensitive disks,
the real console signals) is listed in docs/platforms.md.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from mcp_http import StdoutLines, http_client, running_http_server, server_env
from paths import ROOT

#: The simulation needs Linux (the loop class it patches, TMPDIR for Chromium's profile).
linux_only = pytest.mark.skipif(sys.platform != "linux", reason="simulates Windows on Linux")

SITECUSTOMIZE = """
import asyncio, os, signal
for _name in ("SIGHUP",):
    if hasattr(signal, _name):
        delattr(signal, _name)
for _name in ("O_CLOEXEC", "geteuid"):
    if hasattr(os, _name):
        delattr(os, _name)

def _refuse(self, sig, callback, *args):
    raise NotImplementedError("simulated Windows event loop: no signal handlers")

asyncio.AbstractEventLoop.add_signal_handler = _refuse
asyncio.unix_events._UnixSelectorEventLoop.add_signal_handler = _refuse
_marker = os.environ.get("WINSIM_MARKER")
if _marker:
    with open(_marker, "a") as _f:
        _f.write(f"{os.getpid()}\\n")
"""


def _sim_env(tmp_path: Path) -> dict[str, str]:
    """The server's environment: the sitecustomize first on PYTHONPATH, TMPDIR of its own."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    # Chromium puts its SingletonSocket under TMPDIR: a unix socket path must stay under 108
    # bytes, so the pytest tmp_path (long) is only linked to a short folder in /tmp.
    tmp = Path(tempfile.mkdtemp(prefix="ws-"))
    (tmp_path / "tmp").symlink_to(tmp)
    env = server_env(tmp_path / "artifacts")
    env.update(
        PYTHONPATH=os.pathsep.join([str(site), str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        TMPDIR=str(tmp),
        WINSIM_MARKER=str(tmp_path / "marker"),
    )
    return env


@pytest.fixture(autouse=True)
def _short_tmp_removed(tmp_path: Path):
    yield
    link = tmp_path / "tmp"
    if link.is_symlink():
        shutil.rmtree(link.resolve(), ignore_errors=True)


def _profiles(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in (tmp_path / "tmp").glob("mcp-browser-launch-*"))


def _audit_actions(tmp_path: Path) -> list[str]:
    lines = (tmp_path / "artifacts" / "audit.jsonl").read_text().splitlines()
    return [json.loads(line).get("action") for line in lines if json.loads(line).get("tool")]


def _wait_gone(tmp_path: Path) -> None:
    deadline = time.monotonic() + 10
    while _profiles(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.1)


@linux_only
def test_the_sitecustomize_takes_the_names_away(tmp_path: Path):
    env = _sim_env(tmp_path)
    probe = (
        "import asyncio, os, signal\n"
        "loop = asyncio.new_event_loop()\n"
        "try:\n"
        "    loop.add_signal_handler(signal.SIGTERM, print)\n"
        "    refused = False\n"
        "except NotImplementedError:\n"
        "    refused = True\n"
        "print(hasattr(signal, 'SIGHUP'), hasattr(os, 'O_CLOEXEC'), hasattr(os, 'geteuid'), refused)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "False", "True"]


class _StdioServer:
    """``mcp-browser`` on stdio as a client runs it, under the simulation."""

    def __init__(self, tmp_path: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mcp_server.cli"],
            cwd=str(ROOT),
            env=_sim_env(tmp_path),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.proc.stdout is not None
        self.lines = StdoutLines(self.proc.stdout)

    def send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def answer(self, rid: int) -> dict:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            message = self.lines.next(deadline - time.monotonic())
            if message is None and self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise AssertionError(f"the server exited {self.proc.returncode}: {err[-2000:]}")
            if message is not None and message.get("id") == rid:
                return message
        raise AssertionError(f"no answer for {rid}")

    def handshake_and_navigate(self, url: str) -> dict:
        info = {"name": "t", "version": "1"}
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info}})  # fmt: skip
        assert self.answer(1)["result"]["serverInfo"]["name"] == "mcp-browser-debug"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"name": "browser_session", "arguments": {"action": "navigate", "url": url}}
        self.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        return self.answer(2)["result"]

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.mark.slow
@linux_only
def test_stdio_answers_launches_audits_and_stops_when_stdin_closes(tmp_path: Path, http_server):
    server = _StdioServer(tmp_path)
    # A profile left by a server that was killed (its pid is gone): the first launch sweeps it.
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / "tmp" / f"mcp-browser-launch-{int(gone.stdout)}-left"
    (stale / "Default").mkdir(parents=True)
    (stale / "Default" / "Cookies").write_text("session=secret")
    try:
        result = server.handshake_and_navigate(http_server.url("/a.html"))
        assert not result["isError"], result
        assert result["structuredContent"]["title"] == "Page A"
        assert not stale.exists()
        assert len(_profiles(tmp_path)) == 1  # the internal browser runs on its own profile
        assert server.proc.stdin is not None
        server.proc.stdin.close()  # the shutdown a client sends: end of input, no signal
        assert server.proc.wait(60) == 0
    finally:
        server.kill()
    _wait_gone(tmp_path)
    assert _profiles(tmp_path) == []
    assert _audit_actions(tmp_path) == ["navigate"]
    assert str(server.proc.pid) in (tmp_path / "marker").read_text().split()  # the simulation ran in it


@pytest.mark.slow
@linux_only
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_signal_reaches_the_server_when_the_loop_refuses_handlers(tmp_path: Path, http_server, signum):
    server = _StdioServer(tmp_path)
    try:
        assert not server.handshake_and_navigate(http_server.url("/a.html"))["isError"]
        assert _profiles(tmp_path)
        server.proc.send_signal(signum)  # Ctrl-C (SIGINT) on Windows; taken by signal.signal here
        assert server.proc.wait(60) == 0
    finally:
        server.kill()
    _wait_gone(tmp_path)
    assert _profiles(tmp_path) == []


@pytest.mark.slow
@linux_only
async def test_http_answers_launches_and_audits(tmp_path: Path, http_server):
    env = _sim_env(tmp_path)
    extra = {k: env[k] for k in ("PYTHONPATH", "TMPDIR", "WINSIM_MARKER")}
    with running_http_server(tmp_path / "artifacts", env=extra) as port:
        async with http_client(f"http://127.0.0.1:{port}/mcp", mode="legacy") as client:
            assert client.server_info is not None and client.server_info.name == "mcp-browser-debug"
            result = await client.call_tool(
                "browser_session", {"action": "navigate", "url": http_server.url("/a.html")}
            )
            assert not result.is_error, result.content[0].text
            assert result.structured_content["title"] == "Page A"
            assert len(_profiles(tmp_path)) == 1
    _wait_gone(tmp_path)
    assert _profiles(tmp_path) == []  # SIGTERM through uvicorn's signal.signal handlers
    assert _audit_actions(tmp_path) == ["navigate"]
    assert (tmp_path / "marker").read_text().strip()


def test_stop_signals_are_those_the_system_has():
    from types import SimpleNamespace

    from mcp_server.cli.stop_signals import stop_signals

    windows = SimpleNamespace(SIGINT=2, SIGTERM=15, SIGBREAK=21)  # no SIGHUP there
    assert stop_signals(windows) == (2, 15, 21)
    assert stop_signals(SimpleNamespace(SIGINT=2, SIGTERM=15, SIGHUP=1)) == (2, 15, 1)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGUSR1 is POSIX")
async def test_stop_signals_fall_back_to_signal_signal_when_the_loop_refuses(monkeypatch: pytest.MonkeyPatch):
    import asyncio

    from mcp_server.cli.stop_signals import StopSignals

    def refuse(*args: object) -> None:
        raise NotImplementedError

    monkeypatch.setattr(asyncio.get_running_loop(), "add_signal_handler", refuse)
    before = signal.getsignal(signal.SIGUSR1)
    async with StopSignals((signal.SIGUSR1,)) as stops:
        assert stops.how == {signal.SIGUSR1: "signal.signal"}
        os.kill(os.getpid(), signal.SIGUSR1)
        assert await asyncio.wait_for(stops.wait(), 30) == signal.SIGUSR1
    assert signal.getsignal(signal.SIGUSR1) == before  # the previous handler is back
