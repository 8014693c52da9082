"""Debug points are the session's own (issue 46): each session lists and clears its points only.

Two SDK clients on one server, one page: B's point is not in A's list (only counted, as it still
acts on the page); A's clear without id leaves B's point recording hits; A may not remove B's
point by id; when B's session is forgotten its points go, and with the last point the Debugger
goes off and the page is as it was.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
from callers_util import CallerAgent, sessions
from lean_util import records

from mcp_server.evidence.debug_points import existing
from targets.callers import acting_as


async def logged(agent: CallerAgent, want: int) -> list[str]:
    """The logpoint texts on the page, once ``want`` arrived."""
    with anyio.fail_after(20):
        while True:
            found = [e["text"] for e in records(await agent.s("console_list", types=["logpoint"], limit=500))]
            if len(found) >= want:
                return found
            await asyncio.sleep(0.05)


async def test_each_session_lists_and_clears_its_own_points(http_server: Any, tmp_path: Any) -> None:
    async with sessions(tmp_path / "artifacts", "a", "b") as (a, b):
        await a.s("navigate", url=http_server.url("/golden/debug.html"))
        await b.s("use_launch_browser")  # B has its own active target: it joins the internal browser
        await b.s("select_page_by_title", title_contains="Golden debugger")
        mine = (await a.s("debug_logpoint", source="/golden/debug.js", line=5, expression="'A', sum"))["point"]
        theirs = (await b.s("debug_logpoint", source="/golden/debug.js", line=4, expression="'B', sum"))["point"]

        listed = await a.s("debug_list")
        assert [p["id"] for p in records(listed, "points")] == [mine["id"]], listed
        assert listed["otherSessionPoints"] == 1 and "1 point(s) of other sessions" in a.last_text
        assert [p["id"] for p in records(await b.s("debug_list"), "points")] == [theirs["id"]]

        # B's point is B's: A can neither remove it by id nor stack a point on its line.
        refused = await a.err("debug_clear", "NOT_ALLOWED", id=theirs["id"])
        assert "another session" in refused["message"], refused
        same_line = await a.err("debug_logpoint", "INVALID_ARGUMENT", source="/golden/debug.js", line=4, expression="1")
        assert "another session" in same_line["message"], same_line
        assert [p["id"] for p in records(await b.s("debug_list"), "points")] == [theirs["id"]]

        # A's clear without id: A's point goes, B's stays and keeps recording hits.
        cleared = await a.s("debug_clear")
        assert cleared["removed"] == 1 and cleared["debuggerOn"] and cleared["otherSessionPoints"] == 1, cleared
        assert records(await a.s("debug_list"), "points") == []
        assert await a.js("total([3, 4])") == 7
        hits = await logged(b, 1)
        assert hits == ["'B'=B, sum=7"], hits  # B's logpoint at line 4; A's at line 5 logged nothing
        assert await logged(a, 1) == hits  # hits are console entries: shared capture
        row = records(await b.s("debug_list"), "points")[0]
        assert row["hits"] == 1, row

        # B's session ends: the server forgets it, its points go, and the Debugger with the last one.
        with acting_as(b.caller):
            page = await b.manager.current_page(launch_if_needed=False)
        points = existing(page)
        assert points is not None
        owner = points.points[theirs["id"]].owner
        binding = points.binding
        assert await a.js(f"typeof globalThis[{binding!r}]") == "function"
        await points.forget_caller(owner)
        assert points.points == {} and not points.active
        off = await a.s("debug_list")
        assert not off.get("debuggerOn") and "the Debugger is off" in a.last_text, off
        assert await a.js(f"typeof globalThis[{binding!r}]") == "undefined"  # the page as it was
