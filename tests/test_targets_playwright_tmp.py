"""Playwright's connection to the user's Chrome leaves nothing behind in the temp dir.

``connect_over_cdp`` makes a ``playwright-artifacts-*`` folder that only ``Browser.close``
removes, and we never send that to the user's Chrome; the driver therefore runs with a temp
dir of ours, removed on detach.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import cdp_core
from targets import BrowserManager, TargetSettings


async def test_detach_removes_the_playwright_driver_temp_dir(fresh_chromium, http_server):
    await cdp_core.new_tab(fresh_chromium.http_url, http_server.url("/a.html"))
    system_tmp = tempfile.gettempdir()
    manager = BrowserManager(TargetSettings())
    try:
        await manager.attach_cdp(fresh_chromium.http_url)
        page = await manager.current_page(launch_if_needed=False)
        await page.playwright_page()
        driver_tmp = Path(manager.cdp._pw_tmp)
        assert any(p.name.startswith("playwright-artifacts-") for p in driver_tmp.iterdir())  # noqa: ASYNC240
        assert os.environ.get("TMPDIR") != str(driver_tmp)  # our own process kept its temp dir
        assert tempfile.gettempdir() == system_tmp
        await manager.detach_cdp()
        assert not driver_tmp.exists()  # noqa: ASYNC240
        assert fresh_chromium.alive and await cdp_core.list_targets(fresh_chromium.http_url)
    finally:
        await manager.close()
