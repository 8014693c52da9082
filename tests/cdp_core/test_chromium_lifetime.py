"""ChromiumProcess on fixed ports, started from async code, never outliving its starter; the profile sweep.

The wheel-level checks (kill -9 of a whole pytest, the fixed-port command serving the docs'
examples) are in tests/project/test_user_project.py; these are the quick ones on this checkout.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cdp_core
from cdp_core import CDPException, ChromiumProcess
from cdp_core.lifetime import sweep_profiles
from cdp_core.readiness import port_is_free as _port_is_free


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_fixed_port_is_ready_and_free_again_right_after_stop() -> None:
    port = _free_port()
    chrome = ChromiumProcess.start(port=port)
    try:
        assert chrome.port == port and chrome.ws_url.startswith(f"ws://127.0.0.1:{port}/devtools/browser/")
        assert not _port_is_free(port)
        with pytest.raises(cdp_core.LaunchError, match="already in use"):
            ChromiumProcess.start(port=port)
        with socket.create_connection(("127.0.0.1", port)) as conn:  # a connection we close first: TIME-WAIT
            conn.sendall(f"GET /json/version HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            assert conn.recv(100).startswith(b"HTTP/1.1 200")
    finally:
        chrome.stop()
    assert _port_is_free(port), "a port whose connections are in TIME-WAIT reads as taken"
    again = ChromiumProcess.start(port=port)
    try:
        assert again.alive and again.port == port
    finally:
        again.stop()


async def test_astart_keeps_the_event_loop_running() -> None:
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.ensure_future(tick())
    try:
        chrome = await ChromiumProcess.astart(port=_free_port())
    finally:
        ticker.cancel()
    try:
        assert ticks > 1, "the loop was blocked while Chrome started"
        async with cdp_core.connect(chrome.cdp_url) as browser:
            assert "Chrome/" in (await browser.version())["product"]
    finally:
        chrome.stop()
    assert not chrome.profile_dir.exists()


async def test_a_connection_used_from_another_loop_says_so() -> None:
    chrome = await ChromiumProcess.astart()
    try:
        browser = await cdp_core.connect(chrome.cdp_url)
        try:

            def elsewhere() -> None:
                async def call() -> None:
                    await browser.version()

                asyncio.run(call())

            with pytest.raises(CDPException, match="opened on another event loop"):
                await asyncio.to_thread(elsewhere)
        finally:
            await browser.close()
    finally:
        chrome.stop()


def _running(pid: int) -> bool:
    try:
        return ") Z " not in Path(f"/proc/{pid}/stat").read_text()  # a zombie has exited (init reaps it)
    except OSError:
        return False


def test_a_browser_dies_with_the_process_that_started_it(tmp_path: Path) -> None:
    report = tmp_path / "started.txt"
    code = (
        "import sys, time\nfrom cdp_core import ChromiumProcess\n"
        "c = ChromiumProcess.start()\n"
        f"open({str(report)!r}, 'w').write(f'{{c.pid}} {{c.profile_dir}}')\ntime.sleep(300)\n"
    )
    starter = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 60
        while not (report.exists() and report.read_text().strip()):
            assert starter.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        pid, profile = report.read_text().split()
        starter.kill()  # SIGKILL: no finally, no atexit
        starter.wait()
        deadline = time.monotonic() + 30  # the watchdog terminates, kills after 3 s, removes the profile
        while time.monotonic() < deadline and (Path(profile).exists() or _running(int(pid))):
            time.sleep(0.05)
        assert not _running(int(pid)), f"Chromium {pid} outlived its starter"
        assert not Path(profile).exists()
    finally:
        if starter.poll() is None:
            starter.kill()


def test_the_sweep_removes_only_profiles_whose_owner_is_gone(tmp_path: Path) -> None:
    dead, mine = _dead_pid(), os.getpid()
    orphan = tmp_path / f"cdp-chromium-{dead}-abc"
    owned = tmp_path / f"cdp-chromium-{mine}-def"
    in_use = tmp_path / f"cdp-chromium-{dead}-ghi"  # owner gone, but a browser still runs on it
    old_unnamed = tmp_path / "cdp-chromium-oldstyle"
    new_unnamed = tmp_path / "cdp-chromium-justmade"
    other = tmp_path / "something-else"
    for folder in (orphan, owned, in_use, old_unnamed, new_unnamed, other):
        folder.mkdir()
        (folder / "Default").mkdir()
    os.symlink(f"{socket.gethostname()}-{mine}", in_use / "SingletonLock")
    os.utime(old_unnamed, (time.time() - 3600, time.time() - 3600))
    removed = sweep_profiles(root=tmp_path)
    assert sorted(removed) == sorted([orphan, old_unnamed])
    assert all(p.exists() for p in (owned, in_use, new_unnamed, other))


@pytest.mark.parametrize("start", ["sync", "async"])
def test_a_fixed_port_grabbed_by_another_browser_is_never_taken_for_ours(
    start: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process took the port between our free check and Chrome's listen: its answer is not ours."""
    import http.server
    import threading

    from cdp_core import chromium

    class OtherBrowser(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802
            body = b'{"webSocketDebuggerUrl": "ws://127.0.0.1:1/devtools/browser/not-ours"}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), OtherBrowser)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    port = other.server_address[1]
    monkeypatch.setattr(chromium, "port_is_free", lambda p: True)  # the race: free when we looked
    try:
        with pytest.raises(cdp_core.LaunchError) as failure:
            if start == "sync":
                ChromiumProcess.start(port=port).stop()
            else:
                asyncio.run(ChromiumProcess.astart(port=port)).stop()
        assert "taken by another process" in str(failure.value)
    finally:
        other.shutdown()
        other.server_close()
