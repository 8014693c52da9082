"""Benchmark: json vs orjson vs msgspec on real CDP messages, as the socket hands them over (bytes).

Run: ``.venv/bin/python tests/bench/decode_bench.py [--rounds 9]``

Why: every CDP message is decoded in the connection's reader task, so the decoder's cost is
paid per event during bursts (a console flood, 500 requests) and per megabyte on big
answers. The messages are recorded from a headless Chromium first: the event burst of the
peer benchmark's traffic page (2000 console messages, 500 requests), the ~6 MB answer of
``Accessibility.getFullAXTree`` on its 5000-element page (many small objects: the worst
case, and what the snapshot no longer asks for), and a ~5 MB one-string answer (a
full-page screenshot). Printed: the minimum and median time of each decoder on each set,
and the ratio to ``json.loads`` (lower is better). msgspec is measured when installed.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import websockets  # noqa: E402

from bench.pages import BenchPages  # noqa: E402
from cdp_core.chromium import ChromiumProcess  # noqa: E402


async def record() -> dict[str, list[bytes]]:
    """Raw frames from Chromium: the traffic page's events, the AX tree, a big screenshot."""
    pages = BenchPages().start()
    chrome = ChromiumProcess.start()
    try:
        async with httpx.AsyncClient(trust_env=False) as web:
            target = (await web.put(f"{chrome.http_url}/json/new?about:blank")).json()
        ws_url = target["webSocketDebuggerUrl"]
        async with websockets.connect(ws_url, max_size=2**28, compression=None, proxy=None) as ws:
            ids = iter(range(1, 1_000_000))
            events: list[bytes] = []

            async def command(method: str, params: dict[str, Any] | None = None) -> bytes:
                msg_id = next(ids)
                await ws.send(json.dumps({"id": msg_id, "method": method, "params": params or {}}))
                while True:
                    raw = await ws.recv(decode=False)
                    if b'"id":' in raw[:20] and json.loads(raw).get("id") == msg_id:
                        return raw
                    events.append(raw)

            for domain in ("Page", "Network", "Runtime"):
                await command(f"{domain}.enable")
            done_before = pages.done_count()
            await command("Page.navigate", {"url": pages.url("/bench/traffic.html")})
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(None, pages.wait_traffic_done, done_before, 60)
            for _ in range(50):  # the last events trail the server's "done"
                try:
                    events.append(await asyncio.wait_for(ws.recv(decode=False), 0.2))
                except TimeoutError:
                    break
            await command("Page.navigate", {"url": pages.url("/bench/big.html")})
            await asyncio.sleep(1.5)
            ax = await command("Accessibility.getFullAXTree")
            await command("Emulation.setDeviceMetricsOverride", {"width": 1600, "height": 1200, "deviceScaleFactor": 2,
                                                                  "mobile": False})  # fmt: skip
            shot = await command("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        return {"events": events, "ax": [ax], "screenshot": [shot]}
    finally:
        chrome.stop()
        pages.stop()


def timed(decode: Callable[[bytes], Any], messages: list[bytes], rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        gc.collect()
        t0 = time.perf_counter()
        for m in messages:
            decode(m)
        times.append(time.perf_counter() - t0)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    ns = parser.parse_args()
    recorded = asyncio.run(record())
    decoders: dict[str, Callable[[bytes], Any]] = {"json.loads": json.loads}
    try:
        import orjson

        decoders["orjson.loads"] = orjson.loads
    except ImportError:
        print("orjson not installed")
    try:
        import msgspec

        decoders["msgspec.json.decode"] = msgspec.json.Decoder().decode
    except ImportError:
        print("msgspec not installed (pip install msgspec to compare it)")
    labels = {
        "events": f"event burst ({len(recorded['events'])} messages, {sum(map(len, recorded['events'])) / 1e6:.1f} MB)",
        "ax": f"AX tree answer ({len(recorded['ax'][0]) / 1e6:.1f} MB)",
        "screenshot": f"screenshot answer ({len(recorded['screenshot'][0]) / 1e6:.1f} MB)",
    }
    print(f"{'messages':42} {'decoder':20} {'min ms':>8} {'median ms':>10} {'/ json':>7}")
    for key, messages in recorded.items():
        base = None
        for name, decode in decoders.items():
            times = timed(decode, messages, ns.rounds)
            med = statistics.median(times)
            base = base or med
            print(f"{labels[key]:42} {name:20} {min(times) * 1000:8.1f} {med * 1000:10.1f} {med / base:7.2f}")


if __name__ == "__main__":
    main()
