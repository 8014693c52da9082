"""Golden answers of the session feature: capabilities, status, attach/detach, the internal browser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from golden import Golden

from cdp_core.chromium import ChromiumProcess

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def users_chromium() -> Iterator[ChromiumProcess]:
    """The "user's Chrome" of this module: headless, its debugging port on 127.0.0.1."""
    chrome = ChromiumProcess.start()
    yield chrome
    chrome.stop()


@pytest.fixture(scope="module")
async def g(app_client_module, http_server, users_chromium) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server, cdp_port=str(users_chromium.port))


async def test_internal_browser(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/home.html"))
    await g.check("get_capabilities")
    await g.check("get_browser_status")


async def test_users_chrome(g: Golden, users_chromium: ChromiumProcess) -> None:
    await g.check("attach_cdp", cdp_url=users_chromium.http_url)
    await g.check("get_browser_status", scenario="attached")
    await g.check("detach_cdp")
    await g.check("use_launch_browser")
    await g.check("close_browser_target", target="launch")
