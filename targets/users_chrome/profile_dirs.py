"""Where Chrome-like browsers keep their user data dir, per system: the places ``attach_cdp`` looks.

Chrome's remote-debugging toggle (chrome://inspect/#remote-debugging) writes
``DevToolsActivePort`` into the browser's user data dir, so finding the user's Chrome means
reading that file in each standard dir. The list is data, kept here in one place; the system
and its environment (``HOME``, ``XDG_CONFIG_HOME``, ``LOCALAPPDATA``) are arguments, so tests
point every entry at fake dirs and check all three systems on any machine.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ProfileDir", "standard_profile_dirs", "system_of"]


@dataclass(frozen=True, slots=True)
class ProfileDir:
    """One browser's user data dir: ``browser`` as a person names it, ``path`` on this system."""

    browser: str
    path: Path


#: (browser, path parts under the system's base dir), most common first.
DirTable = tuple[tuple[str, tuple[str, ...]], ...]
_LINUX: DirTable = (
    ("Chrome", ("google-chrome",)),
    ("Chrome Beta", ("google-chrome-beta",)),
    ("Chrome Dev", ("google-chrome-unstable",)),
    ("Chrome Canary", ("google-chrome-canary",)),
    ("Chromium", ("chromium",)),
    ("Edge", ("microsoft-edge",)),
    ("Edge Beta", ("microsoft-edge-beta",)),
    ("Edge Dev", ("microsoft-edge-dev",)),
    ("Brave", ("BraveSoftware", "Brave-Browser")),
)
_MAC: DirTable = (
    ("Chrome", ("Google", "Chrome")),
    ("Chrome Beta", ("Google", "Chrome Beta")),
    ("Chrome Dev", ("Google", "Chrome Dev")),
    ("Chrome Canary", ("Google", "Chrome Canary")),
    ("Chromium", ("Chromium",)),
    ("Edge", ("Microsoft Edge",)),
    ("Edge Beta", ("Microsoft Edge Beta",)),
    ("Edge Dev", ("Microsoft Edge Dev",)),
    ("Brave", ("BraveSoftware", "Brave-Browser")),
)
_WINDOWS: DirTable = (
    ("Chrome", ("Google", "Chrome", "User Data")),
    ("Chrome Beta", ("Google", "Chrome Beta", "User Data")),
    ("Chrome Dev", ("Google", "Chrome Dev", "User Data")),
    ("Chrome Canary", ("Google", "Chrome SxS", "User Data")),
    ("Chromium", ("Chromium", "User Data")),
    ("Edge", ("Microsoft", "Edge", "User Data")),
    ("Edge Beta", ("Microsoft", "Edge Beta", "User Data")),
    ("Edge Dev", ("Microsoft", "Edge Dev", "User Data")),
    ("Brave", ("BraveSoftware", "Brave-Browser", "User Data")),
)


def system_of(platform: str | None = None) -> str:
    """``linux``, ``darwin`` or ``windows`` for a ``sys.platform`` value (default: this machine's)."""
    platform = platform or sys.platform
    if platform.startswith(("win", "cygwin", "msys")):
        return "windows"
    return "darwin" if platform == "darwin" else "linux"


def standard_profile_dirs(platform: str | None = None, env: Mapping[str, str] | None = None) -> list[ProfileDir]:
    """The standard user data dirs of Chrome (stable, beta, dev, canary), Chromium, Edge and Brave.

    ``platform`` is a ``sys.platform`` value, ``env`` the environment to read ``HOME``,
    ``XDG_CONFIG_HOME`` and ``LOCALAPPDATA`` from (defaults: this process's). Dirs that do not
    exist are listed too; the caller checks what is there. Linux adds the snap Chromium.
    """
    env = os.environ if env is None else env
    system = system_of(platform)
    home = Path(env.get("HOME") or env.get("USERPROFILE") or str(Path.home()))
    if system == "windows":
        base = Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
        table = _WINDOWS
    elif system == "darwin":
        base = home / "Library" / "Application Support"
        table = _MAC
    else:
        base = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
        table = _LINUX
    dirs = [ProfileDir(browser, base.joinpath(*parts)) for browser, parts in table]
    if system == "linux":
        dirs.append(ProfileDir("Chromium (snap)", home / "snap" / "chromium" / "common" / "chromium"))
    return dirs
