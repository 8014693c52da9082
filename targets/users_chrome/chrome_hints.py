"""The command line that starts a Chrome our attach can reach, in the user's own shell's syntax.

Why per shell: the people this server is for often work on Windows in PowerShell, where the
cmd.exe form (``%LOCALAPPDATA%``, a bare quoted path) does not run: PowerShell needs ``&`` to
run a quoted path and ``$env:LOCALAPPDATA``. On Windows the hint gives both forms; elsewhere
the POSIX shell form. Every command here is also in the README
(tests/targets/users_chrome/test_chrome_hint_matches_readme.py).
"""

from __future__ import annotations

import sys
import urllib.parse

__all__ = ["chrome_command_hint", "chrome_commands"]


def chrome_commands(port: int, platform: str | None = None) -> dict[str, str]:
    """``{shell: command}`` starting Chrome with a debugging port on loopback and a dedicated profile."""
    flags = f"--remote-debugging-port={port} --remote-debugging-address=127.0.0.1"
    platform = platform or sys.platform
    if platform.startswith("win"):
        return {
            "PowerShell": (
                f'& "$env:ProgramFiles\\Google\\Chrome\\Application\\chrome.exe" {flags} '
                '--user-data-dir="$env:LOCALAPPDATA\\ChromeMcpProfile"'
            ),
            "cmd.exe": (
                f'"%ProgramFiles%\\Google\\Chrome\\Application\\chrome.exe" {flags} '
                '--user-data-dir="%LOCALAPPDATA%\\ChromeMcpProfile"'
            ),
        }
    if platform == "darwin":
        return {
            "Terminal": (
                f'"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" {flags} '
                '--user-data-dir="$HOME/Library/Application Support/ChromeMcpProfile"'
            )
        }
    return {"shell": f'google-chrome {flags} --user-data-dir="$HOME/.config/ChromeMcpProfile"'}


def chrome_command_hint(url: str, platform: str | None = None) -> str:
    """The hint of CDP_UNREACHABLE: Chrome's own toggle first (the user's logged-in profile), then the
    command that starts a Chrome with a dedicated profile on ``url``'s port."""
    parts = urllib.parse.urlsplit(url if "://" in url else f"http://{url}")
    commands = chrome_commands(parts.port or 9222, platform)
    if len(commands) == 1:
        shown = f"`{next(iter(commands.values()))}`"
    else:
        shown = " or ".join(f"in {shell} `{command}`" for shell, command in commands.items())
    return (
        "To reach the Chrome the user is logged in to, ask them to open chrome://inspect/#remote-debugging "
        'there and turn on "Allow remote debugging for this browser instance" (Chrome 144+), then call '
        "attach_cdp again: Chrome asks them to click Allow. Or they start a separate Chrome with a dedicated "
        f"profile (none of their logins), e.g. {shown}, then call attach_cdp again."
    )
