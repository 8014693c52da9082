"""The internal browser's temporary profiles: created with the owner's pid, removed with retries, swept.

A profile holds what the pages stored (cookies, localStorage tokens), so none may stay behind:

- removal retries: on Windows, Chrome's helper processes and the virus scanner hold files in the
  profile for a moment after the browser exits (``PermissionError``, sharing violations), and
  read-only files refuse deletion; one ``rmtree(ignore_errors=True)`` then left most of it;
- the sweep: a server that was killed (Task Manager, a crash, ``kill -9``) never removes its
  profile. Each profile's name carries the server's pid (``mcp-browser-launch-<pid>-<random>``);
  the first launch of a server removes the profiles whose server is gone, and only those: a
  profile of a running server (another client's) is left alone, as is one of another user.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cdp_core.process_tree import pid_alive

__all__ = ["PREFIX", "new_profile_dir", "remove_profile", "sweep_stale_profiles"]

log = logging.getLogger("targets.launch_profiles")

PREFIX = "mcp-browser-launch-"
_OWNED = re.compile(re.escape(PREFIX) + r"(\d+)-")


def new_profile_dir(root: str | None = None) -> Path:
    """A fresh owner-only profile folder whose name says which server process owns it."""
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=root))


def _clear_readonly_and_retry(func: Callable[..., Any], path: str, _exc: Any) -> None:
    # Windows: a read-only file (os.chmod(0o600) only sets that flag there) refuses unlink.
    try:
        os.chmod(path, stat.S_IWRITE | stat.S_IREAD)
        func(path)
    except OSError:
        pass  # still locked: the next attempt of remove_profile tries again


def remove_profile(
    path: str | Path, *, attempts: int = 10, delay: float = 0.2, sleep: Callable[[float], None] = time.sleep
) -> bool:
    """Remove the folder, retrying while files in it are locked; True when it is gone."""
    target = Path(path)
    for attempt in range(attempts):
        if not target.exists():
            return True
        if sys.version_info >= (3, 12):
            shutil.rmtree(target, onexc=_clear_readonly_and_retry)
        else:
            shutil.rmtree(target, onerror=_clear_readonly_and_retry)
        if not target.exists():
            return True
        if attempt + 1 < attempts:
            sleep(delay * (attempt + 1))
    log.warning("could not remove the browser profile %s (files still in use)", target)
    return False


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
