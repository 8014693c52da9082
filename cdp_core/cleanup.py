"""Clean up after a browser on every system: end its process tree, remove its profile, ask if a pid lives.

Why: Chrome is a tree (browser, GPU, network service, one renderer per site). On POSIX we
start it in its own session and signal the whole process group. Windows has neither:
``start_new_session`` is ignored and ``Popen.terminate()`` ends ``chrome.exe`` alone, so its
children kept the profile (the page's cookies) open in ``%TEMP%``. There ``taskkill /T /F``
ends the tree by parent links while the browser process still exists, which is why it runs
before anything else is done to the browser. Platform and runner are injectable for tests.

``pid_alive`` never signals on Windows: ``os.kill(pid, 0)`` there is ``TerminateProcess``.

``remove_tree`` retries: on Windows the browser's helper processes and the virus scanner hold
files in the profile for a moment after the browser exits (sharing violations), and read-only
files refuse deletion; one ``rmtree(ignore_errors=True)`` then left cookies behind.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["end_tree_command", "kill_tree_windows", "pid_alive", "remove_tree", "running_as_root"]

log = logging.getLogger("cdp_core.cleanup")


def end_tree_command(pid: int) -> list[str]:
    """``taskkill`` ending ``pid`` and its descendants, forcibly (headless Chrome has no window to close)."""
    return ["taskkill", "/PID", str(pid), "/T", "/F"]


def kill_tree_windows(pid: int, run: Callable[..., Any] = subprocess.run) -> bool:
    """Run :func:`end_tree_command`; False when taskkill is missing or failed (the caller then kills the one pid)."""
    try:
        done = run(
            end_tree_command(pid),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
            timeout=15,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return getattr(done, "returncode", 1) == 0


def running_as_root() -> bool:
    """Root on POSIX, where Chrome refuses to start with its sandbox; never on Windows (no ``geteuid``)."""
    geteuid = getattr(os, "geteuid", None)
    return geteuid is not None and geteuid() == 0


def pid_alive(pid: int, platform: str | None = None) -> bool:
    """Whether process ``pid`` exists (a process of another user counts as alive)."""
    platform = platform or sys.platform
    if pid <= 0:
        return False
    if platform == "win32":
        return _pid_alive_windows(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def _pid_alive_windows(pid: int) -> bool:
    if sys.platform != "win32":  # only reachable with an injected platform (tests): say "alive", the safe side
        return True
    import ctypes

    query_limited_information, still_active = 0x1000, 259
    kernel32 = ctypes.windll.kernel32
    handle = kernel32.OpenProcess(query_limited_information, False, pid)
    if not handle:
        return ctypes.GetLastError() == 5  # access denied: it exists, it is someone else's
    try:
        code = ctypes.c_ulong()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == still_active
    finally:
        kernel32.CloseHandle(handle)


def _clear_readonly_and_retry(func: Callable[..., Any], path: str, _exc: Any) -> None:
    # Windows: a read-only file (os.chmod(0o600) only sets that flag there) refuses unlink.
    try:
        os.chmod(path, stat.S_IWRITE | stat.S_IREAD)
        func(path)
    except OSError:
        pass  # still locked: the next attempt of remove_tree tries again


def remove_tree(
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
    log.warning("could not remove %s (files still in use)", target)
    return False
