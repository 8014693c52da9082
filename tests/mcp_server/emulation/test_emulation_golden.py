"""Golden answers of the emulation feature."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden import Golden

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def test_emulate(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/home.html"))
    await g.check("emulate", color_scheme="dark", viewport="800x600")
    await g.check("emulate", scenario="network", network="slow_3g", cpu_throttling=4)
    await g.check("emulate", scenario="none", color_scheme="none", viewport="none", network="none", cpu_throttling=1)
