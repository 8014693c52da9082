"""Clean-up that Windows makes harder: the whole Chrome tree ended, profiles removed with retries,
stale internal-browser profiles swept (only those whose server is gone).

The Windows calls (taskkill, a locked file) are replaced by recording fakes: what is checked
is the logic around them. The sweep runs on real folders and real processes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cdp_core import cleanup
from cdp_core.cleanup import end_tree_command, kill_tree_windows, pid_alive, remove_tree
from cdp_core.lifetime import new_profile_dir, sweep_profiles
from targets.internal.launch import PROFILE_PREFIX as PREFIX


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_taskkill_ends_the_tree_by_force():
    calls: list[list[str]] = []

    class Done:
        returncode = 0

    def run(cmd: list[str], **kwargs: object) -> Done:
        calls.append(cmd)
        return Done()

    assert kill_tree_windows(4242, run=run)
    assert calls == [["taskkill", "/PID", "4242", "/T", "/F"]] == [end_tree_command(4242)]


def test_taskkill_missing_says_so():
    def run(cmd: list[str], **kwargs: object) -> None:
        raise FileNotFoundError("taskkill")

    assert not kill_tree_windows(1, run=run)  # the caller then ends the browser process itself


def test_pid_alive():
    assert pid_alive(os.getpid())
    assert not pid_alive(_dead_pid())
    assert not pid_alive(0)
    if sys.platform != "win32":
        # Off Windows the Windows branch cannot ask the kernel: it answers "alive", so nothing is swept.
        assert pid_alive(_dead_pid(), platform="win32")


def test_profile_name_carries_the_server_pid(tmp_path: Path):
    profile = new_profile_dir(PREFIX, tmp_path)
    assert profile.name.startswith(f"{PREFIX}{os.getpid()}-") and profile.is_dir()


def test_removal_retries_while_files_are_locked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    profile = tmp_path / "profile"
    (profile / "Default").mkdir(parents=True)
    (profile / "Default" / "Cookies").write_text("session=1")
    real_rmtree, failures = cleanup.shutil.rmtree, [2]

    def locked_twice(path: object, **kwargs: object) -> None:
        if failures[0]:
            failures[0] -= 1  # Windows: a helper process still holds Cookies open
            return
        real_rmtree(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cleanup.shutil, "rmtree", locked_twice)
    waits: list[float] = []
    assert remove_tree(profile, sleep=waits.append)
    assert not profile.exists() and len(waits) == 2


def test_removal_gives_up_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    profile = tmp_path / "profile"
    profile.mkdir()
    monkeypatch.setattr(cleanup.shutil, "rmtree", lambda path, **kw: None)
    assert not remove_tree(profile, attempts=3, sleep=lambda s: None)


def test_sweep_removes_only_profiles_whose_server_is_gone(tmp_path: Path):
    dead = _dead_pid()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        stale = tmp_path / f"{PREFIX}{dead}-abc"
        running = tmp_path / f"{PREFIX}{sleeper.pid}-abc"  # another server, still running
        own = tmp_path / f"{PREFIX}{os.getpid()}-abc"
        old_style = tmp_path / f"{PREFIX}x1y2z3"  # a version without the pid, just made: unknown owner
        other = tmp_path / "something-else"
        for folder in (stale, running, own, old_style, other):
            (folder / "Default").mkdir(parents=True)
            (folder / "Default" / "Cookies").write_text("token")
        outside = tmp_path / "outside"
        outside.mkdir()
        (outside / "keep").write_text("x")
        if sys.platform != "win32":  # symlinks need a privilege there
            (tmp_path / f"{PREFIX}{dead}-link").symlink_to(outside, target_is_directory=True)

        removed = sweep_profiles(PREFIX, tmp_path)

        assert removed == [stale] and not stale.exists()
        assert running.exists() and own.exists() and old_style.exists() and other.exists()
        assert (outside / "keep").exists()  # a link is never followed
    finally:
        sleeper.kill()
        sleeper.wait()


def test_sweep_of_a_missing_folder_is_quiet(tmp_path: Path):
    assert sweep_profiles(PREFIX, tmp_path / "nope") == []


def test_chromium_process_on_windows_ends_the_tree_with_taskkill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from cdp_core import chromium

    class Proc:
        pid, returncode = 4321, None

        def poll(self) -> int | None:
            return self.returncode

        def wait(self, timeout: float | None = None) -> int:
            self.returncode = 1
            return 1

        def terminate(self) -> None:
            raise AssertionError("terminate() ends chrome.exe alone on Windows")

    ended: list[int] = []
    monkeypatch.setattr(chromium.sys, "platform", "win32")
    monkeypatch.setattr(chromium, "kill_tree_windows", lambda pid: ended.append(pid) or True)
    profile = tmp_path / "cdp-chromium-x"
    (profile / "Default").mkdir(parents=True)
    browser = chromium.ChromiumProcess(Proc(), profile, 9222, "/devtools/browser/x", owns_profile=True)  # type: ignore[arg-type]
    browser.stop()
    assert ended == [4321] and not profile.exists()


def test_sweep_keeps_an_internal_browser_profile_a_browser_still_runs_on(tmp_path: Path):
    """One sweep for both kinds of profile: the internal browser's keep Chrome's SingletonLock check too."""
    import socket

    dead = _dead_pid()
    in_use = tmp_path / f"{PREFIX}{dead}-abc"  # its server is gone, its browser is not
    (in_use / "Default").mkdir(parents=True)
    os.symlink(f"{socket.gethostname()}-{os.getpid()}", in_use / "SingletonLock")
    asked: list[int] = []

    def alive(pid: int) -> bool:
        asked.append(pid)
        return pid_alive(pid)

    assert sweep_profiles(PREFIX, tmp_path, alive=alive) == [] and in_use.exists()
    assert asked == [dead, os.getpid()]  # the injected check (pid_alive, Windows-safe) answers both


def test_stop_removes_the_profile_even_when_the_browser_outlives_its_kill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A browser that survives SIGTERM and SIGKILL (stuck in the kernel): its profile goes, the watchdog takes over."""
    from cdp_core import chromium

    class Stuck:
        pid, returncode = 4321, None

        def poll(self) -> int | None:
            return None

        def wait(self, timeout: float | None = None) -> int:
            raise subprocess.TimeoutExpired("chromium", timeout or 0)

    class Watchdog:
        released: list[bool] = []

        def release(self, *, browser_gone: bool = True) -> None:
            self.released.append(browser_gone)

    signals: list[int] = []
    monkeypatch.setattr(chromium.os, "killpg", lambda pid, sig: signals.append(sig), raising=False)
    monkeypatch.setattr(chromium.sys, "platform", "linux")
    profile = tmp_path / "cdp-chromium-x"
    (profile / "Default").mkdir(parents=True)
    (profile / "Default" / "Cookies").write_text("session=1")
    browser = chromium.ChromiumProcess(Stuck(), profile, 9222, "/devtools/browser/x", owns_profile=True)  # type: ignore[arg-type]
    dog = Watchdog()
    browser._watchdog = dog  # type: ignore[assignment]
    with pytest.raises(subprocess.TimeoutExpired):
        browser.stop()
    assert len(signals) == 2  # SIGTERM, then SIGKILL
    assert not profile.exists()
    assert dog.released == [False]  # not released: the watchdog still kills the group
