"""The page cannot forge logpoint hits through the debug binding it can see.

Third attack review: ``__mcpDebug_<hex>`` is a global; the page found it and called it with a live
point's id, and those calls counted as hits (``hits 8/5``) with values of the page's choosing.
Each record now carries the point's nonce, which lives only in the breakpoint's condition.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from faults_util import serving
from httpserver import Reply
from lean_util import records

APP_JS = "function logged(n) {\n  return n + 1;\n}\n"
FORGE = """(() => {
  const name = Object.getOwnPropertyNames(globalThis).find(n => n.startsWith("__mcpDebug_"));
  for (let i = 0; i < 8; i++) globalThis[name](JSON.stringify({p: 1, n: i + 1, v: ["forged by the page"]}));
  globalThis[name].c1 = -1000;  // and the counter the condition keeps
  return name;
})()"""


async def test_the_page_calling_the_binding_is_no_hit(http_server, tmp_path: Path):
    http_server.route("/forge/app.js", Reply(200, APP_JS, "application/javascript"))
    http_server.route("/forge/page.html", Reply(200, "<title>forge</title><script src=app.js></script>"))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/forge/page.html"))
        point = await agent.s("debug_logpoint", source="app.js", line=2, expression="n", max_hits=5)
        assert point["point"]["id"] == 1, point
        assert str(await agent.js(FORGE)).startswith("__mcpDebug_")
        for n in range(10):
            await agent.js(f"logged({n})")
        await asyncio.sleep(0.5)
        logged = records(await agent.s("console_list", types=["logpoint"], limit=100))
        texts = [e["text"] for e in logged]
        assert not any("forged" in t for t in texts), texts
        # the real hits, and the cap holds although the page reset the counter
        assert texts[:5] == [f"n = {n}" for n in range(5)] and len(texts) == 6 and "max_hits=5" in texts[5], texts
        listed = await agent.s("debug_list")
        row = listed["points"][0]
        assert row["hits"] == 5 and row["capped"], row
        await agent.s("debug_clear")
