"""Benchmark: our recorders vs Playwright's page.on("console") / page.on("requestfinished").

Run: ``.venv/bin/python tests/bench/capture_bench.py [--messages 5000] [--requests 2000] [--rounds 3]``

One headless Chromium, one local HTTP server, the same page and the same bursts for both
sides. The burst is triggered the same way for both (a raw ``Runtime.evaluate`` on a
session with no domain enabled) and the page stamps ``Date.now()`` when it ends; each
side records the wall clock when its last entry is stored. Printed: the latency from the
burst's end to the last entry stored, the total time from the burst's start, and the
peak memory of the Python process while capturing (tracemalloc, in separate runs so it
does not slow the timed ones), plus the RSS growth of Playwright's driver process (its
events cross that node process first). Ratios are ours / Playwright's: lower is better.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import sys
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from httpserver import Reply, TestServer  # noqa: E402
from playwright.async_api import async_playwright  # noqa: E402

import cdp_core  # noqa: E402
from cdp_core import ChromiumProcess  # noqa: E402
from cdp_core.recorders.console import ConsoleRecorder  # noqa: E402
from cdp_core.recorders.network import NetworkRecorder  # noqa: E402

EAGER_BUDGET = 64 * 1024 * 1024  # the default; --no-eager sets 0 to see what eager bodies cost
PAGE = "<!doctype html><title>bench</title><p>bench</p>"


def console_burst(n: int) -> str:
    return (
        "window.__start = Date.now();"
        f"for (let i = 0; i < {n}; i++) console.log('burst ' + i, {{i, name: 'cliente ' + i}});"
        "window.__end = Date.now();"
    )


def network_burst(n: int) -> str:
    batches = max(1, n // 200)
    return f"""(async () => {{
        window.__start = Date.now();
        for (let b = 0; b < {batches}; b++) {{
            const batch = [];
            for (let i = b * 200; i < Math.min({n}, (b + 1) * 200); i++)
                batch.push(fetch('/bench/req?i=' + i).then(r => r.text()));
            await Promise.all(batch);
        }}
        window.__end = Date.now();
    }})()"""


def driver_rss_kib() -> int:
    """Summed VmRSS of our child processes running node (Playwright's driver)."""
    total = 0
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid != me:
                continue
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"node" not in cmd:
                continue
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return total


async def wait_count(count: Callable[[], int], n: int, stamp: list[float], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while count() < n:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {count()} of {n} captured")
        await asyncio.sleep(0.001)
    if not stamp:
        stamp.append(time.time() * 1000)


async def page_times(trigger: cdp_core.CDPSession) -> tuple[float, float]:
    for _ in range(6000):
        reply = await trigger.send(
            "Runtime.evaluate", {"expression": "[window.__start, window.__end]", "returnByValue": True}
        )
        start, end = reply["result"]["value"]
        if end:
            return float(start), float(end)
        await asyncio.sleep(0.01)
    raise RuntimeError("burst never ended")


async def run_ours(browser: cdp_core.Browser, url: str, kind: str, n: int, memory: bool) -> dict[str, float]:
    session = await browser.new_page(url)
    trigger = await browser.attach(session.target_info["targetId"])
    try:
        await asyncio.sleep(0.3)
        gc.collect()
        if memory:
            tracemalloc.start()
        if kind == "console":
            rec: Any = ConsoleRecorder(max_entries=n + 100)
            expression = console_burst(n)

            def count() -> int:
                return len(rec) + rec.evicted
        else:
            rec = NetworkRecorder(max_entries=n + 100, eager_body_budget=EAGER_BUDGET)
            expression = network_burst(n)

            def count() -> int:
                return rec.completed

        await rec.attach(session)
        stamp: list[float] = []
        await trigger.send("Runtime.evaluate", {"expression": expression})
        await wait_count(count, n, stamp)
        if kind == "network":
            await rec.drain()
        peak = 0.0
        if memory:
            peak = tracemalloc.get_traced_memory()[1] / 1024 / 1024
            tracemalloc.stop()
        start, end = await page_times(trigger)
        rec.detach()
        return {"latency_ms": stamp[0] - end, "total_ms": stamp[0] - start, "peak_mib": peak, "driver_mib": 0.0}
    finally:
        await browser.close_target(session.target_info["targetId"])


async def run_playwright(
    pw: Any, chrome: ChromiumProcess, browser: cdp_core.Browser, url: str, kind: str, n: int, memory: bool
) -> dict[str, float]:
    pw_browser = await pw.chromium.connect_over_cdp(chrome.http_url)
    try:
        context = pw_browser.contexts[0]
        page = await context.new_page()
        await page.goto(url)
        targets = await browser.pages()
        target = next(t for t in targets if t["url"] == url and t["attached"])
        trigger = await browser.attach(target["targetId"])
        await asyncio.sleep(0.3)
        gc.collect()
        rss_before = driver_rss_kib()
        if memory:
            tracemalloc.start()
        stored: list[Any] = []
        if kind == "console":
            page.on("console", lambda m: stored.append(m))
            expression = console_burst(n)
        else:
            page.on("requestfinished", lambda r: stored.append(r) if "/bench/req" in r.url else None)
            expression = network_burst(n)
        stamp: list[float] = []
        await trigger.send("Runtime.evaluate", {"expression": expression})
        await wait_count(lambda: len(stored), n, stamp)
        peak = 0.0
        if memory:
            peak = tracemalloc.get_traced_memory()[1] / 1024 / 1024
            tracemalloc.stop()
        rss_after = driver_rss_kib()
        start, end = await page_times(trigger)
        await trigger.detach()
        await page.close()
        return {
            "latency_ms": stamp[0] - end,
            "total_ms": stamp[0] - start,
            "peak_mib": peak,
            "driver_mib": max(0, rss_after - rss_before) / 1024,
        }
    finally:
        await pw_browser.close()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-eager", action="store_true", help="our recorder without eager body fetches")
    opts = parser.parse_args()
    if opts.no_eager:
        global EAGER_BUDGET
        EAGER_BUDGET = 0

    server = TestServer().start()
    server.route("/bench/page.html", Reply(200, PAGE))
    server.route("/bench/req", lambda req: Reply(200, "ok " + req.query.get("i", ["?"])[0], "text/plain"))
    chrome = ChromiumProcess.start()
    url = server.url("/bench/page.html")
    results: dict[tuple[str, str, str], list[dict[str, float]]] = {}
    try:
        async with cdp_core.connect(chrome.http_url) as browser, async_playwright() as pw:
            sizes = {"console": opts.messages, "network": opts.requests}
            for kind, n in sizes.items():
                for rnd in range(opts.rounds + 1):
                    memory = rnd == opts.rounds  # the last round measures memory only
                    mode = "memory" if memory else "time"
                    order: list[tuple[str, Callable[[], Awaitable[dict[str, float]]]]] = [
                        ("ours", lambda k=kind, m=memory, n=n: run_ours(browser, url, k, n, m)),
                        ("playwright", lambda k=kind, m=memory, n=n: run_playwright(pw, chrome, browser, url, k, n, m)),
                    ]
                    if rnd % 2:
                        order.reverse()
                    for side, run in order:
                        results.setdefault((kind, side, mode), []).append(await run())
    finally:
        chrome.stop()
        server.stop()

    print(f"capture benchmark: {opts.messages} console messages, {opts.requests} requests, {opts.rounds} timed rounds")
    print(f"{'burst':8} {'metric':28} {'ours':>10} {'playwright':>11} {'ratio':>7}")
    for kind in ("console", "network"):

        def med(side: str, mode: str, key: str, k: str = kind) -> float:
            return statistics.median(r[key] for r in results[(k, side, mode)])

        rows = [
            ("end -> last stored (ms)", "time", "latency_ms"),
            ("start -> last stored (ms)", "time", "total_ms"),
            ("python peak (MiB)", "memory", "peak_mib"),
        ]
        for label, mode, key in rows:
            ours, theirs = med("ours", mode, key), med("playwright", mode, key)
            ratio = ours / theirs if theirs > 0 else float("nan")
            print(f"{kind:8} {label:28} {ours:10.1f} {theirs:11.1f} {ratio:7.2f}")
        driver = med("playwright", "memory", "driver_mib")
        print(f"{kind:8} {'playwright driver RSS +MiB':28} {'-':>10} {driver:11.1f}")


if __name__ == "__main__":
    asyncio.run(main())
