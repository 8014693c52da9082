"""The way to the first answered call (issue 36): what the start-up may leave for later, and what it must not.

- A session too short for the delayed recording (a client that lists the tools and leaves, a
  bench's first start) still records the handshake at its end: the next start answers
  ``initialize`` and ``tools/list`` from it, and its first call really runs (attach_cdp on a
  real Chromium).
- Calls are routed without the listed schemas (built at the first ``tools/list``), and the
  routing names exactly the tools and actions ``tools/list`` lists, in every toolset.
- The collector is off while the server loads and on again once it serves.
- What a quick start's early call runs (load, check, call, answer line) imports none of the MCP
  SDK (``mcp_types`` alone is 60-100 ms) nor httpx's command-line client.
"""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_http import server_env
from stdio_session import handshake, stdio_session

from cdp_core import ChromiumProcess
from mcp_server.actions import MODULES
from mcp_server.commands.gc_tuning import YOUNG_THRESHOLD, pause_for_startup, tune_gc
from mcp_server.core.settings import Settings
from mcp_server.surface.server import BrowserMCP

ROOT = Path(__file__).resolve().parent.parent


async def _session(env: dict[str, str], *messages: dict, answers: int) -> tuple[list[dict], str]:
    """Start the server, send ``messages``, read ``answers`` answers (notifications skipped), close stdin."""
    lines, log = await stdio_session(env, list(messages), answers)
    return [json.loads(line) for line in lines], log


async def test_a_short_first_session_leaves_the_recording_and_the_next_first_call_runs(
    tmp_path: Path, fresh_chromium: ChromiumProcess
):
    cache = tmp_path / "cache"
    env = server_env(tmp_path / "artifacts", XDG_CACHE_HOME=str(cache), MCP_QUICKSTART="1")
    first, log = await _session(env, *handshake(), answers=2)
    assert "answered the handshake from the recorded answers" not in log  # nothing recorded yet: the SDK answered
    assert list((cache / "mcp-browser-debug").glob("handshake-*.json")), log

    attach = {"action": "attach_cdp", "cdp_url": fresh_chromium.cdp_url}
    params = {"name": "browser_session", "arguments": attach}
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}
    second, log = await _session(env, *handshake(), call, answers=3)
    assert "answered the handshake from the recorded answers" in log
    assert second[:2] == first  # the same answers, byte for byte in content
    answer = second[2]
    assert answer["id"] == 3 and not answer["result"].get("isError"), answer
    assert answer["result"]["structuredContent"]["status"] == "ok"
    assert fresh_chromium.cdp_url.split("//")[1] in json.dumps(answer["result"]["structuredContent"])


@pytest.mark.parametrize("toolset", ["condensed", "legacy", "all"])
def test_calls_are_routed_to_what_tools_list_lists(tmp_path: Path, toolset: str):
    app = BrowserMCP(Settings(artifact_dir=str(tmp_path)), manager=None, toolset=toolset)
    assert "routes" not in vars(app)  # no schema built for routing
    routes = app.routes
    assert set(app.calls) == set(routes) == {t.name for t in app.list_tools()}
    for name, route in routes.items():
        assert app.calls[name].spec is route.spec
        assert app.calls[name].actions == route.actions


async def test_a_call_before_any_tools_list_builds_no_schema(tmp_path: Path):
    app = BrowserMCP(Settings(artifact_dir=str(tmp_path)), manager=None)
    answer = await app.call_tool("browser_session", {"action": "click_uid", "uid": 1})
    assert answer.is_error and answer.structured_content["code"] == "UNKNOWN_ACTION"
    assert "browser_interact" in json.dumps(answer.structured_content)  # the tool that has it
    unknown = await app.call_tool("no_such_tool", {})
    assert unknown.is_error and unknown.structured_content["code"] == "UNKNOWN_ACTION"
    assert "routes" not in vars(app)


#: the early path of a quick start (quick_front.py: prepare, then early_calls), in a fresh process
_EARLY_PATH = """
import asyncio, json, sys
from mcp_server.commands import early_calls
from mcp_server.commands.cli import build_tools
from mcp_server.core.settings import Settings

manager, app = build_tools(Settings(artifact_dir=sys.argv[1]))
call = {"name": "browser_session", "arguments": {"action": "get_capabilities"}}
line = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call}).encode()
assert early_calls.eligible(line, json.loads(line), "2025-11-25", app.calls)
answer = asyncio.run(app.answer(call["name"], call["arguments"]))
result = json.loads(early_calls.answer_line(3, answer.wire_form(), "2025-11-25"))["result"]
heavy = {"mcp", "mcp_types", "click", "pygments"}
print(json.dumps({"status": result["structuredContent"]["status"], "loaded": sorted(heavy & set(sys.modules))}))
"""


def test_an_early_first_call_loads_no_sdk_module(tmp_path: Path):
    """The first call of a warm start waits for every import on its way: the SDK's are not on it."""
    run = subprocess.run(
        [sys.executable, "-c", _EARLY_PATH, str(tmp_path / "artifacts")],
        capture_output=True, text=True, timeout=120, cwd=str(ROOT),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.splitlines()[-1])
    assert out == {"status": "ok", "loaded": []}, out


#: a quick start's first calls with the recorded index of action modules (quick_front.tools_ready), fresh process
_ONE_MODULE = """
import asyncio, json, sys
from mcp_server.commands import early_calls
from mcp_server.commands.cli import build_tools
from mcp_server.core.settings import Settings

manager, app = build_tools(Settings(artifact_dir=sys.argv[1]))
app.action_modules = json.loads(sys.argv[2])
actions = lambda: sorted(m for m in sys.modules if m.startswith("mcp_server.actions."))
out = {"atLoad": actions()}
line = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": {"name": "browser_session", "arguments": {"action": "get_browser_status"}}}).encode()
out["eligible"] = early_calls.eligible(line, json.loads(line), "2025-11-25", app.tool_names())
status = asyncio.run(app.answer("browser_session", {"action": "get_browser_status"}))
out["status"] = status.structured_content["status"]
out["afterFirstCall"] = actions()
legacy = asyncio.run(app.answer("browser_navigate", {}))  # routed from its own module: its argument check
out["legacy"] = [legacy.structured_content["code"], legacy.content[0].text]
out["afterLegacyCall"] = actions()
caps = asyncio.run(app.answer("browser_session", {"action": "get_capabilities"}))
out["capabilities"] = caps.structured_content["actions"]
print(json.dumps(out))
"""


async def test_an_early_first_call_imports_only_its_own_action_module(tmp_path: Path, handshake_recorded: dict):
    """~50 ms of the load a warm start's first call waits for is the ~20 action modules; it needs one.

    The recording names each action's module (``actionModules``); a call of an action it names
    imports that module alone; get_capabilities, which lists every action, still lists them all.
    """
    index = handshake_recorded["actionModules"]
    full = BrowserMCP(Settings(artifact_dir=str(tmp_path / "full")), manager=None)
    assert set(index) == {f"{t}:{a}" for t, r in full.calls.items() for a in r.actions} | {
        t for t, r in full.calls.items() if r.spec is not None
    }
    run = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-c", _ONE_MODULE, str(tmp_path / "artifacts"), json.dumps(index)],
        capture_output=True, text=True, timeout=120, cwd=str(ROOT),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.splitlines()[-1])
    assert out["atLoad"] == [] and out["eligible"] is True, out
    assert out["status"] == "ok", out
    assert out["afterFirstCall"] == ["mcp_server.actions.tabs", "mcp_server.actions.tabs.session"], out
    assert out["legacy"][0] == "INVALID_ARGUMENT" and "url" in out["legacy"][1], out
    registered = {f"mcp_server.actions.{name}" for name in MODULES}  # the modules that define actions
    assert registered & set(out["afterLegacyCall"]) == {  # its own module, and no other action's
        "mcp_server.actions.tabs.session",
        "mcp_server.actions.flat.page_tools",
    }, out
    listed = {tool: set(actions) for tool, actions in out["capabilities"].items()}
    assert listed == {t: set(r.actions) for t, r in full.calls.items() if r.spec is None}, listed


def test_the_collector_is_off_while_loading_and_on_once_serving():
    before = gc.get_threshold(), gc.isenabled()
    try:
        pause_for_startup()
        assert not gc.isenabled()
        tune_gc()
        assert gc.isenabled() and gc.get_threshold()[0] == YOUNG_THRESHOLD
    finally:
        gc.unfreeze()
        gc.set_threshold(*before[0])
        (gc.enable if before[1] else gc.disable)()
