"""Every number and label in an answer is true, in the user's Chrome, tab in the background.

Each test here would have caught one of the untruths seen on a real Django admin: a bundle
that said "6 error(s)" and listed 5, a POST 500 of the previous page shown as the current
page's, a screenshot failure only in ``notes``, a snapshot diff against a snapshot of another
kind, one HAR page for three navigations with ``onLoad = -1``, token inputs in snapshot values.
(Trace duration: tests/cdp_core/recorders/tracing/test_trace_insights.py; save_path and re-attach:
tests/mcp_server/trace/test_trace_actions.py and
tests/mcp_server/server/test_actions_match_output_schemas.py.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from background_tabs import activate, visibility
from faults_util import UserTabs, serving
from httpserver import Reply, Request
from lean_util import records

ERRORS_ON_500 = 6
TOKEN = "Tk9pZ3Vlc3NpbmdUaGlzVG9rZW4xMjM0NTY3"
API_KEY = "sk_live_4f9a8b7c6d5e4f3a2b1c"


def _route_500(http_server: Any) -> None:
    def save(req: Request) -> Reply:
        script = "".join(f"console.error('save failed {i}');" for i in range(1, ERRORS_ON_500 + 1))
        page = f"<!doctype html><title>Server Error</title><h1>OperationalError</h1><script>{script}</script>"
        return Reply(500, page)

    http_server.route("/truth/save", save)


async def _users_background_tab(chrome: Any, http_server: Any, path: str) -> None:
    user = UserTabs(chrome.http_url)
    tab = await user.open(http_server.url(path))
    front = await user.open(http_server.url("/faults/tab.html?name=front"))
    await activate(chrome.http_url, front)
    assert await visibility(chrome.http_url, tab) == "hidden"


async def test_bundle_counts_page_labels_and_screenshot_are_true(users_chrome, http_server, tmp_path: Path):
    _route_500(http_server)
    await _users_background_tab(users_chrome, http_server, "/truth/form.html")
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=users_chrome.http_url)
        await agent.s("select_page_by_title", title_contains="Edit order")
        saved = await agent.call("browser_interact", action="click", selector="#save")
        assert "POST" in saved.content[0].text and "500" in saved.content[0].text, saved.content[0].text
        await agent.s("wait_for", text="OperationalError")
        await agent.s("navigate", url=http_server.url("/truth/next.html"))

        result = await agent.call("browser_session", action="debug_bundle", include_screenshot=True)
        assert not result.is_error, result.content[0].text
        bundle, text = result.structured_content, result.content[0].text

    # Counts match what is listed: the text lists exactly the entries the JSON has, and the count says so.
    console = bundle["console"]
    errors = records(console, "errors")
    count = console["errorCount"]  # the 6 errors, the 500's "Failed to load resource", maybe a favicon
    assert count == len(errors) >= ERRORS_ON_500
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("console: "))
    section = [line for line in lines[head + 1 :] if line.startswith("  #")][: len(errors)]
    assert lines[head].startswith(f"console: {count} error(s)"), text
    assert [int(line.split()[0][1:]) for line in section] == [e["id"] for e in errors], text
    listed = [line for line in section if "save failed" in line]

    # Entries of the earlier page are labelled with it, in the JSON and the text.
    post = next(e for e in records(bundle["network"], "httpErrors") if e["method"] == "POST")
    assert post["status"] == 500 and post["page"] == "/truth/form.html", post  # on the page's origin: a path
    post_line = next(line for line in text.splitlines() if "POST 500" in line)
    assert "(page /truth/form.html)" in post_line, text
    assert all(e["page"] == "/truth/save" for e in errors if "save failed" in e["text"])
    assert listed and all("(page /truth/save)" in line for line in listed)
    assert bundle["page"]["url"] == http_server.url("/truth/next.html")

    # The screenshot of the hidden tab: a file, or its failure named in the text at once.
    if "screenshot" in bundle:
        assert f"screenshot: {bundle['screenshot']}" in text
    else:
        assert f"screenshot failed: {bundle['screenshotError']}" in text and "background" in text


async def test_snapshot_diff_compares_snapshots_of_the_same_kind(fresh_chromium, http_server, tmp_path: Path):
    await _users_background_tab(fresh_chromium, http_server, "/truth/next.html")
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="Orders")
        await agent.s("snapshot")
        await agent.s("snapshot", interactive_only=True)
        # Nothing changed: a full snapshot diffed against the full one, not the interactive one.
        same = await agent.call("browser_session", action="snapshot", diff=True)
        diff = same.structured_content
        assert diff.get("baseline") and not diff.get("added") and not diff.get("removed") and not diff.get("changed")
        # A kind never taken before has no baseline, and says so instead of listing everything as added.
        first = await agent.call("browser_session", action="snapshot", diff=True, selector="h1")
        assert "baseline" not in first.structured_content  # absent: false
        assert "no earlier snapshot with these options" in first.structured_content["notes"][0]
        assert "no earlier snapshot with these options" in first.content[0].text
        # A real change shows, against the snapshot of the same kind.
        await agent.call("browser_interact", action="click", selector="#add")
        changed = await agent.call("browser_session", action="snapshot", diff=True, interactive_only=True)
        assert "All orders" not in json.dumps(changed.structured_content)  # text lines: not in this kind
        full = await agent.call("browser_session", action="snapshot", diff=True)
        d = full.structured_content
        assert any("Added" in line for line in d["added"]) and any("All orders" in line for line in d["removed"]), d


async def test_har_has_one_page_per_navigation_with_timings(fresh_chromium, http_server, tmp_path: Path):
    _route_500(http_server)
    await _users_background_tab(fresh_chromium, http_server, "/truth/next.html")
    artifacts = tmp_path / "artifacts"
    async with serving(artifacts) as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="Orders")
        await agent.s("navigate", url=http_server.url("/truth/form.html"))
        await agent.call("browser_interact", action="click", selector="#save")
        await agent.s("wait_for", text="OperationalError")
        await agent.s("navigate", url=http_server.url("/truth/next.html?again=1"))
        exported = await agent.s("network_export_har")
    har = json.loads((artifacts / exported["relativePath"]).read_text())["log"]
    pages = har["pages"]
    urls = [p["title"] for p in pages]
    assert urls == [
        http_server.url("/truth/form.html"),
        http_server.url("/truth/save"),
        http_server.url("/truth/next.html?again=1"),
    ], urls
    assert len({p["id"] for p in pages}) == 3
    for page in pages:
        timings = page["pageTimings"]
        assert timings["onContentLoad"] > 0 and timings["onLoad"] >= timings["onContentLoad"], page
    by_page = {p["id"]: [e for e in har["entries"] if e["pageref"] == p["id"]] for p in pages}
    assert [e["request"]["method"] for e in by_page[pages[1]["id"]]][:1] == ["POST"]
    assert all(e["request"]["url"].endswith("/truth/form.html") for e in by_page[pages[0]["id"]])


@pytest.mark.parametrize("engine", ["page", "ax"])
async def test_snapshot_values_of_token_fields_are_redacted(engine, fresh_chromium, http_server, tmp_path: Path):
    await _users_background_tab(fresh_chromium, http_server, "/truth/form.html")
    async with serving(tmp_path / "artifacts", snapshot_engine=engine) as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="Edit order")
        for args in ({}, {"interactive_only": True}):
            result = await agent.call("browser_session", action="snapshot", **args)
            answer = result.content[0].text + json.dumps(result.structured_content)
            assert API_KEY not in answer and TOKEN not in answer
            assert "A-17" in answer  # plain values stay
            line = next(line for line in result.content[0].text.splitlines() if "API key" in line)
            assert "[redacted]" in line, line
        # The agent's own fill of such a field is confirmed without showing the value back.
        filled = await agent.call("browser_interact", action="fill", selector="#api_key", value="sk_test_new_value_99")
        assert "sk_test_new_value_99" not in filled.content[0].text + json.dumps(filled.structured_content)
        snap = await agent.call("browser_session", action="snapshot", interactive_only=True)
        assert "sk_test_new_value_99" not in snap.content[0].text + json.dumps(snap.structured_content)
