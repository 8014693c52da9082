"""Benchmark: the server's peak memory on big pages and big files (issue 16, finding 6).

Run: ``.venv/bin/python tests/bench/server_memory_bench.py [--page-mb 60] [--file-mb 300] [--root DIR]``

Each scenario starts a fresh ``mcp-browser`` over stdio (the SDK's real client), drives it, and
reads the server process's own high-water mark (``VmHWM`` in ``/proc``: the kernel's exact peak
RSS of the Python process; the browser and Playwright's driver are other processes). Scenarios:

- ``baseline``: a small page, ``get_dom`` and ``snapshot``;
- ``page-get_dom``: a text page of ``--page-mb`` MB, ``get_dom max_chars=100``;
- ``page-snapshot``: the same page, ``snapshot max_chars=1000``;
- ``download-read``: a ``--file-mb`` MB file in ``downloads/``, ``read_downloaded_file max_chars=100``.

Printed: each scenario's peak in MiB and its ratio to the baseline measured in the same run.
``--root`` runs the server from another source tree (e.g. an export of main) to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from httpserver import Reply, TestServer  # noqa: E402
from mcp.client import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402


def _hwm_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _pids() -> set[int]:
    return {int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()}


def _server_pid(before: set[int]) -> int:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in before:
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("PPid:"))
        if ppid == os.getpid() and b"mcp_server.cli" in cmdline:
            return int(entry.name)
    raise RuntimeError("server process not found")


async def _scenario(name: str, root: Path, steps: list[tuple[str, dict[str, Any]]], artifacts: Path) -> float:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(MCP_ARTIFACT_DIR=str(artifacts), NO_PROXY="127.0.0.1,localhost,::1", PYTHONPATH=str(root))
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcp_server.cli"], env=env, cwd=str(root))
    before = _pids()
    started = time.monotonic()
    async with Client(params) as client:
        pid = _server_pid(before)
        for action, args in steps:
            result = await client.call_tool("browser_session", {"action": action, **args})
            if result.is_error:
                text = result.content[0].text if result.content else ""
                print(f"  {name}: {action} answered an error: {text[:200]}")
        peak = _hwm_mib(pid)
    print(f"{name:16} peak {peak:7.1f} MiB  ({time.monotonic() - started:.1f} s)")
    return peak


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--page-mb", type=int, default=60)
    parser.add_argument("--file-mb", type=int, default=300)
    parser.add_argument("--root", type=Path, default=ROOT, help="source tree to run the server from")
    opts = parser.parse_args()
    server = TestServer().start()
    server.route("/mem/small.html", Reply(200, "<title>Small</title><p>small page</p><input name=q>"))
    line = "lorem ipsum dolor sit amet, consectetur adipiscing elit\n"
    body = "<title>Big</title><pre>" + line * (opts.page_mb * 1024 * 1024 // len(line)) + "</pre>"
    server.route("/mem/big.html", Reply(200, body))
    del body
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="mem-bench-") as tmp:
        base = Path(tmp)
        small, big = server.url("/mem/small.html"), server.url("/mem/big.html")
        open_big = ("navigate", {"url": big, "timeout_ms": 120000, "wait_until": "domcontentloaded"})
        results["baseline"] = await _scenario(
            "baseline", opts.root, [("navigate", {"url": small}), ("get_dom", {}), ("snapshot", {})], base / "a"
        )
        results["page-get_dom"] = await _scenario(
            "page-get_dom",
            opts.root,
            [open_big, ("get_dom", {"max_chars": 100})],
            base / "b",
        )
        results["page-snapshot"] = await _scenario(
            "page-snapshot",
            opts.root,
            [open_big, ("snapshot", {"max_chars": 1000})],
            base / "c",
        )
        downloads = base / "d" / "downloads"
        downloads.mkdir(parents=True)
        chunk = (line * (1024 * 1024 // len(line) + 1))[: 1024 * 1024].encode()
        with (downloads / "big.txt").open("wb") as fh:
            for _ in range(opts.file_mb):
                fh.write(chunk)
        results["download-read"] = await _scenario(
            "download-read",
            opts.root,
            [("read_downloaded_file", {"path": "big.txt", "max_chars": 100})],
            base / "d",
        )
    server.stop()
    print()
    for name, peak in results.items():
        print(f"{name:16} {peak:7.1f} MiB  x{peak / results['baseline']:.2f} of baseline")


if __name__ == "__main__":
    asyncio.run(main())
