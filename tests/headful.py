"""A real screen for tests that must run headful: Xvfb, and xdotool to play the person.

Headless Chromium hides bugs a person's Chrome shows (input lost in a tab that loaded hidden,
the "Allow remote debugging?" dialog of Chrome's own toggle), so those tests start Chromium
with a window on a virtual X display. ``.ci/run`` installs ``xvfb`` and ``xdotool`` (Debian);
a machine without them fails these tests with the install line instead of skipping them, since
a skipped headful test is a bug nobody sees.

    with VirtualDisplay.start() as display:
        chrome = ChromiumProcess.start(headless=False, env=display.env())
        display.xdotool("mousemove", "700", "315", "click", "1")
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

INSTALL_LINE = "apt-get install -y xvfb xdotool x11-apps imagemagick"


class VirtualDisplay:
    """One Xvfb server on a display number it chose itself (``-displayfd``), so parallel runs never clash."""

    def __init__(self, proc: subprocess.Popen[bytes], number: int, width: int, height: int) -> None:
        self.proc = proc
        self.number = number
        self.width = width
        self.height = height

    @property
    def name(self) -> str:
        """``:N``, the value of ``DISPLAY``."""
        return f":{self.number}"

    @classmethod
    def start(cls, width: int = 1280, height: int = 800, timeout: float = 10.0) -> VirtualDisplay:
        exe = shutil.which("Xvfb")
        if exe is None:
            raise RuntimeError(f"headful tests need Xvfb: {INSTALL_LINE}")
        read_fd, write_fd = os.pipe()
        proc = subprocess.Popen(
            [exe, "-displayfd", str(write_fd), "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp"],
            pass_fds=(write_fd,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        os.close(write_fd)
        deadline = time.monotonic() + timeout
        chunks = b""
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            while not chunks.endswith(b"\n") and time.monotonic() < deadline:
                byte = pipe.read(1)
                if not byte:
                    break
                chunks += byte
        if not chunks.strip().isdigit():
            proc.kill()
            raise RuntimeError(f"Xvfb did not report its display number (got {chunks!r})")
        return cls(proc, int(chunks.strip()), width, height)

    def env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """An environment for a process that draws on this display."""
        env = dict(os.environ if base is None else base)
        env["DISPLAY"] = self.name
        return env

    def xdotool(self, *args: str, timeout: float = 10.0) -> str:
        """Run ``xdotool ARGS`` on this display and return what it printed (the person's hand)."""
        exe = shutil.which("xdotool")
        if exe is None:
            raise RuntimeError(f"headful tests need xdotool: {INSTALL_LINE}")
        done = subprocess.run([exe, *args], env=self.env(), capture_output=True, timeout=timeout, check=False)
        return done.stdout.decode(errors="replace")

    def grab(self, attempts: int = 3) -> bytes:
        """The whole screen as ``xwd`` dumps it, tried again when a grab fails.

        Why again: ``xwd -root`` now and then exits 1 while a window maps or a dialog animates on a
        loaded machine (seen once in CI, polling for Chrome's Allow dialog); the next grab works.
        """
        for attempt in range(attempts):
            done = subprocess.run(["xwd", "-root", "-silent"], env=self.env(), capture_output=True, timeout=10)
            if done.returncode == 0 and done.stdout:
                return done.stdout
            if attempt == attempts - 1:
                err = done.stderr.decode(errors="replace").strip()
                raise RuntimeError(f"xwd -root failed {attempts} times (exit {done.returncode}): {err}")
            time.sleep(0.2)
        raise AssertionError("unreachable")

    def screenshot(self, path: Path) -> Path:
        """The whole screen as a PNG (for a test's evidence, or to read a pixel)."""
        subprocess.run(["convert", "xwd:-", str(path)], input=self.grab(), check=True, timeout=20)
        return path

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def __enter__(self) -> VirtualDisplay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
