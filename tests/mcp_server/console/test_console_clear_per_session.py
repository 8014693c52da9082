"""console_clear clears what that session sees, never the others' evidence (issue 46).

Two SDK clients on one server and one capture: A clears, B still lists every entry A had and
can read each; A hears that a cleared id was cleared; what the page logs after the clear shows
to both.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
from callers_util import sessions
from faults_util import Agent
from lean_util import records


async def texts(agent: Agent, want: str | None = None) -> list[str]:
    """The console texts ``agent`` sees (once ``want`` is among them)."""
    with anyio.fail_after(20):
        while True:
            found = [e["text"] for e in records(await agent.s("console_list", limit=500))]
            if want is None or want in found:
                return found
            await asyncio.sleep(0.05)


async def ids(agent: Agent) -> dict[str, int]:
    return {e["text"]: int(e["id"]) for e in records(await agent.s("console_list", limit=500))}


async def test_one_sessions_clear_leaves_the_others_list_whole(http_server: Any, tmp_path: Any) -> None:
    async with sessions(tmp_path / "artifacts", "a", "b") as (a, b):
        await a.s("navigate", url=http_server.url("/golden/debug.html"))
        await b.s("use_launch_browser")  # B has its own active target: it joins the internal browser
        await b.s("select_page_by_title", title_contains="Golden debugger")
        await a.js("console.log('ordine 1'); console.warn('ordine 2'); console.error('ordine 3')")
        assert (await texts(a, "ordine 3"))[-3:] == ["ordine 1", "ordine 2", "ordine 3"]
        before = await ids(b)
        assert {"ordine 1", "ordine 2", "ordine 3"} <= set(before)

        cleared = await a.s("console_clear")
        assert cleared["cleared"] == len(before), cleared
        assert "this session" in a.last_text
        assert await texts(a) == []
        assert await ids(b) == before  # B's evidence whole: every entry, the same ids

        gone = await a.err("console_get", "ENTRY_NOT_FOUND", id=before["ordine 3"])
        assert "was cleared" in gone["message"], gone
        kept = await b.s("console_get", id=before["ordine 3"])
        assert kept["entry"]["text"] == "ordine 3", kept

        # What comes after the clear shows to both.
        await b.js("console.log('ordine 4')")
        assert await texts(a, "ordine 4") == ["ordine 4"]
        assert await texts(b, "ordine 4") == [*before, "ordine 4"]

        # B's own clear hides from B what B saw: A's view stays as it was.
        assert (await b.s("console_clear"))["cleared"] == len(before) + 1
        assert await texts(b) == [] and await texts(a) == ["ordine 4"]
