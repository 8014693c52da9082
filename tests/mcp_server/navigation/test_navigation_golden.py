"""Golden answers of the navigation feature: navigate, history, reload, wait_for."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden import Golden

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def test_navigation(g: Golden, http_server) -> None:
    await g.check("navigate", url=http_server.url("/golden/home.html"))
    await g.check("navigate", scenario="404", url=http_server.url("/golden/missing.html"))
    await g.call("navigate", url=http_server.url("/golden/two.html"))
    await g.check("go_back")
    await g.check("go_forward")
    await g.check("reload")


async def test_wait_for(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/two.html"))
    await g.check("wait_for", text="Second page")
    await g.check("wait_for", scenario="predicate", predicate="document.title === 'Golden two'")
    await g.check("wait_for", scenario="timeout", error=True, text="never on this page", timeout_ms=300)
