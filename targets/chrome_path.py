"""Where the Chromium/Chrome executable is: ``$CHROME_PATH``, ``/usr/bin/chromium``, ``google-chrome``.

One lookup shared by the README's commands, the internal launch target, the test
harness and the benchmarks, so all of them use the same browser and fail the same way.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["BrowserNotFound", "find_chrome", "INSTALL_HINT"]

INSTALL_HINT = (
    "Install one with `apt-get install -y chromium` (Debian/Ubuntu), or point "
    "CHROME_PATH at a Chrome/Chromium executable."
)

_CANDIDATES = ("/usr/bin/chromium", "google-chrome", "google-chrome-stable", "chromium-browser", "chromium")


class BrowserNotFound(RuntimeError):
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
