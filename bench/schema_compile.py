"""Compile time of a server's outputSchemas in both MCP SDKs' validators, per tool and in total.

    .venv/bin/python -m bench.schema_compile                                  # ours, default toolset
    .venv/bin/python -m bench.schema_compile --toolset condensed              # ours, condensed
    .venv/bin/python -m bench.schema_compile --server playwright-mcp
    .venv/bin/python -m bench.schema_compile --tools-json before.json         # a saved tools/list
    .venv/bin/python -m bench.schema_compile --save-tools now.json --json out.json

Why: a client pays for every outputSchema once per session before it can check an answer.
The Python SDK (``mcp.client.session.ClientSession._output_schema_validator``) does it at a
tool's first call: ``validator_for(schema)``, ``check_schema`` (the schema validated against
its meta-schema, 2020-12 for ours) and the validator built with an empty ``Registry``; this
script times those steps the same way. The TypeScript SDK does it for every tool inside
``listTools``: ``AjvJsonSchemaValidator.getValidator`` on its default Ajv instance
(``bench/schema_compile.mjs`` uses that class from the installed SDK). Each number is the
median of ``--runs`` runs, each run on fresh objects (and a fresh Ajv instance); the first
run, which also warms the validators' own code (a TS host's first session is close to it), and
the fastest run (the steadiest figure on a loaded machine) are shown apart.

``--tools-json`` takes a saved ``tools/list`` result (``{"tools": [...]}``, a JSON-RPC
response holding one, or a bare list), so schema shapes can be compared before and after a
change without starting anything.
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .first.wire import wire_first_answer
from .servers import ADAPTERS

__all__ = ["load_tools", "python_compile", "ajv_compile", "main"]

HERE = Path(__file__).resolve().parent


def load_tools(path: Path) -> list[dict[str, Any]]:
    """The tools of a saved ``tools/list``: the result, a JSON-RPC response holding it, or a bare list."""
    data = json.loads(path.read_text())
    if isinstance(data, dict) and "result" in data:
        data = data["result"]
    return data["tools"] if isinstance(data, dict) else data


def fetch_tools(server: str, extra_args: list[str], peers_dir: Path) -> list[dict[str, Any]]:
    """Start ``server`` on a throwaway home, read its ``tools/list`` over stdio, stop it."""
    from .runner import _server_env

    adapter = ADAPTERS[server]()
    cmd, args = adapter.command(peers_dir, "http://127.0.0.1:1")
    with tempfile.TemporaryDirectory(prefix="schema-compile-") as tmp:
        base = Path(tmp)
        (base / "cwd").mkdir()
        env = _server_env(base / "home", base / "artifacts")
        got = wire_first_answer(
            [cmd, *args, *extra_args], env, base / "cwd", [], base / "stderr.log", 60.0, keep_tools=True
        )
    return got["tools"]["tools"]


def python_compile(schema: dict[str, Any]) -> dict[str, float]:
    """One compile as the Python SDK does it (seconds per step), on a fresh copy of the schema."""
    from jsonschema.validators import validator_for
    from referencing import Registry

    schema = copy.deepcopy(schema)
    t0 = time.perf_counter()
    cls = validator_for(schema)
    cls.check_schema(schema)
    t1 = time.perf_counter()
    cls(schema, registry=Registry())
    t2 = time.perf_counter()
    return {"check_schema": t1 - t0, "build": t2 - t1}


def ajv_compile(tools: list[dict[str, Any]], runs: int, peers_dir: Path) -> dict[str, Any]:
    """Runs of ``bench/schema_compile.mjs``: ajv compile per tool, as the TypeScript SDK configures it."""
    if shutil.which("node") is None:
        return {"error": "node not found"}
    proc = subprocess.run(
        ["node", str(HERE / "schema_compile.mjs"), str(peers_dir), str(runs)],
        input=json.dumps({"tools": tools}),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        return {"error": proc.stderr[-500:]}
    return json.loads(proc.stdout)


def _median(values: list[float]) -> float:
    return round(statistics.median(values) * 1000, 2) if values else 0.0


def measure(tools: list[dict[str, Any]], runs: int, peers_dir: Path) -> dict[str, Any]:
    """Per tool and total: outputSchema bytes, Python check_schema / build, ajv compile (ms, medians)."""
    with_schema = [t for t in tools if t.get("outputSchema")]
    py_runs: list[dict[str, dict[str, float]]] = []
    import jsonschema  # noqa: F401 - imported before timing, as a client process has it after its first call

    for _ in range(runs):
        py_runs.append({t["name"]: python_compile(t["outputSchema"]) for t in with_schema})
    ajv = ajv_compile(with_schema, runs, peers_dir)
    ajv_runs = ajv.get("runs", [])
    per_tool = []
    for t in with_schema:
        name = t["name"]
        per_tool.append(
            {
                "tool": name,
                "bytes": len(json.dumps(t["outputSchema"], separators=(",", ":"))),
                "py_check_schema_ms": _median([r[name]["check_schema"] for r in py_runs]),
                "py_build_ms": _median([r[name]["build"] for r in py_runs]),
                "ajv_ms": round(statistics.median(r["perTool"][name] for r in ajv_runs), 2) if ajv_runs else None,
            }
        )
    py_totals = [sum(s["check_schema"] + s["build"] for s in r.values()) for r in py_runs]
    py_checks = [sum(s["check_schema"] for s in r.values()) for r in py_runs]
    ajv_totals = [r["total"] for r in ajv_runs]
    return {
        "tools": len(tools),
        "with_output_schema": len(with_schema),
        "output_schema_bytes": sum(p["bytes"] for p in per_tool),
        "tools_list_bytes": len(json.dumps({"tools": tools}, separators=(",", ":"))),
        "runs": runs,
        "per_tool": per_tool,
        "total": {
            "py_ms": _median(py_totals),
            "py_check_schema_ms": _median(py_checks),
            "py_first_run_ms": round(py_totals[0] * 1000, 2) if py_totals else None,
            "py_min_ms": round(min(py_totals) * 1000, 2) if py_totals else None,
            "ajv_min_ms": round(min(ajv_totals), 2) if ajv_totals else None,
            "ajv_ms": round(statistics.median(ajv_totals), 2) if ajv_totals else None,
            "ajv_first_run_ms": round(ajv_totals[0], 2) if ajv_totals else None,
        },
        "ajv_sdk": ajv.get("sdkVersion"),
        "ajv_error": ajv.get("error"),
    }


def render(res: dict[str, Any], source: str) -> str:
    rows = [("tool", "bytes", "py check_schema ms", "py build ms", "ajv ms")]
    for p in sorted(res["per_tool"], key=lambda p: -p["bytes"]):
        ajv = "—" if p["ajv_ms"] is None else f"{p['ajv_ms']:.2f}"
        rows.append((p["tool"], str(p["bytes"]), f"{p['py_check_schema_ms']:.2f}", f"{p['py_build_ms']:.2f}", ajv))
    tot = res["total"]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = [f"{source}: {res['with_output_schema']} of {res['tools']} tools have an outputSchema, "]
    lines[0] += f"{res['output_schema_bytes']:,} bytes of them (tools/list {res['tools_list_bytes']:,} bytes)"
    lines += [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        for r in rows
    ]
    lines.append(
        f"total, median of {res['runs']} runs: Python SDK {tot['py_ms']:.1f} ms "
        f"(check_schema {tot['py_check_schema_ms']:.1f}; first run {tot['py_first_run_ms'] or 0:.1f}, "
        f"min {tot['py_min_ms'] or 0:.1f}), ajv {tot['ajv_ms'] if tot['ajv_ms'] is not None else '—'} ms "
        f"(first run {tot['ajv_first_run_ms']}, min {tot['ajv_min_ms']}); on a loaded machine compare the mins"
    )
    lines.append(
        "(the Python SDK compiles a tool's schema at that tool's first call in a session; "
        "the TypeScript SDK compiles all of them inside tools/list)"
    )
    if res.get("ajv_error"):
        lines.append(f"ajv: {res['ajv_error']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.schema_compile", description=__doc__.split("\n\n")[1])
    p.add_argument("--server", default="ours", choices=list(ADAPTERS), help="the server whose tools/list to read")
    p.add_argument("--toolset", help="ours: --toolset VALUE (e.g. condensed)")
    p.add_argument("--server-arg", action="append", default=[], help="more arguments for the server (repeatable)")
    p.add_argument("--tools-json", type=Path, help="a saved tools/list instead of starting a server")
    p.add_argument("--save-tools", type=Path, help="write the tools/list read from the server here")
    p.add_argument("--runs", type=int, default=7, help="runs per validator; medians are reported")
    p.add_argument("--peers-dir", type=Path, default=HERE / "peers", help="node_modules with @modelcontextprotocol/sdk")
    p.add_argument("--json", type=Path, help="write the full result here")
    ns = p.parse_args(argv)
    if ns.tools_json:
        tools, source = load_tools(ns.tools_json), str(ns.tools_json)
    else:
        extra = ([f"--toolset={ns.toolset}"] if ns.toolset else []) + ns.server_arg
        tools = fetch_tools(ns.server, extra, ns.peers_dir.resolve())
        source = " ".join([ns.server, *extra])
        if ns.save_tools:
            ns.save_tools.write_text(json.dumps({"tools": tools}, indent=1) + "\n")
    res = measure(tools, max(1, ns.runs), ns.peers_dir.resolve())
    res["source"] = source
    print(render(res, source))
    if ns.json:
        ns.json.write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
