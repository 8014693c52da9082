"""``mcp-browser chromium`` and ``cdp_core.ChromiumProcess``: what a test author starts by hand.

The command must listen on loopback only, say where, and leave nothing behind when it is
stopped the way people stop things (Ctrl-C in a terminal, SIGTERM from a supervisor).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from cdp_core import BrowserNotFound, ChromiumProcess, LaunchError

ENTRY = [sys.executable, "-m", "mcp_server.cli.entry"]


def _start(*args: str) -> tuple[subprocess.Popen[str], dict[str, object]]:
    proc = subprocess.Popen(
        [*ENTRY, "chromium", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        proc.wait(10)
        raise AssertionError(f"mcp-browser chromium printed nothing: {proc.stderr.read() if proc.stderr else ''}")
    return proc, json.loads(line)


def _cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


def _gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        # A zombie is gone for our purposes: only its parent can reap it.
        try:
            if Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z":
                return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_cli_prints_the_endpoint_and_stops_cleanly(signum: int) -> None:
    proc, info = _start("--port", "0", "--json")
    try:
        port = info["port"]
        assert isinstance(port, int) and port > 0
        assert info["cdp_url"] == f"http://127.0.0.1:{port}"
        version = httpx.get(f"{info['cdp_url']}/json/version", trust_env=False, timeout=10).json()
        assert version["webSocketDebuggerUrl"] == info["ws_url"]
        pid = info["pid"]
        assert isinstance(pid, int)
        args = _cmdline(pid)
        assert "--remote-debugging-address=127.0.0.1" in args and "--headless" in args
        assert ("--no-sandbox" in args) == (os.geteuid() == 0)
        profile = Path(str(info["profile_dir"]))
        assert profile.is_dir()
        proc.send_signal(signum)
        assert proc.wait(20) == 0
        assert _gone(pid), "the browser outlived the command"
        assert not profile.exists(), "the temporary profile was left behind"
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", port)) != 0, "the debugging port still answers"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_cli_human_output_names_the_endpoint_and_how_to_attach() -> None:
    proc = subprocess.Popen(
        [*ENTRY, "chromium", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("Chromium listening on http://127.0.0.1:")
        url = first.split()[-1]
        rest = "".join(proc.stdout.readline() for _ in range(4))
        assert f"attach_cdp cdp_url={url}" in rest and "removed on exit" in rest
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 0


def test_cli_refuses_a_port_in_use_at_once() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        started = time.monotonic()
        done = subprocess.run([*ENTRY, "chromium", "--port", str(port)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    assert f"port {port}" in done.stderr and "in use" in done.stderr
    assert time.monotonic() - started < 15  # not the 20 s wait for a port that never opens


def test_cli_reports_a_missing_browser(tmp_path: Path) -> None:
    env = {**os.environ, "CHROME_PATH": str(tmp_path / "no-such-chrome")}
    done = subprocess.run([*ENTRY, "chromium"], capture_output=True, text=True, env=env, timeout=30)
    assert done.returncode == 1
    assert "CHROME_PATH" in done.stderr and "apt-get install" in done.stderr


def test_the_chromium_subcommand_loads_neither_mcp_nor_playwright() -> None:
    code = (
        "import sys; from mcp_server.cli import entry, chromium;"
        "import cdp_core.chromium;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'playwright', 'pydantic', 'targets'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_process_honours_chrome_path_and_says_why_it_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "chrome"
    fake.write_text("#!/bin/sh\necho 'no usable sandbox, pretend' >&2\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(LaunchError, match="code 3.*no usable sandbox, pretend"):
        ChromiumProcess.start(executable=str(fake))
    monkeypatch.setenv("CHROME_PATH", str(fake))
    with pytest.raises(LaunchError, match="code 3"):
        ChromiumProcess.start()  # the executable named by CHROME_PATH is the one started
    monkeypatch.setenv("CHROME_PATH", str(tmp_path / "missing"))
    with pytest.raises(BrowserNotFound, match="CHROME_PATH"):
        ChromiumProcess.start()


def test_process_attributes(chromium: ChromiumProcess) -> None:
    assert chromium.alive and chromium.pid == chromium.proc.pid
    assert chromium.cdp_url == chromium.http_url == f"http://127.0.0.1:{chromium.port}"
    assert chromium.ws_url.startswith(f"ws://127.0.0.1:{chromium.port}/devtools/browser/")
    assert "ChromiumProcess" in repr(chromium)
