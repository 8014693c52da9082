"""Golden answers of the bundle feature: debug_bundle on a page with a failing save."""

from __future__ import annotations

import json
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


async def test_debug_bundle(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/network.html"))
    await g.call("wait_for", text="done")
    await g.until("network_list", lambda sc: sc.get("total") == 4)
    await g.check("debug_bundle")
    await g.check("debug_bundle", scenario="full", include_snapshot=True, include_storage=True)


async def test_debug_bundle_before_attach_golden(fresh_chromium, http_server, tmp_path) -> None:
    """The person's failed save from before attach, in the page's own record (tests/before_attach_app.py)."""
    async with golden_after_attach(fresh_chromium, http_server, tmp_path / "artifacts", GOLDEN) as g:
        await g.check("debug_bundle", scenario="before-attach", subs=[CLOCK])


async def test_debug_bundle_on_screen(g: Golden, http_server) -> None:
    """phpMyAdmin's failed Insert: the alert, a toast, a status and the invalid fields, before the rest."""
    await g.call("navigate", url=http_server.url("/onscreen/insert.html"))
    # Chrome asks for the favicon, and reports its 404 in the console, at its own pace: both are in
    # the golden answer, so the bundle waits for them
    await g.until("console_list", lambda sc: "favicon.ico" in json.dumps(sc), types=["error"])
    await g.check("debug_bundle", scenario="on-screen")
