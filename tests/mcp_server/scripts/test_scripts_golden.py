"""Golden answers of the scripts feature: get_dom, evaluate_js."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden import Golden

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def test_scripts(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/home.html"))
    await g.check("get_dom", selector="body")
    await g.check("evaluate_js", expression="document.title")
    await g.check(
        "evaluate_js",
        scenario="object",
        expression="({links: document.links.length, h1: document.querySelector('h1').textContent})",
    )
    await g.check("evaluate_js", scenario="throws", error=True, expression="missingFunction()")
