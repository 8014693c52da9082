"""A person's Chrome with the remote-debugging toggle on, headful under Xvfb, and the person's hand on its dialog.

The toggle (chrome://inspect/#remote-debugging) is stored in the profile's ``Local State`` as
``{"devtools": {"remote_debugging": {"user-enabled": true}}}``; a temporary HOME whose
``~/.config/chromium/Local State`` holds it starts Chromium with remote debugging on and no
flag. Every websocket then shows "Allow remote debugging?" inside the window (Cancel focused,
Allow to its right); while it shows, the page behind it is dimmed (white reads #666666), which
is how :meth:`ToggleChrome.wait_for_dialog` sees it before the hand presses a key.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from headful import VirtualDisplay

from cdp_core import ChromiumProcess
from targets.users_chrome.profile_dirs import ProfileDir, standard_profile_dirs

#: A point of the page area (the window fills most of the 1280x800 screen): white page, #666666 dimmed.
PROBE = (640, 600)
DIMMED = (102, 102, 102)


def pixel(display: VirtualDisplay, x: int, y: int) -> tuple[int, int, int]:
    """The colour of one screen pixel (``xwd`` + ImageMagick, as a screenshot tool sees the screen)."""
    out = subprocess.run(
        ["convert", "xwd:-", "-crop", f"1x1+{x}+{y}", "-depth", "8", "txt:-"],
        input=display.grab(),
        capture_output=True,
        check=True,
        timeout=20,
    ).stdout.decode()
    values = out.strip().splitlines()[-1].split("(", 1)[1].split(")", 1)[0].split(",")
    r, g, b = (int(float(v)) for v in values[:3])
    return r, g, b


class ToggleChrome:
    """Chromium started as a person starts theirs: their HOME, the toggle on, no debugging flag."""

    def __init__(self, display: VirtualDisplay, home: Path, chrome: ChromiumProcess) -> None:
        self.display = display
        self.home = home
        self.chrome = chrome
        #: how many times the hand answered the dialog
        self.answered = 0

    @classmethod
    def start(cls, display: VirtualDisplay, urls: list[str]) -> ToggleChrome:
        home = Path(tempfile.mkdtemp(prefix="toggle-home-"))
        profile = home / ".config" / "chromium"
        profile.mkdir(parents=True)
        (profile / "Local State").write_text(json.dumps({"devtools": {"remote_debugging": {"user-enabled": True}}}))
        env = display.env()
        env["HOME"] = str(home)
        env.pop("XDG_CONFIG_HOME", None)
        try:
            chrome = ChromiumProcess.start(port=None, headless=False, profile_dir=profile, env=env, urls=urls)
        except BaseException:
            shutil.rmtree(home, ignore_errors=True)
            raise
        return cls(display, home, chrome)

    @property
    def profile_dir(self) -> Path:
        return self.chrome.profile_dir

    @property
    def inspect_address(self) -> str:
        """What chrome://inspect/#remote-debugging shows: ``http://127.0.0.1:PORT`` (its /json/* answer 404)."""
        return f"http://127.0.0.1:{self.chrome.port}"

    def profile_dirs(self) -> list[ProfileDir]:
        """The standard dirs of this system as seen with the person's HOME (discovery finds Chromium there)."""
        return standard_profile_dirs("linux", {"HOME": str(self.home)})

    def dialog_showing(self) -> bool:
        return pixel(self.display, *PROBE) == DIMMED

    def wait_for_dialog(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.dialog_showing():
            if time.monotonic() > deadline:
                raise AssertionError(f"Chrome showed no 'Allow remote debugging?' dialog within {timeout:g} s")
            time.sleep(0.2)

    def wait_dialog_gone(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while self.dialog_showing():
            if time.monotonic() > deadline:
                raise AssertionError("the dialog is still showing")
            time.sleep(0.2)

    def allow(self) -> None:
        """The person clicks Allow: Cancel has the focus, Allow is the next button (Tab, Return)."""
        self.wait_for_dialog()
        self.display.xdotool("key", "Tab")
        time.sleep(0.2)
        self.display.xdotool("key", "Return")
        self.answered += 1
        self.wait_dialog_gone()

    def cancel(self) -> None:
        """The person clicks Cancel (the focused button)."""
        self.wait_for_dialog()
        self.display.xdotool("key", "Return")
        self.answered += 1
        self.wait_dialog_gone()

    def stop(self) -> None:
        self.chrome.stop()
        shutil.rmtree(self.home, ignore_errors=True)

    def __enter__(self) -> ToggleChrome:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
