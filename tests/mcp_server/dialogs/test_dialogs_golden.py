"""Golden answers of the dialogs feature."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden import Golden

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def test_handle_dialog(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/home.html"))
    await g.check("handle_dialog", scenario="none", error=True, dialog_action="accept")
    await g.call(
        "evaluate_js",
        expression="setTimeout(() => { document.title = confirm('Delete order 12?') ? 'yes' : 'no'; }, 0); 1",
    )
    await g.until("get_current_page", lambda sc: bool(sc.get("page", {}).get("dialog")))
    await g.check("handle_dialog", dialog_action="dismiss")
