"""Start a headless Chromium with a debugging port on 127.0.0.1, and stop exactly what we started.

For tests, scripts and benchmarks that want a throwaway browser without Playwright: the
``chromium`` pytest fixture, ``mcp-browser chromium`` and the test suite all start it here.

    with ChromiumProcess.start() as chrome:       # a fresh temporary profile, removed on stop
        print(chrome.cdp_url)                       # http://127.0.0.1:PORT

``--remote-debugging-port=0`` (the default) lets Chrome pick a free port, which it writes to
``DevToolsActivePort`` in the profile directory; a fixed port (``port=9222``) gets no such
file, so the browser counts as ready at whichever comes first: Chrome's stderr line
``DevTools listening on ws://...``, the file, or an answer on ``/json/version``. In async
code use ``await ChromiumProcess.astart()``, which waits without blocking the event loop.
Every started browser has a watchdog (cdp_core/lifetime.py) that kills it and removes its
profile if the starting process dies, even by ``SIGKILL``; each start first sweeps profiles
orphaned that way by earlier runs. The executable is ``$CHROME_PATH``, else where installers put
Chrome, Chromium or Edge (``/usr/bin/chromium``, ``%PROGRAMFILES%\\Google\\...``, ``/Applications/...``),
else the first ``google-chrome``/``chromium`` on ``PATH``. ``--no-sandbox`` is added only when
running as root, where Chrome refuses to start with its sandbox.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NoReturn

from .browser_paths import clean_executable_path, install_hint, locate_browser
from .cleanup import kill_tree_windows, remove_tree, running_as_root
from .discovery import read_devtools_active_port
from .errors import CDPException, DiscoveryError
from .lifetime import Watchdog, new_profile_dir, sweep_profiles
from .readiness import StderrTail, port_is_free

__all__ = [
    "BrowserNotFound",
    "ChromiumProcess",
    "HEADLESS_FLAGS",
    "INSTALL_HINT",
    "LaunchError",
    "find_chrome",
]

#: Flags for a quiet headless browser on a machine without network or display: no first-run
#: UI, no background traffic to Google's hosts, no component updates, a basic password store.
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

#: How to get a browser on this system (apt-get on Linux, the installer or Edge on Windows...).
INSTALL_HINT = install_hint()


class LaunchError(CDPException, RuntimeError):
    """Chromium could not be started (bad executable, port in use, exited before listening)."""


class BrowserNotFound(LaunchError):
    """No Chromium or Chrome executable was found."""


def find_chrome() -> str:
    """The executable to launch, or :class:`BrowserNotFound` naming how to install one.

    ``$CHROME_PATH`` (surrounding quotes allowed), else where installers put Chrome, Chromium
    or Edge on this system (:mod:`cdp_core.browser_paths`), else the usual names on ``PATH``.
    """
    env = clean_executable_path(os.environ.get("CHROME_PATH", ""))
    if env:
        if Path(env).is_file() and os.access(env, os.X_OK):
            return env
        raise BrowserNotFound(f"CHROME_PATH={env!r} is not an executable file. {INSTALL_HINT}")
    path, looked = locate_browser()
    if path is not None:
        return path
    raise BrowserNotFound(f"No Chromium or Chrome found (looked at $CHROME_PATH, {', '.join(looked)}). {INSTALL_HINT}")


class ChromiumProcess:
    """A Chromium child process listening on 127.0.0.1, with its own temporary profile.

    Start with :meth:`start`; :meth:`stop` (or leaving the ``with`` block) terminates it and
    removes the profile it created. The attributes test authors use: :attr:`cdp_url`
    (``http://127.0.0.1:PORT``, what ``cdp_core.connect`` and the MCP server's ``attach_cdp``
    take), :attr:`port`, :attr:`ws_url` (the browser websocket) and :attr:`pid`.
    """

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        profile_dir: Path,
        port: int,
        ws_path: str,
        owns_profile: bool,
        executable: str = "",
    ) -> None:
        self.proc = proc
        self.profile_dir = profile_dir
        self.port = port
        self.ws_path = ws_path
        self.executable = executable
        self._owns_profile = owns_profile
        self._requested_port: int | None = port  # None: the toggle, no flag
        self._watchdog: Watchdog | None = None
        self._stderr: StderrTail | None = None

    @property
    def cdp_url(self) -> str:
        """``http://127.0.0.1:PORT``: the debugging endpoint (``/json/version``, ``/json/list``)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def http_url(self) -> str:
        """The same as :attr:`cdp_url` (the name the project's own tests grew up with)."""
        return self.cdp_url

    @property
    def ws_url(self) -> str:
        """The browser-level websocket, ``ws://127.0.0.1:PORT/devtools/browser/<id>``."""
        return f"ws://127.0.0.1:{self.port}{self.ws_path}"

    @property
    def pid(self) -> int:
        """The browser process id (its renderers and helpers are in its process group)."""
        return self.proc.pid

    @classmethod
    def start(
        cls,
        *,
        executable: str | None = None,
        port: int | None = 0,
        profile_dir: str | Path | None = None,
        headless: bool = True,
        extra_args: Sequence[str] = (),
        urls: Sequence[str] = (),
        timeout: float = 20.0,
        env: Mapping[str, str] | None = None,
    ) -> ChromiumProcess:
        """Start Chromium and return once its debugging port answers.

        ``port=0`` lets Chrome pick a free port; a fixed port that is already taken raises
        :class:`LaunchError` at once instead of a browser without a debugging port.
        ``port=None`` passes no debugging flag at all: the profile's own remote-debugging toggle
        (``Local State``, see docs) opens the port, as in a person's Chrome; every websocket to
        it then shows Chrome's "Allow remote debugging?" dialog.
        ``profile_dir=None`` creates a temporary profile that :meth:`stop` removes; a
        directory you pass is kept. ``env`` replaces the child's environment (a ``DISPLAY``
        for a headful browser, a ``HOME`` whose profile has the remote-debugging toggle on).
        Blocks the calling thread while Chrome starts: in ``async def`` code use :meth:`astart`.
        Raises :class:`BrowserNotFound` or :class:`LaunchError`.
        """
        if profile_dir is None:
            sweep_profiles()
        chrome = cls._spawn(executable, port, profile_dir, headless, extra_args, urls, env)
        deadline = time.monotonic() + timeout
        stderr = chrome._stderr
        assert stderr is not None
        while True:
            problem = chrome._not_ready()
            if problem is None and time.monotonic() > deadline:
                problem = f"Chromium did not open a debugging port within {timeout:g} s"
            if problem:
                chrome._fail(problem)
            if problem == "":
                return chrome
            stderr.seen.wait(0.05)

    @classmethod
    async def astart(
        cls,
        *,
        executable: str | None = None,
        port: int | None = 0,
        profile_dir: str | Path | None = None,
        headless: bool = True,
        extra_args: Sequence[str] = (),
        urls: Sequence[str] = (),
        timeout: float = 20.0,
        env: Mapping[str, str] | None = None,
    ) -> ChromiumProcess:
        """:meth:`start` for ``async def`` code: the event loop keeps running while Chrome starts.

        Same arguments and errors. Use it as ``chrome = await ChromiumProcess.astart()``
        and call :meth:`stop` (or use ``with chrome:``) when done.
        """
        loop = asyncio.get_running_loop()
        wake = asyncio.Event()

        def wake_up() -> None:  # called from the stderr reader thread
            loop.call_soon_threadsafe(wake.set)

        if profile_dir is None:
            await asyncio.to_thread(sweep_profiles)  # reads the temp dir, may remove profiles: not on the loop
        chrome = cls._spawn(executable, port, profile_dir, headless, extra_args, urls, env, on_listening=wake_up)
        stderr = chrome._stderr
        assert stderr is not None
        deadline = loop.time() + timeout
        try:
            while True:
                problem = chrome._not_ready()
                if problem is None and loop.time() > deadline:
                    problem = f"Chromium did not open a debugging port within {timeout:g} s"
                if problem:
                    await asyncio.to_thread(chrome._fail, problem)  # stopping waits for the process
                if problem == "":
                    return chrome
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.05):
                        await wake.wait()
        except BaseException:
            await asyncio.to_thread(chrome.stop)  # cancelled or failed: never leave the browser behind
            raise
        finally:
            stderr.forget_listener()  # the loop may be closed by the time Chrome exits

    @classmethod
    def _spawn(
        cls,
        executable: str | None,
        port: int | None,
        profile_dir: str | Path | None,
        headless: bool,
        extra_args: Sequence[str],
        urls: Sequence[str],
        env: Mapping[str, str] | None,
        on_listening: Callable[[], None] | None = None,
    ) -> ChromiumProcess:
        """Run the executable with its watchdog; the port is not known yet (see :meth:`_not_ready`)."""
        exe = executable or find_chrome()
        if port and not port_is_free(port):
            raise LaunchError(
                f"port {port} on 127.0.0.1 is already in use (another Chrome with a debugging port?); "
                "choose another port, or 0 for a free one"
            )
        owns = profile_dir is None
        profile = Path(profile_dir) if profile_dir is not None else new_profile_dir()
        (profile / "DevToolsActivePort").unlink(missing_ok=True)
        flags = HEADLESS_FLAGS if headless else tuple(f for f in HEADLESS_FLAGS if f != "--headless")
        args = [exe, *flags]
        if running_as_root():
            args.append("--no-sandbox")
        if port is not None:
            args += [f"--remote-debugging-port={port}", "--remote-debugging-address=127.0.0.1"]
        args += [
            f"--user-data-dir={profile}",
            *extra_args,
            *(urls or ["about:blank"]),
        ]
        try:
            proc = subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=None if env is None else dict(env),
            )
        except OSError as exc:
            if owns:
                remove_tree(profile)
            raise LaunchError(f"cannot run {exe}: {exc}") from exc
        assert proc.stderr is not None
        chrome = cls(proc, profile, 0, "", owns, exe)
        chrome._requested_port = port
        chrome._watchdog = Watchdog(proc.pid, profile if owns else None)
        chrome._stderr = StderrTail(proc.stderr, on_listening=on_listening)
        return chrome

    def _not_ready(self) -> str | None:
        """'' once the port is known (Chrome's stderr line, or ``DevToolsActivePort`` for port 0; for the
        toggle, ``port=None``, only the file),
        None while waiting, else why the start failed (the caller then calls :meth:`_fail`).

        A fixed port is ready only on Chrome's own ``DevTools listening on`` line (Puppeteer and
        Playwright wait for it too): an answer on ``/json/version`` there may come from another
        browser that took the port between our free-port check and Chrome's listen.
        """
        stderr = self._stderr
        assert stderr is not None
        taken = stderr.port_taken or (
            stderr.listening is not None and bool(self._requested_port) and stderr.listening_host != "127.0.0.1"
        )
        if taken:  # Chrome fell back to [::1]: 127.0.0.1's port is another process's
            return f"port {self._requested_port} on 127.0.0.1 was taken by another process while Chromium started"
        # The toggle (no flag): ready once DevToolsActivePort is written, which is how everything
        # finds such a Chrome; Chrome prints its listening line a moment before it writes the file.
        if stderr.listening is not None and self._requested_port is not None:
            self.port, self.ws_path = stderr.listening
            return ""
        if not self._requested_port:
            try:
                self.port, self.ws_path = read_devtools_active_port(self.profile_dir)
                return ""
            except DiscoveryError:
                pass
        if self.proc.poll() is not None:
            return f"Chromium exited with code {self.proc.returncode} before listening"
        return None

    def _fail(self, problem: str) -> NoReturn:
        stderr = self._stderr
        self.stop()
        said = stderr.text() if stderr is not None else ""
        raise LaunchError(f"{problem}: {said or '(no output on stderr)'}") from None

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def _signal_group(self, signum: int) -> None:
        if sys.platform == "win32" and kill_tree_windows(self.proc.pid):
            return  # no process groups there: taskkill /T ends the renderers and the GPU process too
        killpg = getattr(os, "killpg", None)
        try:
            if killpg is not None:
                killpg(self.proc.pid, signum)
            elif signum == signal.SIGTERM:
                self.proc.terminate()
            else:
                self.proc.kill()
        except ProcessLookupError:
            pass

    def kill(self) -> None:
        """Kill the browser's whole process group at once (a crash, for fault tests)."""
        if self.alive:
            self._signal_group(getattr(signal, "SIGKILL", signal.SIGTERM))
            self.proc.wait(5)

    def stop(self) -> None:
        """Terminate the browser (its whole process group) and remove the profile we created."""
        try:
            if self.alive:
                self._signal_group(signal.SIGTERM)
                try:
                    self.proc.wait(5)
                except subprocess.TimeoutExpired:
                    self.kill()  # may time out too (a process stuck in the kernel): still clean up below
        finally:
            if self._owns_profile:
                remove_tree(self.profile_dir)  # retries: Windows keeps files locked briefly after exit
            if self._watchdog is not None:
                # A browser that outlived SIGKILL is left to the watchdog, which keeps trying.
                self._watchdog.release(browser_gone=not self.alive)
                self._watchdog = None

    def __enter__(self) -> ChromiumProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.alive else f"exited {self.proc.returncode}"
        return f"<ChromiumProcess pid={self.pid} {self.cdp_url} {state}>"
