"""Every answer validates against its outputSchema in the TypeScript SDK too, not only in Python's.

The TypeScript SDK's ``Client`` compiles each tool's outputSchema with ajv at ``tools/list`` and
throws from ``callTool`` when a ``structuredContent`` does not match, error answers included
(tests/ts_sdk_client.cjs records each call). ajv reads JSON Schema differently from Python's
``jsonschema`` in places (its default dialect, unknown keywords, ``$ref`` handling), so an answer
the Python client accepts can still break a Node host. Here our server runs over stdio as a host
would start it, and the client calls every action of both condensed tools (minimal arguments, as
tests/mcp_server/server/test_actions_match_output_schemas.py's sweep does) and every legacy tool
on a page this test serves, plus answers that must be errors. Python's side:
tests/mcp_server/server/test_actions_match_output_schemas.py (its ``Session`` and the SDK's
``call_tool`` validate every answer).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from paths import ROOT

from mcp_server.server import registry
from mcp_server.server.app import BrowserMCP
from mcp_server.server.registry import CONDENSED_TOOLS
from mcp_server.server.schema import args_schema
from mcp_server.server.settings import Settings

PEERS = ROOT / "bench" / "peers"
SDK = PEERS / "node_modules" / "@modelcontextprotocol" / "sdk"
#: these change the browser target (attach to a Chrome we do not have, close what we use)
SKIP = {"attach_cdp", "detach_cdp", "use_launch_browser", "close_browser_target"}


def _minimal_args(schema: dict[str, Any]) -> dict[str, Any]:
    """The smallest call an agent could make: only the required fields, with plain values."""
    samples = {"string": "x", "integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}
    return {
        name: schema["properties"][name]["enum"][0]
        if "enum" in schema["properties"][name]
        else samples[schema["properties"][name].get("type", "string")]
        for name in schema.get("required", [])
    }


def _plan(page: str) -> list[tuple[str, dict[str, Any]]]:
    BrowserMCP(Settings(), manager=None, toolset="all")  # loads every action module
    calls: list[tuple[str, dict[str, Any]]] = [("browser_session", {"action": "navigate", "url": page})]
    for spec in registry.ACTIONS.values():
        if spec.name not in SKIP:
            calls.append((spec.tool, {"action": spec.name, **_minimal_args(args_schema(spec.args))}))
    calls.append(("browser_navigate", {"url": page}))
    for spec in registry.ACTIONS.values():
        if spec.legacy and spec.name not in SKIP and spec.legacy != "browser_navigate":
            calls.append((spec.legacy, _minimal_args(args_schema(spec.args))))
    calls += [
        ("browser_interact", {"action": "click", "selector": "#no-such-element", "timeout_ms": 200}),
        ("browser_click", {"selector": "#no-such-element", "timeout_ms": 200}),
        ("browser_session", {"action": "navigate"}),  # url missing
        ("browser_session", {"action": "no_such_action"}),
        ("browser_get_dom", {"selector": 7}),
    ]
    return calls


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the TypeScript SDK cannot run")
def test_every_answer_validates_in_the_typescript_sdk(http_server, tmp_path: Path, capsys):
    assert SDK.is_dir(), f"{SDK} is missing: `make test` installs @modelcontextprotocol/sdk into bench/peers"
    env = {k: v for k, v in os.environ.items() if k not in ("BROWSER_DEFAULT_TARGET", "PLAYWRIGHT_CDP_URL")}
    env |= {"MCP_ARTIFACT_DIR": str(tmp_path / "artifacts"), "NO_PROXY": "127.0.0.1,localhost,::1"}
    calls = _plan(http_server.url("/mcp/app.html?sweep"))
    plan = {"command": sys.executable, "args": ["-m", "mcp_server.cli", "--toolset", "all"], "env": env}
    plan["calls"] = calls
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    run = subprocess.run(
        ["node", str(ROOT / "tests" / "ts_sdk_client.cjs"), str(PEERS), str(tmp_path / "plan.json")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.splitlines()[-1])
    assert set(out["withValidator"]) >= {name for name, _ in calls}, "the SDK compiled no validator for some tools"
    broken = [c for c in out["calls"] if c["status"] in ("rejected", "threw")]
    assert not broken, broken[:3]
    done = out["calls"]
    assert len(done) == len(calls)
    errors = [c for c in done if c["status"] == "error"]
    assert sum(c["status"] == "ok" for c in done) > len(done) / 2, done
    assert {c["code"] for c in errors} >= {"INVALID_ARGUMENT"}, errors
    assert done[-5]["status"] == done[-4]["status"] == "error"  # the missing element, both ways
    assert {c["tool"] for c in done} >= {*CONDENSED_TOOLS, "browser_click", "browser_get_dom"}
    assert "INTERNAL_ERROR" not in {c["code"] for c in done}, [c for c in done if c["code"] == "INTERNAL_ERROR"]
    with capsys.disabled():
        print(
            f"\nTypeScript SDK validated {len(done)} answers ({len(errors)} errors) of "
            f"{len({c['tool'] for c in done})} tools; {len(out['withValidator'])} output validators compiled"
        )
