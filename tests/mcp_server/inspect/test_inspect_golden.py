"""Golden answers of the inspect feature: css_styles, highlight, pick_element."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden import Golden

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def test_inspect(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/form.html"))
    await g.check("css_styles", selector="#save")
    await g.check("highlight", selector="#save", seconds=0.2)
    # nobody clicks in a headless browser: the pick times out
    await g.check("pick_element", error=True, timeout_ms=1000)
