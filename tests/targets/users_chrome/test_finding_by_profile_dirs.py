"""Finding the user's Chrome without a URL, on every system and browser, with fake profile dirs.

Pure logic: the per-system list of user data dirs (targets/users_chrome/profile_dirs.py) is checked for
Linux, macOS and Windows with an injected environment; discovery runs over fake dirs whose
``DevToolsActivePort`` names a port of a loopback listener that answers ``/json/version`` as
Chrome's toggle does (404) or as the flag flow does (JSON). The listener also records whether
anyone tried a websocket: discovery must never (each would be a dialog in the user's Chrome).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from faults_util import serving

from targets.users_chrome.finding import find_chromes, found_by_port
from targets.users_chrome.profile_dirs import ProfileDir, standard_profile_dirs, system_of


class FakeChromePort:
    """A loopback port that answers like a Chrome with the toggle on (404) or the flag (/json/version)."""

    def __init__(self, how: str) -> None:
        self.how = how
        self.requests: list[bytes] = []
        self.port = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> FakeChromePort:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, OSError):
            writer.close()
            return
        self.requests.append(head)
        if self.how == "flag" and head.startswith(b"GET /json/version "):
            body = json.dumps(
                {"Browser": "Chrome/150", "webSocketDebuggerUrl": f"ws://127.0.0.1:{self.port}/devtools/browser/f"}
            ).encode()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
        else:
            body = b"Not Found"
            writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n")
        writer.write(f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        await writer.drain()
        writer.close()

    @property
    def websockets(self) -> int:
        return sum(b"upgrade: websocket" in r.lower() for r in self.requests)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()


@pytest.fixture
async def ports() -> AsyncIterator[list[FakeChromePort]]:
    made: list[FakeChromePort] = []
    yield made
    for port in made:
        await port.close()


async def _live(ports: list[FakeChromePort], how: str) -> FakeChromePort:
    port = await FakeChromePort(how).start()
    ports.append(port)
    return port


def _write_port_file(profile: Path, port: int, browser_id: str = "abc") -> None:
    profile.mkdir(parents=True, exist_ok=True)
    (profile / "DevToolsActivePort").write_text(f"{port}\n/devtools/browser/{browser_id}\n")


def _dead_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again at once: nothing listens there


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        (
            "linux",
            {"HOME": "/home/ada"},
            {
                "Chrome": "/home/ada/.config/google-chrome",
                "Chrome Beta": "/home/ada/.config/google-chrome-beta",
                "Chrome Dev": "/home/ada/.config/google-chrome-unstable",
                "Chrome Canary": "/home/ada/.config/google-chrome-canary",
                "Chromium": "/home/ada/.config/chromium",
                "Edge": "/home/ada/.config/microsoft-edge",
                "Brave": "/home/ada/.config/BraveSoftware/Brave-Browser",
            },
        ),
        (
            "linux",
            {"HOME": "/home/ada", "XDG_CONFIG_HOME": "/cfg"},
            {"Chrome": "/cfg/google-chrome", "Chromium": "/cfg/chromium"},
        ),
        (
            "darwin",
            {"HOME": "/Users/ada"},
            {
                "Chrome": "/Users/ada/Library/Application Support/Google/Chrome",
                "Chrome Beta": "/Users/ada/Library/Application Support/Google/Chrome Beta",
                "Chrome Dev": "/Users/ada/Library/Application Support/Google/Chrome Dev",
                "Chrome Canary": "/Users/ada/Library/Application Support/Google/Chrome Canary",
                "Chromium": "/Users/ada/Library/Application Support/Chromium",
                "Edge": "/Users/ada/Library/Application Support/Microsoft Edge",
                "Brave": "/Users/ada/Library/Application Support/BraveSoftware/Brave-Browser",
            },
        ),
        (
            "win32",
            {"HOME": "/h", "LOCALAPPDATA": "/L"},
            {
                "Chrome": "/L/Google/Chrome/User Data",
                "Chrome Beta": "/L/Google/Chrome Beta/User Data",
                "Chrome Dev": "/L/Google/Chrome Dev/User Data",
                "Chrome Canary": "/L/Google/Chrome SxS/User Data",
                "Chromium": "/L/Chromium/User Data",
                "Edge": "/L/Microsoft/Edge/User Data",
                "Brave": "/L/BraveSoftware/Brave-Browser/User Data",
            },
        ),
    ],
)
def test_the_standard_user_data_dirs_of_each_system(platform: str, env: dict[str, str], expected: dict[str, str]):
    dirs = {d.browser: d.path for d in standard_profile_dirs(platform, env)}
    for browser, path in expected.items():
        assert dirs[browser] == Path(path), browser


def test_system_names():
    assert [system_of(p) for p in ("linux", "darwin", "win32", "cygwin")] == ["linux", "darwin", "windows", "windows"]


@pytest.mark.parametrize(
    ("platform", "browser"),
    [
        ("win32", "Edge"),
        ("darwin", "Brave"),
        ("linux", "Chrome Canary"),
        ("win32", "Chrome Canary"),
        ("darwin", "Chrome"),
    ],
)
async def test_a_live_port_file_in_any_browsers_dir_is_found(tmp_path, ports, platform, browser):
    env = {"HOME": str(tmp_path / "home"), "LOCALAPPDATA": str(tmp_path / "local")}
    dirs = standard_profile_dirs(platform, env)
    where = next(d.path for d in dirs if d.browser == browser)
    live = await _live(ports, "toggle")
    _write_port_file(where, live.port)
    # a stale file (Chrome crashed: nothing listens) in another browser's dir is no candidate
    other = next(d.path for d in dirs if d.browser == "Chromium")
    _write_port_file(other, _dead_port())

    found = await find_chromes(dirs, fixed_ports=())

    assert [(f.browser, f.profile_dir, f.port, f.how) for f in found] == [(browser, str(where), live.port, "toggle")]
    assert found[0].ws_url == f"ws://127.0.0.1:{live.port}/devtools/browser/abc"
    assert live.websockets == 0  # found by TCP and HTTP only: no dialog in the user's Chrome
    assert await found_by_port(live.port, dirs) == found[0]
    assert await found_by_port(_dead_port(), dirs) is None


async def test_the_flag_flow_is_told_from_the_toggle_and_port_9222_style_probes(tmp_path, ports):
    flagged = await _live(ports, "flag")
    toggled = await _live(ports, "toggle")
    _write_port_file(tmp_path / "edge", toggled.port)
    dirs = [ProfileDir("Edge", tmp_path / "edge")]
    # the flag flow with a fixed port writes no file in a standard dir: the fixed port is asked instead
    found = await find_chromes(dirs, fixed_ports=(flagged.port, toggled.port))
    assert [(f.browser, f.profile_dir, f.how) for f in found] == [
        ("Edge", str(tmp_path / "edge"), "toggle"),
        (
            "Chrome/150",
            None,
            "flag",
        ),
    ]
    assert flagged.websockets == 0 and toggled.websockets == 0


async def _attach(agent: Any, **args: Any) -> Any:
    return await agent.call("browser_session", action="attach_cdp", **args)


async def test_attach_without_url_names_every_candidate_when_several_chromes_listen(tmp_path, ports):
    a, b = await _live(ports, "toggle"), await _live(ports, "toggle")
    home = tmp_path / "home"
    dirs = standard_profile_dirs("darwin", {"HOME": str(home)})
    chrome = next(d.path for d in dirs if d.browser == "Chrome")
    brave = next(d.path for d in dirs if d.browser == "Brave")
    _write_port_file(chrome, a.port)
    _write_port_file(brave, b.port)
    async with serving(tmp_path / "artifacts") as agent:
        agent.manager.settings.profile_dirs = dirs
        agent.manager.settings.probe_ports = ()
        result = await _attach(agent)
        sc = result.structured_content
        assert result.is_error and sc["code"] == "AMBIGUOUS_MATCH", sc
        assert {(c["browser"], c["profileDir"], c["port"]) for c in sc["candidates"]} == {
            ("Chrome", str(chrome), a.port),
            ("Brave", str(brave), b.port),
        }
        assert "user_data_dir" in sc["hint"]
        text = result.content[0].text
        assert str(chrome) in text and str(brave) in text and str(a.port) in text  # the text says it too
        status = await agent.s("get_browser_status")
        assert status["browser"].get("activeTarget") is None  # nothing changed
    assert a.websockets == 0 and b.websockets == 0


async def test_attach_without_url_when_no_chrome_listens_explains_the_toggle_first(tmp_path, ports):
    async with serving(tmp_path / "artifacts") as agent:
        agent.manager.settings.profile_dirs = standard_profile_dirs("linux", {"HOME": str(tmp_path / "nobody")})
        agent.manager.settings.probe_ports = (_dead_port(),)
        result = await _attach(agent)
        sc = result.structured_content
        assert result.is_error and sc["code"] == "CDP_UNREACHABLE", sc
        hint = sc["hint"]
        assert "chrome://inspect/#remote-debugging" in hint and "attach_cdp again" in hint
        assert hint.index("chrome://inspect") < hint.index("--remote-debugging-port")  # the toggle first
        assert "chrome://inspect/#remote-debugging" in result.content[0].text


async def test_user_data_dir_names_a_profile_outside_the_standard_dirs(tmp_path, ports):
    live = await _live(ports, "toggle")
    profile = tmp_path / "work-profile"
    _write_port_file(profile, live.port)
    async with serving(tmp_path / "artifacts") as agent:
        agent.manager.settings.profile_dirs = []
        agent.manager.settings.probe_ports = ()
        missing = await _attach(agent, user_data_dir=str(tmp_path / "elsewhere"))
        assert missing.is_error and missing.structured_content["code"] == "CDP_UNREACHABLE"
        assert "elsewhere" in missing.structured_content["message"]
        # The fake port is no Chrome: the websocket it is asked for fails, and says where it went.
        failed = await _attach(agent, user_data_dir=str(profile))
        sc = failed.structured_content
        assert failed.is_error and sc["code"] == "CDP_UNREACHABLE", sc
        assert f"127.0.0.1:{live.port}/devtools/browser/abc" in sc["message"]
    assert live.websockets == 1  # the one handshake of that attach, and nothing before it


async def test_a_given_or_configured_url_keeps_priority_over_discovery(tmp_path, ports):
    a, b = await _live(ports, "toggle"), await _live(ports, "toggle")
    given = await _live(ports, "flag")
    dirs = [ProfileDir("Chrome", tmp_path / "a"), ProfileDir("Edge", tmp_path / "b")]
    _write_port_file(dirs[0].path, a.port)
    _write_port_file(dirs[1].path, b.port)
    async with serving(tmp_path / "artifacts") as agent:
        agent.manager.settings.profile_dirs = dirs
        agent.manager.settings.probe_ports = ()
        assert (await _attach(agent)).structured_content["code"] == "AMBIGUOUS_MATCH"  # discovery sees two
        for args, configured in (({"cdp_url": f"http://127.0.0.1:{given.port}"}, None), ({}, given.port)):
            agent.manager.settings.cdp_url = f"http://127.0.0.1:{configured}" if configured else None
            result = await _attach(agent, **args)
            sc = result.structured_content
            # the fake is no Chrome: its websocket fails, and the answer names the given port, not a discovered one
            assert result.is_error and sc["code"] == "CDP_UNREACHABLE", sc
            assert f"127.0.0.1:{given.port}" in sc["message"], sc
    assert a.websockets == 0 and b.websockets == 0 and given.websockets == 2
