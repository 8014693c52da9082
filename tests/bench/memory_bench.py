"""Benchmark: peak memory of summarizing a large heap snapshot, against ``json.load``.

Run: ``.venv/bin/python tests/bench/memory_bench.py [--objects 400000] [--detached 20000]``

A page allocates ``--objects`` small objects, strings and arrays and keeps ``--detached``
removed ``<div>``s; :func:`cdp_core.recorders.heap.take_heap_snapshot` streams its heap
snapshot to a file. Each measurement then runs in a fresh Python process (so one peak does
not hide another) and prints its peak RSS (``ru_maxrss``) above the interpreter's own
start-up, and its time:

- ``ours``: :func:`read_heap_snapshot` (compact ``array('i')`` for nodes and edges, strings
  as a list) plus :func:`summarize_heap` (dominator tree, retained sizes, detached nodes);
- ``json.load``: just loading the same file the ordinary way, before any analysis.

The point: ours stays a fraction of what ``json.load`` needs for the same file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import cdp_core  # noqa: E402
from cdp_core import ChromiumProcess  # noqa: E402
from cdp_core.recorders.heap import take_heap_snapshot  # noqa: E402

LEAK = """(() => {
  class Row { constructor(i) { this.id = i; this.label = "row " + i; this.cells = [i, i + 1]; } }
  window.rows = []; for (let i = 0; i < %d; i++) window.rows.push(new Row(i));
  window.detached = [];
  for (let i = 0; i < %d; i++) { const d = document.createElement("div"); document.body.appendChild(d); d.remove();
    window.detached.push(d); }
  return window.rows.length;
})()"""

MEASURE = r"""
import json, resource, sys, time
sys.path.insert(0, %r)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
mode, path = sys.argv[1], sys.argv[2]
t = time.perf_counter()
if mode == "ours":
    from cdp_core.heap_snapshot import read_heap_snapshot, summarize_heap
    s = summarize_heap(read_heap_snapshot(path))
    extra = f"nodes={s['nodeCount']} detached={s['detachedNodes']['count']}"
else:
    with open(path) as fh:
        data = json.load(fh)
    extra = f"nodes={data['snapshot']['node_count']}"
elapsed = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"mode": mode, "peak_mb": (peak - base) / 1024, "seconds": elapsed, "extra": extra}))
"""


async def make_snapshot(path: Path, objects: int, detached: int) -> tuple[int, float]:
    chrome = ChromiumProcess.start()
    try:
        async with cdp_core.connect(chrome.http_url) as browser:
            session = await browser.new_page("about:blank")
            await session.send("Runtime.evaluate", {"expression": LEAK % (objects, detached)}, timeout=120)
            started = time.perf_counter()
            result = await take_heap_snapshot(session, path)
            return result.bytes_written, time.perf_counter() - started
    finally:
        chrome.stop()


def measure(mode: str, path: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", MEASURE % str(ROOT), mode, str(path)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=400_000)
    parser.add_argument("--detached", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.heapsnapshot"
        size, seconds = asyncio.run(make_snapshot(path, args.objects, args.detached))
        print(f"snapshot: {size / 1e6:.1f} MB streamed to disk in {seconds:.2f} s")
        ours = measure("ours", path)
        baseline = measure("json.load", path)
        for row in (ours, baseline):
            print(f"{row['mode']:>9}: peak RSS +{row['peak_mb']:.0f} MB, {row['seconds']:.2f} s ({row['extra']})")
        print(f"ratio ours/json.load peak RSS: {ours['peak_mb'] / max(baseline['peak_mb'], 1e-9):.2f}")


if __name__ == "__main__":
    main()
