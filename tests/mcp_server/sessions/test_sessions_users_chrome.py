"""Two and three agents on one ``mcp-browser --http`` server and the person's own Chrome: one Allow for all (issue 46).

The Chrome is headful under Xvfb with the remote-debugging toggle on (tests/toggle_chrome.py):
every websocket to it shows "Allow remote debugging?", and the person's hand (xdotool) presses
Allow once. The agents' tabs ``/fatture`` and ``/ordini`` are behind the one the person looks
at. What is checked is what the person sees: how many times Chrome asked, how many connections
the server holds to Chrome (``ss``), and what each agent is told.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from faults_util import Agent, wait_until
from http_sessions import HttpServer, http_server_running, session, wait_for_websockets, websockets_to
from mcp_http import http_client
from toggle_chrome import ToggleChrome

from targets.errors import ErrorCode

CALL = 60.0


@pytest.fixture
def toggle_chrome(virtual_display: Any, apps: Any) -> Iterator[ToggleChrome]:
    front = apps.url("/faults/tab.html?name=front")
    chrome = ToggleChrome.start(virtual_display, [front, apps.url("/fatture"), apps.url("/ordini")])
    yield chrome
    chrome.stop()


@pytest.fixture
def server(tmp_path: Path, toggle_chrome: ToggleChrome) -> Iterator[HttpServer]:
    """The server runs as the person does (their HOME), so it finds their Chrome's DevToolsActivePort."""
    home = toggle_chrome.home
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    with http_server_running(tmp_path / "artifacts", env=env) as running:
        yield running


async def _first_attach(agent: Agent, chrome: ToggleChrome) -> dict[str, Any]:
    """The first session's attach_cdp, with the person pressing Allow while it waits."""

    async def call() -> Any:
        return await agent.call("browser_session", CALL, action="attach_cdp", cdp_url=chrome.inspect_address)

    task = asyncio.ensure_future(call())
    await anyio.to_thread.run_sync(chrome.allow)
    result = await task
    assert not result.is_error, agent.last_text
    if result.structured_content.get("status") == "waiting":  # answered at the call bound before the click
        return await agent.s("attach_cdp", CALL, cdp_url=chrome.inspect_address)
    return result.structured_content


async def _join(agent: Agent, chrome: ToggleChrome) -> dict[str, Any]:
    """Another session's attach_cdp: it joins the attachment, and Chrome asks nothing."""
    joined = await agent.s("attach_cdp", CALL, cdp_url=chrome.inspect_address)
    assert joined["alreadyAttached"] is True, agent.last_text
    assert not await anyio.to_thread.run_sync(chrome.dialog_showing)
    return joined


@asynccontextmanager
async def _attached(server: HttpServer, chrome: ToggleChrome, count: int) -> AsyncIterator[list[Agent]]:
    """``count`` sessions attached to the person's Chrome, the first through the one Allow."""
    async with session(server) as first:
        await _first_attach(first, chrome)
        agents = [first]
        async with _more(server, chrome, count - 1, agents):
            yield agents


@asynccontextmanager
async def _more(server: HttpServer, chrome: ToggleChrome, count: int, agents: list[Agent]) -> AsyncIterator[None]:
    if count == 0:
        yield
        return
    async with session(server) as agent:
        await _join(agent, chrome)
        agents.append(agent)
        async with _more(server, chrome, count - 1, agents):
            yield


async def _title(agent: Agent) -> str:
    return str((await agent.s("get_current_page"))["page"]["title"])


async def _click_salva(agent: Agent) -> None:
    clicked = await agent.call("browser_interact", CALL, action="click", selector="#salva")
    assert not clicked.is_error, agent.last_text


async def test_the_issues_sequence_one_allow_and_b_detaching_leaves_a_attached(server, toggle_chrome, apps):
    port = toggle_chrome.chrome.port
    async with _attached(server, toggle_chrome, 2) as (a, b):
        assert websockets_to(server.pid, port) == 1
        await a.s("select_page", title_contains="fatture")
        await b.s("select_page", title_contains="ordini")
        assert await a.js("document.visibilityState") == "hidden"  # behind the person's tab
        assert await b.js("document.visibilityState") == "hidden"
        await _click_salva(a)
        await _click_salva(b)

        current = await a.s("get_current_page")
        assert current["page"]["url"] == apps.url("/fatture"), a.last_text
        console = await a.s("console_list")
        assert console["page"] == apps.url("/fatture"), a.last_text
        assert "clicked-fatture" in a.last_text and "clicked-ordini" not in a.last_text, a.last_text
        await b.s("console_list")
        assert "clicked-ordini" in b.last_text and "clicked-fatture" not in b.last_text, b.last_text
        await wait_until(lambda: len(apps.saved) == 2, timeout=20, what="both clicks' requests")
        assert sorted(apps.saved) == ["fatture", "ordini"]

        left = await b.s("detach_cdp")
        assert left["detached"] is True and left["otherSessions"] == 1, b.last_text
        assert re.search(r"\b1\b[^.;]*other|other[^.;]*\b1\b", b.last_text), b.last_text
        assert websockets_to(server.pid, port) == 1  # still open for A
        assert (await b.s("get_browser_status"))["browser"].get("activeTarget") is None, b.last_text
        await b.err("get_current_page", ErrorCode.NOT_ATTACHED)  # B's own view: detached, as with one agent

        assert await _title(a) == "fatture", a.last_text
        assert await a.js("document.title") == "fatture"
        await a.s("console_list")
        assert "clicked-fatture" in a.last_text

        last = await a.s("detach_cdp")
        assert last["detached"] is True and "otherSessions" not in last, a.last_text
        await wait_for_websockets(server.pid, port, 0)
        await a.err("get_current_page", ErrorCode.NOT_ATTACHED)
    assert toggle_chrome.answered == 1 and not toggle_chrome.dialog_showing()
    assert toggle_chrome.chrome.alive


async def test_a_session_that_disconnects_leaves_the_other_attached(server, toggle_chrome, apps):
    port = toggle_chrome.chrome.port
    async with session(server) as a:
        await _first_attach(a, toggle_chrome)
        await a.s("select_page", title_contains="fatture")
        async with session(server) as b:
            await _join(b, toggle_chrome)
            await b.s("select_page", title_contains="ordini")
            await b.s("capture_mark")
        # B's client is gone (its session ended): A still reads its own tab, on the one websocket
        assert await _title(a) == "fatture", a.last_text
        assert await a.js("document.title") == "fatture"
        assert websockets_to(server.pid, port) == 1
        status = await a.s("get_browser_status")
        assert status["browser"]["activeTarget"] == "cdp", a.last_text
        # B's leaving is counted: a newcomer that joins and leaves hears of A alone
        async with session(server) as c:
            with anyio.fail_after(30):
                while True:
                    await _join(c, toggle_chrome)
                    if (await c.s("detach_cdp"))["otherSessions"] == 1:
                        break
                    await anyio.sleep(0.2)  # B's session is still being cleaned up
        assert await _title(a) == "fatture", a.last_text
    # A's client is gone too: nobody uses the attachment, the websocket closes
    await wait_for_websockets(server.pid, port, 0)
    assert toggle_chrome.answered == 1 and not toggle_chrome.dialog_showing()


async def test_three_sessions_one_allow_one_websocket(server, toggle_chrome, apps):
    port = toggle_chrome.chrome.port
    async with _attached(server, toggle_chrome, 3) as (a, b, c):
        assert websockets_to(server.pid, port) == 1
        await a.s("select_page", title_contains="fatture")
        await b.s("select_page", title_contains="ordini")
        await c.s("select_page", title_contains="front")
        assert [await _title(x) for x in (a, b, c)] == ["fatture", "ordini", "Faults front"]

        mark = (await a.s("capture_mark"))["mark"]["name"]
        unknown = await b.err("debug_bundle", ErrorCode.INVALID_ARGUMENT, since_mark=mark)
        assert f"no capture mark '{mark}'" in unknown["message"], unknown
        await a.s("debug_bundle", since_mark=mark)

        left = await c.s("detach_cdp")
        assert left["otherSessions"] == 2, c.last_text
        left = await b.s("detach_cdp")
        assert left["otherSessions"] == 1, b.last_text
        assert websockets_to(server.pid, port) == 1
        assert await _title(a) == "fatture", a.last_text
        # B comes back: it joins again, still no dialog
        await _join(b, toggle_chrome)
        assert websockets_to(server.pid, port) == 1
        left = await a.s("detach_cdp")
        assert left["otherSessions"] == 1, a.last_text
        last = await b.s("detach_cdp")
        assert "otherSessions" not in last, b.last_text
        await wait_for_websockets(server.pid, port, 0)
    assert toggle_chrome.answered == 1 and not toggle_chrome.dialog_showing()


async def test_with_cdp_as_default_target_each_sessions_first_call_joins(tmp_path, toggle_chrome, apps):
    port = toggle_chrome.chrome.port
    home = toggle_chrome.home
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "BROWSER_DEFAULT_TARGET": "cdp",
        "PLAYWRIGHT_CDP_URL": toggle_chrome.inspect_address,
    }
    with http_server_running(tmp_path / "artifacts", env=env) as server:
        async with session(server) as a, session(server) as b:
            # A's first page call attaches (the person presses Allow); B's first page call joins it
            first = asyncio.ensure_future(a.call("browser_session", CALL, action="evaluate_js", expression="1 + 1"))
            await anyio.to_thread.run_sync(toggle_chrome.allow)
            assert not (await first).is_error, a.last_text
            assert await b.js("2 + 2") == 4
            assert not await anyio.to_thread.run_sync(toggle_chrome.dialog_showing)
            await b.s("select_page", title_contains="ordini")
            await a.s("select_page", title_contains="fatture")
            assert [await _title(x) for x in (a, b)] == ["fatture", "ordini"]
            assert websockets_to(server.pid, port) == 1
    assert toggle_chrome.answered == 1 and not toggle_chrome.dialog_showing()


async def test_two_named_2026_sessions_one_allow(server, toggle_chrome, apps):
    """Clients of the stateless 2026-07-28 revision have no MCP session: each names its view with session=."""
    port = toggle_chrome.chrome.port
    address = toggle_chrome.inspect_address
    async with http_client(server.url) as client_a, http_client(server.url) as client_b:
        a, b = Agent(client_a), Agent(client_b)
        assert client_a.protocol_version == "2026-07-28"
        attach = a.call("browser_session", CALL, action="attach_cdp", cdp_url=address, session="a")
        first = asyncio.ensure_future(attach)
        await anyio.to_thread.run_sync(toggle_chrome.allow)
        assert not (await first).is_error, a.last_text
        joined = await b.s("attach_cdp", cdp_url=address, session="b")
        assert joined["alreadyAttached"] is True and not await anyio.to_thread.run_sync(toggle_chrome.dialog_showing)
        await a.s("select_page", title_contains="fatture", session="a")
        await b.s("select_page", title_contains="ordini", session="b")
        assert (await a.s("get_current_page", session="a"))["page"]["title"] == "fatture", a.last_text
        assert websockets_to(server.pid, port) == 1
        left = await b.s("detach_cdp", session="b")
        assert left["otherSessions"] == 1, b.last_text
        assert (await a.s("get_current_page", session="a"))["page"]["title"] == "fatture", a.last_text
        last = await a.s("detach_cdp", session="a")
        assert "otherSessions" not in last, a.last_text
        await wait_for_websockets(server.pid, port, 0)
    assert toggle_chrome.answered == 1
