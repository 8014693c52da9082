"""Faults: hostile pages, through the real MCP client on the internal browser.

A page whose response never ends, a script that never returns, a 50 MB response body: each
call gets a clear answer (TIMEOUT, a truncated file), bounded in time and memory, and the
server keeps answering other calls afterwards.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from faults_util import Agent, serving
from lean_util import records

from targets.errors import ErrorCode

MiB = 1024 * 1024


@pytest.fixture(scope="module")
async def agent(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Agent]:
    async with serving(tmp_path_factory.mktemp("faults-artifacts")) as agent:
        yield agent


@pytest.fixture
def hold(http_server):
    """A route whose response never comes (until the test ends): a page that never finishes loading."""
    from httpserver import Reply

    release = threading.Event()

    def never(_req):
        release.wait(60)
        return Reply(200, "<title>late</title>late")

    http_server.route("/faults/never", never)
    yield http_server.url("/faults/never")
    release.set()


async def _responsive(agent: Agent, http_server) -> None:
    """The server and a fresh page still work."""
    assert (await agent.s("get_capabilities"))["server"]["name"]
    nav = await agent.s("navigate", url=http_server.url("/faults/tab.html?name=after"))
    assert nav["title"] == "Faults after"
    assert await agent.js("1 + 1") == 2


async def test_a_page_that_never_finishes_loading(agent: Agent, http_server, hold):
    await agent.s("navigate", url=http_server.url("/faults/tab.html?name=start"))
    slow = await agent.err("navigate", ErrorCode.TIMEOUT, url=hold, timeout_ms=1500)
    assert "timeout_ms" in slow["hint"] and slow["stopped"] is True
    # the navigation that got no response was stopped: the tab shows its old document and answers
    assert await agent.js("document.title") == "Faults start"
    aborted = records(await agent.s("network_list", url_contains="/faults/never"))
    assert aborted and aborted[-1]["status"].startswith("FAILED")
    # a request of the page that never ends: waits time out cleanly, other calls answer meanwhile
    await agent.js("fetch('/faults/never?from=page'); 1")
    waited = await agent.err("wait_for", ErrorCode.TIMEOUT, text="never there", timeout_ms=500)
    assert "timeout_ms" in waited["hint"]
    idle = await agent.err("wait_for", ErrorCode.TIMEOUT, network_idle=True, timeout_ms=800)
    assert idle["state"]["inFlight"] >= 1
    in_flight = records(await agent.s("network_list", url_contains="from=page"))
    assert in_flight and in_flight[-1]["status"] == "pending"
    await _responsive(agent, http_server)


@pytest.mark.slow
async def test_a_script_that_never_returns(agent: Agent, http_server):
    await agent.s("navigate", url=http_server.url("/faults/tab.html?name=loop"))
    # a synchronous endless loop: Chrome stops it at timeout_ms
    stuck = await agent.err("evaluate_js", ErrorCode.TIMEOUT, expression="while (true) {}", timeout_ms=1000)
    assert "timeout_ms" in stuck["hint"]
    assert await agent.js("document.title") == "Faults loop"  # the same page answers again
    # an endless loop after an await escapes Chrome's timeout: the server stops the script itself
    stuck = await agent.err(
        "evaluate_js", ErrorCode.TIMEOUT, expression="await 0; while (true) {}", timeout_ms=1000, timeout=30
    )
    assert await agent.js("document.title") == "Faults loop"
    # the page's own script loops forever (a timer): the call times out, the runaway script is stopped
    assert await agent.js("setTimeout(() => { while (true) {} }, 50); 1") == 1
    await asyncio.sleep(0.3)
    await agent.err("evaluate_js", ErrorCode.TIMEOUT, expression="document.title", timeout_ms=1000, timeout=30)
    assert await agent.js("document.title") == "Faults loop"
    # a wait_for predicate that never returns
    await agent.err("wait_for", ErrorCode.TIMEOUT, predicate="(() => { while (true) {} })()", timeout_ms=1000)
    assert await agent.js("document.title") == "Faults loop"
    # and a plain wait that is never satisfied
    await agent.err("wait_for", ErrorCode.TIMEOUT, predicate="false", timeout_ms=300)
    await _responsive(agent, http_server)


async def test_a_50_mb_response_body(agent: Agent, http_server):
    from httpserver import Reply

    line = b"0123456789abcdef" * 64 + b"\n"
    big = line * (50 * MiB // len(line))
    mid = line * (12 * MiB // len(line))  # above the save cap, below what Chrome keeps per response
    http_server.route("/faults/big.txt", Reply(200, big, "text/plain; charset=utf-8"))
    http_server.route("/faults/mid.txt", Reply(200, mid, "text/plain; charset=utf-8"))
    await agent.s("navigate", url=http_server.url("/faults/tab.html?name=big"))
    lengths = (
        "[(await (await fetch('/faults/big.txt')).text()).length,"
        " (await (await fetch('/faults/mid.txt')).text()).length]"
    )
    assert await agent.js(lengths) == [len(big), len(mid)]
    cap = agent.app.settings.network_body_max_bytes
    assert len(mid) > cap

    huge = records(await agent.s("network_list", url_contains="/faults/big.txt"))[-1]
    assert huge["status"] == 200  # beyond the eager cap: not kept in memory
    assert (await agent.s("network_get", id=huge["id"]))["entry"].get("bodyState") != "held"
    # A 50 MB body: Chrome may keep it (durable messages) or not. Either a save cut at the cap
    # that says so, or a clear answer that says why, never a crash or an unbounded file.
    result = await agent.call("browser_session", action="network_save_body", id=huge["id"])
    sc = result.structured_content
    if result.is_error:
        assert sc["code"] == ErrorCode.BODY_UNAVAILABLE and "larger than" in sc["message"], sc
    else:
        assert sc["truncated"] is True and sc["bytes"] == cap and sc["totalBytes"] == len(big), sc
        assert Path(sc["filePath"]).stat().st_size == cap  # noqa: ASYNC240 - the test reads its result

    entry = records(await agent.s("network_list", url_contains="/faults/mid.txt"))[-1]
    assert (await agent.s("network_get", id=entry["id"]))["entry"].get("bodyState") != "held"
    saved = await agent.s("network_save_body", id=entry["id"])
    assert saved["truncated"] is True and saved["bytes"] == cap and saved["totalBytes"] == len(mid)
    assert Path(saved["filePath"]).read_bytes() == mid[:cap]  # noqa: ASYNC240 - the test reads its result
    small = await agent.s("network_save_body", id=entry["id"], max_bytes=1000)
    assert small["bytes"] == 1000 and small["truncated"] is True

    # memory stays bounded: the recorder holds only small bodies, never the big ones, before or after saving
    from mcp_server.evidence.capture import network_of

    held = network_of(await agent.app.manager.current_page(launch_if_needed=False)).held_bytes
    assert held <= agent.app.settings.network_eager_body_max_bytes * 2 and held < cap
    await _responsive(agent, http_server)
