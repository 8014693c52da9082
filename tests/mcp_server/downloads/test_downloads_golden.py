"""Golden answers of the downloads feature."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden import Golden

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def test_downloads(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/download.html"))
    await g.check("read_downloaded_file", scenario="none")
    await g.call("click", tool="browser_interact", selector="#dl")
    # listed once whole (a download in progress could be listed short)
    await g.until("read_downloaded_file", lambda sc: ["report.csv", 25] in (sc.get("files") or []))
    await g.check("read_downloaded_file")
    await g.check("read_downloaded_file", scenario="read", path="downloads/report.csv")
