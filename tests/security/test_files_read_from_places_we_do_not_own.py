"""Files the server reads from places it does not own: ``DevToolsActivePort`` and the HTTP token file.

Third attack review: a FIFO in place of ``DevToolsActivePort`` froze the whole server (every
call waited on the read), a link to ``/dev/zero`` drove it to 2.4 GB and ``MemoryError``, and a
token file written by another account (mode 600, by path) was accepted. Each such file is now
opened without following a final link and without blocking, checked on the descriptor, read
within a cap, or refused with the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from faults_util import serving

from cdp_core import DiscoveryError, read_devtools_active_port
from cdp_core.discovery import get_version
from mcp_server.safety.http_auth import SecretError, resolve_secret
from targets.users_chrome.listener_owner import check_listener
from targets.users_chrome.profile_dirs import ProfileDir

GOOD = "9222\n/devtools/browser/0b1c\n"
NOBODY = 65534


def _in_a_thread(call: Callable[[], object], seconds: float = 60.0) -> object:
    """``call()``'s result or exception; fails the test (rather than hanging it) when the call blocks."""
    out: dict[str, object] = {}

    def run() -> None:
        try:
            out["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            out["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "the read blocked"
    if "error" in out:
        raise out["error"]  # type: ignore[misc]
    return out["value"]


def _port_file(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "DevToolsActivePort"


def _refused(folder: Path) -> str:
    with pytest.raises(DiscoveryError) as caught:
        _in_a_thread(lambda: read_devtools_active_port(folder))
    return str(caught.value)


def test_a_fifo_a_device_link_and_a_huge_file_are_refused_at_once(tmp_path: Path):
    os.mkfifo(_port_file(tmp_path / "fifo"))
    assert "not a regular file" in _refused(tmp_path / "fifo")
    _port_file(tmp_path / "zero").symlink_to("/dev/zero")
    assert "symbolic link" in _refused(tmp_path / "zero")
    _port_file(tmp_path / "huge").write_text("9" * 100_000)
    assert "100000 bytes" in _refused(tmp_path / "huge")
    # what Chrome writes is read as before
    _port_file(tmp_path / "chrome").write_text(GOOD)
    assert read_devtools_active_port(tmp_path / "chrome") == (9222, "/devtools/browser/0b1c")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="giving a file away takes root")
def test_a_port_file_of_another_account_or_one_others_can_rewrite_is_refused(tmp_path: Path):
    planted = _port_file(tmp_path / "planted")
    planted.write_text(GOOD)
    os.chown(planted, NOBODY, NOBODY)
    assert f"uid {NOBODY}" in _refused(tmp_path / "planted")
    open_file = _port_file(tmp_path / "open")
    open_file.write_text(GOOD)
    open_file.chmod(0o666)
    assert "rewritten by other users" in _refused(tmp_path / "open")


async def test_attach_with_a_fifo_for_a_port_file_answers_and_the_server_goes_on(tmp_path: Path):
    os.mkfifo(_port_file(tmp_path / "profile"))
    async with serving(tmp_path / "artifacts") as agent:
        agent.manager.settings.profile_dirs = [ProfileDir("Chrome", tmp_path / "profile")]
        agent.manager.settings.probe_ports = ()
        named = await agent.call("browser_session", action="attach_cdp", user_data_dir=str(tmp_path / "profile"))
        sc = named.structured_content
        assert named.is_error and sc["code"] == "BLOCKED_BY_POLICY", sc
        assert "not a regular file" in sc["message"] and "not a regular file" in named.content[0].text
        # discovery passes over the same file instead of waiting on it
        found = await agent.call("browser_session", action="attach_cdp")
        assert found.is_error and found.structured_content["code"] == "CDP_UNREACHABLE", found.structured_content
        status = await agent.call("browser_session", action="get_browser_status")
        assert not status.is_error


def _secret_in(path: Path) -> str:
    return resolve_secret(None, path, path.parent / "artifacts").value


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="giving a file away takes root")
def test_a_token_file_of_another_account_a_link_or_in_an_open_folder_stops_the_start(tmp_path: Path):
    secret = "a-secret-long-enough-0123456789"
    theirs = tmp_path / "theirs" / "token"
    theirs.parent.mkdir(mode=0o700)
    theirs.write_text(secret)
    theirs.chmod(0o600)
    os.chown(theirs, NOBODY, NOBODY)
    with pytest.raises(SecretError, match=f"uid {NOBODY}"):
        _secret_in(theirs)
    mine = tmp_path / "mine" / "token"
    mine.parent.mkdir(mode=0o700)
    mine.write_text(secret)
    mine.chmod(0o600)
    assert _secret_in(mine) == secret
    linked = tmp_path / "linked" / "token"
    linked.parent.mkdir(mode=0o700)
    linked.symlink_to(mine)
    with pytest.raises(SecretError, match="symbolic link"):
        _secret_in(linked)
    shared = tmp_path / "shared" / "token"
    shared.parent.mkdir()
    shared.parent.chmod(0o777)
    shared.write_text(secret)
    shared.chmod(0o600)
    with pytest.raises(SecretError, match="folder other users can write"):
        _secret_in(shared)


_SQUATTER = """
import os, socket, sys
os.setgid(65534); os.setuid(65534)
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True)
while True:
    conn, _ = s.accept()
    conn.recv(4096)
    ws = b"ws://127.0.0.1:%d/devtools/browser/x" % s.getsockname()[1]
    body = b'{"Browser": "Chrome/999", "webSocketDebuggerUrl": "' + ws + b'"}'
    head = b"HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\ncontent-length: %d\\r\\n\\r\\n"
    conn.sendall(head % len(body) + body)
    conn.close()
"""


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.geteuid() != 0, reason="another account's listener takes root on Linux"
)
async def test_a_port_another_account_listens_on_is_not_the_users_chrome(tmp_path: Path):
    """A stale DevToolsActivePort names a port; another account's fake CDP server listens there."""
    squatter = subprocess.Popen([sys.executable, "-c", _SQUATTER], stdout=subprocess.PIPE, text=True)  # noqa: ASYNC220
    try:
        assert squatter.stdout is not None
        port = int(squatter.stdout.readline())
        assert check_listener(port).uid == NOBODY and check_listener(port).someone_elses
        _port_file(tmp_path / "profile").write_text(f"{port}\n/devtools/browser/x\n")
        async with serving(tmp_path / "artifacts") as agent:
            agent.manager.settings.profile_dirs = [ProfileDir("Chrome", tmp_path / "profile")]
            agent.manager.settings.probe_ports = (port,)
            found = await agent.call("browser_session", action="attach_cdp")
            assert found.is_error and found.structured_content["code"] == "CDP_UNREACHABLE", found.structured_content
            named = await agent.call("browser_session", action="attach_cdp", user_data_dir=str(tmp_path / "profile"))
            sc = named.structured_content
            assert named.is_error and sc["code"] == "BLOCKED_BY_POLICY" and f"uid {NOBODY}" in sc["message"], sc
            status = await agent.s("get_browser_status")
            assert not status["browser"].get("activeTarget"), status
    finally:
        squatter.kill()
        squatter.wait()


async def _drip(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A listener that answers /json/version one byte a second, for ever (each read resets httpx's timeout)."""
    await reader.read(4096)
    writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n")
    with contextlib.suppress(ConnectionError):
        while True:
            writer.write(b" ")
            await writer.drain()
            await asyncio.sleep(1.0)


async def test_a_listener_that_drips_its_answer_is_given_up_on_by_discovery(tmp_path: Path):
    server = await asyncio.start_server(_drip, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with anyio.fail_after(60), pytest.raises(DiscoveryError, match="did not answer in"):
            await get_version(f"http://127.0.0.1:{port}")
        async with serving(tmp_path / "artifacts", max_call_seconds=120) as agent:
            agent.manager.settings.profile_dirs = []
            agent.manager.settings.probe_ports = (port,)
            found = await agent.call("browser_session", action="attach_cdp")
            sc = found.structured_content
            assert found.is_error and sc["code"] == "CDP_UNREACHABLE", sc  # not the call's TIMEOUT
    finally:
        server.close()
