"""End a browser and every process it started, on POSIX and on Windows; ask whether a pid lives.

Why: Chrome is a tree (browser, GPU, network service, one renderer per site). On POSIX we
start it in its own session and signal the whole process group. Windows has neither:
``start_new_session`` is ignored and ``Popen.terminate()`` ends ``chrome.exe`` alone, so its
children kept the profile (the page's cookies) open in ``%TEMP%``. There ``taskkill /T /F``
ends the tree by parent links while the browser process still exists, which is why it runs
before anything else is done to the browser. Platform and runner are injectable for tests.

``pid_alive`` never signals on Windows: ``os.kill(pid, 0)`` there is ``TerminateProcess``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["end_tree_command", "kill_tree_windows", "pid_alive"]


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
