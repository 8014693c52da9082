"""What the page recorded before attach: the person's failed save shows, marked, with its time.

The person's Chrome (a Chromium of the test's own, remote debugging on) loads an app whose page
POSTs a save that answers 500 and then lists with an XHR that answers 200, among a few images,
all before the agent attaches. Capture starts at attach, so none of them has an entry; the page's
own Resource Timing still has them. network_list and debug_bundle show the failed fetch and the
last XHR as from before attach (no headers or bodies) with the time of the save, not the
images; a request made after attach is captured and not repeated there.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from before_attach_app import open_app_before_attach, until_ready
from faults_util import UserTabs, serving
from httpserver import Reply
from lean_util import record, records


def _clock(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%H:%M:%S")


async def test_requests_before_attach_are_shown_marked_with_their_time(fresh_chromium, http_server, tmp_path):
    opened_at = time.time()
    saved_at = await open_app_before_attach(fresh_chromium, http_server)
    assert len(saved_at) == 1  # the person's save ran, before attach
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("select_page", url_contains="/ba/app.html")

        listed = await agent.s("network_list")
        text = agent.last_text
        # nothing of it was captured: capture starts at attach
        assert not any("/ba/" in str(row) for row in listed.get("entries") or []), listed
        before = listed["beforeAttach"]
        # the document, 3 images, the save and the list; the save failed
        assert before["total"] == 6 and before.get("failingCount") == 1, (before, text)
        (failing,) = records(before, "failing")
        assert failing["type"] == "fetch" and failing["status"] == 500 and failing["url"] == "/ba/api/save"
        # its time (ms from capturedSince): after the tab opened, no later than the server saw it
        t_ms = before["failing"][0][3]["t"]
        captured_since = datetime.fromisoformat(listed["capturedSince"].replace("Z", "+00:00")).timestamp()
        at = captured_since + t_ms / 1000
        assert t_ms < 0 and opened_at - 0.01 <= at <= saved_at[0] + 0.01, (opened_at, at, saved_at)
        last = [record(r, before["columns"]) for r in before["lastXhrOrFetch"]]
        assert [(r["type"], r["status"], r["url"]) for r in last] == [("xhr", 200, "/ba/api/list")]
        # the text says the same: marked as before attach, no method, with the save's time; no image listed
        assert "before attach (the page's own Resource Timing: no method, headers or bodies)" in text
        assert f"fetch 500 /ba/api/save at {_clock(at)}" in text, text
        assert "xhr 200 /ba/api/list" in text and ".png" not in text
        assert "ask the person to repeat it" in before["hint"] and before["hint"] in text

        bundle = await agent.s("debug_bundle")
        text = agent.last_text
        assert "/ba/api/save" not in str(bundle["network"])  # not among the captured requests
        part = bundle["beforeAttach"]
        assert [r[:3] for r in part["failing"]] == [["fetch", 500, "/ba/api/save"]]
        assert part["failing"][0][3]["t"] == t_ms
        assert f"the page's fetch /ba/api/save answered 500 at {_clock(at)}" in text
        assert "hint" not in bundle  # the general "captured only since" note gives way to the named request
        assert text.count(part["hint"]) == 1

        # After attach a request is captured, and the record from before attach does not repeat it.
        await agent.js("fetch('/ba/api/save?after=1', {method: 'POST'}).then(r => r.status)")
        again = await agent.s("network_list", url_contains="/ba/api/save")
        captured = records(again)
        assert [(e["method"], e["status"]) for e in captured] == [("POST", 500)], captured
        assert "after=1" in captured[0]["url"]
        earlier = again["beforeAttach"]
        assert earlier["total"] == 1 and [r[2] for r in earlier["failing"]] == ["/ba/api/save"], earlier
        assert "after=1" not in str(earlier)
        # a filter that excludes the old save excludes it from the record too
        errors = await agent.s("network_list", resource_types=["xhr"])
        assert "failing" not in (errors.get("beforeAttach") or {}), errors
        # the method cannot be told from the record: a method filter shows only captured requests
        posts = await agent.s("network_list", method="POST")
        assert "beforeAttach" not in posts and [e["status"] for e in records(posts)] == [500]


async def test_a_full_timing_buffer_is_said(fresh_chromium, http_server, tmp_path):
    """Chrome keeps the first 250 entries: a page past them has lost its latest requests from the record."""
    http_server.route("/ba/tiny", Reply(200, "ok", "text/plain"))
    page = (
        "<!doctype html><title>Busy</title><script>(async () => {"
        " for (let i = 0; i < 260; i++) await (await fetch('/ba/tiny?i=' + i)).text();"
        " document.title = 'Busy ready' })()</script>"
    )
    http_server.route("/ba/busy.html", Reply(200, page))
    await UserTabs(fresh_chromium.http_url).open(http_server.url("/ba/busy.html"))
    await until_ready(fresh_chromium.http_url, "Busy")
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("select_page", url_contains="/ba/busy.html")
        listed = await agent.s("network_list")
        before = listed["beforeAttach"]
        # the document and the 250 resources the buffer holds
        assert before.get("bufferFull") is True and before["total"] == 251, (before, agent.last_text)
        assert "the page's timing buffer is full (250 entries)" in agent.last_text
        assert len(before["lastXhrOrFetch"]) == 3 and "failing" not in before  # lean: not 250 rows
