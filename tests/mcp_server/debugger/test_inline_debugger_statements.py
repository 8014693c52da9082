"""A ``debugger;`` in an inline script while our points exist: resumed, counted, the page never left paused.

Third attack review: with a logpoint on an external script, a page whose inline ``<script>``
reached ``debugger;`` stayed paused ("1 pause(s) not ours … left to the user's debugger") with no
DevTools open: its timers stopped and every call timed out until ``debug_clear``. The pause
position is in document coordinates and was compared with the inline script's own text, so the
statement looked like another client's breakpoint. Also an anti-debug loop (``debugger`` every
100 ms) is resumed each time and counted beyond the last few it lists.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import anyio
from faults_util import serving
from httpserver import Reply

APP_JS = "function logged(n) {\n  return n + 1;\n}\nsetInterval(() => logged(1), 200);\n"
PAGE = (
    """<!doctype html><title>tick 0</title>
<p>padding so that the inline script starts further into the document</p>
<script src="app.js"></script>
<script>
  var k = 0;
  setInterval(() => { document.title = 'tick ' + (++k); }, 100);
  setTimeout(() => { debugger; }, 1500);
  %s
"""
    + "".join(f"  var pad{n} = {n};  // more lines than the document has before the script\n" for n in range(12))
    + """</script>
"""
)
LOOP = "setTimeout(() => setInterval(() => { debugger; }, 100), 1500);"


async def _ticks(agent, seconds: float) -> tuple[int, int]:
    """The page's tick counter at the start and after ``seconds`` (read through the page's title)."""
    first = int((await agent.js("k")) or 0)
    await asyncio.sleep(seconds)
    return first, int((await agent.js("k")) or 0)


async def _page_with(http_server, agent, name: str, extra: str) -> None:
    http_server.route(f"/inline-dbg/{name}.html", Reply(200, PAGE % extra))
    http_server.route("/inline-dbg/app.js", Reply(200, APP_JS, "application/javascript"))
    await agent.s("navigate", url=http_server.url(f"/inline-dbg/{name}.html"))


async def test_an_inline_debugger_statement_does_not_freeze_the_page(http_server, tmp_path: Path):
    async with serving(tmp_path / "artifacts") as agent:
        await _page_with(http_server, agent, "once", "")
        await agent.s("debug_logpoint", source="app.js", line=2, expression="n")
        await asyncio.sleep(2.5)  # the inline debugger; ran (at 1.5 s) while the point exists
        with anyio.fail_after(60):
            before, after = await _ticks(agent, 1.5)
        assert after - before >= 3, (before, after)  # the timers go on: the page is not paused
        listed = await agent.s("debug_list")
        assert listed["foreignPauseCount"] >= 1, listed
        assert not any("left to the user's debugger" in f for f in listed["foreignPauses"]), listed
        await agent.s("debug_clear")


async def test_an_anti_debug_loop_is_resumed_and_counted(http_server, tmp_path: Path):
    async with serving(tmp_path / "artifacts") as agent:
        await _page_with(http_server, agent, "loop", LOOP)
        await agent.s("debug_logpoint", source="app.js", line=2, expression="n")
        await asyncio.sleep(5.0)
        with anyio.fail_after(60):
            before, after = await _ticks(agent, 1.5)
        assert after - before >= 3, (before, after)
        listed = await agent.s("debug_list")
        assert listed["foreignPauseCount"] > 20, listed  # more than the last pauses it keeps listed
        assert listed["foreignPauseCount"] > len(listed["foreignPauses"])
        await agent.s("debug_clear")
