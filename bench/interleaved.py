"""The light jobs of the peer benchmark with every server up at once and their calls interleaved.

Why besides :mod:`bench.peer_benchmark`: that one runs each server's jobs in a block, so a
server is measured warm, right after its own previous call, and the machine's load drifts
between blocks. Here every server has its own tab on the shared Chromium with the traffic page
loaded (2,000 console messages, 500 requests); each round calls every server once, in an order
that alternates, so noise hits all of them alike, and a server is called after the others ran,
as an agent calls after its model has thought. Reported per job: the median, the first
quartile, and the median of each call's time over the first server's time in the same round.

    .venv/bin/python -m bench.interleaved --servers ours,chrome-devtools-mcp,playwright-mcp --calls 100
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from cdp_core import ChromiumProcess

from .pages import BenchPages
from .runner import RunConfig, _server_env, _Session, fit_call
from .servers import ADAPTERS, Call
from .tabs import open_tab

__all__ = ["main", "timed_in_turn"]

ROOT = Path(__file__).resolve().parent.parent
JOBS = ("list pages", "console list", "network list")


async def _connect(
    stack: contextlib.AsyncExitStack, logs: contextlib.ExitStack, key: str, pages: BenchPages, cdp_url: str, work: Path
) -> tuple[Client, dict[str, Call]]:
    """Start ``key``'s server on its own tab, load the traffic page there; its call for each job."""
    adapter = ADAPTERS[key](None)
    peers = ROOT / "bench" / "peers"
    command, args = adapter.command(peers, cdp_url)
    base = work / key
    base.mkdir(parents=True)
    env = {**_server_env(base / "home", base / "artifacts"), **adapter.extra_env, "PATH": os.environ.get("PATH", "")}
    # A real file: the server's stderr is handed to the child process as a descriptor.
    errlog = logs.enter_context(open(base / "stderr.log", "w"))  # noqa: ASYNC230, SIM115 - closed with the stack
    params = StdioServerParameters(command=command, args=args, env=env, cwd=str(base))
    client = await stack.enter_async_context(Client(stdio_client(params, errlog=errlog), mode="legacy"))
    adapter.configure({t.name: t.input_schema for t in (await client.list_tools()).tools})
    session = _Session(client, adapter, RunConfig(peers, base, base, 1, 1, 60.0))
    own = pages.url(f"/bench/blank.html?server={key}")
    open_tab(cdp_url, own)
    prepare = adapter.prepare(cdp_url)
    if prepare is not None:
        await session.call(None, prepare)
    listed, _, _ = await session.call(None, adapter.list_pages())
    page_id = adapter.find_page(adapter.parse_pages(listed), own)
    await session.call(None, adapter.select(page_id))
    before = pages.done_count()
    await session.call(None, adapter.navigate(page_id, pages.url("/bench/traffic.html")))
    if not await anyio.to_thread.run_sync(pages.wait_traffic_done, before, 60.0):
        raise TimeoutError(f"{key}: the traffic page did not finish")
    calls = {
        "list pages": adapter.list_pages(),
        "console list": await fit_call(session, adapter.console(page_id)),
        "network list": await fit_call(session, adapter.network(page_id)),
    }
    return client, calls


async def _run(keys: list[str], calls_per_job: int) -> dict[str, dict[str, list[float]]]:
    pages = BenchPages().start()
    chrome = ChromiumProcess.start()
    try:
        with contextlib.ExitStack() as logs, tempfile.TemporaryDirectory(prefix="interleaved-") as work:
            async with contextlib.AsyncExitStack() as stack:
                servers = {key: await _connect(stack, logs, key, pages, chrome.http_url, Path(work)) for key in keys}
                await anyio.sleep(1.5)  # late console messages and responses settle
                times = await timed_in_turn(servers, calls_per_job)
    finally:
        chrome.stop()
        pages.stop()
    return times


async def timed_in_turn(
    servers: dict[str, tuple[Client, dict[str, Call]]], calls_per_job: int
) -> dict[str, dict[str, list[float]]]:
    """Per job and server, the time of each call (ms): every server called once per round, in an
    order that alternates, after one unmeasured call each."""
    times: dict[str, dict[str, list[float]]] = {job: {key: [] for key in servers} for job in JOBS}
    keys = list(servers)
    for job in JOBS:
        for client, calls in servers.values():
            await client.call_tool(calls[job].tool, calls[job].args)
        for i in range(calls_per_job):
            for key in keys if i % 2 else reversed(keys):
                client, calls = servers[key]
                started = time.perf_counter()
                await client.call_tool(calls[job].tool, calls[job].args)
                times[job][key].append((time.perf_counter() - started) * 1000)
    return times


def _report(times: dict[str, dict[str, list[float]]], keys: list[str]) -> str:
    lines = ["| job | server | median (ms) | p25 (ms) | median of time / first server's, same round |"]
    lines.append("| --- | --- | --- | --- | --- |")
    for job, by_server in times.items():
        first = by_server[keys[0]]
        for key in keys:
            own = by_server[key]
            ratio = statistics.median(x / y for x, y in zip(own, first, strict=True))
            p25 = statistics.quantiles(own, n=4)[0]
            lines.append(f"| {job} | {key} | {statistics.median(own):.2f} | {p25:.2f} | {ratio:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.interleaved", description=__doc__.splitlines()[0])
    parser.add_argument("--servers", default="ours,chrome-devtools-mcp,playwright-mcp")
    parser.add_argument("--calls", type=int, default=100, help="calls per job and server")
    ns = parser.parse_args(argv)
    keys = [k.strip() for k in ns.servers.split(",") if k.strip()]
    unknown = [k for k in keys if k not in ADAPTERS]
    if unknown or not keys:
        print(f"unknown server(s) {unknown}; choose from {list(ADAPTERS)}", file=sys.stderr)
        return 2
    load = os.getloadavg()[0]
    times = asyncio.run(_run(keys, max(2, ns.calls)))
    print(f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after; {ns.calls} calls per job and server")
    print(_report(times, keys))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
