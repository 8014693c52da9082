"""cdp_core against a real headless Chromium: discovery, commands, errors, events, sessions."""

from __future__ import annotations

import asyncio
import json

import pytest

import cdp_core
from cdp_core import CDPError, CDPTimeout, ConnectionClosed, SessionClosed
from cdp_core.models import ConsoleAPICalled


async def _open_page(browser: cdp_core.Browser, url: str = "about:blank") -> cdp_core.CDPSession:
    return await browser.new_page(url)


async def _close_page(browser: cdp_core.Browser, page: cdp_core.CDPSession) -> None:
    if not browser.closed:
        await browser.close_target(page.target_info["targetId"])


# -- discovery ------------------------------------------------------------------------------


async def test_discovery_version_and_list(chromium, http_server):
    version = await cdp_core.get_version(chromium.http_url)
    assert version.protocol_version == "1.3"
    assert version.web_socket_debugger_url == chromium.ws_url
    created = await cdp_core.new_tab(chromium.http_url, http_server.url("/a.html"))
    try:
        listed = await cdp_core.list_targets(chromium.http_url)
        assert all(t.type == "page" for t in listed)
        mine = [t for t in listed if t.id == created.id]
        assert mine and mine[0].web_socket_debugger_url.startswith("ws://127.0.0.1:")
    finally:
        async with cdp_core.connect(chromium.http_url) as browser:
            await browser.close_target(created.id)


def test_devtools_active_port_file(chromium, tmp_path):
    port, path = cdp_core.read_devtools_active_port(chromium.profile_dir)
    assert port == chromium.port and path.startswith("/devtools/browser/")
    with pytest.raises(cdp_core.DiscoveryError):
        cdp_core.read_devtools_active_port(tmp_path)


async def test_connect_accepts_http_and_ws_endpoints(chromium):
    for endpoint in (chromium.http_url, chromium.ws_url):
        async with cdp_core.connect(endpoint) as browser:
            assert (await browser.version())["protocolVersion"] == "1.3"


async def test_nothing_listening_is_a_discovery_error(unused_tcp_port):
    with pytest.raises(cdp_core.DiscoveryError) as info:
        await cdp_core.get_version(f"http://127.0.0.1:{unused_tcp_port}")
    assert "no browser answers" in str(info.value)


# -- commands -------------------------------------------------------------------------------


async def test_send_reply_and_cdp_error(chromium):
    async with cdp_core.connect(chromium.http_url) as browser:
        page = await _open_page(browser)
        try:
            result = await page.send("Runtime.evaluate", {"expression": "6*7", "returnByValue": True})
            assert result["result"]["value"] == 42
            with pytest.raises(CDPError) as info:
                await page.send("Runtime.evaluate", {"expression": 1})
            err = info.value
            assert err.method == "Runtime.evaluate" and err.code == -32602
            with pytest.raises(CDPError) as info:
                await page.send("Nope.missing")
            assert info.value.code == -32601
            assert browser.connection.pending_count == 0
        finally:
            await _close_page(browser, page)


async def test_timeout_raises_and_cleans_up(chromium):
    async with cdp_core.connect(chromium.http_url) as browser:
        page = await _open_page(browser)
        try:
            never = {"expression": "new Promise(() => {})", "awaitPromise": True}
            with pytest.raises(CDPTimeout) as info:
                await page.send("Runtime.evaluate", never, timeout=0.3)
            assert isinstance(info.value, TimeoutError)
            assert browser.connection.pending_count == 0
            # The connection still works after a timeout.
            assert (await page.send("Runtime.evaluate", {"expression": "1", "returnByValue": True}))["result"]["value"]
        finally:
            await _close_page(browser, page)


async def test_concurrent_calls_get_their_own_replies(chromium):
    async with cdp_core.connect(chromium.http_url) as browser:
        page = await _open_page(browser)
        try:
            results = await asyncio.gather(
                *(page.send("Runtime.evaluate", {"expression": f"{i}*2", "returnByValue": True}) for i in range(300))
            )
            assert [r["result"]["value"] for r in results] == [i * 2 for i in range(300)]
        finally:
            await _close_page(browser, page)


async def test_eight_megabyte_messages_both_ways(chromium):
    size = 8 * 1024 * 1024
    async with cdp_core.connect(chromium.http_url) as browser:
        page = await _open_page(browser)
        try:
            received = await page.send(
                "Runtime.evaluate", {"expression": f"'x'.repeat({size})", "returnByValue": True}, timeout=60
            )
            assert len(received["result"]["value"]) == size
            payload = "y" * size
            sent = await page.send(
                "Runtime.evaluate", {"expression": f"{json.dumps(payload)}.length", "returnByValue": True}, timeout=60
            )
            assert sent["result"]["value"] == size
        finally:
            await _close_page(browser, page)


# -- events ---------------------------------------------------------------------------------


async def test_events_stream_callback_and_typed(chromium):
    async with cdp_core.connect(chromium.http_url) as browser:
        page = await _open_page(browser)
        try:
            seen: list[str] = []
            page.on("Runtime.consoleAPICalled", lambda ev: seen.append(ev.params["args"][0]["value"]))
            await page.send("Runtime.enable")
            async with page.events(ConsoleAPICalled) as typed, page.events("Runtime.consoleAPICalled") as raw:
                await page.send("Runtime.evaluate", {"expression": "console.log('a'); console.warn('b')"})
                first = await typed.get(timeout=5)
                second = await typed.get(timeout=5)
                assert (first.type, first.args[0].value) == ("log", "a")
                assert second.type == "warning"
                ev = await raw.get(timeout=5)
                assert ev.method == "Runtime.consoleAPICalled" and ev.session_id == page.session_id
            assert seen == ["a", "b"]
        finally:
            await _close_page(browser, page)


async def test_async_handler_may_send_commands(chromium):
    """A handler that awaits a command must not deadlock the reader."""
    async with cdp_core.connect(chromium.http_url) as browser:
        page = await _open_page(browser)
        try:
            answers: asyncio.Queue[int] = asyncio.Queue()

            async def on_console(ev: cdp_core.CDPEvent) -> None:
                reply = await page.send("Runtime.evaluate", {"expression": "40+2", "returnByValue": True})
                await answers.put(reply["result"]["value"])

            page.on("Runtime.consoleAPICalled", on_console)
            await page.send("Runtime.enable")
            await page.send("Runtime.evaluate", {"expression": "console.log('go')"})
            async with asyncio.timeout(5):
                assert await answers.get() == 42
        finally:
            await _close_page(browser, page)


async def test_slow_stream_drops_are_counted_not_silent(chromium):
    async with cdp_core.connect(chromium.http_url) as browser:
        page = await _open_page(browser)
        try:
            await page.send("Runtime.enable")
            stream = page.events("Runtime.consoleAPICalled", maxsize=10)
            await page.send("Runtime.evaluate", {"expression": "for (let i = 0; i < 50; i++) console.log(i)"})
            # A round trip after the burst: every event was read before this reply.
            await page.send("Runtime.evaluate", {"expression": "1"})
            assert stream.pending == 10 and stream.dropped == 40
            assert page.dropped_events == 40
            stream.close()
            got = [ev async for ev in stream]
            assert len(got) == 10
        finally:
            await _close_page(browser, page)


async def test_failing_handler_does_not_stop_the_reader(chromium):
    async with cdp_core.connect(chromium.http_url) as browser:
        page = await _open_page(browser)
        try:
            sub = page.on("Runtime.consoleAPICalled", lambda ev: 1 / 0)
            await page.send("Runtime.enable")
            await page.send("Runtime.evaluate", {"expression": "console.log('boom')"})
            assert (await page.send("Runtime.evaluate", {"expression": "2", "returnByValue": True}))["result"]["value"]
            assert sub.errors == 1
        finally:
            await _close_page(browser, page)


# -- sessions -------------------------------------------------------------------------------


async def test_flattened_sessions_route_events_to_their_target(chromium, http_server):
    async with cdp_core.connect(chromium.http_url) as browser:
        one = await _open_page(browser, http_server.url("/a.html"))
        two = await _open_page(browser, http_server.url("/b.html"))
        try:
            for page in (one, two):
                await page.send("Runtime.enable")
            s1, s2 = one.events("Runtime.consoleAPICalled"), two.events("Runtime.consoleAPICalled")
            await one.send("Runtime.evaluate", {"expression": "console.log('one')"})
            await two.send("Runtime.evaluate", {"expression": "console.log('two')"})
            assert (await s1.get(timeout=5)).params["args"][0]["value"] == "one"
            assert (await s2.get(timeout=5)).params["args"][0]["value"] == "two"
            assert s1.pending == 0 and s2.pending == 0
            titles = {p["targetId"]: p["title"] for p in await browser.pages()}
            assert titles[one.target_info["targetId"]] == "Page A"
        finally:
            await _close_page(browser, one)
            await _close_page(browser, two)


async def test_detach_and_target_close_end_the_session(chromium):
    async with cdp_core.connect(chromium.http_url) as browser:
        page = await _open_page(browser)
        target_id = page.target_info["targetId"]
        closed: list[str] = []
        page.on_close(lambda s: closed.append(s.session_id))
        await page.detach()
        assert page.closed and closed == [page.session_id]
        with pytest.raises(SessionClosed):
            await page.send("Runtime.evaluate", {"expression": "1"})
        # The target itself is still there: attach again, then close it while a call waits.
        again = await browser.attach(target_id)
        stream = again.events("*")
        pending = asyncio.ensure_future(
            again.send("Runtime.evaluate", {"expression": "new Promise(() => {})", "awaitPromise": True})
        )
        await asyncio.sleep(0.1)
        await browser.close_target(target_id)
        async with asyncio.timeout(10):
            with pytest.raises(ConnectionClosed):
                await pending
            async for _ in stream:  # the tab closed: the stream ends, it does not raise
                pass
        assert isinstance(stream.end_reason, SessionClosed)
        assert browser.connection.session(again.session_id) is None


async def test_page_close_and_a_page_for_one_block(chromium):
    async with cdp_core.connect(chromium.http_url) as browser:
        page = await browser.new_page()
        target_id = page.target_info["targetId"]
        await page.close()
        assert page.closed
        assert target_id not in [p["targetId"] for p in await browser.pages()]
        await page.close()  # a second close is not an error
        async with browser.new_page() as scoped:
            scoped_id = scoped.target_info["targetId"]
            result = await scoped.send("Runtime.evaluate", {"expression": "6 * 7", "returnByValue": True})
            assert result["result"]["value"] == 42
            assert scoped_id in [p["targetId"] for p in await browser.pages()]
        assert scoped.closed and scoped_id not in [p["targetId"] for p in await browser.pages()]
        with pytest.raises(ValueError):
            await browser.session.close()


async def test_per_target_socket(chromium, http_server):
    created = await cdp_core.new_tab(chromium.http_url, http_server.url("/a.html"))
    try:
        async with await cdp_core.connect_target(created.web_socket_debugger_url) as conn:
            # The tab may still show about:blank (already "complete") when we connect: poll
            # over the dedicated socket until it shows /a.html fully loaded.
            probe = {"expression": "location.pathname + ' ' + document.readyState", "returnByValue": True}
            async with asyncio.timeout(10):
                while (await conn.send("Runtime.evaluate", probe))["result"]["value"] != "/a.html complete":
                    await asyncio.sleep(0.05)
            title = await conn.send("Runtime.evaluate", {"expression": "document.title", "returnByValue": True})
            assert title["result"]["value"] == "Page A"
    finally:
        async with cdp_core.connect(chromium.http_url) as browser:
            await browser.close_target(created.id)


async def test_browser_killed_while_calls_pending(fresh_chromium):
    browser = await cdp_core.connect(fresh_chromium.http_url)
    page = await _open_page(browser)
    stream = page.events("*")
    never = {"expression": "new Promise(() => {})", "awaitPromise": True}
    pending = [asyncio.ensure_future(page.send("Runtime.evaluate", never, timeout=None)) for _ in range(5)]
    pending.append(asyncio.ensure_future(browser.send("Target.setDiscoverTargets", {"discover": True})))
    await asyncio.sleep(0.2)
    fresh_chromium.kill()
    async with asyncio.timeout(10):  # no hang: every call fails as soon as the socket ends
        results = await asyncio.gather(*pending[:5], return_exceptions=True)
        await browser.connection.wait_closed()
    assert all(isinstance(r, ConnectionClosed) for r in results)
    assert browser.closed and browser.connection.pending_count == 0
    with pytest.raises(ConnectionClosed):
        await page.send("Runtime.evaluate", {"expression": "1"})
    with pytest.raises(ConnectionClosed):
        await stream.get(timeout=5)
    await browser.close()


@pytest.fixture
def unused_tcp_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_attach_takes_what_new_tab_gave_and_bad_params_leave_the_connection_clean(chromium):
    """``new_tab`` gives a TargetDescription: ``attach`` takes it as well as its id. Params that are
    not JSON are the caller's TypeError, raised before anything is sent or left pending."""
    tab = await cdp_core.new_tab(chromium.http_url, "about:blank")
    async with cdp_core.connect(chromium.http_url) as browser:
        page = await browser.attach(tab)
        try:
            assert page.target_info["targetId"] == tab.id
            with pytest.raises(TypeError):
                await page.send("Runtime.evaluate", {"expression": object()})
            assert browser.connection.pending_count == 0
            assert (await page.send("Runtime.evaluate", {"expression": "2", "returnByValue": True}))["result"]["value"]
        finally:
            await _close_page(browser, page)
