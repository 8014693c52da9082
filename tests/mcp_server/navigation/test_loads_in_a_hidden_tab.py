"""A load in the agent's background tab says first that Chrome throttles loading there.

Chrome holds a hidden tab's requests in its queue and wakes its timers once a second, so how long a
load took there is not how long it takes the person (phpMyAdmin: 6.8 s behind another tab, 1.69 s in
front). Every answer that reports a load's time (navigate still loading at the call bound, wait_for a
load state or an idle network) says so first, in the text and as ``visibility`` in the JSON; a wait for
text (the page's own doing) and a tab in front say nothing of it. Headful, as a person's Chrome.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
from background_tabs import activate, visibility
from faults_util import UserTabs, serving
from httpserver import Reply

NOTE = "The tab is hidden (in the background): Chrome throttles loading and timers in a background tab"


async def test_load_answers_of_a_background_tab_say_it_is_hidden_first(users_chrome, http_server, tmp_path: Path):
    release = threading.Event()

    def held_image(_req: Any) -> Reply:
        release.wait(60)
        return Reply(200, b"GIF89a", "image/gif")

    http_server.route("/hidload/start.html", Reply(200, "<title>Start</title><p>start</p>"))
    http_server.route("/hidload/page.html", Reply(200, "<title>Held</title><p>text</p><img src='/hidload/held.gif'>"))
    http_server.route("/hidload/held.gif", held_image)
    http = users_chrome.http_url
    user = UserTabs(http)
    front = await user.open(http_server.url("/faults/tab.html?name=front"))
    await activate(http, front)
    mine = await user.open(http_server.url("/hidload/start.html"), background=True)
    try:
        async with serving(tmp_path / "artifacts", max_call_seconds=3) as agent:
            await agent.s("attach_cdp", cdp_url=http)
            await agent.s("select_page_by_title", title_contains="Start")
            with anyio.fail_after(30):
                first = await agent.call(
                    "browser_session",
                    30,
                    action="navigate",
                    url=http_server.url("/hidload/page.html"),
                    timeout_ms=90000,
                )
            sc = first.structured_content
            assert not first.is_error and sc["status"] == "waiting", agent.last_text
            assert agent.last_text.startswith(NOTE) and "still loading: navigate" in agent.last_text.splitlines()[1]
            assert sc["visibility"] == "hidden" and "not what the person sees" in sc["warning"]
            assert sc["message"].startswith("The tab is hidden")

            # a wait for text is the page's doing: no note
            await agent.s("wait_for", text="text")
            assert not agent.last_text.startswith("The tab is hidden")

            release.set()
            done = await agent.s("wait_for", load_state="load", timeout_ms=2500)
            assert done["visibility"] == "hidden" and done["state"]["readyState"] == "complete"
            assert agent.last_text.startswith(NOTE) and agent.last_text.splitlines()[1].startswith("condition met")
            idle = await agent.s("wait_for", network_idle=True, idle_ms=100, timeout_ms=2500)
            assert idle["visibility"] == "hidden"

            # the person looks at the agent's tab: the same wait says nothing of throttling
            await activate(http, mine)
            with anyio.fail_after(20):
                while await visibility(http, mine) != "visible":
                    await anyio.sleep(0.05)
            shown = await agent.s("wait_for", load_state="load", timeout_ms=2500)
            assert "visibility" not in shown and agent.last_text.startswith("condition met")
    finally:
        release.set()
