"""The internal browser's temporary profiles: created with the owner's pid, removed with retries, swept.

A profile holds what the pages stored (cookies, localStorage tokens), so none may stay behind:

- removal retries (:func:`cdp_core.cleanup.remove_tree`): on Windows, Chrome's helpers and the
  virus scanner hold files in the profile for a moment after the browser exits;
- the sweep: a server that was killed (Task Manager, a crash, ``kill -9``) never removes its
  profile. Each profile's name carries the server's pid (``mcp-browser-launch-<pid>-<random>``);
  the first launch of a server removes the profiles whose server is gone, and only those: a
  profile of a running server (another client's) is left alone, as is one of another user.
"""

from __future__ import annotations

import logging
import os
import re
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from cdp_core.cleanup import pid_alive, remove_tree

__all__ = ["PREFIX", "new_profile_dir", "remove_profile", "sweep_stale_profiles"]

log = logging.getLogger("targets.launch_profiles")

PREFIX = "mcp-browser-launch-"
_OWNED = re.compile(re.escape(PREFIX) + r"(\d+)-")


def new_profile_dir(root: str | None = None) -> Path:
    """A fresh owner-only profile folder whose name says which server process owns it."""
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=root))


def remove_profile(path: str | Path, *, attempts: int = 10) -> bool:
    """Remove a profile, retrying while the browser's helpers still hold files in it (Windows)."""
    return remove_tree(path, attempts=attempts)


def _mine(path: Path) -> bool:
    """A folder of this user (POSIX: same uid; Windows: %TEMP% is per user), never a symlink."""
    try:
        info = path.lstat()
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        return False
    getuid = getattr(os, "getuid", None)
    return getuid is None or info.st_uid == getuid()


def sweep_stale_profiles(
    root: str | Path | None = None,
    *,
    alive: Callable[[int], bool] = pid_alive,
    remove: Callable[..., bool] = remove_profile,
) -> list[Path]:
    """Remove the profiles left by servers that no longer run; returns what was removed."""
    folder = Path(root) if root is not None else Path(tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return removed
    for entry in entries:
        match = _OWNED.match(entry.name)
        if match is None:
            continue  # not ours, or a profile of a version without the pid: leave it
        pid = int(match.group(1))
        if pid == os.getpid() or alive(pid) or not _mine(entry):
            continue
        if remove(entry, attempts=3):
            removed.append(entry)
    if removed:
        log.info("removed %d browser profile(s) left by servers that were killed", len(removed))
    return removed
