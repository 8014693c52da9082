"""Golden answers of the tabs feature: pages, selection, new/close, frames."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden import Golden

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def test_pages(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/frames.html"))
    await g.check("list_pages")
    await g.check("get_current_page")
    opened = await g.check("new_page", url=http_server.url("/golden/two.html"))
    await g.check("list_pages", scenario="two")
    await g.check("switch_tab", page_id=0)
    await g.check("select_page", stable_page_id=opened["page"]["stable_page_id"])
    await g.check("select_page_by_url", url_contains="frames.html")
    await g.check("select_page_by_title", title_contains="Golden two")
    await g.check("close_page", stable_page_id=opened["page"]["stable_page_id"])
    await g.check("select_page_by_title", scenario="none", error=True, title_contains="No such title")


async def test_frames(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/frames.html"))
    await g.call("wait_for", predicate="window.frames.length === 1 && frames[0].document.readyState === 'complete'")
    await g.check("list_frames")
    await g.check("select_frame", frame_name="child")
    await g.check("select_frame", scenario="main", frame_index=0)
