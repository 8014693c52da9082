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
- **A sweep of orphaned profiles.** Temporary profiles are named ``cdp-chromium-<pid>-*``
  after the process that created them. :func:`sweep_orphan_profiles` removes those whose
  owner is gone and whose browser (Chrome's ``SingletonLock`` names ``host-pid``) is not
  running, so parallel workers and servers sharing the temp dir never lose a live profile.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["PROFILE_PREFIX", "Watchdog", "new_profile_dir", "sweep_orphan_profiles"]

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

    def release(self) -> None:
        """The browser was stopped cleanly: let the watchdog exit without killing anything."""
        if self._write_fd is not None:
            try:
                os.write(self._write_fd, b"q")
            except OSError:
                pass
            os.close(self._write_fd)
            self._write_fd = None
        if self._proc is not None:
            try:
                self._proc.wait(2)
            except subprocess.TimeoutExpired:
                self._proc.kill()
            self._proc = None


def new_profile_dir() -> Path:
    """A fresh temporary profile named after this process (the sweep's owner check reads it)."""
    return Path(tempfile.mkdtemp(prefix=f"{PROFILE_PREFIX}{os.getpid()}-"))


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists, owned by someone else
    return True


def _browser_running(profile: Path) -> bool:
    """Chrome's ``SingletonLock`` symlink reads ``<host>-<pid>`` while a browser uses the profile."""
    try:
        target = os.readlink(profile / "SingletonLock")
    except OSError:
        return False
    host, _, pid = target.rpartition("-")
    if host and host != socket.gethostname():
        return True  # another machine's browser (a shared temp dir): not ours to judge
    return pid.isdigit() and _pid_alive(int(pid))


def _owner_pid(name: str) -> int | None:
    head = name[len(PROFILE_PREFIX) :].split("-", 1)[0]
    return int(head) if head.isdigit() and "-" in name[len(PROFILE_PREFIX) :] else None


def sweep_orphan_profiles(tmp: str | Path | None = None) -> list[Path]:
    """Remove ``cdp-chromium-*`` profiles left by processes that are gone; answer what was removed.

    A profile is kept while its owner process (the pid in its name) lives or a browser runs
    on it; one without an owner pid in its name is kept for ten minutes after its last change.
    """
    root = Path(tmp or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(root.glob(f"{PROFILE_PREFIX}*"))
    except OSError:
        return removed
    now = time.time()
    for path in entries:
        try:
            if not path.is_dir() or path.is_symlink() or path.stat().st_uid != getattr(os, "getuid", lambda: 0)():
                continue
            owner = _owner_pid(path.name)
            if owner is not None and (owner == os.getpid() or _pid_alive(owner)):
                continue
            if owner is None and now - path.stat().st_mtime < _UNNAMED_GRACE_S:
                continue
            if _browser_running(path):
                continue
        except OSError:
            continue
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            removed.append(path)
    return removed
