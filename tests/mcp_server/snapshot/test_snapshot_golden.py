"""Golden answers of the snapshot feature."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden import Golden

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def test_snapshot(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/form.html"))
    await g.check("snapshot")
    await g.check("snapshot", scenario="interactive", interactive_only=True)
    await g.check("snapshot", scenario="find", find="Town")
    await g.call("navigate", url=http_server.url("/golden/frames.html"))
    await g.call("wait_for", predicate="window.frames.length === 1 && frames[0].document.readyState === 'complete'")
    await g.check("snapshot", scenario="frames")


async def test_snapshot_of_messages_on_screen(g: Golden, http_server) -> None:
    """phpMyAdmin's failed Insert: the alert whole; find quotes it, indented by what holds it."""
    await g.call("navigate", url=http_server.url("/onscreen/insert.html"))
    await g.check("snapshot", scenario="messages")
    await g.check("snapshot", scenario="messages-find", find="1062")
