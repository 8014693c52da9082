"""Benchmark: saving and summarizing a large trace (> 10 MB) without holding it in memory.

Run: ``.venv/bin/python tests/bench/trace_bench.py [--seconds 1,4] [--chunks 256,1024,4096]``

A page floods its main thread with tiny tasks (MessageChannel ping-pong that touches the
DOM and forces layout) while :class:`~cdp_core.recorders.tracing.Tracer` records; the
trace is then saved (floods of several lengths, several ``IO.read`` chunk sizes) and
summarized. For each step it prints the file size, the time, and the peak memory of the
step: the process RSS above its level before the step (sampled every 2 ms in a thread;
it can understate a step that reuses memory an earlier step freed) and Python
allocations (``tracemalloc``, from a second untimed run, since it slows allocation
down). The time of a stop is the reading of the stream; Chrome's flush before it is
printed apart. The baselines show what the chunked paths avoid: collecting the whole
stream in memory before writing, and ``json.load`` of the file before summarizing. The
point: peak memory stays flat as the file grows (set by the chunk size, not the trace).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import cdp_core  # noqa: E402
from cdp_core import ChromiumProcess  # noqa: E402
from cdp_core.recorders.tracing import Tracer  # noqa: E402
from cdp_core.recorders.tracing.summary import summarize, summarize_events  # noqa: E402

FLOOD = """
<!doctype html><title>flood</title><div id="box">0</div><script>
const ch = new MessageChannel(); let n = 0; const until = performance.now() + %d;
function work() { const b = document.getElementById('box'); b.textContent = ++n; b.offsetHeight; }
ch.port1.onmessage = () => { work(); if (performance.now() < until) ch.port2.postMessage(0); };
ch.port2.postMessage(0);
</script>
"""


def rss_bytes() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


class Peak:
    """Peak RSS (and with ``python=True`` peak tracemalloc) over a block, relative to its start.

    tracemalloc slows every allocation down several times, so timed runs leave it off
    and the Python peak comes from a second, untimed run.
    """

    def __init__(self, python: bool = False) -> None:
        self.python = python
        self.py: int | None = None

    def __enter__(self) -> Peak:
        if self.python:
            tracemalloc.start()
            tracemalloc.reset_peak()
            self.base_py = tracemalloc.get_traced_memory()[0]
        self.base_rss = rss_bytes()
        self.peak_rss = self.base_rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        self.t0 = time.perf_counter()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.002):
            self.peak_rss = max(self.peak_rss, rss_bytes())

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.t0
        self._stop.set()
        self._thread.join()
        self.peak_rss = max(self.peak_rss, rss_bytes())
        if self.python:
            self.py = tracemalloc.get_traced_memory()[1] - self.base_py
            tracemalloc.stop()
        self.rss = self.peak_rss - self.base_rss


async def record(browser: cdp_core.Browser, url: str, seconds: float) -> tuple[cdp_core.CDPSession, Tracer]:
    page = await browser.new_page("about:blank")
    tracer = Tracer(page)
    await tracer.start()
    await page.send("Page.navigate", {"url": url})
    await asyncio.sleep(seconds + 0.5)
    return page, tracer


async def naive_stop(tracer: Tracer, dest: Path) -> int:
    """Baseline: the same stream, collected in memory and written at the end."""
    session = tracer.session
    waiter = asyncio.ensure_future(session.wait_for("Tracing.tracingComplete", timeout=120))
    await asyncio.sleep(0)
    await session.send("Tracing.end")
    handle = (await waiter).params["stream"]
    parts: list[str] = []
    while True:
        reply = await session.send("IO.read", {"handle": handle, "size": 1 << 20})
        parts.append(reply["data"])
        if reply.get("eof"):
            break
    await session.send("IO.close", {"handle": handle})
    text = "".join(parts)
    await asyncio.to_thread(dest.write_text, text)
    tracer._reset()  # the tracer's own stop was bypassed
    return len(text)


def row(label: str, size: int, seconds: float, timed: Peak, traced: Peak) -> str:
    py = f"{traced.py / 1e6:7.1f} MB ({traced.py / size:5.2f}x)" if traced.py is not None else ""
    return (
        f"{label:<30} {size / 1e6:7.1f} MB {seconds:6.2f} s {size / 1e6 / max(seconds, 1e-9):6.1f} MB/s "
        f"{timed.rss / 1e6:7.1f} MB ({timed.rss / size:5.2f}x) {py}"
    )


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", default="1,4", help="how long the page floods its main thread (one trace each)")
    ap.add_argument("--chunks", default="256,1024,4096", help="IO.read chunk sizes in KiB (on the longest flood)")
    args = ap.parse_args()
    floods = [float(x) for x in args.seconds.split(",")]
    chunk_sizes = [int(c) * 1024 for c in args.chunks.split(",")]
    out = Path(tempfile.mkdtemp(prefix="trace-bench-"))
    header = f"{'step':<30} {'file':>10} {'time':>8} {'rate':>11} {'peak RSS':>18} {'peak tracemalloc':>18}"
    rule = "-" * len(header)
    lines = [
        "time = reading the stream to disk (after Chrome's flush); ratios = peak memory / file size",
        header,
        rule,
    ]
    files: list[Path] = []
    chrome = ChromiumProcess.start()
    try:
        async with cdp_core.connect(chrome.http_url) as browser:

            async def saved(flood: float, chunk: int, python: bool, name: str) -> tuple[Path, Any, Peak]:
                url = "data:text/html," + FLOOD % int(flood * 1000)
                page, tracer = await record(browser, url, flood)
                tracer.chunk_size = chunk
                with Peak(python) as peak:
                    result = await tracer.stop(out / name)
                await browser.close_target(page.target_info["targetId"])
                return out / name, result, peak

            async def both(flood: float, chunk: int, label: str) -> None:
                path, result, timed = await saved(flood, chunk, False, f"trace-{flood:g}s-{chunk // 1024}k.json")
                _, other, traced = await saved(flood, chunk, True, "traced.json")
                if traced.py is not None:  # scale to this file: the traced run's trace differs a little
                    traced.py = int(traced.py * result.bytes_written / max(other.bytes_written, 1))
                lines.append(row(label, result.bytes_written, result.read_s, timed, traced))
                lines[-1] += f"  flush {result.end_wait_s:.2f} s"
                files.append(path)

            for flood in floods:
                await both(flood, 1 << 20, f"stop, {flood:g} s flood, 1024 KiB")
            lines.append(rule)
            for chunk in chunk_sizes:
                if chunk != 1 << 20:
                    await both(max(floods), chunk, f"stop, {max(floods):g} s flood, {chunk // 1024} KiB")
            url = "data:text/html," + FLOOD % int(max(floods) * 1000)
            runs = []
            for python in (False, True):
                page, tracer = await record(browser, url, max(floods))
                with Peak(python) as peak:
                    size = await naive_stop(tracer, out / "trace-naive.json")
                await browser.close_target(page.target_info["targetId"])
                runs.append((size, peak))
            (size, timed), (size2, traced) = runs
            if traced.py is not None:
                traced.py = int(traced.py * size / max(size2, 1))
            lines.append(row("baseline: in memory (+flush)", size, timed.seconds, timed, traced))
    finally:
        chrome.stop()

    lines.append(rule)
    by_size = sorted({p.stat().st_size: p for p in files}.items())
    summaries: dict[str, dict[str, Any]] = {}
    for size, path in (by_size[0], by_size[-1]):
        for label, fn in (("summarize (streamed)", summarize), ("baseline: json.load+summarize", _loaded)):
            with Peak(False) as timed:
                summaries[label] = fn(path)
            with Peak(True) as traced:
                fn(path)
            lines.append(row(label, size, timed.seconds, timed, traced))
    keys = ("requestCount", "longTaskCount", "eventCount", "mainThreadTimeMs")
    same = all(summaries["summarize (streamed)"][k] == summaries["baseline: json.load+summarize"][k] for k in keys)
    print("\n".join(lines))
    largest = by_size[-1][0]
    print(f"\nlargest trace {largest / 1e6:.1f} MB; streamed and loaded summaries agree: {same}")
    if largest < 10e6:
        print("note: the largest trace is under 10 MB; raise --seconds")


def _loaded(path: Path) -> dict[str, Any]:
    with open(path) as fh:
        data = json.load(fh)
    return summarize_events(data["traceEvents"])


if __name__ == "__main__":
    asyncio.run(main())
