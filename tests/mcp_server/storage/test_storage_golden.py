"""Golden answers of the storage feature: cookies, storage, export/load state."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden import Golden

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def test_storage(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/storage.html"))
    await g.check("cookies")
    await g.check("storage")
    exported = await g.check("export_state")
    await g.check("load_state", path=Path(exported["path"]).name)
