"""Benchmark: one order in a 1,500-row table, by ``find`` against the other ways to reach it.

Run: ``.venv/bin/python tests/bench/table_find_bench.py [--rows 1500] [--rounds 7]``

Why: on the order lists of business apps the row the agent needs is past the 400-line cap. Its
options were raising the cap (the whole table in the answer) or guessing a CSS ``selector``.
This prints, for the same page, the time (median) and the text size of the default snapshot (cut),
``interactive_only`` (rows kept beside their controls), the caps lifted, and ``find`` of one
order number; and whether the order's row is in the answer.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from httpserver import Reply, TestServer  # noqa: E402
from snapshot_helpers import load, open_tab  # noqa: E402

from cdp_core import ChromiumProcess  # noqa: E402
from cdp_core.recorders.accessibility import SnapshotOptions, take_snapshot  # noqa: E402
from cdp_core.recorders.uids import UidRegistry  # noqa: E402


def orders_page(rows: int) -> str:
    body = "".join(
        f"<tr><td>{4000 + i}</td><td>Customer {i}</td><td>{'Open' if i % 3 else 'Closed'}</td>"
        f"<td><a href='/edit?id={4000 + i}'>Edit</a> <button>Delete</button></td></tr>"
        for i in range(rows)
    )
    return f"<!doctype html><title>Orders</title><h1>Orders</h1><table><tbody>{body}</tbody></table>"


async def run(rows: int, rounds: int) -> None:
    wanted = str(4000 + rows * 7 // 10)  # an order well past the cap
    server = TestServer().start()
    server.route("/orders.html", Reply(200, orders_page(rows)))
    chrome = ChromiumProcess.start()

    class _Chrome:
        http_url = chrome.http_url

    kinds = {
        "default (max_lines=400)": SnapshotOptions(max_lines=400, max_chars=20000),
        "interactive_only": SnapshotOptions(interactive_only=True, max_lines=400, max_chars=20000),
        "caps lifted": SnapshotOptions(max_lines=20000, max_chars=500000),
        f"find={wanted}": SnapshotOptions(find=wanted, max_lines=400, max_chars=20000),
    }
    try:
        async with open_tab(_Chrome) as (_, page):
            await load(page, server.url("/orders.html"))
            registry = UidRegistry()
            print(f"{rows} rows; the order looked for: {wanted}")
            for label, options in kinds.items():
                times = []
                for _ in range(rounds):
                    started = time.perf_counter()
                    snap = await take_snapshot(page, registry, options)
                    times.append((time.perf_counter() - started) * 1000)
                text = snap.text()
                print(
                    f"  {label:24} {statistics.median(times):7.1f} ms  {len(text):7} chars"
                    f"  order's row in the answer: {'yes' if f'{wanted} |' in text else 'no'}"
                )
    finally:
        chrome.stop()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=7)
    ns = parser.parse_args()
    asyncio.run(run(ns.rows, ns.rounds))


if __name__ == "__main__":
    main()
