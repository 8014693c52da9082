"""Chrome and Edge found where installers put them on Windows and macOS, checked on Linux.

The platform and the environment are injected (``platform="win32"``, a ``LOCALAPPDATA`` of a
Windows machine); the paths are read back with ``PureWindowsPath`` so a Linux separator in a
Windows path would fail. Pure logic: no browser is started here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path, PurePosixPath, PureWindowsPath

import pytest

from cdp_core.browser_paths import (
    browser_candidates,
    clean_executable_path,
    install_hint,
    locate_browser,
)
from mcp_server.cli.main import server_command_path

WINDOWS_ENV = {
    "LOCALAPPDATA": r"C:\Users\Ana\AppData\Local",
    "ProgramFiles": r"C:\Program Files",
    "ProgramFiles(x86)": r"C:\Program Files (x86)",
}


def test_windows_candidates_are_where_the_installers_put_chrome_and_edge():
    found = [PureWindowsPath(p) for p in browser_candidates("win32", WINDOWS_ENV)]
    chrome = r"Google\Chrome\Application\chrome.exe"
    assert found[:3] == [
        PureWindowsPath(r"C:\Users\Ana\AppData\Local") / chrome,  # per-user install first
        PureWindowsPath(r"C:\Program Files") / chrome,
        PureWindowsPath(r"C:\Program Files (x86)") / chrome,
    ]
    edge = [p for p in found if p.name == "msedge.exe"]
    assert PureWindowsPath(r"C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe") in edge
    assert all("/" not in str(p) for p in browser_candidates("win32", WINDOWS_ENV))


def test_windows_environment_names_are_case_insensitive_and_quotes_dropped():
    env = {"PROGRAMFILES": r'"D:\Apps"'}  # os.environ on Windows upper-cases the names
    assert browser_candidates("win32", env)[0] == r"D:\Apps\Google\Chrome\Application\chrome.exe"


def test_macos_candidates_include_the_users_applications():
    found = browser_candidates("darwin", {"HOME": "/Users/ana"})
    assert found[0] == "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"
    assert "/Users/ana/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" in found
    assert "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge" in found
    assert "/Applications/Chromium.app/Contents/MacOS/Chromium" in found
    assert PurePosixPath(found[0]).name == "Google Chrome"


def test_locate_takes_the_first_installed_one_and_lists_what_it_looked_at():
    installed = {rf"{WINDOWS_ENV['ProgramFiles']}\Microsoft\Edge\Application\msedge.exe"}
    path, looked = locate_browser("win32", WINDOWS_ENV, is_executable=installed.__contains__, which=lambda n: None)
    assert path == next(iter(installed))  # no Chrome on this machine: Edge, which every Windows has
    assert rf"{WINDOWS_ENV['LOCALAPPDATA']}\Google\Chrome\Application\chrome.exe" in looked
    nothing, looked = locate_browser(
        "darwin", {"HOME": "/Users/a"}, is_executable=lambda p: False, which=lambda n: None
    )
    assert nothing is None and "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" in looked


def test_locate_falls_back_to_path_names_per_system():
    seen: list[str] = []

    def which(name: str) -> str | None:
        seen.append(name)
        return r"C:\tools\chrome.exe" if name == "chrome.exe" else None

    path, _ = locate_browser("win32", {}, is_executable=lambda p: p == r"C:\tools\chrome.exe", which=which)
    assert path == r"C:\tools\chrome.exe" and seen == ["chrome.exe"]


@pytest.mark.parametrize(
    "raw",
    [
        r'"C:\Program Files\Google\Chrome\Application\chrome.exe"',
        r"  'C:\Program Files\Google\Chrome\Application\chrome.exe' ",
        r"C:\Program Files\Google\Chrome\Application\chrome.exe",
    ],
)
def test_chrome_path_with_quotes_names_the_same_file(raw: str):
    assert clean_executable_path(raw) == r"C:\Program Files\Google\Chrome\Application\chrome.exe"


def test_quoted_chrome_path_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from cdp_core.chromium import find_chrome

    exe = tmp_path / "my chrome"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.setenv("CHROME_PATH", f'"{exe}"')
    assert find_chrome() == str(exe)


def test_install_hint_per_system():
    assert "apt-get" in install_hint("linux")
    windows = install_hint("win32")
    assert "apt-get" not in windows and "$env:CHROME_PATH" in windows and "msedge.exe" in windows
    assert 'set "CHROME_PATH=' in windows  # the cmd.exe form too
    mac = install_hint("darwin")
    assert "apt-get" not in mac and "/Applications/Google Chrome.app" in mac


def test_printed_server_path_has_exe_on_windows():
    path = server_command_path(r"C:\proj\.venv\Scripts\python.exe", "win32")
    assert PureWindowsPath(path) == PureWindowsPath(r"C:\proj\.venv\Scripts\mcp-browser.exe")
    assert server_command_path("/p/.venv/bin/python", "linux") == "/p/.venv/bin/mcp-browser"


@pytest.mark.skipif(sys.platform == "win32", reason="the Linux/macOS names on PATH; Windows' are checked above")
def test_browser_not_found_names_the_places(tmp_path: Path):
    # A system without any browser: CHROME_PATH unset, PATH empty (Linux branch, real lookup).
    code = (
        "import cdp_core.browser_paths as b, cdp_core.chromium as c\n"
        "b.browser_candidates = lambda *a, **k: ['/nowhere/chromium']\n"
        "try:\n    c.find_chrome()\nexcept c.BrowserNotFound as e:\n    print(e)\n"
    )
    env = {"PATH": str(tmp_path), "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert "/nowhere/chromium" in out and "google-chrome" in out and "CHROME_PATH" in out


@pytest.mark.parametrize(
    ("suggested", "saved"),
    [
        ("CON", "_CON"),
        ("nul.txt", "_nul.txt"),
        ("Com1.tar.gz", "_Com1.tar.gz"),
        ("LPT9 .log", "_LPT9 .log"),
        ("aux", "_aux"),
        ("report.pdf", "report.pdf"),
        ("console.log", "console.log"),  # only the exact device names are reserved
        ("..\\..\\evil.bat", "_.._evil.bat"),
        ("name. . ", "name"),  # Windows drops trailing dots and spaces
        ("", "download"),
        (None, "download"),
    ],
)
def test_download_names_are_safe_on_windows(suggested: str | None, saved: str):
    from targets.policies.file_names import safe_file_name

    assert safe_file_name(suggested) == saved


def test_long_download_names_keep_their_extension():
    from targets.policies.file_names import safe_file_name

    name = safe_file_name("a" * 400 + ".csv")
    assert len(name) <= 180 and name.endswith(".csv")


def test_skill_install_with_redirected_output_and_a_non_ansi_path(tmp_path: Path):
    # Windows writes redirected output in the ANSI code page: cp1252 cannot show "Ł".
    dest = tmp_path / "Łukasz" / "skills"
    env = {**os.environ, "PYTHONIOENCODING": "cp1252"}
    done = subprocess.run(
        [sys.executable, "-m", "mcp_server.cli.entry", "skill", "install", "--client", "claude", "--dest", str(dest)],
        env=env,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert (dest / "mcp-browser-automation" / "SKILL.md").is_file()
    assert b"\\u0141ukasz" in done.stdout  # shown escaped instead of a crash
