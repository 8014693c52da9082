"""What chrome-devtools-mcp shows of a minified page's stacks, and whether its page keeps running.

Run: ``.venv/bin/python -m bench.peer_source_maps`` (needs the peers installed: ``make bench-peers``
installs them under bench/peers).

The user's Chrome (a headless Chromium with a debugging port) has the order form of
tests/pages/sourcemap open; chrome-devtools-mcp attaches, the order fails again, and the
script prints the peer's console stacks (compare with ours in tests/mcp_server/evidence/test_source_mapped_stacks.py:
``validateOrder (…/orders.js:14:…) [generated t …/orders.min.js:1:…]``). Then the page runs
its ``debugger;`` statement from another CDP client: a page whose Debugger pauses would not
answer within 5 s. Everything stays on 127.0.0.1; HOME points at a temporary folder.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from httpserver import Reply, TestServer  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

import cdp_core  # noqa: E402
from cdp_core import ChromiumProcess  # noqa: E402

PAGE = '<!doctype html><title>orders</title><script src="/sourcemap/orders.min.js"></script>'
EXE = ROOT / "bench" / "peers" / "node_modules" / ".bin" / "chrome-devtools-mcp"


async def main() -> None:
    if not EXE.exists():
        raise SystemExit(f"chrome-devtools-mcp is not installed at {EXE} (make bench-peers)")
    server = TestServer().start()
    server.route("/sm/page.html", Reply(200, PAGE))
    server.route("/sm/api/orders", Reply(200, "{}", "application/json"))
    chrome = ChromiumProcess.start()
    home = tempfile.mkdtemp(prefix="peer-home-")
    try:
        tab = await cdp_core.new_tab(chrome.http_url, server.url("/sm/page.html"))
        await asyncio.sleep(1.0)
        env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": home, "XDG_CACHE_HOME": home}
        args = ["--browserUrl", chrome.http_url, "--no-usage-statistics", "--no-performance-crux"]
        params = StdioServerParameters(command=str(EXE), args=args, env=env)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as peer:
            await peer.initialize()
            pages = (await peer.call_tool("list_pages", {})).content[0].text
            page_id = int(re.search(r"(\d+): orders", pages).group(1))
            await peer.call_tool("select_page", {"pageId": page_id})
            async with cdp_core.connect(chrome.http_url) as user:  # the user presses "order" again
                session = await user.attach(tab.id)
                await session.send("Runtime.evaluate", {"expression": "setTimeout(() => submitOrder(), 0); 1"})
            await asyncio.sleep(1.0)
            print((await peer.call_tool("list_console_messages", {"pageId": page_id})).content[0].text)
            for msgid in (1, 2):
                reply = await peer.call_tool("get_console_message", {"pageId": page_id, "msgid": msgid})
                print(reply.content[0].text)
            async with cdp_core.connect(chrome.http_url) as user:
                session = await user.attach(tab.id)
                expression = "const before = window.ticks; pauseForDebugger(); [before, window.ticks]"
                try:
                    reply = await session.send(
                        "Runtime.evaluate", {"expression": expression, "returnByValue": True}, timeout=5
                    )
                    print(f"debugger; statement ran through: ticks {reply['result'].get('value')}")
                except cdp_core.CDPTimeout:
                    print("debugger; statement paused the page (no answer within 5 s)")
    finally:
        chrome.stop()
        server.stop()


if __name__ == "__main__":
    asyncio.run(main())
