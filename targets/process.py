"""Start a headless Chromium with a debugging port and stop exactly what we started.

Used by the test harness, the benchmarks and anyone who wants a throwaway browser
without Playwright. ``--remote-debugging-port=0`` lets Chrome pick a free port, which it
writes to ``DevToolsActivePort`` in the fresh profile directory.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from cdp_core.discovery import read_devtools_active_port
from cdp_core.errors import DiscoveryError

from .chrome_path import find_chrome

__all__ = ["ChromiumProcess", "HEADLESS_FLAGS"]

#: Flags for a quiet headless browser on a machine without network or display.
HEADLESS_FLAGS = (
    "--headless",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-features=Translate,MediaRouter,OptimizationHints",
    "--password-store=basic",
    "--use-mock-keychain",
)


class ChromiumProcess:
    """A Chromium child process with its own temporary profile.

    >>> chrome = ChromiumProcess.start()
    >>> chrome.http_url          # 'http://127.0.0.1:PORT'
    >>> chrome.stop()
    """

    def __init__(self, proc: subprocess.Popen[bytes], profile_dir: Path, port: int, ws_path: str, owns_profile: bool):
        self.proc = proc
        self.profile_dir = profile_dir
        self.port = port
        self.ws_path = ws_path
        self._owns_profile = owns_profile

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}{self.ws_path}"

    @classmethod
    def start(
        cls,
        *,
        executable: str | None = None,
        port: int = 0,
        profile_dir: str | Path | None = None,
        extra_args: list[str] | tuple[str, ...] = (),
        urls: list[str] | tuple[str, ...] = (),
        timeout: float = 20.0,
    ) -> ChromiumProcess:
        exe = executable or find_chrome()
        owns = profile_dir is None
        profile = Path(profile_dir or tempfile.mkdtemp(prefix="cdp-chromium-"))
        (profile / "DevToolsActivePort").unlink(missing_ok=True)
        args = [exe, *HEADLESS_FLAGS]
        if os.geteuid() == 0:
            args.append("--no-sandbox")
        args += [
            f"--remote-debugging-port={port}",
            "--remote-debugging-address=127.0.0.1",
            f"--user-data-dir={profile}",
            *extra_args,
            *(urls or ["about:blank"]),
        ]
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + timeout
        while True:
            try:
                found_port, ws_path = read_devtools_active_port(profile)
                return cls(proc, profile, found_port, ws_path, owns)
            except DiscoveryError:
                if proc.poll() is not None:
                    raise RuntimeError(f"Chromium exited with code {proc.returncode} before listening") from None
                if time.monotonic() > deadline:
                    proc.kill()
                    raise RuntimeError(f"Chromium did not open a debugging port within {timeout} s") from None
                time.sleep(0.05)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """Kill the browser's whole process group at once (a crash, for fault tests)."""
        if self.alive:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(5)

    def stop(self) -> None:
        """Terminate the browser and remove the profile we created."""
        if self.alive:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(5)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                self.kill()
        if self._owns_profile:
            shutil.rmtree(self.profile_dir, ignore_errors=True)

    def __enter__(self) -> ChromiumProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
