"""Benchmark: snapshot of a generated 5000-element page, by both engines, next to the raw AX tree and Playwright.

Run: ``.venv/bin/python tests/bench/snapshot_bench.py [--elements 5000] [--rounds 5] [--page legacy|bench]``

Why: snapshot size is the most common complaint about browser MCP servers (single answers
of 70k-200k tokens), and its time the one that grew with the page. This prints, for the same
page, the time (median of the rounds, engines interleaved so load spreads over both) and
size of: the raw ``Accessibility.getFullAXTree`` JSON and the ``DOMSnapshot`` the old engine
joined it with; a full snapshot, ``interactive_only`` and the MCP default budget by the
in-page collector (the default) and by the accessibility-tree engine (``engine="ax"``, the
reference and fallback); and Python Playwright's ``aria_snapshot()`` of the same tab (what
playwright-mcp builds on). Ratios at the end are collector / other (lower is faster).
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
from cdp_core import ChromiumProcess  # noqa: E402
from cdp_core.recorders.accessibility import SnapshotOptions, take_snapshot  # noqa: E402
from cdp_core.recorders.uids import UidRegistry  # noqa: E402


async def timed(fn, rounds: int) -> tuple[float, object]:
    times = []
    result = None
    for _ in range(rounds):
        t0 = time.perf_counter()
        result = await fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def bench_big_html() -> str:
    """The peer benchmark's 5000-element page (bench/pages.py; ``bench`` here is tests/bench)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("peer_bench_pages", ROOT / "bench" / "pages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return str(module.big_html())


async def run(elements: int, rounds: int, page_kind: str) -> None:
    server = TestServer().start()
    html = bench_big_html() if page_kind == "bench" else big_page(elements)
    server.route("/bench/big.html", Reply(200, html))
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
            kinds = (
                ("full snapshot (no budget)", {}),
                ("interactive_only", {"interactive_only": True}),
                ("MCP default budget", {"max_lines": 400, "max_chars": 20000}),
            )
            times: dict[tuple[str, str], list[float]] = {}
            stats: dict[tuple[str, str], dict[str, int]] = {}
            for _ in range(rounds):
                for label, kw in kinds:
                    for engine in ("page", "ax"):
                        t0 = time.perf_counter()
                        snap = await take_snapshot(page, registry, SnapshotOptions(engine=engine, **kw))
                        times.setdefault((label, engine), []).append(time.perf_counter() - t0)
                        stats[(label, engine)] = snap.stats()
            target = page.target_info["targetId"]
            aria_t, aria_chars = await playwright_aria(chrome.http_url, target, rounds)

            print(f"page: {n_elements} elements, {len(raw['nodes'])} AX nodes; median of {rounds} rounds")
            print(f"{'what':44} {'time ms':>9} {'chars':>10} {'~tokens':>9} {'lines':>7} {'uids':>6}")
            print(f"{'raw Accessibility.getFullAXTree':44} {raw_t * 1000:9.1f} {raw_chars:10d} {raw_chars // 4:9d}")
            print(f"{'raw DOMSnapshot.captureSnapshot':44} {dom_t * 1000:9.1f} {dom_chars:10d} {dom_chars // 4:9d}")
            for label, _ in kinds:
                for engine, name in (("page", "in-page collector"), ("ax", "AX-tree engine")):
                    t = statistics.median(times[(label, engine)])
                    st = stats[(label, engine)]
                    print(
                        f"{label + ', ' + name:44} {t * 1000:9.1f} {st['chars']:10d} {st['chars'] // 4:9d} "
                        f"{st['lines']:7d} {st['uids']:6d}"
                    )
            print(
                f"{'Playwright aria_snapshot() (Python)':44} {aria_t * 1000:9.1f} {aria_chars:10d} {aria_chars // 4:9d}"
            )
            full = statistics.median(times[(kinds[0][0], "page")])
            print(
                f"ratio collector / AX-tree engine (full): {full / statistics.median(times[(kinds[0][0], 'ax')]):.2f}"
            )
            print(f"ratio collector / Playwright aria_snapshot (full): {full / aria_t:.2f}")
            print(f"ratio full snapshot / raw AX JSON: {stats[(kinds[0][0], 'page')]['chars'] / raw_chars:.3f} (chars)")
    finally:
        chrome.stop()
        server.stop()


async def playwright_aria(cdp_url: str, target_id: str, rounds: int) -> tuple[float, int]:
    """Median time and size of Playwright's aria_snapshot() of the body of the same tab."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(cdp_url)
        try:
            pages = [p for c in browser.contexts for p in c.pages]
            found = None
            for p in pages:
                session = await p.context.new_cdp_session(p)
                info = await session.send("Target.getTargetInfo")
                await session.detach()
                if info["targetInfo"]["targetId"] == target_id:
                    found = p
            assert found is not None, "Playwright does not see the tab"
            t, text = await timed(lambda: found.locator("body").aria_snapshot(), rounds)
            return t, len(str(text))
        finally:
            await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--page", choices=["legacy", "bench"], default="legacy", help="legacy tables and forms, "
                        "or the peer benchmark's 1000 rows of link/button/field/text")  # fmt: skip
    ns = parser.parse_args()
    asyncio.run(run(ns.elements, ns.rounds, ns.page))


if __name__ == "__main__":
    main()
