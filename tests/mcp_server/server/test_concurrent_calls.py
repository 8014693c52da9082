"""Faults: load. 50 tool calls at once from one client, and two clients on the HTTP transport at once.

Every call must be answered, and no two calls may interleave their scripts on a page: each
takes the locks its action declares (mcp_server/server/locking.py). :class:`faults_util.InsideProbe` measures it from
the page's side: a call's script enters, holds the page a moment, leaves; the test server
counts how many calls were inside at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from faults_util import Agent, InsideProbe, UserTabs, calls_running, serving, wait_until
from lean_util import records
from mcp_http import http_client, running_http_server

#: a wait_for predicate that is a probed page script (enter, hold the page, leave, true)
PROBED_PREDICATE = (
    "(async () => { await fetch('/faults/enter'); await new Promise((r) => setTimeout(r, 15));"
    " await fetch('/faults/leave'); return true })()"
)


async def test_fifty_concurrent_calls_from_one_client(fresh_chromium, http_server, tmp_path):
    probe = InsideProbe(http_server)
    user = UserTabs(fresh_chromium.http_url)
    tabs = {await user.open(http_server.url(f"/faults/tab.html?name={name}")) for name in ("one", "two")}
    await user.close_all_but(tabs)  # the blank start tab is not part of the story
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        pages = (await agent.s("list_pages"))["pages"]
        ids = {p["title"]: p["stable_page_id"] for p in pages}
        one, two = ids["Faults one"], ids["Faults two"]

        calls: list[tuple[str, dict]] = []
        for i in range(50):
            kind = i % 5
            if kind in (0, 1):
                calls.append(("evaluate_js", {"expression": InsideProbe.EXPRESSION}))
            elif kind == 2:
                calls.append(("select_page", {"stable_page_id": one if i % 2 else two}))
            elif kind == 3:
                calls.append(("console_list" if i % 2 else "network_list", {}))
            else:
                calls.append(("list_pages" if i % 2 else "get_current_page", {}))
        with anyio.fail_after(120):
            answers = await asyncio.gather(*(agent.call("browser_session", action=a, **args) for a, args in calls))

        assert len(answers) == 50
        for (action, _args), result in zip(calls, answers, strict=True):
            assert not result.is_error, (action, result.content[0].text)
            if action == "evaluate_js":
                assert result.structured_content["result"] in ("Faults one", "Faults two")
        assert probe.entered == 20 and probe.max_inside == 1  # serialised: never two scripts inside at once
        # the selection is one of the two tabs, and the page list is still exactly the user's two tabs
        listing = (await agent.s("list_pages"))["pages"]
        assert sorted(p["title"] for p in listing) == ["Faults one", "Faults two"]
        assert sum(p.get("selected", False) for p in listing) == 1


async def test_a_selection_change_does_not_wait_for_a_wait_for_which_stays_on_its_page(
    fresh_chromium, http_server, tmp_path
):
    user = UserTabs(fresh_chromium.http_url)
    for name in ("slow", "other"):
        await user.open(http_server.url(f"/faults/tab.html?name={name}"))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        pages = (await agent.s("list_pages"))["pages"]
        ids = {p["title"]: p["stable_page_id"] for p in pages}
        await agent.s("select_page", stable_page_id=ids["Faults slow"])
        await agent.js("setTimeout(() => { document.body.append('finally here') }, 1500); 1")
        order: list[str] = []

        async def waiting() -> dict:
            result = await agent.call("browser_session", action="wait_for", text="finally here", timeout_ms=20000)
            order.append("wait_for")
            return result

        waiter = asyncio.ensure_future(waiting())
        await wait_until(lambda: calls_running(agent.app, "wait_for") == 1, what="wait_for running")
        await asyncio.sleep(0.3)  # it has polled the slow tab a few times
        # a wait is no state change: select_page (which is one) goes ahead between two polls
        switched = await agent.call("browser_session", action="select_page", stable_page_id=ids["Faults other"])
        order.append("select_page")
        with anyio.fail_after(60):
            waited = await waiter
        # the wait ran to its end on the page it started on, though the selection moved meanwhile
        assert not switched.is_error and order == ["select_page", "wait_for"]
        assert not waited.is_error and waited.structured_content["state"]["textFound"] is True
        assert await agent.js("document.title") == "Faults other"


# -- two clients on the HTTP transport ------------------------------------------------------------


@pytest.fixture
def http_mcp(tmp_path: Path) -> Iterator[str]:
    """``mcp-browser --http`` as users start it, on a free loopback port; yields the MCP URL."""
    with running_http_server(tmp_path / "artifacts") as port:
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.mark.slow
async def test_two_http_clients_at_once(http_mcp: str, http_server):
    probe = InsideProbe(http_server)
    with anyio.fail_after(120):
        async with http_client(http_mcp) as first, http_client(http_mcp) as second:
            a, b = Agent(first), Agent(second)
            await a.s("navigate", url=http_server.url("/faults/tab.html?name=shared"))

            async def burst(agent: Agent, tag: str) -> list:
                calls = []
                for i in range(25):
                    if i % 4 == 0:
                        calls.append(
                            agent.call("browser_session", action="evaluate_js", expression=InsideProbe.EXPRESSION)
                        )
                    elif i % 4 == 1:
                        calls.append(
                            agent.call(
                                "browser_session", action="evaluate_js", expression=f"console.log('{tag} {i}'); {i}"
                            )
                        )
                    elif i % 4 == 2:
                        calls.append(agent.call("browser_session", action="get_current_page"))
                    else:  # a poll whose predicate is a probed page script, between the other calls' scripts
                        calls.append(
                            agent.call(
                                "browser_session", action="wait_for", predicate=PROBED_PREDICATE, timeout_ms=30000
                            )
                        )
                return await asyncio.gather(*calls)

            ones, twos = await asyncio.gather(burst(a, "first"), burst(b, "second"))
            for result in [*ones, *twos]:
                assert not result.is_error, result.content[0].text
            # each client got its own answers: the values it asked for, in its own order
            for answers in (ones, twos):
                values = [r.structured_content.get("result") for i, r in enumerate(answers) if i % 4 == 1]
                assert values == [i for i in range(25) if i % 4 == 1]
            assert probe.entered == 26 and probe.max_inside == 1  # 7 scripts + 6 predicates per client
            logged = [e["text"] for e in records(await b.s("console_list", limit=200))]
            for tag in ("first", "second"):
                assert {f"{tag} {i}" for i in range(25) if i % 4 == 1} <= set(logged)
