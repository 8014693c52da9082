"""Faults: the user closes the selected tab of their Chrome, during a call and between calls,
or the page closes its own window (a lookup popup).

The agent drives the server through the real MCP client; the "user" closes tabs over a CDP
client of their own. What must hold: a structured PAGE_CLOSED that says to list pages, a
server that keeps answering, and the captured data of the other tabs untouched.
"""

from __future__ import annotations

import asyncio

from background_tabs import agent_in_hidden_tab, interact
from faults_util import UserTabs, calls_running, serving, wait_until
from httpserver import Reply
from lean_util import assert_lean, records

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
        # the selected tab and how many others (list_pages lists them)
        assert attached["otherPages"] == 3 and "list_pages" in attached["hint"]
        assert len((await agent.s("list_pages"))["pages"]) == 4
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
        await wait_until(lambda: calls_running(agent.app, "wait_for") == 1, what="wait_for running")
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


ORDER_ENTRY = """<!doctype html><title>Order entry</title>
<label>Customer <input id=cust name=cust></label>
<button onclick="window.open('/popup/lookup.html','lookup','width=400,height=300')">Lookup</button>"""
LOOKUP = """<!doctype html><title>Customer lookup</title><ul><li><a href="#"
  onclick="opener.document.getElementById('cust').value='ACME Ltd'; window.close(); return false">ACME Ltd</a></ul>"""


async def test_a_lookup_popup_that_closes_itself_hands_the_agent_back_to_its_opener(
    users_chrome, http_server, tmp_path
):
    """The legacy lookup window: opened from the form, a pick fills the form's field and closes it."""
    http_server.route("/popup/order.html", Reply(200, ORDER_ENTRY))
    http_server.route("/popup/lookup.html", Reply(200, LOOKUP))
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, "/popup/order.html", "Order entry") as agent:
        form = (await agent.s("get_current_page"))["page"]["stable_page_id"]
        opened = await interact(agent, "click", selector="button")
        assert opened["followed"]["newTabs"][0]["title"] == "Customer lookup", opened
        await agent.s("select_page_by_url", url_contains="/popup/lookup.html")

        picked = await agent.call("browser_interact", action="click", selector="a")
        assert not picked.is_error, picked.content[0].text
        gone = picked.structured_content["followed"]["pageClosed"]
        assert gone["opener"] == form and gone["openerTitle"] == "Order entry", gone
        assert f'select_page stable_page_id="{form}"' in picked.content[0].text, picked.content[0].text
        assert_lean(picked)

        # the next call does not act on another tab behind the agent's back: it names the way back
        closed = await agent.err("snapshot", ErrorCode.PAGE_CLOSED)
        assert f'select_page stable_page_id="{form}"' in closed["hint"], closed
        # and a listing selects the opener, where the picked value now is
        listing = await agent.s("list_pages")
        assert [p["stable_page_id"] for p in listing["pages"] if p.get("selected")] == [form], listing
        assert await agent.js("document.getElementById('cust').value") == "ACME Ltd"
