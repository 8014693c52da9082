"""How fast our list answers could be if our server built them in no time: the floor of their form.

Why: the list jobs of :mod:`bench.interleaved` trail chrome-devtools-mcp, and the question is how
much of that is our server's work and how much is the answer's form (typed rows in
``structuredContent`` besides the text, and a per-action ``outputSchema`` the SDK client checks
on every answer). This records ours' answers to the light jobs on the traffic page, then serves
them from :mod:`bench.replay_server`, which builds nothing, in three forms:

- ``replay``: the recorded answers and tool listing as they are;
- ``replay, no outputSchema``: the same answers, the tool listed without its output schema;
- ``replay, no outputSchema, rows as lines``: besides, each row of ``entries`` sent as one
  string (its cells joined by spaces) instead of a typed array.

Every server is called in turn, as in :mod:`bench.interleaved`, through the same SDK client.

    .venv/bin/python -m bench.answer_floor --calls 150
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from cdp_core import ChromiumProcess

from .interleaved import JOBS, _connect, timed_in_turn
from .pages import BenchPages
from .servers import Call

__all__ = ["main"]

PEER = "chrome-devtools-mcp"
ROOT = Path(__file__).resolve().parent.parent
FORMS = ("replay", "replay, no outputSchema", "replay, no outputSchema, rows as lines")


def _recording(tool: dict[str, Any], results: dict[str, Any], form: str) -> dict[str, Any]:
    """What the replay server of ``form`` is given: the tool listing and one result per action."""
    tool = dict(tool)
    if form != "replay":
        tool.pop("outputSchema", None)
    if form.endswith("rows as lines"):
        results = json.loads(json.dumps(results))
        for result in results.values():
            data = result.get("structuredContent") or {}
            rows = data.get("entries")
            if isinstance(rows, list) and rows and isinstance(rows[0], list):
                data["entries"] = [" ".join(str(cell) for cell in row) for row in rows]
    return {"tool": tool, "results": results}


async def _replay(stack: contextlib.AsyncExitStack, recording: dict[str, Any], path: Path) -> Client:
    path.write_text(json.dumps(recording))  # noqa: ASYNC240 - once, before any call is timed
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "bench.replay_server", str(path)],
        env={"PATH": os.environ.get("PATH", "")},
        cwd=str(ROOT),
    )
    client = await stack.enter_async_context(Client(stdio_client(params), mode="legacy"))
    await client.list_tools()
    return client


async def _run(calls_per_job: int) -> dict[str, dict[str, list[float]]]:
    pages = BenchPages().start()
    chrome = ChromiumProcess.start()
    try:
        with contextlib.ExitStack() as logs, tempfile.TemporaryDirectory(prefix="answer-floor-") as tmp:
            work = Path(tmp)
            async with contextlib.AsyncExitStack() as stack:
                servers: dict[str, tuple[Client, dict[str, Call]]] = {}
                for key in ("ours", PEER):
                    servers[key] = await _connect(stack, logs, key, pages, chrome.http_url, work)
                await asyncio.sleep(1.5)  # late console messages and responses settle
                ours, calls = servers["ours"]
                listed = {t.name: t for t in (await ours.list_tools()).tools}
                tool = listed[calls["list pages"].tool].model_dump(mode="json", by_alias=True, exclude_none=True)
                results = {}
                for job in JOBS:
                    answer = await ours.call_tool(calls[job].tool, calls[job].args)
                    action = calls[job].args["action"]
                    results[action] = answer.model_dump(mode="json", by_alias=True, exclude_none=True)
                for i, form in enumerate(FORMS):
                    client = await _replay(stack, _recording(tool, results, form), work / f"replay-{i}.json")
                    servers[form] = (client, calls)
                times = await timed_in_turn(servers, calls_per_job)
    finally:
        chrome.stop()
        pages.stop()
    return times


def _report(times: dict[str, dict[str, list[float]]]) -> str:
    lines = ["| job | server | median (ms) | / ours, same round | / chrome-devtools-mcp, same round |"]
    lines.append("| --- | --- | --- | --- | --- |")
    for job, by_server in times.items():
        for key, own in by_server.items():
            to_ours = statistics.median(x / y for x, y in zip(own, by_server["ours"], strict=True))
            to_peer = statistics.median(x / y for x, y in zip(own, by_server[PEER], strict=True))
            lines.append(f"| {job} | {key} | {statistics.median(own):.2f} | {to_ours:.2f} | {to_peer:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.answer_floor", description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=150, help="calls per job and server")
    ns = parser.parse_args(argv)
    load = os.getloadavg()[0]
    times = asyncio.run(_run(max(2, ns.calls)))
    print(f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after; {ns.calls} calls per job and server")
    print(_report(times))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
