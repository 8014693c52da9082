"""Benchmark: how long a read waits while a long call runs, cancellation, progress gaps (issue 17).

Run: ``.venv/bin/python tests/bench/long_work_bench.py [--reads 30] [--wait-s 6]``

One headless Chromium with one tab served on 127.0.0.1, the server in process, a real MCP
client over JSON-RPC framing (in memory). Printed, in one run:

- the latency of reads (console_list, network_list, get_capabilities, list_pages,
  get_browser_status) when idle, during a long ``wait_for``, and during a ``page`` call that
  holds the page (a script awaiting a promise), with the locks as declared; then the same
  during the wait with every action forced to ``state`` (what one lock for every call did
  before issue 17). Ratios are against the idle reads.
- cancel -> page free: from the client's cancel to the server holding nothing (N runs).
- the largest gap between two progress notifications of a ``wait_for`` (promise: < 1 s).
- ``tools/list`` latency of a second client while a runaway caller regex ``(a+)+b`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from faults_util import UserTabs  # noqa: E402
from httpserver import TestServer  # noqa: E402
from mcp.client import Client  # noqa: E402

from cdp_core.chromium import ChromiumProcess  # noqa: E402
from mcp_server.evidence import capture  # noqa: E402
from mcp_server.server.app import BrowserMCP  # noqa: E402
from mcp_server.server.settings import Settings  # noqa: E402
from targets import BrowserManager  # noqa: E402

READS = ["console_list", "network_list", "get_capabilities", "list_pages", "get_browser_status"]


def _stats(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"p50 {statistics.median(ms):7.1f} ms  p95 {p95:7.1f} ms  max {ms[-1]:7.1f} ms  (n={len(ms)})"


async def _call(client: Client, action: str, **args: Any) -> Any:
    tool = "browser_interact" if action in ("click", "fill", "hover") else "browser_session"
    return await client.call_tool(tool, {"action": action, **args})


async def _reads(client: Client, n: int, until: asyncio.Future[Any] | None = None) -> list[float]:
    out: list[float] = []
    for i in range(n):
        if until is not None and until.done():
            break
        t = time.perf_counter()
        result = await _call(client, READS[i % len(READS)])
        out.append(time.perf_counter() - t)
        assert not result.is_error, result.content[0].text
    return out


async def main(args: argparse.Namespace) -> None:
    chrome = ChromiumProcess.start()
    http = TestServer().start()
    config = Settings(artifact_dir=Path("/tmp/long-work-bench-artifacts"))
    manager = BrowserManager(config.target_settings())
    capture.install(manager, config)
    app = BrowserMCP(config, manager)
    try:
        user = UserTabs(chrome.http_url)
        tab = await user.open(http.url("/faults/tab.html?name=bench"))
        await user.close_all_but({tab})
        async with Client(app.build(), mode="legacy") as client:
            assert not (await _call(client, "attach_cdp", cdp_url=chrome.http_url)).is_error
            await _reads(client, 10)  # warm-up
            idle = await _reads(client, args.reads)
            print(f"reads, idle:                           {_stats(idle)}")

            wait_args = {"text": "never on the page", "timeout_ms": int(args.wait_s * 1000)}
            waiter = asyncio.ensure_future(_call(client, "wait_for", **wait_args))
            await asyncio.sleep(0.3)
            during = await _reads(client, args.reads, waiter)
            await waiter
            print(f"reads, during a {args.wait_s:g} s wait_for:         {_stats(during)}")

            holder = asyncio.ensure_future(_call(client, "evaluate_js", expression="await new Promise(() => {})"))
            await asyncio.sleep(0.3)
            held = await _reads(client, args.reads)
            holder.cancel()
            print(f"reads, while a script holds the page:  {_stats(held)}")

            # the same reads with one lock for every call (every action declared "state"): before issue 17
            saved = {name: route.actions for name, route in app.routes.items() if route.spec is None}
            for route in app.routes.values():
                if route.spec is None:
                    route.actions = {k: dataclasses.replace(v, lock="state") for k, v in route.actions.items()}
            waiter = asyncio.ensure_future(_call(client, "wait_for", **{**wait_args, "timeout_ms": 3000}))
            await asyncio.sleep(0.3)
            serial = await _reads(client, 3, waiter)
            await waiter
            for name, actions in saved.items():
                app.routes[name].actions = actions
            print(f"reads, 3 s wait_for, one lock for all: {_stats(serial)}")
            print(
                f"ratio during wait / idle (p50): {statistics.median(during) / statistics.median(idle):.2f}x; "
                f"one-lock / declared locks (p50): {statistics.median(serial) / statistics.median(during):.0f}x"
            )

            freed: list[float] = []
            for _ in range(args.cancels):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(lambda: _call(client, "evaluate_js", expression="await new Promise(() => {})"))
                    while not app.locks.busy():
                        await asyncio.sleep(0.005)
                    await asyncio.sleep(0.2)
                    t = time.perf_counter()
                    tg.cancel_scope.cancel()
                while app.locks.busy() or app.running:
                    await asyncio.sleep(0.0005)
                freed.append(time.perf_counter() - t)
            print(f"cancel -> page free:                   {_stats(freed)}")

            stamps: list[float] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                stamps.append(time.perf_counter())

            start = time.perf_counter()
            await client.call_tool(
                "browser_session",
                {"action": "wait_for", **wait_args, "timeout_ms": 5000},
                progress_callback=on_progress,
            )
            gaps = [b - a for a, b in zip([start, *stamps], stamps, strict=False)]
            print(f"progress of a 5 s wait_for: {len(stamps)} notifications, largest gap {max(gaps) * 1000:.0f} ms")

        # a runaway caller regex: another client's tools/list meanwhile
        tab2 = await user.open(http.url("/a.html?q=" + "a" * 20000))
        await user.close_all_but({tab2})
        async with Client(app.build(), mode="legacy") as first, Client(app.build(), mode="legacy") as second:
            await _call(first, "list_pages")
            await _call(first, "select_page", url_contains="/a.html")
            lists: list[float] = []
            regex = asyncio.ensure_future(_call(first, "wait_for", url_matches="(a+)+b", timeout_ms=10000))
            while not regex.done():
                t = time.perf_counter()
                await second.list_tools()
                lists.append(time.perf_counter() - t)
            outcome = (await regex).structured_content.get("code")
            print(f"tools/list during a runaway regex ({outcome}): {_stats(lists)}")
    finally:
        await manager.close()
        http.stop()
        chrome.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reads", type=int, default=30)
    parser.add_argument("--wait-s", type=float, default=6.0)
    parser.add_argument("--cancels", type=int, default=10)
    anyio.run(main, parser.parse_args())
