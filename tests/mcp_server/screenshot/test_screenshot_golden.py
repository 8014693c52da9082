"""Golden answers of the screenshot feature."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden import Golden

GOLDEN = Path(__file__).parent / "golden"

#: a PNG's size depends on the fonts that drew it
BYTES = [(r"\(\d+ bytes", "(<N> bytes")]


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def test_screenshot(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/home.html"))
    await g.check("screenshot", subs=BYTES, keys={"bytes": "<BYTES>"})
    await g.check("screenshot", scenario="full_page", full_page=True, subs=BYTES, keys={"bytes": "<BYTES>"})
