"""network_clear clears what that session sees, never the others' evidence (issue 46).

Two SDK clients on one server and one capture: after A's clear, B's list, get and HAR keep
every request; A's list and HAR hold only what came after, and A hears that a cleared id was
cleared.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
from callers_util import sessions
from faults_util import Agent
from lean_util import records


async def urls(agent: Agent, want: str | None = None) -> dict[str, int]:
    """URL -> id of the requests ``agent`` sees (once one ends with ``want``)."""
    with anyio.fail_after(20):
        while True:
            found = {e["url"]: int(e["id"]) for e in records(await agent.s("network_list", limit=500))}
            if want is None or any(u.endswith(want) for u in found):
                return found
            await asyncio.sleep(0.05)


async def test_one_sessions_clear_leaves_the_others_requests_whole(http_server: Any, tmp_path: Any) -> None:
    async with sessions(tmp_path / "artifacts", "a", "b") as (a, b):
        await a.s("navigate", url=http_server.url("/golden/debug.html"))
        await b.s("use_launch_browser")  # B has its own active target: it joins the internal browser
        await b.s("select_page_by_title", title_contains="Golden debugger")
        await a.js("fetch('/a.html?ordine=1').then(r => r.text())")
        before = await urls(b, "/a.html?ordine=1")
        assert any(u.endswith("/golden/debug.js") for u in before), before

        cleared = await a.s("network_clear")
        assert cleared["cleared"] == len(before), cleared
        assert await urls(a) == {}
        assert await urls(b) == before  # B's evidence whole

        script = next(i for u, i in before.items() if u.endswith("/golden/debug.js"))
        gone = await a.err("network_get", "ENTRY_NOT_FOUND", id=script)
        assert "was cleared" in gone["message"], gone
        await a.err("network_save_body", "ENTRY_NOT_FOUND", id=script)
        assert (await b.s("network_get", id=script))["entry"]["url"].endswith("/golden/debug.js")

        await b.js("fetch('/a.html?ordine=2').then(r => r.text())")
        after = await urls(a, "/a.html?ordine=2")
        assert [u.rsplit("/", 1)[-1] for u in after] == ["a.html?ordine=2"], after
        assert set(await urls(b, "/a.html?ordine=2")) == {*before, *after}

        # The HAR of each session is its own view.
        assert (await a.s("network_export_har"))["entries"] == 1
        assert (await b.s("network_export_har"))["entries"] == len(before) + 1
