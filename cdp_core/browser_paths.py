"""Where Chrome, Chromium and Edge are installed, per system, and how to say how to get one.

Why a list per system: on Windows and macOS no browser is on ``PATH``; installers put it in
fixed places (Playwright's own channel lists use the same ones):

- Windows: ``%LOCALAPPDATA%``, ``%PROGRAMFILES%``, ``%PROGRAMFILES(X86)%`` followed by
  ``\\Google\\Chrome\\Application\\chrome.exe`` (Chromium: ``\\Chromium\\Application``; Edge:
  ``\\Microsoft\\Edge\\Application\\msedge.exe``, on every Windows 10/11);
- macOS: ``/Applications/<App>.app/Contents/MacOS/<App>``, also under ``~/Applications``;
- Linux: ``/usr/bin/chromium`` and the usual names on ``PATH``.

Everything takes the platform and the environment as arguments, so tests check the Windows and
macOS branches on Linux (``ntpath``/``posixpath`` join the names, never the running ``os.path``).
``CHROME_PATH`` may carry the quotes a Windows user copies with the path.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import shutil
import sys
from collections.abc import Callable, Mapping

__all__ = ["browser_candidates", "clean_executable_path", "install_hint", "locate_browser", "path_names"]

#: ``<folder under an install root>`` of each browser on Windows, in order of preference.
_WINDOWS_APPS = (
    ("Google", "Chrome", "Application", "chrome.exe"),
    ("Chromium", "Application", "chrome.exe"),
    ("Microsoft", "Edge", "Application", "msedge.exe"),
)
#: Install roots on Windows, as environment variables (per-user install first, as Chrome does).
_WINDOWS_ROOTS = ("LOCALAPPDATA", "PROGRAMFILES", "PROGRAMFILES(X86)")

_MAC_APPS = (
    "Google Chrome.app/Contents/MacOS/Google Chrome",
    "Chromium.app/Contents/MacOS/Chromium",
    "Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
)

_LINUX_ABSOLUTE = ("/usr/bin/chromium",)


def path_names(platform: str) -> tuple[str, ...]:
    """Executable names looked up on ``PATH`` after the fixed places."""
    if platform == "win32":
        return ("chrome.exe", "msedge.exe", "chromium.exe")
    if platform == "darwin":
        return ("google-chrome", "chromium")
    return ("google-chrome", "google-chrome-stable", "chromium-browser", "chromium", "microsoft-edge")


def _env_get(env: Mapping[str, str], name: str) -> str | None:
    """``env[name]``, case-insensitively (Windows names are: ``ProgramFiles(x86)``)."""
    if name in env:
        return env[name]
    folded = name.casefold()
    for key, value in env.items():
        if key.casefold() == folded:
            return value
    return None


def browser_candidates(platform: str | None = None, env: Mapping[str, str] | None = None) -> list[str]:
    """The fixed install locations for ``platform`` (default: this system), best first."""
    platform = platform or sys.platform
    env = os.environ if env is None else env
    if platform == "win32":
        found: list[str] = []
        for parts in _WINDOWS_APPS:
            for root_name in _WINDOWS_ROOTS:
                root = _env_get(env, root_name)
                if root:
                    path = ntpath.join(clean_executable_path(root), *parts)
                    if path not in found:
                        found.append(path)
        return found
    if platform == "darwin":
        roots = ["/Applications"]
        home = _env_get(env, "HOME")
        if home:
            roots.append(posixpath.join(home, "Applications"))
        return [posixpath.join(root, app) for app in _MAC_APPS for root in roots]
    return list(_LINUX_ABSOLUTE)


def clean_executable_path(value: str) -> str:
    """``value`` without surrounding blanks and one pair of surrounding quotes.

    Why: Windows shows a path with its quotes (``"C:\\Program Files\\...\\chrome.exe"``, Copy as
    path in Explorer) and people paste it into ``CHROME_PATH`` or a client's JSON config.
    """
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1].strip()
    return value


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def locate_browser(
    platform: str | None = None,
    env: Mapping[str, str] | None = None,
    *,
    is_executable: Callable[[str], bool] = _is_executable,
    which: Callable[[str], str | None] = shutil.which,
) -> tuple[str | None, list[str]]:
    """``(the first browser executable found or None, every place looked at)``, ``CHROME_PATH`` aside."""
    platform = platform or sys.platform
    looked: list[str] = []
    for path in browser_candidates(platform, env):
        looked.append(path)
        if is_executable(path):
            return path, looked
    for name in path_names(platform):
        looked.append(name)
        on_path = which(name)
        if on_path and is_executable(on_path):
            return on_path, looked
    return None, looked


def install_hint(platform: str | None = None) -> str:
    """How to get a browser on ``platform``, and that ``CHROME_PATH`` names one anywhere."""
    platform = platform or sys.platform
    if platform == "win32":
        return (
            "Install Google Chrome (https://www.google.com/chrome/; Edge, which every Windows has, works too), "
            "or point CHROME_PATH at chrome.exe or msedge.exe, e.g. in PowerShell "
            '`$env:CHROME_PATH = "$env:ProgramFiles\\Google\\Chrome\\Application\\chrome.exe"` '
            '(cmd.exe: `set "CHROME_PATH=%ProgramFiles%\\Google\\Chrome\\Application\\chrome.exe"`).'
        )
    if platform == "darwin":
        return (
            "Install Google Chrome into /Applications (https://www.google.com/chrome/, or "
            "`brew install --cask google-chrome`), or point CHROME_PATH at the executable inside the app, "
            'e.g. `export CHROME_PATH="/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"`.'
        )
    return (
        "Install one with `apt-get install -y chromium` (Debian/Ubuntu), or point "
        "CHROME_PATH at a Chrome/Chromium executable."
    )
