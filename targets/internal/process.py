"""Moved to :mod:`cdp_core.chromium` (public, used by the pytest plugin); kept as an alias for old imports."""

from cdp_core.chromium import HEADLESS_FLAGS, ChromiumProcess

__all__ = ["ChromiumProcess", "HEADLESS_FLAGS"]
