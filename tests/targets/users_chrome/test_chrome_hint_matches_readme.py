"""The CDP_UNREACHABLE hint gives the same Chrome command line as the README, per platform."""

import re

import pytest
from paths import ROOT

from targets.users_chrome.cdp import chrome_command_hint

README = (ROOT / "README.md").read_text()


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_hint_command_is_the_readme_command(platform):
    hint = chrome_command_hint("http://127.0.0.1:9222", platform)
    commands = re.findall(r"`(.+?)`", hint)
    assert len(commands) == (2 if platform == "win32" else 1)  # Windows: PowerShell and cmd.exe forms
    for command in commands:
        assert "--remote-debugging-address=127.0.0.1" in command and "--user-data-dir=" in command
        assert command in README


def test_windows_hint_has_a_powershell_form():
    hint = chrome_command_hint("http://127.0.0.1:9222", "win32")
    powershell, cmd = re.findall(r"`(.+?)`", hint)
    assert powershell.startswith('& "$env:ProgramFiles\\') and "$env:LOCALAPPDATA" in powershell
    assert "%" not in powershell  # cmd.exe variables do not expand in PowerShell
    assert cmd.startswith('"%ProgramFiles%\\') and "$env:" not in cmd


def test_hint_uses_the_port_of_the_url():
    assert "--remote-debugging-port=9333" in chrome_command_hint("http://127.0.0.1:9333", "linux")
