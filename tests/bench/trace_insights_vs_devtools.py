"""Benchmark: our performance insights against Chrome DevTools' own trace engine, same traces.

Run: ``.venv/bin/python tests/bench/trace_insights_vs_devtools.py [--runs 2] [--engine DIR]``

Records page-load traces of two test pages in headless Chromium the way
``performance_start_trace reload=true`` does (the page is opened, then traced while it
reloads), and for each trace prints our numbers beside those of DevTools' trace engine (the
npm package ``@paulirish/trace_engine``, the code of DevTools' Performance panel), run by
``bench/devtools/insights.mjs`` under Node:

- the dashboard (tests/trace_pages.py ``install_insights``): an image LCP with its four-part
  breakdown, a 600 ms stylesheet and a script that block rendering, a 120 ms third-party
  script, a banner inserted after load (a layout shift);
- the article (``install_shifts``): a text LCP (two-part breakdown), a late web font and an
  image without a size (layout shifts with culprits).

The pages use real host names (``dashboard.example.com``, ``cdn.vendor-metrics.example.net``)
mapped to 127.0.0.1 by Chromium's ``--host-resolver-rules``: every byte stays on loopback,
and the engine, which knows no site for an IP address or ``localhost``, groups third parties.

``--engine DIR``: a directory holding ``node_modules/@paulirish/trace_engine``; without it the
package is installed with npm into a temporary directory (the npm registry must be reachable).
Without Node the script says so and stops.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import trace_pages  # noqa: E402
from httpserver import TestServer  # noqa: E402

import cdp_core  # noqa: E402
from cdp_core import ChromiumProcess  # noqa: E402
from cdp_core.recorders.tracing import Tracer  # noqa: E402
from cdp_core.recorders.tracing.summary import summarize  # noqa: E402

FIRST = "dashboard.example.com"
VENDOR = "cdn.vendor-metrics.example.net"
RULES = f"--host-resolver-rules=MAP {FIRST} 127.0.0.1, MAP {VENDOR} 127.0.0.1"


async def record(page_url: str, done: str, out: Path) -> None:
    chrome = ChromiumProcess.start(extra_args=[RULES])
    try:
        async with cdp_core.connect(chrome.http_url) as browser:
            session = await browser.new_page("about:blank")
            await session.send("Page.enable")
            async with session.events("Page.loadEventFired") as loads:
                await session.send("Page.navigate", {"url": page_url})
                await loads.get(timeout=30)
            await asyncio.sleep(1.5)
            tracer = Tracer(session)
            await tracer.start()
            await session.send("Page.reload", {})
            for _ in range(300):
                await asyncio.sleep(0.05)
                reply = await session.send("Runtime.evaluate", {"expression": done, "returnByValue": True})
                if reply["result"].get("value"):
                    break
            await asyncio.sleep(1.0)
            await tracer.stop(out)
    finally:
        chrome.stop()


def engine_dir(given: str | None) -> Path:
    if given:
        return Path(given) / "node_modules" / "@paulirish" / "trace_engine"
    base = Path(tempfile.gettempdir()) / "mcp-browser-devtools-engine"
    pkg = base / "node_modules" / "@paulirish" / "trace_engine"
    if not pkg.is_dir():
        if shutil.which("npm") is None:
            raise SystemExit("npm is not installed: cannot fetch DevTools' trace engine")
        base.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(base), "@paulirish/trace_engine"], check=True)
    return pkg


def devtools(engine: Path, trace: Path) -> dict[str, Any]:
    out = subprocess.run(
        ["node", str(ROOT / "bench" / "devtools" / "insights.mjs"), str(engine), str(trace)],
        capture_output=True,
        text=True,
        check=True,
    )
    sets = json.loads(out.stdout)
    data = sets["insightSets"][-1]
    data["longTasksMs"] = sets["longTasksMs"]
    return data


def rows(ours: dict[str, Any], theirs: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    ins = ours.get("insights") or {}
    lcp = ins.get("lcp") or {}
    out: list[tuple[str, Any, Any]] = [
        ("LCP ms", lcp.get("ms"), round(theirs["lcpMs"], 1) if theirs["lcpMs"] else None)
    ]
    for key in ("ttfb", "loadDelay", "loadDuration", "renderDelay"):
        out.append((f"LCP {key} ms", (lcp.get("breakdownMs") or {}).get(key), theirs["lcpBreakdown"].get(key)))
    out.append(("LCP image request", _tail(lcp.get("request")), _tail(theirs["lcpRequest"])))
    ours_rb = {_tail(r["url"]): r["durationMs"] for r in (ins.get("renderBlocking") or {}).get("requests") or []}
    theirs_rb = {_tail(r["url"]): r["durationMs"] for r in theirs["renderBlocking"]}
    for name in sorted(set(ours_rb) | set(theirs_rb)):
        out.append((f"render-blocking {name} ms", ours_rb.get(name), theirs_rb.get(name)))
    shifts = ins.get("layoutShifts") or {}
    out.append(("CLS", shifts.get("cls", 0.0), round(theirs["cls"], 4)))
    culprits = shifts.get("culprits")
    out.append(
        (
            "layout-shift culprits",
            _kinds(culprits) if isinstance(culprits, list) else "-",
            theirs.get("culprits") or "-",
        )
    )
    ours_tp = {t["site"]: t for t in ins.get("thirdParties") or []}
    theirs_tp = {t["entity"]: t for t in theirs["thirdParties"]}
    for site in sorted(set(ours_tp) | set(theirs_tp)):
        a, b = ours_tp.get(site, {}), theirs_tp.get(site, {})
        out.append((f"{site} main-thread ms", a.get("mainThreadMs"), b.get("mainThreadMs")))
        out.append((f"{site} transfer bytes", a.get("transferBytes"), b.get("transferSize")))
    ours_long = [t["durationMs"] for t in ours.get("longestTasks") or []]
    out.append(("long tasks ms", ours_long, theirs["longTasksMs"][: len(ours_long) or 5]))
    return out


def _tail(url: Any) -> Any:
    return str(url).rsplit("/", 1)[-1] if url else url


def _kinds(culprits: list[dict[str, Any]]) -> str:
    return ", ".join(sorted({c["kind"] for c in culprits}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--engine", default=None)
    args = parser.parse_args()
    if shutil.which("node") is None:
        raise SystemExit("Node is not installed: DevTools' trace engine cannot run here")
    engine = engine_dir(args.engine)
    server = TestServer().start()
    try:
        dash = trace_pages.install_insights(server, vendor_host=VENDOR).replace("127.0.0.1", FIRST)
        dash_done = "!!window.insightsDone"
        article = trace_pages.install_shifts(server).replace("127.0.0.1", FIRST)
        article_done = "document.fonts.status === 'loaded' && document.images[0].complete"
        with tempfile.TemporaryDirectory() as tmp:
            for run in range(args.runs):
                for name, url, done in (("dashboard", dash, dash_done), ("article", article, article_done)):
                    trace = Path(tmp) / f"{name}-{run}.json"
                    asyncio.run(record(url, done, trace))
                    ours = summarize(trace)
                    theirs = devtools(engine, trace)
                    print(f"\n{name}, run {run + 1} ({trace.stat().st_size / 1e6:.1f} MB trace)")
                    print(f"  {'metric':<48} {'ours':>22} {'DevTools':>22}")
                    for label, a, b in rows(ours, theirs):
                        mark = "" if a == b else "  *"
                        print(f"  {label:<48} {_fmt(a):>22} {_fmt(b):>22}{mark}")
    finally:
        server.stop()
    print("\n* differs")


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}" if value < 1 else f"{value:.1f}"
    return str(value)


if __name__ == "__main__":
    main()
