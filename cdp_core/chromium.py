"""Start a headless Chromium with a debugging port on 127.0.0.1, and stop exactly what we started.

For tests, scripts and benchmarks that want a throwaway browser without Playwright: the
``chromium`` pytest fixture, ``mcp-browser chromium`` and the test suite all start it here.

    with ChromiumProcess.start() as chrome:       # a fresh temporary profile, removed on stop
        print(chrome.cdp_url)                       # http://127.0.0.1:PORT

``--remote-debugging-port=0`` (the default) lets Chrome pick a free port, which it writes to
``DevToolsActivePort`` in the profile directory; reading that file is the only race-free
way to learn the port. The executable is ``$CHROME_PATH``, else ``/usr/bin/chromium``, else
the first ``google-chrome``/``chromium`` on ``PATH``. ``--no-sandbox`` is added only when
running as root, where Chrome refuses to start with its sandbox.
"""

from __future__ import annotations

import collections
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from .discovery import read_devtools_active_port
from .errors import CDPException, DiscoveryError

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

INSTALL_HINT = (
    "Install one with `apt-get install -y chromium` (Debian/Ubuntu), or point "
    "CHROME_PATH at a Chrome/Chromium executable."
)

_CANDIDATES = ("/usr/bin/chromium", "google-chrome", "google-chrome-stable", "chromium-browser", "chromium")


class LaunchError(CDPException, RuntimeError):
    """Chromium could not be started (bad executable, port in use, exited before listening)."""


class BrowserNotFound(LaunchError):
    """No Chromium or Chrome executable was found."""


def find_chrome() -> str:
    """The executable to launch, or :class:`BrowserNotFound` naming how to install one."""
    env = os.environ.get("CHROME_PATH")
    if env:
        if Path(env).is_file() and os.access(env, os.X_OK):
            return env
        raise BrowserNotFound(f"CHROME_PATH={env!r} is not an executable file. {INSTALL_HINT}")
    for candidate in _CANDIDATES:
        path = candidate if os.path.isabs(candidate) else shutil.which(candidate)
        if path and Path(path).is_file() and os.access(path, os.X_OK):
            return path
    looked = ", ".join(_CANDIDATES)
    raise BrowserNotFound(f"No Chromium or Chrome found (looked at $CHROME_PATH, {looked}). {INSTALL_HINT}")


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class _StderrTail:
    """Keeps the last few KB Chrome wrote to stderr, to explain a failed start; drops the rest."""

    def __init__(self, stream: IO[bytes], limit: int = 4096) -> None:
        self._chunks: collections.deque[bytes] = collections.deque()
        self._size = 0
        self._limit = limit
        self._thread = threading.Thread(target=self._drain, args=(stream,), name="chromium-stderr", daemon=True)
        self._thread.start()

    def _drain(self, stream: IO[bytes]) -> None:
        with stream:
            for line in iter(stream.readline, b""):
                self._chunks.append(line)
                self._size += len(line)
                while self._size > self._limit and len(self._chunks) > 1:
                    self._size -= len(self._chunks.popleft())

    def text(self, wait: float = 0.5) -> str:
        self._thread.join(wait)
        return b"".join(self._chunks).decode(errors="replace").strip()[-self._limit :]


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
        Raises :class:`BrowserNotFound` or :class:`LaunchError`.
        """
        exe = executable or find_chrome()
        if port and not _port_is_free(port):
            raise LaunchError(
                f"port {port} on 127.0.0.1 is already in use (another Chrome with a debugging port?); "
                "choose another port, or 0 for a free one"
            )
        owns = profile_dir is None
        profile = Path(profile_dir) if profile_dir is not None else Path(tempfile.mkdtemp(prefix="cdp-chromium-"))
        (profile / "DevToolsActivePort").unlink(missing_ok=True)
        flags = HEADLESS_FLAGS if headless else tuple(f for f in HEADLESS_FLAGS if f != "--headless")
        args = [exe, *flags]
        if _is_root():
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
                shutil.rmtree(profile, ignore_errors=True)
            raise LaunchError(f"cannot run {exe}: {exc}") from exc
        assert proc.stderr is not None
        stderr = _StderrTail(proc.stderr)
        chrome = cls(proc, profile, 0, "", owns, exe)
        deadline = time.monotonic() + timeout
        while True:
            try:
                chrome.port, chrome.ws_path = read_devtools_active_port(profile)
                return chrome
            except DiscoveryError:
                if proc.poll() is not None:
                    problem = f"Chromium exited with code {proc.returncode} before listening"
                elif time.monotonic() > deadline:
                    problem = f"Chromium did not open a debugging port within {timeout:g} s"
                else:
                    time.sleep(0.05)
                    continue
                chrome.stop()
                raise LaunchError(f"{problem}: {stderr.text() or '(no output on stderr)'}") from None

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def _signal_group(self, signum: int) -> None:
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
        if self.alive:
            self._signal_group(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.kill()
        if self._owns_profile:
            shutil.rmtree(self.profile_dir, ignore_errors=True)

    def __enter__(self) -> ChromiumProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.alive else f"exited {self.proc.returncode}"
        return f"<ChromiumProcess pid={self.pid} {self.cdp_url} {state}>"
