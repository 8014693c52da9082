"""A started Chromium never outlives the process that started it, nor leaves its profile behind.

Two mechanisms, both for :class:`cdp_core.chromium.ChromiumProcess`:

- **A watchdog pipe.** Next to every browser we start a tiny Python process whose stdin is the
  read end of a pipe; only the starting process holds the write end. When that process ends
  in any way (``stop()``, an exception, ``SIGKILL`` of the test runner), the kernel closes the
  write end, the watchdog reads EOF, kills the browser's process group and removes the
  temporary profile. A parent-death signal (``prctl(PR_SET_PDEATHSIG)``) would not do: Linux
  sends it when the spawning *thread* exits (a worker thread, ``asyncio.to_thread``), and it
  exists on Linux only. A clean :meth:`Watchdog.release` writes one byte first, so the
  watchdog exits without touching a process group whose id may be reused later.
- **A sweep of orphaned profiles.** Temporary profiles are named ``<prefix><pid>-*``
  (``cdp-chromium-`` here, ``mcp-browser-launch-`` for the MCP server's internal browser)
  after the process that created them. :func:`sweep_profiles` removes those whose
  owner is gone and whose browser (Chrome's ``SingletonLock`` names ``host-pid``) is not
  running, so parallel workers and servers sharing the temp dir never lose a live profile.
"""

from __future__ import annotations

import logging
import os
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from .cleanup import pid_alive, remove_tree

__all__ = ["PROFILE_PREFIX", "Watchdog", "new_profile_dir", "sweep_profiles"]

log = logging.getLogger("cdp_core.lifetime")

PROFILE_PREFIX = "cdp-chromium-"

#: Profiles without an owner pid in their name (older versions) are only swept this long after
#: their last change, so one that is being created right now is left alone.
_UNNAMED_GRACE_S = 600.0

# Runs in a separate interpreter (python -I): only the standard library, no cdp_core.
_WATCHDOG_CODE = r"""
import os, shutil, signal, sys, time
pgid, profile = int(sys.argv[1]), sys.argv[2]
try:
    released = sys.stdin.buffer.read(1) == b"q"
except BaseException:
    released = False
if not released:
    for signum in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, signum)
        except (ProcessLookupError, PermissionError):
            break
        for _ in range(30):
            time.sleep(0.1)
            try:
                os.killpg(pgid, 0)
            except (ProcessLookupError, PermissionError):
                break
        else:
            continue
        break
    if profile:
        shutil.rmtree(profile, ignore_errors=True)
"""


class Watchdog:
    """Kills a browser's process group (and removes its profile) when this process goes away."""

    def __init__(self, pgid: int, profile: Path | None) -> None:
        self._write_fd: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        if not hasattr(os, "killpg"):
            return  # Windows: the browser is a job/tree killed by stop(); no process groups here
        read_fd, write_fd = os.pipe()  # both non-inheritable: only the watchdog's stdin gets the read end
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _WATCHDOG_CODE, str(pgid), str(profile or "")],
                stdin=read_fd,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # a Ctrl-C to the terminal's group must not kill it first
            )
        except OSError:
            os.close(write_fd)
            return
        finally:
            os.close(read_fd)
        self._write_fd = write_fd

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def release(self, *, browser_gone: bool = True) -> None:
        """The browser was stopped cleanly: let the watchdog exit without killing anything.

        ``browser_gone=False`` (it survived our kill): close the pipe without the release byte,
        so the watchdog kills the process group and removes the profile on its own.
        """
        if self._write_fd is not None:
            if browser_gone:
                try:
                    os.write(self._write_fd, b"q")
                except OSError:
                    pass
            os.close(self._write_fd)
            self._write_fd = None
        if not browser_gone:
            self._proc = None  # it works on in its own session; it never waits on us
        if self._proc is not None:
            try:
                self._proc.wait(2)
            except subprocess.TimeoutExpired:
                self._proc.kill()
            self._proc = None


def new_profile_dir(prefix: str = PROFILE_PREFIX, root: str | Path | None = None) -> Path:
    """A fresh owner-only temporary profile named ``<prefix><pid>-*`` (the sweep's owner check reads the pid)."""
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=root))


def _browser_running(profile: Path, alive: Callable[[int], bool]) -> bool:
    """Chrome's ``SingletonLock`` symlink reads ``<host>-<pid>`` while a browser uses the profile."""
    try:
        target = os.readlink(profile / "SingletonLock")
    except OSError:
        return False
    host, _, pid = target.rpartition("-")
    if host and host != socket.gethostname():
        return True  # another machine's browser (a shared temp dir): not ours to judge
    return pid.isdigit() and alive(int(pid))


def _owner_pid(name: str, prefix: str) -> int | None:
    rest = name[len(prefix) :]
    head = rest.split("-", 1)[0]
    return int(head) if head.isdigit() and "-" in rest else None


def _mine(path: Path) -> bool:
    """A folder of this user (POSIX: same uid; Windows: %TEMP% is per user), never a symlink."""
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode):
        return False
    getuid = getattr(os, "getuid", None)
    return getuid is None or info.st_uid == getuid()


def sweep_profiles(
    prefix: str = PROFILE_PREFIX,
    root: str | Path | None = None,
    *,
    alive: Callable[[int], bool] = pid_alive,
    remove: Callable[..., bool] = remove_tree,
) -> list[Path]:
    """Remove ``<prefix>*`` profiles left by processes that are gone; answer what was removed.

    Used for ChromiumProcess's ``cdp-chromium-`` profiles and the internal browser's
    ``mcp-browser-launch-`` ones. A profile is kept while its owner process (the pid in its
    name) lives or a browser runs on it (its ``SingletonLock``); one without an owner pid in its
    name (older versions) is kept for ten minutes after its last change. Only this user's
    folders, never a symlink.
    """
    folder = Path(root) if root is not None else Path(tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(folder.glob(f"{prefix}*"))
    except OSError:
        return removed
    now = time.time()
    for path in entries:
        try:
            if not _mine(path):
                continue
            owner = _owner_pid(path.name, prefix)
            if owner is not None and (owner == os.getpid() or alive(owner)):
                continue
            if owner is None and now - path.stat().st_mtime < _UNNAMED_GRACE_S:
                continue
            if _browser_running(path, alive):
                continue
        except OSError:
            continue
        if remove(path, attempts=3):
            removed.append(path)
    if removed:
        log.info("removed %d browser profile(s) left by processes that were killed", len(removed))
    return removed
