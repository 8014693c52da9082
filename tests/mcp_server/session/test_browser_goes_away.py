"""Faults: the browser goes away under the server, through the real MCP client.

The user's Chrome killed and restarted on the same port, its websocket cut from the
browser's side, one tab's session detached, the internal browser's process group killed.
What must hold: the next call says what happened with a code and a hint, pending calls fail
fast, what was captured stays readable, and attaching or launching again works without
restarting the server.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest
from faults_util import StablePort, UserTabs, serving, wait_until
from lean_util import records

from cdp_core import ChromiumProcess
from targets.errors import ErrorCode


async def _captured(agent, name: str) -> None:
    """Log and fetch in the selected tab now, and wait until the console line is captured."""
    await agent.js(f"console.log('live {name}'); await fetch('/faults/data.json?from={name}'); 1")
    for _ in range(200):
        if f"live {name}" in [e["text"] for e in records(await agent.s("console_list"))]:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"console line of {name} not captured")


async def _old_entries_readable(agent, name: str) -> None:
    console = await agent.s("console_list")
    assert f"live {name}" in [e["text"] for e in records(console)] and console.get("pageClosed", False) is True
    network = await agent.s("network_list", url_contains=f"from={name}")
    # The tab's own fetch of the same URL may still be on its way at attach (a loaded machine): 1 or 2.
    statuses = [e["status"] for e in records(network)]
    assert 1 <= len(statuses) <= 2 and set(statuses) == {200}, network
    assert network.get("pageClosed", False) is True


@pytest.mark.slow
async def test_users_chrome_killed_then_restarted_on_the_same_port(http_server, tmp_path):
    port = StablePort()
    url = f"http://127.0.0.1:{await port.start()}"
    chrome = await ChromiumProcess.astart()
    try:
        port.upstream = chrome.port
        await UserTabs(chrome.http_url).open(http_server.url("/faults/tab.html?name=before"))
        async with serving(tmp_path / "artifacts") as agent:
            await agent.s("attach_cdp", cdp_url=url)
            await agent.s("select_page_by_title", title_contains="Faults before")
            await _captured(agent, "before")
            chrome.kill()
            await wait_until(lambda: agent.manager.cdp.lost is not None, what="the loss noticed")

            lost = await agent.err("evaluate_js", ErrorCode.BROWSER_DISCONNECTED, expression="1")
            assert url in lost["message"] and "attach_cdp" in lost["hint"]
            await agent.err("list_pages", ErrorCode.BROWSER_DISCONNECTED)
            status = await agent.s("get_browser_status")
            assert status["browser"]["cdp"].get("attached", False) is False and status["browser"]["cdp"]["lost"]
            await _old_entries_readable(agent, "before")
            # not running: attaching again is a clear CDP_UNREACHABLE with the command line to start Chrome
            down = await agent.err("attach_cdp", ErrorCode.CDP_UNREACHABLE, cdp_url=url)
            assert "--remote-debugging-port" in down["hint"]

            chrome = await ChromiumProcess.astart()
            port.upstream = chrome.port
            await UserTabs(chrome.http_url).open(http_server.url("/faults/tab.html?name=after"))
            await agent.s("attach_cdp", cdp_url=url)
            assert "Faults after" in [p["title"] for p in (await agent.s("list_pages"))["pages"]]
            await agent.s("select_page_by_title", title_contains="Faults after")
            assert await agent.js("document.title") == "Faults after"
            await _captured(agent, "after")
    finally:
        await port.close()
        chrome.stop()


async def test_browser_side_socket_drop_fails_pending_calls_and_keeps_the_stores(http_server, tmp_path):
    port = StablePort()
    url = f"http://127.0.0.1:{await port.start()}"
    chrome = await ChromiumProcess.astart()
    try:
        port.upstream = chrome.port
        user = UserTabs(chrome.http_url)
        tab = await user.open(http_server.url("/faults/tab.html?name=drop"))
        async with serving(tmp_path / "artifacts") as agent:
            await agent.s("attach_cdp", cdp_url=url)
            await agent.s("select_page_by_title", title_contains="Faults drop")
            await _captured(agent, "drop")
            await agent.js("document.getElementById('h').dataset.mark = 'typed by the user'; 1")

            pending = asyncio.ensure_future(
                agent.call("browser_session", 30, action="evaluate_js", expression="await new Promise(() => {})")
            )
            await wait_until(agent.app.locks.busy, what="the call running")
            port.drop()
            result = await pending  # fails fast: well inside the call's 30 s bound, not at its 35 s timeout
            assert result.is_error and result.structured_content["code"] == ErrorCode.BROWSER_DISCONNECTED
            assert "attach_cdp" in result.structured_content["hint"]

            await _old_entries_readable(agent, "drop")
            # Chrome itself still runs with the user's tab as it was; attaching again sees it
            await agent.s("attach_cdp", cdp_url=url)
            assert "Faults drop" in [p["title"] for p in (await agent.s("list_pages"))["pages"]]
            await agent.s("select_page_by_title", title_contains="Faults drop")
            assert await agent.js("document.getElementById('h').dataset.mark") == "typed by the user"
        assert chrome.alive and tab in {t.id for t in await _targets(chrome)}
    finally:
        await port.close()
        chrome.stop()


async def _targets(chrome: ChromiumProcess):
    import cdp_core

    return await cdp_core.list_targets(chrome.http_url)


async def test_a_tab_session_detached_by_the_browser_fails_fast_and_the_tab_comes_back(
    fresh_chromium, http_server, tmp_path
):
    await UserTabs(fresh_chromium.http_url).open(http_server.url("/faults/tab.html?name=detached"))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="Faults detached")
        await _captured(agent, "detached")
        page = await agent.manager.current_page()
        browser = agent.manager.cdp.browser

        pending = asyncio.ensure_future(
            agent.call("browser_session", 30, action="evaluate_js", expression="await new Promise(() => {})")
        )
        await wait_until(agent.app.locks.busy, what="the call running")
        # the browser ends our session on the tab (Target.detachedFromTarget), the tab stays open
        await browser.send("Target.detachFromTarget", {"sessionId": page.session.session_id})
        result = await pending
        assert result.is_error and result.structured_content["code"] == ErrorCode.PAGE_CLOSED
        assert "list_pages" in result.structured_content["hint"]

        await _old_entries_readable(agent, "detached")
        listing = await agent.s("list_pages")  # the tab is still there: attached again under a new id
        titles = {p["title"]: p["stable_page_id"] for p in listing["pages"]}
        assert "Faults detached" in titles and titles["Faults detached"] != page.stable_page_id
        await agent.s("select_page", stable_page_id=titles["Faults detached"])
        assert await agent.js("document.title") == "Faults detached"


def _browser_pid(profile: Path) -> int:
    """The internal browser's main process: the Chromium whose profile is ``profile`` and has no --type."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        args = [a.decode(errors="replace") for a in argv]
        if any(a == f"--user-data-dir={profile}" for a in args) and not any(a.startswith("--type=") for a in args):
            return int(entry.name)
    raise AssertionError(f"no browser process with profile {profile}")


async def test_internal_browser_process_group_killed_relaunches_on_the_next_call(http_server, tmp_path):
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/faults/tab.html?name=launch1"))
        await _captured(agent, "launch1")
        launch = agent.manager.launch
        pid = _browser_pid(launch.profile_dir)
        group = os.getpgid(pid)
        assert group != os.getpgrp()  # never the test's own group
        os.killpg(group, signal.SIGKILL)
        await wait_until(lambda: launch.lost is not None, what="the crash noticed")

        status = await agent.s("get_browser_status")  # reports it, starts nothing
        assert status["browser"]["currentPageError"]["code"] == ErrorCode.BROWSER_DISCONNECTED
        assert launch.launches == 1

        again = await agent.s("navigate", url=http_server.url("/faults/tab.html?name=launch2"))
        assert again["title"] == "Faults launch2" and again["relaunched"] is True
        assert launch.launches == 2 and _browser_pid(launch.profile_dir) != pid
        await _captured(agent, "launch2")
