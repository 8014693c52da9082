"""Faults: the user closes the selected tab of their Chrome, during a call and between calls.

The agent drives the server through the real MCP client; the "user" closes tabs over a CDP
client of their own. What must hold: a structured PAGE_CLOSED that says to list pages, a
server that keeps answering, and the captured data of the other tabs untouched.
"""

from __future__ import annotations

import asyncio

from faults_util import UserTabs, serving, wait_until
from lean_util import records

from targets.errors import ErrorCode


async def _activity(agent, name: str) -> None:
    """Make the selected tab log and fetch now (capture starts at attach), and wait until both are captured."""
    await agent.js(f"console.log('live {name}'); await fetch('/faults/data.json?from={name}'); 1")
    for _ in range(200):
        texts = [e["text"] for e in records(await agent.s("console_list"))]
        if f"live {name}" in texts:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"tab {name}: its console line was not captured: {texts}")


async def test_selected_tab_closed_mid_call_and_between_calls(fresh_chromium, http_server, tmp_path):
    user = UserTabs(fresh_chromium.http_url)
    tabs = {
        name: await user.open(http_server.url(f"/faults/tab.html?name={name}"))
        for name in ("wait", "eval", "gone", "keep")
    }
    await user.close_all_but(set(tabs.values()))  # the blank start tab is not part of the story

    async with serving(tmp_path / "artifacts") as agent:
        attached = await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        assert len(attached["pages"]) == 4
        for name in tabs:
            await agent.s("select_page_by_title", title_contains=f"Faults {name}")
            await _activity(agent, name)
        keep_network = records(await agent.s("network_list", url_contains="data.json"))
        assert len(keep_network) == 1  # the last selected tab is "keep"

        # 1. closed while wait_for is waiting for text that never comes
        await agent.s("select_page_by_title", title_contains="Faults wait")
        waiting = asyncio.ensure_future(
            agent.call("browser_session", action="wait_for", text="never there", timeout_ms=60000)
        )
        await wait_until(lambda: agent.app.calls_running("wait_for") == 1, what="wait_for running")
        await user.close(tabs["wait"])
        result = await waiting
        sc = result.structured_content
        assert result.is_error and sc["code"] == ErrorCode.PAGE_CLOSED, result.content[0].text
        assert "list_pages" in sc["hint"]

        # 2. closed while a long evaluate_js awaits a promise that never settles
        await agent.s("select_page_by_title", title_contains="Faults eval")
        evaluating = asyncio.ensure_future(
            agent.call("browser_session", action="evaluate_js", expression="await new Promise(() => {})")
        )
        await wait_until(agent.app.locks.busy, what="evaluate_js running")
        await user.close(tabs["eval"])
        result = await evaluating
        sc = result.structured_content
        assert result.is_error and sc["code"] == ErrorCode.PAGE_CLOSED, result.content[0].text
        assert "list_pages" in sc["hint"]

        # 3. closed between two calls
        await agent.s("select_page_by_title", title_contains="Faults gone")
        await user.close(tabs["gone"])
        await wait_until(lambda: agent.manager.cdp.registry.selected.closed, what="the close event")
        closed = await agent.err("evaluate_js", ErrorCode.PAGE_CLOSED, expression="1 + 1")
        assert "list_pages" in closed["hint"] and closed["stable_page_id"]
        # what the closed tab captured is still readable, and says the tab is gone
        old = await agent.s("console_list")
        assert "live gone" in [e["text"] for e in records(old)] and old.get("pageClosed", False) is True
        assert records(await agent.s("network_list", url_contains="data.json"))

        # the server keeps working: the listing shows the survivor, whose capture is intact
        listing = await agent.s("list_pages")
        assert [p["title"] for p in listing["pages"]] == ["Faults keep"]
        await agent.s("select_page", stable_page_id=listing["pages"][0]["stable_page_id"])
        assert await agent.js("document.title") == "Faults keep"
        texts = [e["text"] for e in records(await agent.s("console_list"))]
        assert "live keep" in texts and "ready keep" in texts  # "ready" logged before attach: replayed
        assert records(await agent.s("network_list", url_contains="data.json")) == keep_network
        caps = await agent.s("get_capabilities")
        assert caps["browser"]["cdp"]["attached"] is True
    assert fresh_chromium.alive
