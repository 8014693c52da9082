"""Micro-benchmark: what cdp_core costs over a bare websockets loop, and vs Playwright.

Run: ``.venv/bin/python tests/bench/cdp_overhead.py [--calls 2000] [--rounds 5]``

All three clients talk to the same headless Chromium and the same tab, through a
flattened session on the browser socket (Playwright's CDPSession goes through its
driver process, which is the point of the comparison). Each round measures 2000
sequential and 2000 concurrent ``Runtime.evaluate`` calls per client, in rotating
order; the medians over the rounds and their ratios are printed (lower is better).
Targets from issue 2: cdp_core within 1.3x of the bare loop, faster than Playwright.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import websockets  # noqa: E402

import cdp_core  # noqa: E402
from cdp_core import ChromiumProcess  # noqa: E402

EVAL = {"expression": "1+1", "returnByValue": True}


class BareClient:
    """The floor: about forty lines of websockets, ids and futures, nothing else."""

    def __init__(self, ws: websockets.ClientConnection, session_id: str) -> None:
        self.ws = ws
        self.session_id = session_id
        self.ids = itertools.count(1)
        self.pending: dict[int, asyncio.Future[dict]] = {}
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def open(cls, ws_url: str, target_id: str) -> BareClient:
        ws = await websockets.connect(ws_url, max_size=2**28, compression=None, proxy=None)
        await ws.send(
            json.dumps({"id": 0, "method": "Target.attachToTarget", "params": {"targetId": target_id, "flatten": True}})
        )
        while True:
            msg = json.loads(await ws.recv())
            if msg.get("id") == 0:
                return cls(ws, msg["result"]["sessionId"])

    async def _read(self) -> None:
        async for raw in self.ws:
            msg = json.loads(raw)
            fut = self.pending.pop(msg.get("id"), None)
            if fut is not None and not fut.done():
                fut.set_result(msg.get("result"))

    async def send(self, method: str, params: dict) -> dict:
        msg_id = next(self.ids)
        fut = asyncio.get_running_loop().create_future()
        self.pending[msg_id] = fut
        await self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params, "sessionId": self.session_id}))
        return await fut

    async def close(self) -> None:
        self.reader.cancel()
        await self.ws.close()


async def sequential(send: Callable[[], Awaitable[object]], n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        await send()
    return time.perf_counter() - start


async def concurrent(send: Callable[[], Awaitable[object]], n: int) -> float:
    start = time.perf_counter()
    await asyncio.gather(*(send() for _ in range(n)))
    return time.perf_counter() - start


async def run(calls: int, rounds: int) -> dict[str, dict[str, float]]:
    from playwright.async_api import async_playwright

    chrome = ChromiumProcess.start()
    try:
        async with cdp_core.connect(chrome.http_url) as browser, async_playwright() as pw:
            target_id = (await browser.pages())[0]["targetId"]
            ours = await browser.attach(target_id)
            bare = await BareClient.open(chrome.ws_url, target_id)
            pw_browser = await pw.chromium.connect_over_cdp(chrome.http_url)
            pw_page = pw_browser.contexts[0].pages[0]
            pw_session = await pw_page.context.new_cdp_session(pw_page)

            clients: dict[str, Callable[[], Awaitable[object]]] = {
                "bare": lambda: bare.send("Runtime.evaluate", EVAL),
                "cdp_core": lambda: ours.send("Runtime.evaluate", EVAL),
                "playwright": lambda: pw_session.send("Runtime.evaluate", EVAL),
            }
            samples: dict[str, dict[str, list[float]]] = {k: {"sequential": [], "concurrent": []} for k in clients}
            for send in clients.values():  # warm-up
                await sequential(send, 200)
            names = list(clients)
            for r in range(rounds):
                order = names[r % len(names) :] + names[: r % len(names)]
                for name in order:
                    samples[name]["sequential"].append(await sequential(clients[name], calls))
                    samples[name]["concurrent"].append(await concurrent(clients[name], calls))
            await bare.close()
            await pw_browser.close()
    finally:
        chrome.stop()
    return {name: {mode: statistics.median(v) for mode, v in modes.items()} for name, modes in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    medians = asyncio.run(run(args.calls, args.rounds))
    print(f"{args.calls} Runtime.evaluate calls, median of {args.rounds} rounds (seconds; calls/s)")
    print(f"{'client':<12}{'sequential':>22}{'concurrent':>22}")
    for name, m in medians.items():
        seq, conc = m["sequential"], m["concurrent"]
        print(f"{name:<12}{seq:>10.3f} ({args.calls / seq:>7.0f}/s){conc:>10.3f} ({args.calls / conc:>7.0f}/s)")
    ratios = {
        f"cdp_core/{other} {mode}": medians["cdp_core"][mode] / medians[other][mode]
        for other in ("bare", "playwright")
        for mode in ("sequential", "concurrent")
    }
    print("ratios (lower is better for cdp_core):")
    for key, value in ratios.items():
        print(f"  {key:<36}{value:6.2f}")
    ok = all(ratios[f"cdp_core/bare {m}"] <= 1.3 for m in ("sequential", "concurrent")) and all(
        ratios[f"cdp_core/playwright {m}"] < 1.0 for m in ("sequential", "concurrent")
    )
    print("target (<=1.3x bare, <1x playwright):", "met" if ok else "NOT met")
    if args.json:
        args.json.write_text(json.dumps({"medians": medians, "ratios": ratios}, indent=2))


if __name__ == "__main__":
    main()
