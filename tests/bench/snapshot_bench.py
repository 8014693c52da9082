"""Benchmark: snapshot of a generated 5000-element page, next to the raw Accessibility tree.

Run: ``.venv/bin/python tests/bench/snapshot_bench.py [--elements 5000] [--rounds 5]``

Why: snapshot size is the most common complaint about browser MCP servers (single answers
of 70k-200k tokens). This prints, for the same page, the time of a full snapshot (median
of the rounds), its size in characters and approximate tokens (chars/4), the same for
``interactive_only`` and for the MCP default budget (max_lines=400, max_chars=20000), and
the size of the raw ``Accessibility.getFullAXTree`` JSON (plus the DOMSnapshot we join
with) that an agent would otherwise have to read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from httpserver import Reply, TestServer  # noqa: E402
from snapshot_helpers import big_page, load  # noqa: E402

import cdp_core  # noqa: E402
from cdp_core.recorders.accessibility import SnapshotOptions, take_snapshot  # noqa: E402
from cdp_core.recorders.uids import UidRegistry  # noqa: E402
from targets.process import ChromiumProcess  # noqa: E402


async def timed(fn, rounds: int) -> tuple[float, object]:
    times = []
    result = None
    for _ in range(rounds):
        t0 = time.perf_counter()
        result = await fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


async def run(elements: int, rounds: int) -> None:
    server = TestServer().start()
    server.route("/bench/big.html", Reply(200, big_page(elements)))
    chrome = ChromiumProcess.start()
    try:
        async with cdp_core.connect(chrome.http_url) as browser:
            page = await browser.new_page("about:blank")
            await page.send("Page.enable")
            await load(page, server.url("/bench/big.html"))
            count = await page.send("Runtime.evaluate", {"expression": "document.querySelectorAll('*').length"})
            n_elements = count["result"]["value"]
            frame_id = (await page.send("Page.getFrameTree"))["frameTree"]["frame"]["id"]

            raw_t, raw = await timed(lambda: page.send("Accessibility.getFullAXTree", {"frameId": frame_id}), rounds)
            raw_chars = len(json.dumps(raw))
            dom_t, dom = await timed(
                lambda: page.send("DOMSnapshot.captureSnapshot", {"computedStyles": ["display"]}), rounds
            )
            dom_chars = len(json.dumps(dom))

            registry = UidRegistry()
            rows = []
            for label, opts in (
                ("full snapshot (no budget)", SnapshotOptions()),
                ("interactive_only", SnapshotOptions(interactive_only=True)),
                ("MCP default budget", SnapshotOptions(max_lines=400, max_chars=20000)),
            ):
                t, snap = await timed(lambda o=opts: take_snapshot(page, registry, o), rounds)
                stats = snap.stats()
                rows.append((label, t, stats["chars"], stats["lines"], stats["uids"]))

            print(f"page: {n_elements} elements, {len(raw['nodes'])} AX nodes; median of {rounds} rounds")
            print(f"{'what':34} {'time ms':>9} {'chars':>10} {'~tokens':>9} {'lines':>7} {'uids':>6}")
            print(f"{'raw Accessibility.getFullAXTree':34} {raw_t * 1000:9.1f} {raw_chars:10d} {raw_chars // 4:9d}")
            print(f"{'raw DOMSnapshot.captureSnapshot':34} {dom_t * 1000:9.1f} {dom_chars:10d} {dom_chars // 4:9d}")
            for label, t, chars, lines, uids in rows:
                print(f"{label:34} {t * 1000:9.1f} {chars:10d} {chars // 4:9d} {lines:7d} {uids:6d}")
            full_chars = rows[0][2]
            print(f"ratio full snapshot / raw AX JSON: {full_chars / raw_chars:.3f} (chars)")
    finally:
        chrome.stop()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    ns = parser.parse_args()
    asyncio.run(run(ns.elements, ns.rounds))


if __name__ == "__main__":
    main()
