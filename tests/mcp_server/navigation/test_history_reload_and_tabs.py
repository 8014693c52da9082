"""go_back, go_forward, reload, new_page and close_page, through a real MCP client on real Chromium.

What a user checks: the tab is where the answer says (URL, title, HTTP status), a reload really
asked the server again, a move that has nowhere to go says so, the user's visible tab is never
touched while the agent works in a background one, a new tab opens in the user's Chrome only
because the call asked, and the last tab of the user's Chrome is never closed.
"""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
from faults_util import UserTabs, serving
from httpserver import Reply
from lean_util import records

import cdp_core
from targets.errors import ErrorCode


def _pages(http_server) -> None:
    for name in ("one", "two", "three"):
        http_server.route(f"/hist/{name}", Reply(200, f"<!doctype html><title>Hist {name}</title><p>{name}</p>"))
    http_server.route("/hist/missing", Reply(404, "<!doctype html><title>Gone</title>"))


def _hits(http_server, path: str) -> int:
    return sum(1 for r in http_server.requests if r.path == path)


async def test_back_forward_reload_report_where_the_tab_is(http_server, tmp_path):
    _pages(http_server)
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/hist/one"))
        await agent.s("navigate", url=http_server.url("/hist/missing"))
        await agent.s("navigate", url=http_server.url("/hist/two"))

        back = await agent.s("go_back")
        assert back["url"] == http_server.url("/hist/missing") and back["title"] == "Gone"
        assert back["httpStatus"] == 404 and back["stable_page_id"] == "p1"
        # the message sums it up ("Went back…"), the text says it whole
        assert back["message"].startswith("Went back") and "Went back to" in agent.last_text
        assert "HTTP 404" in agent.last_text
        assert await agent.js("document.title") == "Gone"

        back = await agent.s("go_back")
        assert (back["url"], back["title"], back["httpStatus"]) == (http_server.url("/hist/one"), "Hist one", 200)
        forward = await agent.s("go_forward", wait_until="domcontentloaded")
        assert forward["url"] == http_server.url("/hist/missing") and forward["httpStatus"] == 404

        before = _hits(http_server, "/hist/missing")
        reloaded = await agent.s("reload", ignore_cache=True)
        assert reloaded["url"] == http_server.url("/hist/missing") and reloaded["ignoredCache"] is True
        assert _hits(http_server, "/hist/missing") == before + 1  # the server was asked again
        documents = records(await agent.s("network_list", url_contains="/hist/missing"))
        assert documents[-1]["status"] == 404

        # A same-document entry (pushState, which also drops the forward entries) goes back without a load.
        await agent.js("history.pushState({}, '', '#step2'); 1")
        same = await agent.s("go_back")
        assert same["sameDocument"] is True and same["url"] == http_server.url("/hist/missing")
        assert "same document" in agent.last_text

        assert (await agent.s("go_forward"))["url"] == http_server.url("/hist/missing#step2")
        nowhere = await agent.err("go_forward", ErrorCode.NAVIGATION_FAILED)
        assert "no page to go forward" in nowhere["message"] and "navigate" in nowhere["hint"]
        assert await agent.js("location.href") == http_server.url("/hist/missing#step2")  # nothing moved

        bad = await agent.err("reload", ErrorCode.INVALID_ARGUMENT, wait_until="idle")
        assert bad["errors"][0]["field"] == "wait_until"


async def test_reload_timeout_stops_and_keeps_the_page(http_server, tmp_path):
    import time as _time

    http_server.route("/hist/slow", lambda _req: (_time.sleep(2), Reply(200, "<title>Slow</title>"))[1])
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/hist/slow"), timeout_ms=10000)
        timeout = await agent.err("reload", ErrorCode.TIMEOUT, timeout_ms=300)
        assert "Reload" in timeout["message"] and timeout["stopped"] is True
        assert await agent.js("document.title") == "Slow"  # the page answers and still shows what it showed


class _CacheableSite:
    """Static pages served without ``no-store``, so Chrome may keep them in its back/forward cache."""

    def __init__(self, root: Path) -> None:
        for name in ("a", "b"):
            (root / f"{name}.html").write_text(f"<!doctype html><title>Cached {name}</title>{name}", encoding="utf-8")

        class Quiet(SimpleHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


async def test_back_restored_from_the_back_forward_cache_says_so(fresh_chromium, tmp_path):
    # The user's Chrome keeps pages in its back/forward cache (Playwright's launch turns that cache off).
    site_dir = tmp_path / "site"
    site_dir.mkdir()
    site = _CacheableSite(site_dir)
    try:
        user = UserTabs(fresh_chromium.http_url)
        tab = await user.open(f"{site.base}/a.html")
        await user.close_all_but({tab})
        async with serving(tmp_path / "artifacts") as agent:
            await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
            await agent.js("window.marker = 'kept'; 1")
            await agent.s("navigate", url=f"{site.base}/b.html")
            back = await agent.s("go_back", timeout_ms=10000)
            assert back["url"] == f"{site.base}/a.html" and back["title"] == "Cached a"
            # The very same document came back (its script state is still there) and no load ran:
            # waiting for a load event would have hung until the timeout.
            assert back["fromBackForwardCache"] is True and "back/forward cache" in agent.last_text
            assert await agent.js("window.marker") == "kept"
            assert (await agent.s("go_forward"))["title"] == "Cached b"
    finally:
        site.close()


async def _activate(http_url: str, target_id: str) -> None:
    """The user clicks a tab: it comes to front, the others go to the background."""
    async with httpx.AsyncClient(trust_env=False) as client:
        (await client.put(f"{http_url}/json/activate/{target_id}")).raise_for_status()


async def _visible(http_url: str, target_id: str) -> str:
    async with cdp_core.connect(http_url) as user:
        session = await user.attach(target_id)
        reply = await session.send(
            "Runtime.evaluate", {"expression": "document.visibilityState", "returnByValue": True}
        )
        await session.detach()
        return reply["result"]["value"]


async def test_history_and_reload_in_a_background_tab_of_the_users_chrome(users_chrome, http_server, tmp_path):
    _pages(http_server)
    user = UserTabs(users_chrome.http_url)
    work = await user.open(http_server.url("/hist/one"))
    watched = await user.open(http_server.url("/hist/three"))
    await user.close_all_but({work, watched})
    await _activate(users_chrome.http_url, watched)  # the user looks at "three"; the agent works in "one"

    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=users_chrome.http_url)
        await agent.s("select_page_by_title", title_contains="Hist one")
        assert await agent.js("document.visibilityState") == "hidden"
        await agent.s("navigate", url=http_server.url("/hist/two"))
        back = await agent.s("go_back")
        assert (back["url"], back["target"]) == (http_server.url("/hist/one"), "cdp")
        forward = await agent.s("go_forward")
        assert forward["title"] == "Hist two"
        before = _hits(http_server, "/hist/two")
        reloaded = await agent.s("reload")
        assert reloaded["httpStatus"] == 200 and _hits(http_server, "/hist/two") == before + 1
        assert await agent.js("document.visibilityState") == "hidden"  # still in the background

    # The tab the user looks at was never touched, and is still the one in front.
    tabs = {t.id: t.url for t in await cdp_core.list_targets(users_chrome.http_url)}
    assert tabs[watched] == http_server.url("/hist/three") and tabs[work] == http_server.url("/hist/two")
    assert await _visible(users_chrome.http_url, watched) == "visible"


async def test_new_page_and_close_page_in_the_users_chrome(fresh_chromium, http_server, tmp_path):
    _pages(http_server)
    user = UserTabs(fresh_chromium.http_url)
    only = await user.open(http_server.url("/hist/one"))
    await user.close_all_but({only})

    async with serving(tmp_path / "artifacts") as agent:
        attached = await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        mine = attached["selected"]["stable_page_id"]
        assert "otherPages" not in attached  # the one tab

        refused = await agent.err("close_page", ErrorCode.NOT_ALLOWED, stable_page_id=mine)
        assert "last tab" in refused["message"] and "new_page" in refused["hint"]
        assert [t.id for t in await cdp_core.list_targets(fresh_chromium.http_url)] == [only]

        opened = await agent.s("new_page", url=http_server.url("/hist/two"), background=True)
        new_id = opened["page"]["stable_page_id"]
        assert opened["page"]["url"] == http_server.url("/hist/two") and opened["page"]["title"] == "Hist two"
        assert opened["pageCount"] == 2 and "in the background" in opened["message"]
        assert await agent.js("document.title") == "Hist two"  # the new tab is the selected one
        assert await agent.js("document.visibilityState") == "hidden"  # ...and the user still sees theirs
        assert await _visible(fresh_chromium.http_url, only) == "visible"
        status = await agent.s("get_browser_status")
        assert status["browser"]["currentPage"]["stable_page_id"] == new_id
        # What the new tab did is captured from its first request.
        assert records(await agent.s("network_list", url_contains="/hist/two"))[0]["status"] == 200

        closed = await agent.s("close_page", stable_page_id=new_id)
        assert closed["closed"]["stable_page_id"] == new_id and closed["pageCount"] == 1
        assert closed["selected"]["stable_page_id"] == mine
        assert [t.id for t in await cdp_core.list_targets(fresh_chromium.http_url)] == [only]
        gone = await agent.err("close_page", ErrorCode.PAGE_NOT_FOUND, stable_page_id=new_id)
        assert "list_pages" in gone["hint"]
        await agent.err("close_page", ErrorCode.NOT_ALLOWED, stable_page_id=mine)

        # A foreground new tab comes to front, as the user's own Ctrl+T would.
        front = await agent.s("new_page")
        assert front["page"]["url"] == "about:blank" and "background" not in front["message"]
        assert await agent.js("document.visibilityState") == "visible"
        await agent.s("detach_cdp")
    assert fresh_chromium.alive
    assert only in [t.id for t in await cdp_core.list_targets(fresh_chromium.http_url)]


async def test_new_page_in_the_internal_browser_keeps_its_tab_limit(http_server, tmp_path):
    _pages(http_server)
    async with serving(tmp_path / "artifacts") as agent:  # the internal browser keeps at most 3 tabs
        await agent.s("navigate", url=http_server.url("/hist/one"))
        second = await agent.s("new_page", url=http_server.url("/hist/two"))
        await agent.s("new_page", url=http_server.url("/hist/three"))
        fourth = await agent.s("new_page", url=http_server.url("/hist/missing"))
        listing = (await agent.s("list_pages"))["pages"]
        assert [p["title"] for p in listing] == ["Hist two", "Hist three", "Gone"]  # the oldest closed
        assert fourth["page"]["stable_page_id"] == listing[-1]["stable_page_id"] and listing[-1]["selected"]
        closed = await agent.s("close_page", stable_page_id=second["page"]["stable_page_id"])
        assert closed["pageCount"] == 2 and closed["target"] == "launch" and not closed.get("wasSelected")
        for page in (await agent.s("list_pages"))["pages"]:  # the internal browser may lose its last tab
            await agent.s("close_page", stable_page_id=page["stable_page_id"])
        assert (await agent.s("navigate", url=http_server.url("/hist/one")))["title"] == "Hist one"
