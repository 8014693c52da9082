"""Golden answers of the debugger feature: sources, logpoints, snapshots, exceptions."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden import Golden

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def test_debugger(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/debug.html"))
    await g.check("source_list")
    await g.check("source_get", source="/golden/debug.js", line=3)
    await g.check("debug_logpoint", source="/golden/debug.js", line=4, expression="sum")
    await g.check("debug_snapshot", source="/golden/debug.js", line=5)
    await g.check("debug_exceptions", mode="uncaught")
    await g.call("click", tool="browser_interact", selector="#go")
    await g.until("console_list", lambda sc: sc.get("total", 0) >= 2, types=["logpoint", "snapshot"])
    await g.check("debug_list")
    await g.check("console_list", scenario="hits", types=["logpoint", "snapshot"])
    await g.check("debug_clear")
