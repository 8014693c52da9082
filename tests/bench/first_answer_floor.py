"""What the first answer cannot go below, server side and client side (issue 36's TS row).

Usage: ``.venv/bin/python tests/bench/first_answer_floor.py [--runs 9]``

Why: the TypeScript client's row "tools/list + first call" starts when ``initialize`` is
answered. Ours is answered from a recording ~50 ms after spawn (quickstart.py), so the row
holds whatever our process still has to load before it can run the call, plus the client's ajv
compile of our outputSchemas inside ``tools/list``. This prints both floors:

- Python: spawn-to-exit of an interpreter importing only what a first attach needs (asyncio,
  the websockets client, httpx, a pydantic model), against a bare interpreter; then our whole
  tools load (``_prepare_tools``, no SDK) in-process.
- Node: the first ``tools/list`` in a fresh process, as ``Client.cacheToolMetadata`` compiles
  it (the SDK's own ``AjvJsonSchemaValidator``): our outputSchemas; the same tools with only
  the 313-character envelope each; and no outputSchemas at all (what the peers send).

Medians over ``--runs``; a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT / "bench" / "peers"
PYTHON = ROOT / ".venv" / "bin" / "python"

IMPORTS = {
    "bare interpreter": "pass",
    "asyncio": "import asyncio",
    "what a first attach needs (asyncio, websockets, httpx, a pydantic model)": (
        "import asyncio, websockets.asyncio.client, httpx\n"
        "from pydantic import BaseModel\n"
        "class Args(BaseModel):\n    url: str"
    ),
}

TOOLS_LOAD = """
import os, sys, tempfile, time
os.environ["MCP_ARTIFACT_DIR"] = tempfile.mkdtemp()
t = time.perf_counter()
from mcp_server.commands import cli
cli._prepare_tools(cli.parse_args([]))
print((time.perf_counter() - t) * 1000)
"""

NODE = r"""
const fs = require('fs');
const { AjvJsonSchemaValidator } = require('@modelcontextprotocol/sdk/validation/ajv');
const tools = JSON.parse(fs.readFileSync(process.argv[1], 'utf8'));
const v = new AjvJsonSchemaValidator();
const t0 = process.hrtime.bigint();
for (const t of tools) if (t.outputSchema) v.getValidator(structuredClone(t.outputSchema));
process.stdout.write(String(Number(process.hrtime.bigint() - t0) / 1e6));
"""

ENVELOPE_KEYS = ("schemaVersion", "status", "message", "code", "hint")


def spawn_ms(code: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([str(PYTHON), "-c", code], check=True, cwd=ROOT)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def tools_load_ms(runs: int) -> float:
    out = [float(subprocess.run([str(PYTHON), "-c", TOOLS_LOAD], check=True, cwd=ROOT, capture_output=True,
                                text=True).stdout) for _ in range(runs)]  # fmt: skip
    return statistics.median(out)


def listed_tools() -> list[dict]:
    """Our default ``tools/list``, from a server spawned from this tree (the handshake, then the list)."""
    proc = subprocess.Popen(
        [str(PYTHON), "-m", "mcp_server.cli"], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "floor", "version": "0"}}
    for msg in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ):
        proc.stdin.write((json.dumps(msg) + "\n").encode())
    proc.stdin.flush()
    tools: list[dict] = []
    while not tools:
        msg = json.loads(proc.stdout.readline())
        if msg.get("id") == 2:
            tools = msg["result"]["tools"]
    proc.stdin.close()
    proc.wait(30)
    return tools


def envelope_only(tool: dict) -> dict:
    schema = tool["outputSchema"]
    kept = {k: v for k, v in schema.items() if k in ("type", "required", "if", "then")}
    kept["properties"] = {k: v for k, v in schema["properties"].items() if k in ENVELOPE_KEYS}
    return {**tool, "outputSchema": kept}


def ajv_cold_ms(tools: list[dict], runs: int) -> float:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(tools, f)
    times = []
    for _ in range(runs):
        done = subprocess.run(["node", "-e", NODE, f.name], check=True, cwd=PEERS, capture_output=True, text=True)
        times.append(float(done.stdout))
    Path(f.name).unlink()
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    ns = parser.parse_args()
    print("Python, spawn to exit (median ms):")
    for label, code in IMPORTS.items():
        print(f"  {spawn_ms(code, ns.runs):7.1f}  {label}")
    print(f"  {tools_load_ms(ns.runs):7.1f}  our tools load in-process (_prepare_tools, after the interpreter started)")
    if not (PEERS / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        print("Node: bench/peers has no @modelcontextprotocol/sdk (make bench-peers installs it)")
        return 0
    tools = listed_tools()
    print("TypeScript SDK, ajv compile of the first tools/list in a fresh process (median ms):")
    print(f"  {ajv_cold_ms(tools, ns.runs):7.1f}  our {len(tools)} outputSchemas")
    print(f"  {ajv_cold_ms([envelope_only(t) for t in tools], ns.runs):7.1f}  the envelope alone, per tool")
    print(f"  {ajv_cold_ms([{k: v for k, v in t.items() if k != 'outputSchema'} for t in tools], ns.runs):7.1f}"
          "  no outputSchemas (the peers)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
