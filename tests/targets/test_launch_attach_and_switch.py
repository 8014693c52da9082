"""The browser targets against real Chromium: launch mode, attaching to a user's Chrome, switching, tabs.

The "user's Chrome" is a separate ``ChromiumProcess`` (its own process and profile) with
tabs opened before we attach, driven by the test through its own ``cdp_core``
connection the way a person would use the browser.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
from faults_util import StablePort  # the TIME_WAIT-proof "same port" forwarder

import cdp_core
from cdp_core import ChromiumProcess
from targets import BrowserManager, PageHandle, TargetSettings, ToolFailure

USER_TABS = ("/targets/a.html", "/targets/b.html", "/targets/clienti/edit.cfm?id=123")


@pytest.fixture
async def manager(tmp_path) -> AsyncIterator[BrowserManager]:
    mgr = BrowserManager(TargetSettings(downloads_dir=str(tmp_path / "downloads")))
    yield mgr
    await mgr.close()


async def _user_tabs(chrome: ChromiumProcess, urls: list[str]) -> list[str]:
    """Open ``urls`` as the user would, close the start-up blank tab, wait until all loaded."""
    blank = [t.id for t in await cdp_core.list_targets(chrome.http_url)]
    ids = [(await cdp_core.new_tab(chrome.http_url, url)).id for url in urls]
    async with cdp_core.connect(chrome.http_url) as browser:
        for target_id in blank:
            await browser.close_target(target_id)
        # Target.closeTarget answers before the tab is gone: wait until the listing no longer has
        # it, or an attach right after this would still see (and report) the closing blank tab.
        for _ in range(250):
            if not {t.id for t in await cdp_core.list_targets(chrome.http_url)} & set(blank):
                break
            await asyncio.sleep(0.02)
        for target_id in ids:
            session = await browser.attach(target_id)
            for _ in range(200):
                state = await session.send(
                    "Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True}
                )
                if state["result"]["value"] == "complete":
                    break
                await asyncio.sleep(0.02)
            await session.detach()
    return ids


async def _eval(page: PageHandle, expression: str) -> Any:
    reply = await page.session.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
    return reply["result"].get("value")


def _request_count(http_server, path: str) -> int:
    return sum(1 for r in http_server.requests if r.path == path)


async def _failure(coro) -> ToolFailure:
    with pytest.raises(ToolFailure) as info:
        await coro
    return info.value


# -- launch -------------------------------------------------------------------------------


async def test_launch_navigate_starts_the_internal_browser_lazily(manager, http_server):
    seen: list[tuple[str, str]] = []

    async def listener(page, session, kind):
        seen.append((page.stable_page_id, kind))

    manager.add_session_listener(listener)
    assert manager.capabilities()["launch"]["running"] is False
    assert await manager.list_pages() == []

    result = await manager.navigate(http_server.url("/targets/a.html"))

    assert result["status"] == 200 and result["title"] == "Targets A" and result["target"] == "launch"
    pages = await manager.list_pages()
    assert [(p["title"], p["selected"], p["page_id"]) for p in pages] == [("Targets A", True, 0)]
    assert pages[0]["stable_page_id"] == result["stable_page_id"]
    assert (result["stable_page_id"], "page") in seen
    page = await manager.current_page()
    assert await _eval(page, "document.querySelector('h1').textContent") == "Targets A"
    caps = manager.capabilities()
    assert caps["activeTarget"] == "launch" and caps["launch"] == {**caps["launch"], "active": True, "running": True}
    assert caps["cdp"]["attached"] is False


async def test_launch_tab_limit_closes_the_oldest(http_server, tmp_path):
    manager = BrowserManager(TargetSettings(max_launch_tabs=3))
    try:
        await manager.navigate(http_server.url("/targets/a.html"))
        first = (await manager.current_page()).stable_page_id
        for _ in range(3):
            newest = await manager.new_page(http_server.url("/targets/b.html"))
        pages = await manager.list_pages()
        assert len(pages) == 3
        assert first not in [p["stable_page_id"] for p in pages]
        assert [p["stable_page_id"] for p in pages if p["selected"]] == [newest.stable_page_id]
        async with cdp_core.connect(manager.launch.cdp_url) as browser:
            assert len(await browser.pages()) == 3
    finally:
        await manager.close()


async def test_launch_downloads_are_saved_under_downloads_dir(manager, http_server, tmp_path):
    from httpserver import Reply

    http_server.route(
        "/targets/download",
        Reply(200, "id;name\n123;ACME\n", "text/csv", {"Content-Disposition": 'attachment; filename="report.csv"'}),
    )
    await manager.navigate(http_server.url("/targets/b.html"))
    page = await manager.current_page()
    await page.session.send("Runtime.evaluate", {"expression": "document.querySelector('#dl').click()"})
    saved = tmp_path / "downloads" / "report.csv"
    for _ in range(500):  # the click is ours (CDP); the download is the browser's
        if manager.launch.downloads:
            break
        await asyncio.sleep(0.02)
    await manager.launch.wait_downloads()
    assert saved.read_text() == "id;name\n123;ACME\n"
    assert manager.launch.downloads[-1]["path"] == str(saved)


async def test_internal_browser_crash_relaunches_on_next_call(manager, http_server):
    await manager.navigate(http_server.url("/targets/a.html"))
    old = await manager.current_page()
    try:
        await manager.launch.browser.send("Browser.crash", timeout=2)
    except cdp_core.CDPException:
        pass
    for _ in range(200):
        if manager.launch.lost is not None:
            break
        await asyncio.sleep(0.02)
    assert manager.launch.lost is not None
    assert old.closed
    status = await manager.status()  # reports the loss without relaunching
    assert status["currentPage"] is None and status["currentPageError"]["code"] == "BROWSER_DISCONNECTED"
    assert manager.launch.launches == 1

    result = await manager.navigate(http_server.url("/targets/b.html"))

    assert result["title"] == "Targets B" and result["relaunched"] is True
    assert manager.launch.launches == 2
    page = await manager.current_page()
    assert page.stable_page_id != old.stable_page_id
    assert await _eval(page, "document.title") == "Targets B"


# -- policies (launch only) ---------------------------------------------------------------


async def test_allowed_urls_block_navigation_redirects_and_subresources(http_server):
    from httpserver import Reply

    other = f"http://localhost:{http_server.port}"
    http_server.route("/targets/hop", Reply(302, "", headers={"Location": other + "/targets/b.html?via=hop"}))
    http_server.route(
        "/targets/mixed.html",
        Reply(200, f'<title>Mixed</title><img src="{other}/targets/pixel.png?mixed=1">'),
    )
    manager = BrowserManager(TargetSettings(allowed_urls=[http_server.base + "/"]))
    try:
        await manager.navigate(http_server.url("/targets/a.html"))
        page = await manager.current_page()

        direct = await _failure(manager.navigate(other + "/targets/b.html?via=direct"))
        assert direct.code == "BLOCKED_BY_POLICY"
        assert "ALLOWED_URLS" in direct.message
        via_redirect = await _failure(manager.navigate(http_server.url("/targets/hop")))
        assert via_redirect.code == "BLOCKED_BY_POLICY"

        await manager.navigate(http_server.url("/targets/mixed.html"))
        assert await _eval(page, "document.images[0].complete && document.images[0].naturalWidth") == 0

        served = [(r.path, r.query) for r in http_server.requests]
        assert ("/targets/b.html", {"via": ["hop"]}) not in served
        assert ("/targets/b.html", {"via": ["direct"]}) not in served
        assert ("/targets/pixel.png", {"mixed": ["1"]}) not in served
        assert _request_count(http_server, "/targets/hop") >= 1  # the allowed first hop did go out
        file_url = await _failure(manager.navigate("file:///etc/hostname"))
        assert file_url.code == "BLOCKED_BY_POLICY" and "ALLOW_FILE_URLS" in file_url.message
    finally:
        await manager.close()


async def test_block_media_keeps_images_from_loading(http_server):
    from httpserver import Reply

    http_server.route("/targets/pixel.png", Reply(200, b"\x89PNG\r\n\x1a\n", "image/png"))
    manager = BrowserManager(TargetSettings(block_media=True))
    try:
        before = _request_count(http_server, "/targets/pixel.png")
        await manager.navigate(http_server.url("/targets/media.html"))
        page = await manager.current_page()
        for _ in range(100):  # the page's own fetch proves the page ran; the image must not be served
            if any(r.path == "/targets/ping" and r.query.get("from") == ["media"] for r in http_server.requests):
                break
            await asyncio.sleep(0.02)
        assert await _eval(page, "document.title") == "Media"
        assert _request_count(http_server, "/targets/pixel.png") == before
    finally:
        await manager.close()


# -- attaching to the user's Chrome ---------------------------------------------------------


async def test_attach_sees_the_users_tabs_without_touching_them(manager, http_server, fresh_chromium):
    await _user_tabs(fresh_chromium, [http_server.url(p) for p in USER_TABS])
    # The user types into the search box before we attach.
    async with cdp_core.connect(fresh_chromium.http_url) as user:
        tab = next(t for t in await user.pages() if t["url"].endswith("/targets/a.html"))
        session = await user.attach(tab["targetId"])
        await session.send("Runtime.evaluate", {"expression": "document.querySelector('#q').focus()"})
        await session.send("Input.insertText", {"text": "draft not saved"})
    served_before = {p: _request_count(http_server, p.split("?")[0]) for p in USER_TABS}

    result = await manager.attach_cdp(fresh_chromium.http_url)

    assert result["target"] == "cdp" and result["capturedSince"] == result["attachedAt"]
    urls = sorted(p["url"] for p in result["pages"])
    assert urls == sorted(http_server.url(p) for p in USER_TABS)
    assert sum(p["selected"] for p in result["pages"]) == 1
    assert manager.launch.context is None  # attaching never starts the internal browser

    selected = await manager.select_page(url_contains="/targets/a.html")
    page = await manager.current_page()
    assert selected["selected"]["stable_page_id"] == page.stable_page_id
    assert await _eval(page, "document.querySelector('#q').value") == "draft not saved"
    edit = await manager.select_page(url_contains="edit.cfm?id=123")
    assert edit["selected"]["title"] == "Modifica cliente"
    assert await _eval(await manager.current_page(), "document.getElementById('cid').textContent") == "123"

    # Nothing was reloaded or navigated, no tab opened or closed.
    assert {p: _request_count(http_server, p.split("?")[0]) for p in USER_TABS} == served_before
    assert len(await cdp_core.list_targets(fresh_chromium.http_url)) == 3
    caps = manager.capabilities()
    assert caps["cdp"] == {**caps["cdp"], "attached": True, "active": True, "cdpUrl": fresh_chromium.http_url}


async def test_ambiguous_url_leaves_selection_unchanged(manager, http_server, fresh_chromium):
    await _user_tabs(fresh_chromium, [http_server.url(p) for p in USER_TABS])
    await manager.attach_cdp(fresh_chromium.http_url)
    await manager.select_page(title_contains="Modifica")
    before = (await manager.current_page()).stable_page_id

    failure = await _failure(manager.select_page(url_contains=".html"))

    assert failure.code == "AMBIGUOUS_MATCH"
    candidates = failure.details["candidates"]
    assert sorted(c["title"] for c in candidates) == ["Targets A", "Targets B"]
    assert (await manager.current_page()).stable_page_id == before
    assert [p["stable_page_id"] for p in await manager.list_pages() if p["selected"]] == [before]
    missing = await _failure(manager.select_page(title_contains="no such title"))
    assert missing.code == "PAGE_NOT_FOUND" and "list_pages" in missing.hint
    assert (await manager.current_page()).stable_page_id == before


async def test_tab_closed_between_list_and_select(manager, http_server, fresh_chromium):
    ids = await _user_tabs(fresh_chromium, [http_server.url(p) for p in USER_TABS])
    await manager.attach_cdp(fresh_chromium.http_url)
    pages = await manager.list_pages()
    doomed = next(p for p in pages if p["targetId"] == ids[1])
    async with cdp_core.connect(fresh_chromium.http_url) as user:  # the user closes the tab
        await user.close_target(ids[1])
    for _ in range(100):
        if manager.cdp.registry.by_target_id(ids[1]) is None:
            break
        await asyncio.sleep(0.02)

    by_index = await _failure(manager.select_page(page_id=doomed["page_id"]))
    by_stable = await _failure(manager.select_page(stable_page_id=doomed["stable_page_id"]))

    assert by_index.code == by_stable.code == "PAGE_CLOSED"
    assert "list_pages" in by_index.hint
    listed = await manager.list_pages()
    assert [p["targetId"] for p in listed] == [p["targetId"] for p in pages if p["targetId"] != ids[1]]
    assert [p["page_id"] for p in listed] == [0, 1]
    assert (await manager.select_page(page_id=1))["selected"]["targetId"] == listed[1]["targetId"]


async def test_new_user_tab_appears_in_next_listing(manager, http_server, fresh_chromium):
    await _user_tabs(fresh_chromium, [http_server.url("/targets/a.html")])
    calls: list[tuple[str, str]] = []

    async def listener(page, session, kind):
        calls.append((page.stable_page_id, kind))

    manager.add_session_listener(listener)
    first = await manager.attach_cdp(fresh_chromium.http_url)
    await cdp_core.new_tab(fresh_chromium.http_url, http_server.url("/targets/b.html"))

    pages = await manager.list_pages()

    assert len(pages) == 2
    assert pages[0]["stable_page_id"] == first["pages"][0]["stable_page_id"]
    assert [p["selected"] for p in pages] == [True, False]  # a new tab never steals the selection
    assert pages[1]["url"] == http_server.url("/targets/b.html")
    assert calls == [(pages[0]["stable_page_id"], "page"), (pages[1]["stable_page_id"], "page")]


async def test_late_listener_is_called_for_existing_sessions(manager, http_server, fresh_chromium):
    await _user_tabs(fresh_chromium, [http_server.url(p) for p in USER_TABS])
    await manager.attach_cdp(fresh_chromium.http_url)
    calls: list[str] = []

    async def late(page, session, kind):
        calls.append(page.stable_page_id)

    manager.add_session_listener(late)
    await manager.cdp.hub.settle()

    assert sorted(calls) == sorted(p["stable_page_id"] for p in await manager.list_pages())


async def test_cross_origin_iframe_gets_a_child_session_before_it_runs(manager, http_server, fresh_chromium):
    iframe_sessions: list[Any] = []
    child_requests: list[str] = []

    async def listener(page, session, kind):
        if kind == "iframe":
            iframe_sessions.append(session)
            session.on("Network.requestWillBeSent", lambda ev: child_requests.append(ev.params["request"]["url"]))
            await session.send("Network.enable")

    manager.add_session_listener(listener)
    await _user_tabs(fresh_chromium, [http_server.url("/targets/a.html")])
    await manager.attach_cdp(fresh_chromium.http_url)
    # After we attached, the user opens a tab and goes to the page with the cross-origin frame.
    # (A tab created *with* a URL runs before any client can pause it: its capture starts at
    # its attachedAt, a few ms late; here the page is already attached when the frame appears.)
    tab = await cdp_core.new_tab(fresh_chromium.http_url, "about:blank")
    assert len(await manager.list_pages()) == 2
    async with cdp_core.connect(fresh_chromium.http_url) as user:
        user_session = await user.attach(tab.id)
        await user_session.send("Page.navigate", {"url": http_server.url("/targets/frame_parent.html")})
    for _ in range(250):
        if any("/targets/ping" in u for u in child_requests):
            break
        await asyncio.sleep(0.02)

    # The frame's first fetch ran after our listener enabled Network on its session.
    assert any(u.endswith("/targets/ping?from=child") for u in child_requests)
    assert len(iframe_sessions) == 1
    where = await iframe_sessions[0].send("Runtime.evaluate", {"expression": "location.href", "returnByValue": True})
    assert where["result"]["value"] == f"http://localhost:{http_server.port}/targets/frame_child.html"
    pages = await manager.list_pages()
    assert [p["title"] for p in pages] == ["Targets A", "Frame parent"]
    # The frame's own session (the one websocket's flattened session) reads its document.
    who = await iframe_sessions[0].send(
        "Runtime.evaluate", {"expression": "document.querySelector('#who').textContent", "returnByValue": True}
    )
    assert who["result"]["value"] == "child on localhost"


async def test_launch_iframe_child_session_and_selected_frame(manager, http_server):
    """The out-of-process iframe gets its own session; the frame select_frame picks is reached through ours."""
    from mcp_server.input.frames import find_frame, frame_document

    WHO = "function() { const e = this.querySelector('#who'); return e ? e.textContent : null; }"  # noqa: N806
    kinds: list[str] = []

    async def listener(page, session, kind):
        kinds.append(kind)

    manager.add_session_listener(listener)
    await manager.navigate(http_server.url("/targets/frame_parent.html"))
    page = await manager.current_page()

    async def who(frame_id: str | None) -> str | None:
        ref = await find_frame(page, frame_id)
        assert ref is not None
        document = await frame_document(ref)
        reply = await ref.session.send(
            "Runtime.callFunctionOn",
            {"objectId": document, "functionDeclaration": WHO, "returnByValue": True},
        )
        return reply["result"].get("value")

    frame_ids: list[str] = []
    for _ in range(250):
        frame_ids = [r.target_info.get("targetId") for r in page.sessions if r.kind == "iframe"]
        if not frame_ids:  # same-process frame in this launch: take its id from the frame tree
            tree = (await page.session.send("Page.getFrameTree"))["frameTree"]
            frame_ids = [c["frame"]["id"] for c in tree.get("childFrames", [])]
        if frame_ids and await who(frame_ids[0]) == "child on localhost":
            break
        await asyncio.sleep(0.02)
    page.active_frame = frame_ids[0]

    assert await who(page.active_frame) == "child on localhost"
    assert "iframe" in kinds
    await manager.select_page(stable_page_id=page.stable_page_id)
    assert page.active_frame is None
    main = await find_frame(page, page.active_frame)
    assert main is not None and main.session is page.session and await who(None) is None


async def test_detach_leaves_the_users_chrome_and_tabs_alive(manager, http_server, fresh_chromium):
    ids = await _user_tabs(fresh_chromium, [http_server.url(p) for p in USER_TABS])
    await manager.attach_cdp(fresh_chromium.http_url)
    await manager.select_page(url_contains="b.html")
    page = await manager.current_page()
    assert page.title == "Targets B"

    result = await manager.detach_cdp()

    assert result["detached"] is True and result["activeTarget"] is None
    assert fresh_chromium.alive
    listed = await cdp_core.list_targets(fresh_chromium.http_url)
    assert sorted(t.id for t in listed) == sorted(ids)
    assert sorted(t.url for t in listed) == sorted(http_server.url(p) for p in USER_TABS)
    assert page.closed
    caps = manager.capabilities()
    assert caps["activeTarget"] is None and caps["cdp"]["attached"] is False
    assert (await _failure(manager.detach_cdp())).code == "NOT_ATTACHED"
    # Reads after an explicit detach say so instead of starting the internal browser.
    assert (await _failure(manager.current_page(launch_if_needed=False))).code == "NOT_ATTACHED"
    assert (await _failure(manager.current_page())).code == "NOT_ATTACHED"
    assert manager.launch.context is None
    # The same Chrome can be attached again.
    again = await manager.attach_cdp(fresh_chromium.http_url)
    assert len(again["pages"]) == 3


async def test_switch_launch_cdp_launch_in_one_process(manager, http_server, fresh_chromium):
    await _user_tabs(fresh_chromium, [http_server.url("/targets/clienti/edit.cfm?id=123")])
    await manager.navigate(http_server.url("/targets/a.html"))
    launch_page = await manager.current_page()

    await manager.attach_cdp(fresh_chromium.http_url)
    cdp_page = await manager.current_page()
    assert cdp_page.target == "cdp" and cdp_page.url.endswith("edit.cfm?id=123")
    assert manager.capabilities()["launch"]["running"] is True  # the internal browser stays alive

    back = await manager.use_launch_browser()

    assert back["target"] == "launch"
    page = await manager.current_page()
    assert page is launch_page and not page.closed
    assert await _eval(page, "document.title") == "Targets A"
    assert manager.launch.launches == 1
    caps = manager.capabilities()
    assert caps["activeTarget"] == "launch" and caps["cdp"]["attached"] is True and caps["cdp"]["active"] is False
    # Navigating now happens in the internal browser; the user's tab is untouched.
    await manager.navigate(http_server.url("/targets/b.html"))
    assert [t.url for t in await cdp_core.list_targets(fresh_chromium.http_url)] == [
        http_server.url("/targets/clienti/edit.cfm?id=123")
    ]


async def test_close_launch_promotes_cdp_and_close_chrome_is_refused(manager, http_server, fresh_chromium):
    await _user_tabs(fresh_chromium, [http_server.url("/targets/a.html")])
    await manager.navigate(http_server.url("/targets/b.html"))
    await manager.attach_cdp(fresh_chromium.http_url)
    await manager.use_launch_browser()

    refused = await _failure(manager.close_browser_target("cdp", close_chrome=True))
    assert refused.code == "NOT_ALLOWED"
    assert manager.capabilities()["cdp"]["attached"] is True and fresh_chromium.alive

    closed = await manager.close_browser_target("launch")

    assert closed["closed"] is True and closed["activeTarget"] == "cdp"
    assert (await manager.current_page()).url.endswith("/targets/a.html")
    assert manager.capabilities()["launch"]["running"] is False
    detached = await manager.close_browser_target("cdp")
    assert detached["detached"] is True and fresh_chromium.alive
    assert manager.active_target is None


async def test_attach_with_close_inactive_closes_the_launch_browser(manager, http_server, fresh_chromium):
    await _user_tabs(fresh_chromium, [http_server.url("/targets/a.html")])
    await manager.navigate(http_server.url("/targets/b.html"))
    await manager.attach_cdp(fresh_chromium.http_url, close_inactive=True)
    assert manager.capabilities()["launch"]["running"] is False
    assert manager.active_target == "cdp"


# -- failures -------------------------------------------------------------------------------


def _closed_loopback_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_attach_when_nothing_listens(manager):
    port = _closed_loopback_port()

    failure = await _failure(manager.attach_cdp(f"http://127.0.0.1:{port}"))

    assert failure.code == "CDP_UNREACHABLE"
    assert f"--remote-debugging-port={port}" in failure.hint and "--user-data-dir=" in failure.hint
    assert manager.active_target is None and manager.capabilities()["cdp"]["attached"] is False


async def test_non_loopback_cdp_url_is_refused(manager):
    failure = await _failure(manager.attach_cdp("http://debug-box.invalid:9222"))
    assert failure.code == "NOT_ALLOWED" and "ALLOW_REMOTE_CDP" in failure.hint
    assert manager.active_target is None


async def test_default_target_cdp_attaches_on_first_use(http_server, fresh_chromium):
    await _user_tabs(fresh_chromium, [http_server.url("/targets/a.html")])
    manager = BrowserManager(TargetSettings(default_target="cdp", cdp_url=fresh_chromium.http_url))
    try:
        assert manager.active_target is None  # a configured URL never attaches by itself
        page = await manager.current_page()
        assert page.target == "cdp" and page.url.endswith("/targets/a.html")
        assert manager.launch.context is None
    finally:
        await manager.close()
    assert fresh_chromium.alive and len(await cdp_core.list_targets(fresh_chromium.http_url)) == 1


async def test_users_chrome_restarted_on_the_same_port(manager, http_server):
    port_holder = StablePort()
    port = await port_holder.start()
    url = f"http://127.0.0.1:{port}"
    chrome = await ChromiumProcess.astart()
    try:
        port_holder.upstream = chrome.port
        await _user_tabs(chrome, [http_server.url("/targets/a.html")])
        await manager.attach_cdp(url)
        old = await manager.current_page()
        chrome.kill()
        for _ in range(250):
            if manager.cdp.lost is not None:
                break
            await asyncio.sleep(0.02)

        lost = await _failure(manager.current_page())
        assert lost.code == "BROWSER_DISCONNECTED" and "attach_cdp" in lost.hint and url in lost.message
        assert (await _failure(manager.list_pages())).code == "BROWSER_DISCONNECTED"
        assert old.closed
        assert manager.capabilities()["cdp"]["attached"] is False

        chrome = await ChromiumProcess.astart()
        port_holder.upstream = chrome.port
        await _user_tabs(chrome, [http_server.url("/targets/b.html")])
        again = await manager.attach_cdp(url)
        assert [p["title"] for p in again["pages"]] == ["Targets B"]
        page = await manager.current_page()
        assert page.stable_page_id != old.stable_page_id
        assert await _eval(page, "document.title") == "Targets B"
    finally:
        await manager.detach_cdp()
        await port_holder.close()
        chrome.stop()


async def test_attach_to_a_chrome_without_tabs_is_refused(manager, fresh_chromium):
    async with cdp_core.connect(fresh_chromium.http_url) as user:
        for tab in await user.pages():
            await user.close_target(tab["targetId"])
    for _ in range(100):
        if not await cdp_core.list_targets(fresh_chromium.http_url):
            break
        await asyncio.sleep(0.02)
    assert fresh_chromium.alive

    failure = await _failure(manager.attach_cdp(fresh_chromium.http_url))

    assert failure.code == "NO_ACTIVE_PAGE" and "Open a tab" in failure.hint
    assert manager.active_target is None and manager.capabilities()["cdp"]["attached"] is False
    assert await cdp_core.list_targets(fresh_chromium.http_url) == []  # we did not open one


async def test_status_reports_the_current_page_without_side_effects(manager, http_server, fresh_chromium):
    idle = await manager.status()
    assert idle["currentPage"] is None and idle["activeTarget"] is None
    assert manager.launch.context is None  # status never starts a browser

    await _user_tabs(fresh_chromium, [http_server.url(p) for p in USER_TABS])
    await manager.attach_cdp(fresh_chromium.http_url)
    chosen = await manager.select_page(url_contains="b.html", bring_to_front=True)
    again = await manager.attach_cdp(fresh_chromium.http_url)  # idempotent: same attachment, same selection
    status = await manager.status()

    assert again["alreadyAttached"] is True
    assert status["currentPage"]["stable_page_id"] == chosen["selected"]["stable_page_id"]
    assert status["currentPage"]["title"] == "Targets B" and status["pageCount"] == 3
    assert status["cdp"]["attachedAt"] <= status["currentPage"]["attachedAt"]
    page = await manager.current_page()
    assert await _eval(page, "document.visibilityState") == "visible"


async def test_a_browser_that_does_not_start_is_a_clear_failure(http_server):
    manager = BrowserManager(TargetSettings(chrome_path="/bin/false"))
    try:
        failure = await _failure(manager.navigate(http_server.url("/targets/a.html")))
        assert failure.code == "LAUNCH_FAILED" and "/bin/false" in failure.message
        assert manager.active_target is None and manager.capabilities()["launch"]["running"] is False
    finally:
        await manager.close()


async def test_a_browser_that_does_not_start_leaves_no_allowed_urls_proxy_listening(http_server, monkeypatch):
    """The ALLOWED_URLS proxy starts before the browser: a failed start must close it, not leave a port open."""
    from targets.policies import policy_proxy

    ports: list[int] = []
    real_start = policy_proxy.PolicyProxy.start

    async def start(self: policy_proxy.PolicyProxy) -> int:
        ports.append(await real_start(self))
        return ports[-1]

    monkeypatch.setattr(policy_proxy.PolicyProxy, "start", start)
    manager = BrowserManager(TargetSettings(chrome_path="/bin/false", allowed_urls=[http_server.base]))
    try:
        failure = await _failure(manager.navigate(http_server.url("/targets/a.html")))
        assert failure.code == "LAUNCH_FAILED" and ports
        assert manager.launch.proxy is None
        with pytest.raises(OSError):  # nobody listens there any more
            _reader, writer = await asyncio.open_connection("127.0.0.1", ports[-1])
            writer.close()
    finally:
        await manager.close()


async def test_attach_starts_on_the_tab_the_user_looks_at(manager, http_server, fresh_chromium):
    ids = await _user_tabs(fresh_chromium, [http_server.url(p) for p in USER_TABS])
    async with cdp_core.connect(fresh_chromium.http_url) as user:  # the user clicks on the middle tab
        session = await user.attach(ids[1])
        await session.send("Page.bringToFront")
        await session.send("Runtime.evaluate", {"expression": "window.focus()"})

    result = await manager.attach_cdp(fresh_chromium.http_url)

    assert [p["targetId"] for p in result["pages"] if p["selected"]] == [ids[1]]
    assert manager.state()["cdp"]["selected"] == (await manager.current_page()).stable_page_id


async def test_navigation_failures_are_reported_and_the_users_chrome_needs_no_playwright(
    manager, http_server, fresh_chromium
):
    import time as _time

    from httpserver import Reply

    def slow(_req):
        _time.sleep(1.5)
        return Reply(200, "<title>Slow</title>")

    http_server.route("/targets/slow", slow)
    await manager.navigate(http_server.url("/targets/a.html"))
    timeout = await _failure(manager.navigate(http_server.url("/targets/slow"), timeout_ms=300))
    assert timeout.code == "TIMEOUT"
    refused = await _failure(manager.navigate(f"http://127.0.0.1:{_closed_loopback_port()}/"))
    assert refused.code == "NAVIGATION_FAILED" and "ERR_CONNECTION_REFUSED" in refused.message
    assert (await _failure(manager.navigate("a.html"))).code == "INVALID_ARGUMENT"
    assert (await _failure(manager.navigate(http_server.url("/"), wait_until="idle"))).code == "INVALID_ARGUMENT"
    done = await manager.navigate(http_server.url("/targets/b.html"), wait_until="networkidle")
    assert done["title"] == "Targets B" and done["status"] == 200

    await _user_tabs(fresh_chromium, [http_server.url("/targets/a.html")])
    await manager.attach_cdp(fresh_chromium.http_url)
    moved = await manager.navigate(http_server.url("/targets/clienti/edit.cfm?id=7"), wait_until="domcontentloaded")
    assert moved["target"] == "cdp" and moved["title"] == "Modifica cliente"
    assert [t.url for t in await cdp_core.list_targets(fresh_chromium.http_url)] == [moved["url"]]
