"""Golden answers of the console feature."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden import Golden

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def test_console(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/console.html"))
    await g.until("console_list", lambda sc: sc.get("total") == 3)
    await g.check("console_list")
    errors = await g.check("console_list", scenario="errors", types=["error"])
    await g.check("console_get", id=errors["entries"][0][0])
    await g.check("get_console_logs")
    await g.check("console_clear")
    await g.check("console_list", scenario="cleared")
