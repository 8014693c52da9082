"""Where the Chromium/Chrome executable is: ``$CHROME_PATH``, ``/usr/bin/chromium``, ``google-chrome``.

One lookup shared by the README's commands, the internal launch target, the test harness and
the benchmarks, so all of them use the same browser and fail the same way. It lives in
:mod:`cdp_core.chromium` (which starts the test authors' browser); this module names it for
the targets package.
"""

from cdp_core.chromium import INSTALL_HINT, BrowserNotFound, find_chrome

__all__ = ["BrowserNotFound", "find_chrome", "INSTALL_HINT"]
