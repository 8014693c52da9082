"""Benchmark: from spawning the server to its first answered call, step by step (issue 36).

Run: ``.venv/bin/python tests/bench/first_call.py [--rounds 5] [--client raw,sdk] [--home cold,warm]``

Each start spawns ``.venv/bin/mcp-browser`` over stdio with a throwaway HOME and XDG folders
(what ``make bench-peers`` gives every server), then times from the spawn: ``initialize``
answered, ``tools/list`` answered, and ``browser_session action=attach_cdp`` answered against a
headless Chromium started here with a debugging port (``ChromiumProcess``).

- ``cold``: a new HOME for every start (no recorded handshake: the first start of a user).
- ``warm``: one HOME for all starts, primed by one start before the timed ones (the
  recorded handshake in the user's cache folder, as on every later start of a user).
- ``raw``: a bare JSON-RPC client on the pipes (the server's time only, plus the pipe).
- ``sdk``: the Python SDK's ``Client`` (what the peer bench uses): adds the client's own work
  (its imports are done before the clock starts; its validation of the answer is not).

Prints the median of each step over the rounds (ms). ``--peers`` adds chrome-devtools-mcp and
playwright-mcp (bench/peers) with the SDK client; ``--compare base=CMD`` times another build of
ours in the same rounds (e.g. a script running the server from a checkout of the base commit).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cdp_core import ChromiumProcess  # noqa: E402

STEPS = ("initialize", "tools/list", "first call")
INIT_PARAMS = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "first-call", "version": "0"},
}


def server_env(home: Path) -> dict[str, str]:
    """The environment ``make bench-peers`` gives a server (the SDK client passes only PATH and these)."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "MCP_ARTIFACT_DIR": str(home / "artifacts"),
        "NO_PROXY": "127.0.0.1,localhost,::1",
    }
    for key in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        Path(env[key]).mkdir(parents=True, exist_ok=True)
    return env


def first_call(kind: str, cdp_url: str) -> tuple[str, dict[str, Any]]:
    if kind == "ours":
        return "browser_session", {"action": "attach_cdp", "cdp_url": cdp_url}
    return "list_pages" if kind == "chrome-devtools-mcp" else "browser_tabs", (
        {} if kind == "chrome-devtools-mcp" else {"action": "list"}
    )


def peer_command(kind: str, cdp_url: str) -> list[str]:
    bin_dir = ROOT / "bench" / "peers" / "node_modules" / ".bin"
    if kind == "chrome-devtools-mcp":
        return [
            str(bin_dir / "chrome-devtools-mcp"),
            "--browserUrl",
            cdp_url,
            "--no-usage-statistics",
            "--no-performance-crux",
        ]
    return [str(bin_dir / "playwright-mcp"), "--cdp-endpoint", cdp_url]


def _read_answer(proc: subprocess.Popen[bytes], want_id: int, buf: bytearray, timeout: float = 60) -> dict[str, Any]:
    """The answer with ``want_id`` (notifications such as progress skipped)."""
    deadline = time.monotonic() + timeout
    fd = proc.stdout.fileno()  # type: ignore[union-attr]
    while True:
        while b"\n" in buf:
            line, _, rest = bytes(buf).partition(b"\n")
            buf[:] = rest
            if not line.strip():
                continue
            msg = json.loads(line)
            if msg.get("id") == want_id and "method" not in msg:
                return msg
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise TimeoutError(f"no answer to id {want_id}")
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            raise EOFError(f"the server closed its output before answering id {want_id}")
        buf += chunk


def run_raw(cmd: list[str], env: dict[str, str], cwd: Path, call: tuple[str, dict[str, Any]]) -> list[float]:
    """Times (ms since spawn) of the three answers, through bare JSON-RPC lines."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd
    )
    assert proc.stdin is not None
    buf = bytearray()
    out: list[float] = []

    def send(msg: dict[str, Any]) -> None:
        proc.stdin.write(json.dumps(msg).encode() + b"\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_PARAMS})
        _read_answer(proc, 1, buf)
        out.append((time.perf_counter() - started) * 1000)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        listed = _read_answer(proc, 2, buf)
        assert listed.get("result", {}).get("tools"), listed
        out.append((time.perf_counter() - started) * 1000)
        send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": call[0], "arguments": call[1]}})
        answer = _read_answer(proc, 3, buf)
        result = answer.get("result") or {}
        if result.get("isError") or "error" in answer:
            raise RuntimeError(f"the first call failed: {json.dumps(answer)[:400]}")
        out.append((time.perf_counter() - started) * 1000)
    finally:
        proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return out


async def run_sdk(cmd: list[str], env: dict[str, str], cwd: Path, call: tuple[str, dict[str, Any]]) -> list[float]:
    """The same three steps through the Python SDK's Client (validation of the answer included)."""
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env, cwd=cwd)
    out: list[float] = []
    with open(os.devnull, "w") as errlog:  # noqa: ASYNC230 - handed to the child as its stderr
        started = time.perf_counter()
        client = Client(stdio_client(params, errlog=errlog), mode="legacy", read_timeout_seconds=60)
        async with client:
            out.append((time.perf_counter() - started) * 1000)  # Client's enter runs initialize
            await client.list_tools()
            out.append((time.perf_counter() - started) * 1000)
            result = await client.call_tool(*call)
            if result.is_error:
                raise RuntimeError(f"the first call failed: {result.content}")
            out.append((time.perf_counter() - started) * 1000)
    return out


Combo = tuple[str, str, str]  # (server label, client, home)


def measure(
    servers: dict[str, tuple[str, list[str]]], clients: list[str], homes: list[str], rounds: int, cdp_url: str
) -> dict[Combo, list[list[float]]]:
    """Samples per (server, client, home); all combinations alternate within each round (a loaded machine drifts).

    ``servers``: label -> (kind, command). Peers get the SDK client and a cold home only.
    """
    combos: list[Combo] = []
    for label, (kind, _) in servers.items():
        for client in clients if kind == "ours" else ["sdk"]:
            for home in homes if kind == "ours" else ["cold"]:
                combos.append((label, client, home))
    samples: dict[Combo, list[list[float]]] = {c: [] for c in combos}
    with tempfile.TemporaryDirectory(prefix="first-call-") as tmp:
        base = Path(tmp)
        cwd = base / "cwd"
        cwd.mkdir()

        def one(label: str, client: str, home: Path) -> list[float]:
            kind, cmd = servers[label]
            env = server_env(home)
            call = first_call(kind, cdp_url)
            if client == "raw":
                return run_raw(cmd, env, cwd, call)
            return asyncio.run(run_sdk(cmd, env, cwd, call))

        for label, client, home in combos:
            if home == "warm":
                one(label, client, base / f"warm-{label}")  # primes the user's cache folder (the recording)
        for i in range(rounds):
            for label, client, home in combos:
                where = base / (f"warm-{label}" if home == "warm" else f"cold-{label}-{client}-{i}")
                samples[label, client, home].append(one(label, client, where))
                time.sleep(0.3)  # let the previous server and its Chromium sessions go
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--client", default="raw,sdk")
    parser.add_argument("--home", default="cold,warm")
    parser.add_argument("--peers", action="store_true", help="also time chrome-devtools-mcp and playwright-mcp")
    parser.add_argument("--server", default=str(ROOT / ".venv" / "bin" / "mcp-browser"))
    parser.add_argument(
        "--compare", action="append", default=[], help="LABEL=COMMAND: another build of ours, timed alongside"
    )
    ns = parser.parse_args()
    import mcp.client  # noqa: F401 - the SDK client's imports happen before any clock starts
    import mcp.client.stdio  # noqa: F401

    chrome = ChromiumProcess.start()
    try:
        servers: dict[str, tuple[str, list[str]]] = {"ours": ("ours", [ns.server])}
        for extra in ns.compare:
            label, _, cmd = extra.partition("=")
            servers[label] = ("ours", [cmd])
        if ns.peers:
            for kind in ("chrome-devtools-mcp", "playwright-mcp"):
                servers[kind] = (kind, peer_command(kind, chrome.cdp_url))
        samples = measure(servers, ns.client.split(","), ns.home.split(","), ns.rounds, chrome.cdp_url)
        print(f"{'server':<22}{'client':<7}{'home':<6}" + "".join(f"{s:>14}" for s in STEPS) + "   (median ms)")
        for (label, client, home), rows in samples.items():
            medians = [statistics.median(r[i] for r in rows) for i in range(len(STEPS))]
            print(f"{label:<22}{client:<7}{home:<6}" + "".join(f"{m:>14.0f}" for m in medians))
    finally:
        chrome.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
