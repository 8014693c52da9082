"""A trace of the agent's tab behind the one the person looks at says first that its timings are Chrome's throttling.

A phpMyAdmin page traced in a background tab gave load 6.8 s and 5.5 s for 435-byte icons, where the
same page loads in 1.69 s in front; the only warning was "no first contentful paint". In a headful
Chrome (under Xvfb, as a person's) the answers of start, stop and summary now say first, in the text
and as ``visibility`` in the JSON, that the tab was hidden; the person's tab stays in front throughout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from background_tabs import activate, visibility
from faults_util import UserTabs, serving
from httpserver import Reply
from lean_util import record

GIF = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"  # noqa: E501
ICONS = 12
PAGE = "<!doctype html><title>Icons</title><link rel=stylesheet href=/hidtrace/a.css><h1>Icons</h1>" + "".join(
    f"<img src=/hidtrace/icon{i}.gif alt=i{i}>" for i in range(ICONS)
)


def _routes(http_server: Any) -> None:
    http_server.route("/hidtrace/page.html", Reply(200, PAGE))
    http_server.route("/hidtrace/a.css", Reply(200, "h1{color:#333}", content_type="text/css"))
    for i in range(ICONS):
        http_server.route(f"/hidtrace/icon{i}.gif", Reply(200, GIF, content_type="image/gif"))


async def _until_visibility(http_url: str, target_id: str, state: str) -> None:
    """Wait until the tab's page sees ``state`` (the user's click on a tab reaches the page a moment later)."""
    with anyio.fail_after(20):
        while await visibility(http_url, target_id) != state:
            await anyio.sleep(0.05)


async def test_a_trace_of_the_agents_background_tab_says_first_it_was_hidden(users_chrome, http_server, tmp_path: Path):
    _routes(http_server)
    user = UserTabs(users_chrome.http_url)
    front = await user.open(http_server.url("/faults/tab.html?name=front"))
    await activate(users_chrome.http_url, front)
    mine = await user.open(http_server.url("/hidtrace/page.html"), background=True)
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=users_chrome.http_url)
        await agent.s("select_page_by_title", title_contains="Icons")

        started = await agent.call("browser_session", 60, action="performance_start_trace", reload=True)
        assert not started.is_error, agent.last_text
        assert agent.last_text.startswith("The tab is hidden (in the background): Chrome throttles loading and timers")
        assert started.structured_content["visibility"] == "hidden"

        stopped = await agent.s("performance_stop_trace", timeout=120)
        text = agent.last_text
        first = text.splitlines()[0]
        assert first.startswith("The tab was hidden (in the background) for the whole trace: Chrome throttles"), text
        assert "not what the person sees" in first
        assert stopped["visibility"] == "hidden" and "throttles loading and timers" in stopped["warning"]
        assert stopped["message"].startswith("The tab was hidden")  # the JSON's summary line says it too
        # the load was traced: its requests are there, each split into queued and transfer
        summary = stopped["summary"]
        assert summary["requestCount"] >= ICONS
        columns = summary["columns"]["slowestRequests"]
        rows = [record(r, columns) for r in summary["slowestRequests"]]
        assert rows and all("queued" in r and "transfer" in r for r in rows), summary
        for row in rows:
            assert abs(row["queued"] + (row.get("connect") or 0) + row["transfer"] - row["ms"]) <= 2, row
        assert " queued, " in text and " transfer" in text
        if summary.get("fcpMs") is None:  # Chrome paints nothing for a hidden tab: the note says that is why
            assert "the tab was hidden, and Chrome paints no frames for a background tab" in text, text

        again = await agent.s("performance_summary")
        assert again["visibility"] == "hidden" and agent.last_text.startswith("The tab was hidden")

    # nothing the person had was touched: their tab is still the one in front
    assert await visibility(users_chrome.http_url, front) == "visible"
    assert await visibility(users_chrome.http_url, mine) == "hidden"


async def test_a_tab_shown_during_the_trace_is_partly_hidden_and_one_in_front_says_nothing(
    users_chrome, http_server, tmp_path: Path
):
    _routes(http_server)
    user = UserTabs(users_chrome.http_url)
    http = users_chrome.http_url
    front = await user.open(http_server.url("/faults/tab.html?name=front"))
    await activate(http, front)
    mine = await user.open(http_server.url("/hidtrace/page.html"), background=True)
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=http)
        await agent.s("select_page_by_title", title_contains="Icons")
        await agent.s("performance_start_trace")
        # the person looks at the agent's tab for a moment, then goes back to theirs
        await activate(http, mine)
        await _until_visibility(http, mine, "visible")
        await activate(http, front)
        await _until_visibility(http, front, "visible")
        await _until_visibility(http, mine, "hidden")
        stopped = await agent.s("performance_stop_trace", timeout=120)
        assert stopped["visibility"] == "partly hidden", agent.last_text
        states = [c["state"] for c in stopped["visibilityChanges"]]
        assert states == ["hidden", "visible", "hidden"], stopped["visibilityChanges"]
        times = [c["atMs"] for c in stopped["visibilityChanges"]]
        assert times == sorted(times) and times[0] == 0
        assert agent.last_text.startswith(
            "The tab was hidden (in the background) for part of the trace (hidden at 0 ms,"
        )

        # in front the whole trace: nothing is said about visibility
        await activate(http, mine)
        await _until_visibility(http, mine, "visible")
        await agent.s("performance_start_trace")
        shown = await agent.s("performance_stop_trace", timeout=120)
        assert "visibility" not in shown and "warning" not in shown, shown
        assert "hidden" not in agent.last_text.split("\n", 1)[0]
