"""console_list types=["issue"]: DevTools Issues (the Audits domain) in the console timeline.

Real Chromium, pages served on two loopback origins (two ports), driven through a real MCP
client: a cross-origin fetch without CORS headers, a cookie refused for SameSite=None without
Secure, an inline script blocked by CSP, broken form labels, a deprecated API. The parsing of
the kinds a loopback test cannot provoke (mixed content needs https, heavy ads need the ad
tagger) is checked on the protocol's own payload shapes.
"""

from __future__ import annotations

import anyio
from faults_util import UserTabs, serving
from httpserver import Reply, TestServer
from lean_util import records

from cdp_core.recorders.console.audits import IssueTracker, issue_entry

FORM_PAGE = """<!doctype html><title>Legacy form</title>
<form action="/save">
  <label for="customer_code">Code</label><input id="code" name="code">
  <input id="qty" name="qty"><input id="qty" name="qty2">
</form>"""

CSP_PAGE = """<!doctype html><title>CSP</title>
<p>strict</p>
<script>document.title = 'inline ran';</script>"""


async def _issues(agent, count: int, **filters) -> list[dict]:
    """The issue entries, once at least ``count`` arrived (Chrome reports some a moment later)."""
    with anyio.fail_after(15):
        while True:
            entries = records(await agent.s("console_list", types=["issue"], limit=200))
            # an answer leaves out false values (mcp_server/answers/lean.py): absent means False
            if len([e for e in entries if all(e.get(k, False) == v for k, v in filters.items())]) >= count:
                return entries
            await anyio.sleep(0.1)


async def test_cors_issue_from_a_cross_origin_fetch_names_the_request(http_server, tmp_path):
    api = TestServer().start()  # the second origin: same host, another port
    try:
        api.route("/api/orders", Reply(200, '{"orders": []}', "application/json"))
        http_server.route("/issues/app", Reply(200, "<!doctype html><title>App</title>"))
        async with serving(tmp_path / "artifacts") as agent:
            await agent.s("navigate", url=http_server.url("/issues/app"))
            outcome = await agent.js(f"fetch('{api.url('/api/orders')}').then(r => r.status, e => e.name)")
            assert outcome == "TypeError"  # what the page's code sees: no reason at all

            cors = [e for e in await _issues(agent, 1, kind="cors") if e["kind"] == "cors"]
            assert len(cors) == 1
            issue = cors[0]
            assert issue["type"] == "issue" and issue["severity"] == "error"
            assert issue["reason"] == "MissingAllowOriginHeader"
            assert issue["request"]["url"] == api.url("/api/orders")
            assert "Access-Control-Allow-Origin" in issue["text"] and api.url("/api/orders") in issue["text"]
            # The request it concerns is one network_get away.
            request = (await agent.s("network_get", id=issue["request"]["networkId"]))["entry"]
            assert request["url"] == api.url("/api/orders")

            listing = await agent.call("browser_session", action="console_list", types=["issue"])
            line = next(line for line in listing.content[0].text.splitlines() if "[issue]" in line)
            assert "CORS blocked" in line and f"network #{issue['request']['networkId']}" in line
            # Merged into the console timeline: the unfiltered listing has it too, in order.
            everything = records(await agent.s("console_list"))
            assert issue["id"] in [e["id"] for e in everything]
            assert all(e["type"] != "issue" for e in records(await agent.s("console_list", types=["error"])))
    finally:
        api.stop()


async def test_cookie_csp_form_and_deprecation_issues_in_the_users_chrome(fresh_chromium, http_server, tmp_path):
    http_server.route(
        "/issues/csp",
        Reply(
            200,
            CSP_PAGE,
            headers={"Content-Security-Policy": "script-src 'self'", "Set-Cookie": "tracking=1; SameSite=None"},
        ),
    )
    http_server.route("/issues/form", Reply(200, FORM_PAGE))
    http_server.route("/issues/sync", Reply(200, "ok", "text/plain"))
    http_server.route("/issues/front", Reply(200, "<!doctype html><title>Front</title>"))
    user = UserTabs(fresh_chromium.http_url)
    work = await user.open(http_server.url("/issues/csp"))  # loaded before we attach
    front = await user.open(http_server.url("/issues/front"))
    await user.close_all_but({work, front})

    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="CSP")
        assert await agent.js("document.visibilityState") == "hidden"  # a background tab
        # What the page's renderer noticed before we attached comes back, marked as replayed.
        early = await _issues(agent, 1, kind="csp", replayed=True)
        csp = next(e for e in early if e["kind"] == "csp")
        assert csp["severity"] == "error" and csp["reason"] == "kInlineViolation"
        assert "script-src" in csp["text"] and "inline script" in csp["text"]
        assert csp["at"] == "/issues/csp:3"  # on the list's page: its path (console_get has the column)
        assert csp["element"] == "script" and "[script]" in csp["text"]
        assert await agent.js("document.title") == "CSP"  # the inline script really was blocked

        # The browser-side ones (a refused cookie) come with the next load: the agent reloads.
        await agent.s("reload")
        fresh = await _issues(agent, 1, kind="cookie", replayed=False)
        cookie = next(e for e in fresh if e["kind"] == "cookie")
        assert cookie["reason"] == "ExcludeSameSiteNoneInsecure" and cookie["severity"] == "error"
        assert cookie["cookie"]["name"] == "tracking" and "SameSite=None without Secure" in cookie["text"]
        assert cookie["request"]["url"] == "/issues/csp" and cookie["request"]["networkId"]
        assert len([e for e in fresh if e["kind"] == "csp"]) == 2  # the new document's own, once more

        await agent.s("navigate", url=http_server.url("/issues/form"))
        forms = [e for e in await _issues(agent, 3, kind="form") if e["kind"] == "form"]
        by_reason: dict[str, list[dict]] = {}
        for entry in forms:
            by_reason.setdefault(entry["reason"], []).append(entry)
        dup = by_reason["FormDuplicateIdForInputError"]
        assert sorted(e["element"] for e in dup) == ["input#qty name=qty", "input#qty name=qty2"]
        assert "share this id" in dup[0]["text"] and "[input#qty" in dup[0]["text"]
        label = by_reason["FormLabelForMatchesNonExistingIdError"][0]
        assert label["element"] == "label for=customer_code" and label["severity"] == "warning"
        # Chrome reruns its form checks: the same issue is listed once per document.
        count = len(forms)
        await agent.js("document.body.append(document.createElement('div')); 1")
        await anyio.sleep(0.5)
        again = [e for e in records(await agent.s("console_list", types=["issue"], limit=200)) if e["kind"] == "form"]
        assert len(again) == count

        await agent.js(
            "(() => { const x = new XMLHttpRequest(); x.open('GET', '/issues/sync', false); x.send(); return 1 })()"
        )
        deprecation = [e for e in await _issues(agent, 1, kind="deprecation") if e["kind"] == "deprecation"][-1]
        assert deprecation["reason"].startswith("XMLHttpRequestSynchronous") and deprecation["severity"] == "warning"
        assert "Deprecated" in deprecation["text"]


async def test_a_flood_of_one_issue_is_capped_and_counted(http_server, tmp_path):
    inputs = "".join(f'<input id="dup" name="f{i}">' for i in range(40))
    http_server.route("/issues/flood", Reply(200, f"<!doctype html><title>Flood</title><form>{inputs}</form>"))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/issues/flood"))
        await agent.js("console.error('the real error'); 1")
        entries = await _issues(agent, 10, reason="FormDuplicateIdForInputError")
        with anyio.fail_after(10):
            while True:
                dup = [e for e in entries if e.get("reason") == "FormDuplicateIdForInputError"]
                if dup and dup[-1].get("omitted") == 30:
                    break
                await anyio.sleep(0.1)
                entries = records(await agent.s("console_list", types=["issue"], limit=200))
        assert len(dup) == 10  # 40 inputs share the id: 10 listed, the last one counts the other 30
        errors = records(await agent.s("console_list", types=["error"]))
        assert [e["text"] for e in errors if "favicon" not in str(e.get("at"))] == ["the real error"]


# -- the kinds a loopback page cannot provoke, on the protocol's payload shapes (pure logic) ------


def test_mixed_content_heavy_ad_and_unknown_issues_read_well():
    mixed = issue_entry(
        {
            "code": "MixedContentIssue",
            "details": {
                "mixedContentIssueDetails": {
                    "resourceType": "Script",
                    "resolutionStatus": "MixedContentBlocked",
                    "insecureURL": "http://cdn.example/legacy.js",
                    "mainResourceURL": "https://erp.example/orders",
                    "request": {"requestId": "7.3", "url": "http://cdn.example/legacy.js"},
                }
            },
        }
    )
    assert mixed["kind"] == "mixedContent" and mixed["severity"] == "error"
    assert (
        mixed["text"]
        == "Mixed content blocked: Script http://cdn.example/legacy.js on the https page https://erp.example/orders"
    )
    assert mixed["request"] == {"url": "http://cdn.example/legacy.js", "requestId": "7.3"}

    ad = issue_entry(
        {
            "code": "HeavyAdIssue",
            "details": {
                "heavyAdIssueDetails": {
                    "resolution": "HeavyAdBlocked",
                    "reason": "CpuPeakLimit",
                    "frame": {"frameId": "F1"},
                }
            },
        }
    )
    assert ad["kind"] == "heavyAd" and ad["severity"] == "error" and ad["frameId"] == "F1"
    assert ad["text"] == "Heavy ad removed: the ad frame used too much CPU at its peak"

    report_only = issue_entry(
        {
            "code": "ContentSecurityPolicyIssue",
            "details": {
                "contentSecurityPolicyIssueDetails": {
                    "blockedURL": "https://tracker.example/p.js",
                    "violatedDirective": "script-src-elem",
                    "isReportOnly": True,
                    "contentSecurityPolicyViolationType": "kURLViolation",
                }
            },
        }
    )
    assert report_only["severity"] == "warning" and "reported (report-only)" in report_only["text"]

    third_party = issue_entry(
        {
            "code": "CookieIssue",
            "details": {
                "cookieIssueDetails": {
                    "cookie": {"name": "sso", "domain": ".idp.example", "path": "/"},
                    "cookieWarningReasons": ["WarnThirdPartyPhaseout"],
                    "cookieExclusionReasons": [],
                    "operation": "ReadCookie",
                }
            },
        }
    )
    assert third_party["severity"] == "warning" and third_party["text"] == (
        "Cookie 'sso' sent with a warning: third-party cookie that Chrome is phasing out"
    )

    future = issue_entry({"code": "ShinyNewIssue", "details": {"shinyNewIssueDetails": {"reason": "Something"}}})
    assert future["kind"] == "shinyNew" and future["text"] == "Shiny new: reason=Something"


def test_repeats_are_dropped_and_a_new_document_starts_afresh():
    tracker = IssueTracker()
    tracker.request_ids = {"9.1": 4}.get
    issue = {
        "code": "CorsIssue",
        "details": {
            "corsIssueDetails": {
                "corsErrorStatus": {"corsError": "HeaderDisallowedByPreflightResponse", "failedParameter": "x-token"},
                "isWarning": False,
                "request": {"requestId": "9.1", "url": "http://127.0.0.1:2/api"},
            }
        },
    }
    first = tracker.entry(issue, session=None)  # type: ignore[arg-type]
    assert first is not None and first["request"]["networkId"] == 4
    assert "(x-token)" in first["text"] and first["text"].endswith("(network #4)")
    assert tracker.entry(issue, session=None) is None  # type: ignore[arg-type]
    tracker.forget()
    assert tracker.entry(issue, session=None) is not None  # type: ignore[arg-type]
