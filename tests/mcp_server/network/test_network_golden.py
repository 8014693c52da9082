"""Golden answers of the network feature."""

from __future__ import annotations

from pathlib import Path

import pytest
from before_attach_app import CLOCK, golden_after_attach
from golden import Golden
from httpserver import Reply

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    http_server.route(
        "/golden/api/save",
        Reply(500, '{"error":"city is not a known town","field":"city"}', "application/json"),
    )
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def test_network(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/network.html"))
    await g.call("wait_for", text="done")
    await g.until("network_list", lambda sc: sc.get("total") == 4)
    await g.call("wait_for", network_idle=True)
    listed = await g.check("network_list")
    await g.check("network_list", scenario="failed", failed_only=True)
    await g.check("get_network_errors")
    save = [row[0] for row in listed["entries"] if "/golden/api/save" in str(row)]
    await g.check("network_get", id=save[0])
    await g.check("network_save_body", id=save[0])
    await g.check(
        "network_export_har", keys={"bytes": "<BYTES>"}, subs=[(r"\d+ bytes", "<N> bytes"), (r"[\d.]+ [KM]B", "<SIZE>")]
    )
    await g.check("network_clear")
    await g.check("network_list", scenario="cleared")


async def test_network_list_before_attach_golden(fresh_chromium, http_server, tmp_path) -> None:
    """The person's failed save from before attach, in the page's own record (tests/before_attach_app.py)."""
    async with golden_after_attach(fresh_chromium, http_server, tmp_path / "artifacts", GOLDEN) as g:
        await g.check("network_list", scenario="before-attach", subs=[CLOCK])
