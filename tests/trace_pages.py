"""The slow "report page" the trace tests load: a 300 ms busy loop and 20 fetches.

Shared by the cdp_core-level and the MCP-level trace tests (and the trace benchmark).
"""

from __future__ import annotations

import asyncio
from typing import Any

from httpserver import Reply, TestServer

BUSY_MS = 300
FETCHES = 20

PAGE = f"""<!doctype html>
<html><head><title>Slow report</title><script src="/trace/app.js"></script></head>
<body><h1>Quarterly report</h1><div id="rows"></div>
<script>
for (let i = 0; i < {FETCHES}; i++) {{
  fetch('/trace/data?i=' + i).then(r => r.text()).then(t => {{
    document.getElementById('rows').textContent += t;
    window.fetchesDone = (window.fetchesDone || 0) + 1;
  }});
}}
</script></body></html>"""

APP = f"""function busyLoop() {{
  const t0 = performance.now();
  while (performance.now() - t0 < {BUSY_MS}) {{}}
  window.busyDone = true;
}}
window.addEventListener('load', () => setTimeout(busyLoop, 20));
"""


async def wait_busy_done(session: Any, timeout: float = 20.0) -> None:
    """Wait until the busy loop has run and every fetch finished (polling; no fixed sleep, so a
    slow CI cannot race it: under load the fetches may still be in flight after the loop)."""
    done = f"!!window.busyDone && window.fetchesDone === {FETCHES}"
    async with asyncio.timeout(timeout):
        while True:
            reply = await session.send("Runtime.evaluate", {"expression": done, "returnByValue": True})
            if reply["result"].get("value"):
                return
            await asyncio.sleep(0.05)


def install(server: TestServer) -> str:
    """Register the routes; return the page URL."""
    server.route("/trace/report.html", Reply(200, PAGE))
    server.route("/trace/app.js", Reply(200, APP, "application/javascript"))
    server.route("/trace/data", Reply(200, "row;", "text/plain"))
    return server.url("/trace/report.html")
