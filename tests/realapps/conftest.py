"""Fixtures of the real-app scenarios: the person's Chrome, headful on the session's Xvfb screen."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from headful import VirtualDisplay

from cdp_core import ChromiumProcess


@pytest.fixture
def persons_chrome(virtual_display: VirtualDisplay) -> Iterator[ChromiumProcess]:
    """A Chromium with a window and a fresh profile, as the person's Chrome runs."""
    chrome = ChromiumProcess.start(headless=False, env=virtual_display.env())
    yield chrome
    chrome.stop()
