"""attach_cdp picks the tab the agent was asked to look at (url_contains / title_contains), never navigating.

Why: every diagnosis in the user's Chrome began with attach, then a select call; the agent knows
the tab ("the orders page"), so the attach picks it. A name that matches no tab, or several, leaves
the attachment in place and answers with the tabs to pick from, in both renderings.
"""

from __future__ import annotations

import json
from pathlib import Path

from background_tabs import activate, visibility
from faults_util import UserTabs, serving


async def test_attach_selects_the_named_background_tab_without_touching_it(users_chrome, http_server, tmp_path: Path):
    """In a Chrome with a window (headful, Xvfb): there a hidden tab gets no frames, as on the desktop."""
    user = UserTabs(users_chrome.http_url)
    orders = await user.open(http_server.url("/truth/next.html"))
    front = await user.open(http_server.url("/faults/tab.html?name=front"))
    await activate(users_chrome.http_url, front)
    assert await visibility(users_chrome.http_url, orders) == "hidden"
    async with serving(tmp_path / "artifacts") as agent:
        result = await agent.call(
            "browser_session", action="attach_cdp", cdp_url=users_chrome.http_url, url_contains="truth/next"
        )
        assert not result.is_error, result.content[0].text
        data, text = result.structured_content, result.content[0].text
        assert data["selected"]["title"] == "Orders" and data["selected"]["url"].endswith("/truth/next.html")
        assert "selected" in text and "Orders" in text and "/truth/next.html" in text
        assert "selectError" not in data and "pages" not in data
        # the agent's next call reads the picked tab, not the one in front
        current = await agent.s("get_current_page")
        assert current["page"]["url"].endswith("/truth/next.html"), current
        # picked, never focused or navigated: the user's front tab stays in front, the orders tab as it was
        assert await visibility(users_chrome.http_url, orders) == "hidden"
        listed = await agent.s("list_pages")
        assert sum(1 for p in listed["pages"] if p["url"].endswith("/truth/next.html")) == 1


async def test_attach_with_a_name_no_tab_has_stays_attached_and_lists_the_tabs(
    fresh_chromium, http_server, tmp_path: Path
):
    user = UserTabs(fresh_chromium.http_url)
    await user.open(http_server.url("/faults/tab.html?name=one"))
    await user.open(http_server.url("/faults/tab.html?name=two"))
    async with serving(tmp_path / "artifacts") as agent:
        result = await agent.call(
            "browser_session", action="attach_cdp", cdp_url=fresh_chromium.http_url, title_contains="Faults"
        )
        assert not result.is_error, result.content[0].text
        data, text = result.structured_content, result.content[0].text
        assert data["selectError"]["code"] == "AMBIGUOUS_MATCH", data
        titles = {p["title"] for p in data["pages"]}
        assert {"Faults one", "Faults two"} <= titles
        assert "AMBIGUOUS_MATCH" in text and "Faults one" in text and "Faults two" in text
        assert "select_page" in data["hint"]
        missing = await agent.call(
            "browser_session", action="attach_cdp", cdp_url=fresh_chromium.http_url, url_contains="nowhere"
        )
        refused = missing.structured_content
        assert refused["selectError"]["code"] == "PAGE_NOT_FOUND", json.dumps(refused)
        # still attached: the tabs are there to pick from
        chosen = await agent.s("select_page", title_contains="Faults two")
        assert chosen["selected"]["title"] == "Faults two"
