"""A page that navigates every 50 ms never holds a call for its whole timeout.

The case: ``screenshot`` on a page that reloads itself every 50 ms once hung 60 s holding the lock.
A navigation replaces the document a capture (or a DOM read) works on; the server now notices
the navigation and tries the new document, and answers BUSY once the page has moved under a few
attempts in a row. Every call here is bounded far below the old 60 s (``anyio.fail_after``) and
must answer either with its result or BUSY, never TIMEOUT; the server answers normally after.

Its last navigate once timed out in CI: the page's own reload had replaced ours between our
response and our commit. :class:`MovingPage` makes that race certain: ``navigate`` sends its
navigation again, and says who interrupted it when every attempt loses.
"""

from __future__ import annotations

import re
import threading

import anyio
from background_tabs import activate, front_tab, visibility
from faults_util import UserTabs, serving
from httpserver import Reply
from lean_util import assert_lean

RELOADING = (
    "<title>Reloading</title><p>reloading page</p>"
    "<script>setTimeout(() => location.replace(location.pathname + '?n=' + Date.now()), 50)</script>"
)
BOUND = 30.0  # the old hang was 60 s


async def test_calls_on_a_page_that_keeps_navigating_answer_promptly(http_server, tmp_path):
    http_server.route("/faults/reloading.html", Reply(200, RELOADING))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/faults/reloading.html"), wait_until="commit")
        outcomes = []
        for action, args in [("screenshot", {"full_page": True}), ("screenshot", {}), ("get_dom", {})] * 3:
            with anyio.fail_after(BOUND):
                result = await agent.client.call_tool("browser_session", {"action": action, **args})
            sc = result.structured_content
            if result.is_error:
                assert sc["code"] == "BUSY", (action, result.content[0].text)
                assert "navigat" in sc["message"] and sc["hint"]
            outcomes.append((action, sc.get("code", "ok")))
        assert any(code == "ok" for _, code in outcomes), outcomes  # the page can be read between loads
        await agent.s("navigate", url=http_server.url("/faults/data.json"))
        assert (await agent.s("screenshot"))["bytes"] > 0


EMPTIED = "<title>Emptied</title><p>gone soon</p><script>document.documentElement.remove()</script>"


async def test_get_dom_of_a_document_without_a_root_element_says_so(http_server, tmp_path):
    """Between a navigation's commit and its first element, and after a script empties the page, the
    document has no root: the CI failure answered "no element matches None" (a selector never given)."""
    http_server.route("/faults/emptied.html", Reply(200, EMPTIED))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/faults/emptied.html"))
        result = await agent.client.call_tool("browser_session", {"action": "get_dom"})
        assert not result.is_error, result.content[0].text
        sc, text = result.structured_content, result.content[0].text
        assert sc["html"] == "" and sc["length"] == 0 and sc["url"].endswith("/faults/emptied.html")
        assert "no root element" in text and "None" not in text, text
        missed = await agent.client.call_tool("browser_session", {"action": "get_dom", "selector": "p"})
        assert missed.is_error and missed.structured_content["code"] == "INVALID_ARGUMENT"
        assert "no element matches 'p'" in missed.content[0].text


class MovingPage:
    """A page that navigates itself in the one moment Chrome no longer shields a navigation of ours.

    Chrome drops a page's own navigation (no user gesture) while a navigation we sent waits for its
    response; ``Page.navigate`` answers once the response is in and the navigation leaves that
    shield, and our document commits a moment later. The CI failure was the page's timer firing in
    between. Here that moment is held open, with no timing: when our target is requested the page
    blocks its renderer in a synchronous XHR (so our document cannot commit), the server answers
    the target only once that XHR is held, and the XHR is released when the call's progress says
    the response was received (:meth:`on_progress`). The page then calls ``location.replace`` in the same
    task: its navigation starts after ours answered, ours commits, and the page's commits over it
    (our document's image never arrives, so ours never reaches 'load' on its own).

    The first ``rounds`` requests of the target are interrupted this way; the page each round
    navigates to is the next round's mover, and after the last round a plain page.
    """

    def __init__(self, http_server, rounds: int) -> None:
        self.http_server = http_server
        self.rounds = rounds
        self.asked = [threading.Event() for _ in range(rounds + 1)]  # [i]: target request i arrived
        self.held = [threading.Event() for _ in range(rounds + 1)]  # [i]: mover i blocks its renderer
        self.released = [threading.Event() for _ in range(rounds + 1)]  # [i]: attempt i was answered
        self.done = threading.Event()
        self.requests = 0
        self.target = http_server.url("/faults/moving/target.html")
        http_server.route("/faults/moving/mover.html", self._mover)
        http_server.route("/faults/moving/asked", lambda req: self._wait(self.asked, req))
        http_server.route("/faults/moving/hold", self._hold)
        http_server.route("/faults/moving/target.html", self._target)
        http_server.route("/faults/moving/stuck.gif", self._stuck)

    def mover_url(self, n: int) -> str:
        return self.http_server.url(f"/faults/moving/mover.html?round={n}")

    @staticmethod
    def _round(req) -> int:
        return int(req.query.get("round", ["1"])[0])

    def _mover(self, req) -> Reply:
        n = self._round(req)
        if n > self.rounds:
            return Reply(200, f"<title>Mover {n}</title><p>stays</p>")
        script = (
            f"fetch('/faults/moving/asked?round={n}').then(() => {{"
            f" const x = new XMLHttpRequest(); x.open('GET', '/faults/moving/hold?round={n}', false); x.send();"
            f" location.replace('/faults/moving/mover.html?round={n + 1}'); }});"
        )
        return Reply(200, f"<title>Mover {n}</title><p>moves</p><script>{script}</script>")

    def _wait(self, events: list[threading.Event], req) -> Reply:
        events[self._round(req)].wait(30)
        return Reply(200, "{}", "application/json")

    def _hold(self, req) -> Reply:
        self.held[self._round(req)].set()
        return self._wait(self.released, req)

    def _target(self, _req) -> Reply:
        self.requests += 1
        n = self.requests
        if n > self.rounds:
            return Reply(200, "<title>Target</title><p>target</p>")
        self.asked[n].set()
        self.held[n].wait(30)  # the mover's renderer is blocked: our document cannot commit yet
        return Reply(200, "<title>Target</title><p>target</p><img src='/faults/moving/stuck.gif'>")

    def _stuck(self, _req) -> Reply:
        self.done.wait(60)
        return Reply(200, b"GIF89a", "image/gif")

    async def on_progress(self, value: float, total: float | None, message: str | None) -> None:
        """Release the mover once the call says attempt n got its response (Page.navigate answered)."""
        text = message or ""
        if "response received" in text:
            attempt = re.search(r"attempt (\d+) of", text)
            self.released[int(attempt.group(1)) if attempt else 1].set()

    def close(self) -> None:
        self.done.set()
        for event in self.asked + self.held + self.released:
            event.set()


async def _navigate_with_progress(agent, moving: MovingPage):
    with anyio.fail_after(BOUND * 2):
        return await agent.client.call_tool(
            "browser_session",
            {"action": "navigate", "url": moving.target, "timeout_ms": 20000},
            progress_callback=moving.on_progress,
        )


async def test_navigate_interrupted_by_the_pages_own_navigation_is_sent_again(http_server, tmp_path):
    moving = MovingPage(http_server, rounds=1)
    try:
        async with serving(tmp_path / "artifacts") as agent:
            await agent.s("navigate", url=moving.mover_url(1))
            result = await _navigate_with_progress(agent, moving)
            sc = result.structured_content
            assert not result.is_error, result.content[0].text
            assert sc["url"] == moving.target and sc["title"] == "Target"
            assert sc["interruptedBy"] == [moving.mover_url(2)]  # the page's own navigation, then ours again
            assert await agent.js("document.title") == "Target"
            assert moving.requests == 2
    finally:
        moving.close()


async def test_navigate_interrupted_every_time_answers_with_who_interrupted_it(http_server, tmp_path):
    moving = MovingPage(http_server, rounds=3)
    try:
        async with serving(tmp_path / "artifacts") as agent:
            await agent.s("navigate", url=moving.mover_url(1))
            result = await _navigate_with_progress(agent, moving)
            sc = result.structured_content
            assert result.is_error and sc["code"] == "NAVIGATION_FAILED", result.content[0].text
            assert "interrupted" in sc["message"] and moving.mover_url(4) in sc["message"] and sc["hint"]
            assert sc["interruptedBy"] == [moving.mover_url(n) for n in (2, 3, 4)]
            assert sc["attempts"] == 3 and sc["url"] == moving.target
            assert await agent.js("location.href") == moving.mover_url(4)  # where the answer says the tab is
    finally:
        moving.close()


async def _work_tab_behind_front(fresh_chromium, http_server) -> tuple[str, str]:
    """The user's tab the agent will work in, and the tab in front of it that the user looks at."""
    user = UserTabs(fresh_chromium.http_url)
    work = await user.open(http_server.url("/faults/tab.html?name=work"))
    front = await user.open(http_server.url("/faults/tab.html?name=front"))
    await activate(fresh_chromium.http_url, front)
    return work, front


async def _agent_on_work_tab(agent, fresh_chromium) -> None:
    """Attach to the user's Chrome and select the work tab, which is hidden behind the front one."""
    await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
    await agent.s("select_page_by_url", url_contains="name=work")
    assert await agent.js("document.visibilityState") == "hidden"


def _login_that_redirects(http_server) -> tuple[threading.Event, str, str]:
    """A login page that moves on by script while its image never arrives (its ``load`` never fires)."""
    release = threading.Event()

    def stuck(req) -> Reply:
        release.wait(30)
        return Reply(200, b"GIF89a", "image/gif")

    http_server.route("/faults/login/pixel.gif", stuck)
    http_server.route(
        "/faults/login.html",
        Reply(
            200,
            "<title>Login</title><img src='/faults/login/pixel.gif'>"
            "<script>location.replace('/faults/dashboard.html')</script>",
        ),  # fmt: skip
    )
    http_server.route("/faults/dashboard.html", Reply(200, "<title>Dashboard</title><p>welcome</p>"))
    return release, http_server.url("/faults/login.html"), http_server.url("/faults/dashboard.html")


async def test_a_redirecting_page_in_a_background_tab_of_the_users_chrome(fresh_chromium, http_server, tmp_path):
    """The same in the user's Chrome, in a tab behind the one they look at: followed, and the front tab stays."""
    release, login, dashboard = _login_that_redirects(http_server)
    work, front = await _work_tab_behind_front(fresh_chromium, http_server)
    try:
        async with serving(tmp_path / "artifacts") as agent:
            await _agent_on_work_tab(agent, fresh_chromium)
            with anyio.fail_after(10):
                result = await agent.call("browser_session", action="navigate", url=login, timeout_ms=20000)
            assert not result.is_error, result.content[0].text
            assert result.structured_content["url"] == dashboard
            assert result.structured_content["clientRedirects"] == [dashboard]
            assert await front_tab(fresh_chromium.http_url) == front
            assert await visibility(fresh_chromium.http_url, work) == "hidden"
    finally:
        release.set()


async def test_a_page_that_redirects_itself_before_load_is_followed(http_server, tmp_path):
    """A login page that moves on by script before its ``load`` (an image that never arrives): navigate
    follows it to the page it moved to, at once, instead of waiting its whole timeout for a load that
    will not come; both renderings name where it went."""
    release, login, dashboard = _login_that_redirects(http_server)
    try:
        async with serving(tmp_path / "artifacts") as agent:
            with anyio.fail_after(10):  # the navigate's own timeout is 20 s: waiting for it fails here
                result = await agent.call("browser_session", action="navigate", url=login, timeout_ms=20000)
            sc, text = result.structured_content, result.content[0].text
            assert not result.is_error, text
            assert sc["url"] == dashboard and sc["title"] == "Dashboard", sc
            assert sc["clientRedirects"] == [dashboard]
            assert f"moved on by itself (script or meta refresh) to {dashboard}" in text
    finally:
        release.set()


def _report_that_exports(http_server) -> tuple[str, str, str]:
    """A report page that starts its CSV export by script while it loads, and one that pings an empty 204."""
    http_server.route(
        "/faults/export.csv",
        Reply(200, "id;name\n1;ACME\n", "text/csv", headers={"Content-Disposition": "attachment; filename=r.csv"}),
    )
    http_server.route("/faults/ping", Reply(204, ""))
    http_server.route(
        "/faults/report.html",
        Reply(200, "<title>Report</title><script>location.replace('/faults/export.csv')</script><p>report</p>"),
    )
    http_server.route(
        "/faults/pinging.html",
        Reply(200, "<title>Pinging</title><script>location.href = '/faults/ping'</script><p>pinging</p>"),
    )
    return (
        http_server.url("/faults/report.html"),
        http_server.url("/faults/pinging.html"),
        http_server.url("/faults/export.csv"),
    )


async def test_a_page_that_moves_to_a_download_is_answered_at_once(http_server, tmp_path):
    """location.replace to a CSV export (or to a 204) brings no new page and stops the page's own loading:
    navigate used to wait its whole timeout for a 'load' that never came, then say TIMEOUT. It answers at
    once: the tab is on the report, and both renderings say where the page tried to go and what came of it."""
    report, pinging, export = _report_that_exports(http_server)
    async with serving(tmp_path / "artifacts") as agent:
        for url, target in ((report, export), (pinging, http_server.url("/faults/ping"))):
            with anyio.fail_after(10):  # the navigate's own timeout is 20 s: waiting for it fails here
                result = await agent.call("browser_session", action="navigate", url=url, timeout_ms=20000)
            sc, text = result.structured_content, result.content[0].text
            assert not result.is_error, text
            assert sc["url"] == url and sc["clientRedirectFailed"]["url"] == target, sc
            assert "ERR_ABORTED" in sc["clientRedirectFailed"]["error"]
            assert f"tried to move on by itself to {target}, which brought no new page" in text
            assert "it stays on this page" in text
            page = await agent.s("get_current_page")
            assert page["page"]["url"] == url

        # Sent to an export itself: no page comes, and the answer says where the file went.
        direct = http_server.url("/faults/direct.csv")
        csv = {"Content-Disposition": "attachment; filename=direct.csv"}
        http_server.route("/faults/direct.csv", Reply(200, "id\n1\n", "text/csv", headers=csv))
        refused = await agent.err("navigate", "NAVIGATION_FAILED", url=direct)
        assert "brought no page" in refused["message"] and f"stays on {pinging}" in refused["message"], refused
        assert "read_downloaded_file" in refused["hint"]
        for _ in range(100):
            listed = await agent.s("read_downloaded_file")
            if "direct.csv" in [path for path, _ in listed.get("files", [])]:
                break
            await anyio.sleep(0.05)
        assert "direct.csv" in [path for path, _ in listed["files"]], listed


async def test_a_page_moving_to_an_empty_answer_in_a_background_tab_of_the_users_chrome(
    fresh_chromium, http_server, tmp_path
):
    """The same in the user's Chrome, in a tab behind the one they look at (a 204: no download lands
    in the user's folder): answered at once, the front tab stays in front."""
    _, pinging, _ = _report_that_exports(http_server)
    work, front = await _work_tab_behind_front(fresh_chromium, http_server)
    async with serving(tmp_path / "artifacts") as agent:
        await _agent_on_work_tab(agent, fresh_chromium)
        with anyio.fail_after(10):
            result = await agent.call("browser_session", action="navigate", url=pinging, timeout_ms=20000)
        assert not result.is_error, result.content[0].text
        assert result.structured_content["clientRedirectFailed"]["url"] == http_server.url("/faults/ping")
        assert result.structured_content["url"] == pinging
        assert await front_tab(fresh_chromium.http_url) == front
        assert await visibility(fresh_chromium.http_url, work) == "hidden"


async def test_a_page_that_sends_the_agent_to_the_login_says_the_server_redirected_it(
    fresh_chromium, http_server, tmp_path
):
    """The session expired: the orders page answers 301 to its new address, which answers 302 to the login
    page. navigate 'worked' (HTTP 200, title Login) and said only where it ended; both renderings now name
    each redirect with its status. A navigation without redirects names none, even to a URL an earlier
    navigation was redirected to."""
    http_server.route("/faults/orders.php", Reply(301, "", headers={"Location": "/faults/orders/"}))
    http_server.route("/faults/orders/", Reply(302, "", headers={"Location": "/faults/login.php?expired=1"}))
    http_server.route("/faults/login.php", Reply(200, "<!doctype html><title>Login</title><p>Session expired"))
    await _work_tab_behind_front(fresh_chromium, http_server)
    async with serving(tmp_path / "artifacts") as agent:
        await _agent_on_work_tab(agent, fresh_chromium)
        result = await agent.call("browser_session", action="navigate", url=http_server.url("/faults/orders.php"))
        text, data = result.content[0].text, result.structured_content
        login = http_server.url("/faults/login.php?expired=1")
        assert data["url"] == login and data["httpStatus"] == 200, data
        assert data["redirects"] == [
            {"url": http_server.url("/faults/orders.php"), "status": 301},
            {"url": http_server.url("/faults/orders/"), "status": 302},
        ]
        assert (
            f"redirected by the server from {http_server.url('/faults/orders.php')} (301) -> "
            f"{http_server.url('/faults/orders/')} (302)" in text
        ), text
        assert_lean(result)
        again = await agent.s("navigate", url=login)
        assert "redirects" not in again, again


async def test_a_page_behind_http_authentication_says_it_asks_for_a_sign_in(http_server, tmp_path):
    """An admin area behind HTTP Basic authentication: the internal browser has no one to show Chrome's
    sign-in prompt to, and the answer was a bare net::ERR_INVALID_AUTH_CREDENTIALS. It says what that
    means and that the user can sign in in their own Chrome."""
    http_server.route(
        "/faults/admin/", Reply(401, "<h1>Authorization Required</h1>", headers={"WWW-Authenticate": 'Basic realm="x"'})
    )
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/faults/tab.html?name=start"))
        refused = await agent.err("navigate", "NAVIGATION_FAILED", url=http_server.url("/faults/admin/"))
        assert "asks for a sign-in of its own (HTTP authentication)" in refused["message"], refused
        assert "sign in to that site in their Chrome" in refused["hint"], refused


_CHAIN = """<!doctype html><title>step</title><body><p>step</p><script>
const n = +(new URLSearchParams(location.search).get("n") || 0);
if (n < 150) { location.replace(location.pathname + "?n=" + (n + 1)); }
else { document.title = "arrived"; document.body.insertAdjacentHTML("beforeend", "<p>arrived at the end</p>"); }
</script></body>"""


async def test_wait_for_text_across_the_pages_own_navigations_keeps_polling(http_server, tmp_path):
    """A poll that lands in the page's navigation ("Inspected target navigated or closed") read
    nothing: the wait goes on with the new document instead of failing with CDP_ERROR."""
    http_server.route("/chain/step.html", Reply(200, _CHAIN))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/chain/step.html"), wait_until="commit")
        found = await agent.call("browser_session", action="wait_for", text="arrived at the end", timeout_ms=40000)
        assert not found.is_error, (found.content[0].text, found.structured_content, await agent.js("location.href"))
        assert found.structured_content["state"]["textFound"] is True
