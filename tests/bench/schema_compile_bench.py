"""How long clients take to compile our outputSchemas, and to validate one answer with them.

Usage: ``.venv/bin/python tests/bench/schema_compile_bench.py [toolset|tools.json ...]``
(default: all three toolsets, listed by a server spawned from this tree).

Per toolset: ``tools/list`` chars as bench/runner.py counts them; the Python SDK's compile
(``check_schema`` against the 2020-12 meta-schema + building the validator, as
``ClientSession._output_schema_validator`` does once per tool and session); the TypeScript
SDK's (``AjvJsonSchemaValidator.getValidator`` per tool, as ``Client.cacheToolMetadata`` does
on every ``tools/list``: cold = the first list in a fresh Node process, warm = the median of
later ones); and ``jsonschema`` per-answer validation of a few typical answers. Benchmarks, not
tests: they time things (bench/schema_compile.py from b36-bench measures the same in the peer bench).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT / "bench" / "peers"

NODE = r"""
const fs = require('fs');
const { AjvJsonSchemaValidator } = require('@modelcontextprotocol/sdk/validation/ajv');
const tools = JSON.parse(fs.readFileSync(process.argv[1], 'utf8'));
function listOnce() {
  const v = new AjvJsonSchemaValidator();
  const t0 = process.hrtime.bigint();
  for (const t of tools) if (t.outputSchema) v.getValidator(t.outputSchema);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}
const cold = listOnce();
const warm = [];
for (let i = 0; i < 15; i++) warm.push(listOnce());
warm.sort((a, b) => a - b);
console.log(JSON.stringify({ cold, warm: warm[Math.floor(warm.length / 2)] }));
"""


def list_tools(toolset: str) -> dict:
    """The raw tools/list result of a server spawned from this tree."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_server.cli", "--toolset", toolset],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )

    def send(obj: dict) -> None:
        proc.stdin.write((json.dumps(obj) + "\n").encode())
        proc.stdin.flush()

    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    proc.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    line = proc.stdout.readline()
    proc.stdin.close()
    proc.wait(10)
    return json.loads(line)["result"]


def bench_chars(result: dict) -> int:
    import mcp.types as types

    return len(types.ListToolsResult.model_validate(result).model_dump_json(by_alias=True, exclude_none=True))


def py_compile_ms(tools: list[dict], reps: int = 15) -> float:
    """Median over ``reps`` of compiling every tool's outputSchema the way the Python SDK client does."""
    from jsonschema.validators import validator_for
    from referencing import Registry

    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for tool in tools:
            schema = tool.get("outputSchema")
            if schema is None:
                continue
            cls = validator_for(schema)
            cls.check_schema(schema)
            cls(schema, registry=Registry())
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def ajv_compile_ms(tools: list[dict]) -> dict | None:
    if not (PEERS / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(tools, f)
    out = subprocess.run(
        ["node", "-e", NODE, f.name], cwd=PEERS, capture_output=True, text=True, timeout=120, check=True
    )
    Path(f.name).unlink()
    return json.loads(out.stdout)


def _answers() -> dict[str, dict]:
    env = {"schemaVersion": "1", "status": "ok", "message": "m"}

    def via(tool: str, action: str) -> dict:
        return {**env, "adapter": {"entryTool": tool, "action": action, "legacyTool": None}}

    rows = [[i, "button", f"B {i}"] for i in range(200)]
    return {
        "browser_session/list_pages": {
            **via("browser_session", "list_pages"),
            "pages": [{"page_id": 0, "stable_page_id": "p1", "url": "http://127.0.0.1/", "selected": True}],
        },
        "browser_session/snapshot(200 rows)": {
            **via("browser_session", "snapshot"),
            "columns": ["uid", "role", "name"],
            "lines": rows,
        },
        "browser_session/error": {
            **via("browser_session", "navigate"),
            "status": "error",
            "code": "TIMEOUT",
            "hint": "h",
        },
        "browser_interact/click": {
            **via("browser_interact", "click"),
            "selector": "#b",
            "matches": 1,
        },
        "browser_navigate (legacy)": {**env, "url": "http://127.0.0.1/", "target": "launch", "stable_page_id": "p1"},
    }


def per_answer_us(tools: list[dict], reps: int = 300) -> dict[str, float]:
    from jsonschema.validators import validator_for

    by_name = {t["name"]: t.get("outputSchema") for t in tools}
    out = {}
    for label, answer in _answers().items():
        name = label.split("/")[0].split(" ")[0]
        schema = by_name.get(name)
        if schema is None:
            continue
        validator = validator_for(schema)(schema)
        errors = list(validator.iter_errors(answer))
        assert not errors, (label, errors[0].message)
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            for _e in validator.iter_errors(answer):
                pass
            times.append((time.perf_counter() - t0) * 1e6)
        out[label] = statistics.median(times)
    return out


def main(argv: list[str]) -> None:
    for source in argv or ["all", "condensed", "legacy"]:
        result = json.loads(Path(source).read_text()) if source.endswith(".json") else list_tools(source)
        result = result.get("result", result)
        tools = result["tools"]
        out_chars = sum(len(json.dumps(t.get("outputSchema") or {}, separators=(",", ":"))) for t in tools)
        print(f"== {source}: tools/list {bench_chars(result)} chars (outputSchemas {out_chars})")
        print(f"   Python SDK compile (check_schema + validator), all tools: {py_compile_ms(tools):.1f} ms")
        ajv = ajv_compile_ms(tools)
        if ajv:
            print(f"   TS SDK (ajv) compile, all tools: cold {ajv['cold']:.1f} ms, warm {ajv['warm']:.1f} ms")
        for label, us in per_answer_us(tools).items():
            print(f"   jsonschema per answer {label}: {us:.0f} us")


if __name__ == "__main__":
    main(sys.argv[1:])
