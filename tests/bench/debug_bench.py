"""Benchmark: how long a debug point holds the page per hit (logpoints and snapshot points).

Run: ``.venv/bin/python tests/bench/debug_bench.py [--calls 40]``

The esbuild page of tests/pages/debug in a background tab of a Chromium played as the user's
Chrome, the server attached over CDP through a real MCP client. The page itself times each
call of ``ordini.inviaOrdine`` (``performance.now()`` around it, so the MCP round trip is not
counted): without points, with a logpoint on the loop's line (2 hits a call), with a snapshot
point on the return line (1 hit a call: pause, read stack and scopes, resume). The pause per
hit is the call's time minus the median call without points, divided by the hits; printed as
median and p95. The server's own view of a snapshot pause (paused event to resume answered)
is printed too, and a 20,000-iteration loop alone and with a logpoint capped at 100 hits.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from background_tabs import agent_in_hidden_tab  # noqa: E402
from httpserver import TestServer  # noqa: E402

from cdp_core import ChromiumProcess  # noqa: E402

ORDER = "{cliente: 'Bianchi', limite: 1000, righe: [{prezzo: 2, quantita: 3}, {prezzo: 5, quantita: 1}]}"
TIMED = f"(() => {{ const t = performance.now(); ordini.inviaOrdine({ORDER}); return performance.now() - t; }})()"


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def line(label: str, values: list[float]) -> str:
    return f"{label:<34} median {statistics.median(values):7.3f} ms   p95 {p95(values):7.3f} ms   (n={len(values)})"


async def timed_calls(agent: object, calls: int) -> list[float]:
    return [float(await agent.js(TIMED)) for _ in range(calls)]  # type: ignore[attr-defined]


async def main(calls: int) -> None:
    server = TestServer().start()
    chrome = ChromiumProcess.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            async with agent_in_hidden_tab(chrome, server, Path(tmp), "/debug/index.html", "Ordini debug") as agent:
                await timed_calls(agent, 5)  # warm up (compile, map fetched by the first point)
                base = await timed_calls(agent, calls)
                floor = statistics.median(base)
                await agent.s(
                    "debug_logpoint", source="ordini.js", line=14, expression="totale, riga.prezzo", max_hits=10_000
                )
                logged = await timed_calls(agent, calls)
                await agent.s("debug_clear")
                await agent.s("debug_snapshot", source="ordini.js", line=20, max_hits=1000)
                snap = await timed_calls(agent, calls)
                page = await agent.app.manager.current_page()  # type: ignore[attr-defined]
                server_view = list(page.data["debug"].pause_ms)
                await agent.s("debug_clear")
                loop = (
                    "(() => { const t = performance.now(); ordini.sommaLunga(20000); return performance.now() - t; })()"
                )
                plain_loop = float(await agent.js(loop))
                await agent.s("debug_logpoint", source="ordini.js", line=26, expression="somma", max_hits=100)
                capped_loop = float(await agent.js(loop))
                await agent.s("debug_clear")
        print(f"debug points, {calls} calls each, page-side timing of ordini.inviaOrdine (background tab)")
        print(line("call without points", base))
        print(line("logpoint, per hit (2 hits a call)", [max(0.0, (v - floor) / 2) for v in logged]))
        print(line("snapshot point, per hit", [max(0.0, v - floor) for v in snap]))
        print(line("snapshot pause, server's view", server_view))
        print(f"20,000-iteration loop: {plain_loop:.1f} ms alone, {capped_loop:.1f} ms with a logpoint capped at 100")
    finally:
        chrome.stop()
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=40)
    asyncio.run(main(parser.parse_args().calls))
