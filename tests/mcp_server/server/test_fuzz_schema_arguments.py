"""Well-typed but hostile arguments to every read/export action: the handlers really run, and still never crash.

``tests/mcp_server/server/test_fuzz_random_arguments.py`` throws random JSON at every tool, which
mostly exercises argument validation. This test generates arguments *from each action's own input schema* (right types,
within the declared bounds) filled with hostile values: path escapes, NUL bytes, huge and
negative ids, odd Unicode, broken regexes and selectors, remote URLs. So every example passes
validation and reaches the handler, the browser and the artifacts code. Invariants per call:
a schema-valid structured answer, never INTERNAL_ERROR, the same pages with the same selection
and frame afterwards, nothing written outside the artifacts root, the audit log intact.

Actions that legitimately change state (navigate, select/switch, close, attach/detach,
load_state, clicks and typing, dialogs, clears, trace start) are left to the random-JSON test
and to their own tests.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.client import Client

from mcp_server.cli.main import build_app
from mcp_server.features import load_actions
from mcp_server.server.registry import ACTIONS
from mcp_server.server.schema import args_schema
from mcp_server.server.settings import Settings

#: Read-only or export-only actions whose well-typed calls must leave the browser state as it was.
SAFE = [
    "get_capabilities",
    "get_browser_status",
    "list_pages",
    "get_current_page",
    "get_dom",
    "screenshot",
    "get_network_errors",
    "get_console_logs",
    "list_frames",
    "read_downloaded_file",
    "export_state",
    "console_list",
    "console_get",
    "network_list",
    "network_get",
    "network_save_body",
    "network_export_har",
    "debug_bundle",
    "snapshot",
    "wait_for",
    "performance_summary",
]
#: Fields that run the agent's own script in the page: a script may change the page (``alert(1)`` opens a
#: dialog, as ``evaluate_js`` would), so they are evaluate's domain
#: (tests/mcp_server/dialogs/test_dialog_left_open.py), not a read's.
SCRIPTS = {("wait_for", "predicate")}
#: Fields whose value is a wait: kept short so the run stays bounded (their upper bound is tested elsewhere).
SHORT = {"timeout_ms": 300, "idle_ms": 200}

HOSTILE_TEXT = [
    "",
    " ",
    ".",
    "..",
    "../../../../etc/passwd",
    "/etc/passwd",
    "~root/.ssh/id_rsa",
    "audit.jsonl",
    "../audit.jsonl",
    "a\x00b",
    "\x00",
    "x" * 5000,
    "é" * 300,
    "\u202e\u0000\ud7ff",
    "😀" * 40,
    "'\"><script>alert(1)</script>",
    "]]]:::###",
    "*",
    "(((",
    "(a+)+$",
    "[a-",
    "\\",
    "${7*7}{{7*7}}%s%n",
    "javascript:alert(1)",
    "file:///etc/passwd",
    "http://10.255.255.1:9222/",
    "NaN",
    "-1",
    "p999999",
    "main",
    "#nope > > div",
    "//*[@id='x']",
    "text=Sign in",
]
text = st.sampled_from(HOSTILE_TEXT) | st.text(max_size=30)
EDGE_INTS = [0, 1, -1, 2**31, -(2**31), 2**53 + 1, 10**30, -(10**30)]


def _strategy(name: str, prop: dict[str, Any]) -> st.SearchStrategy[Any]:
    if "enum" in prop:
        return st.sampled_from(prop["enum"])
    kind = prop.get("type")
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        lo, hi = prop.get("minimum"), prop.get("maximum")
        if name in SHORT:
            hi = min(hi if hi is not None else SHORT[name], SHORT[name])
        edges = [v for v in EDGE_INTS if (lo is None or v >= lo) and (hi is None or v <= hi)]
        bounded = st.integers(min_value=lo, max_value=hi)
        return st.sampled_from(edges) | bounded if edges else bounded
    if kind == "string":
        longest = prop.get("maxLength")  # well-typed: within the schema's bound (url_matches: 2000)
        return text if longest is None else text.map(lambda s: s[:longest])
    if kind == "array":
        return st.lists(_strategy(name, prop.get("items", {})), max_size=4)
    raise AssertionError(f"no strategy for {name}: {prop}")


def _args_strategy(action: str) -> st.SearchStrategy[dict[str, Any]]:
    schema = args_schema(ACTIONS[("browser_session", action)].args)
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    fields = {name: _strategy(name, prop) for name, prop in props.items() if (action, name) not in SCRIPTS}
    must = st.fixed_dictionaries({n: s for n, s in fields.items() if n in required})
    optional = {n: s for n, s in fields.items() if n not in required}
    maybe = st.fixed_dictionaries({}, optional=optional)
    return st.builds(lambda a, b: {**a, **b}, must, maybe)


load_actions()
CALLS = st.one_of(*(st.tuples(st.just(a), _args_strategy(a)) for a in SAFE))

PAGE = """<!doctype html><title>Fuzz</title><h1>Fuzz page</h1>
<form><input name="q"><input type="password" name="pw"></form>
<iframe srcdoc="<p>inner</p>"></iframe>
<script>console.error("boom", {a: 1}); fetch("/a.html"); fetch("/missing-404");</script>"""


class Harness:
    def __init__(self, portal: BlockingPortal, client: Client, tools: dict[str, Any], root: Path) -> None:
        self.portal, self.client, self.tools, self.root = portal, client, tools, root

    def call(self, tool: str, args: dict[str, Any]) -> Any:
        return self.portal.call(self.client.call_tool, tool, args)

    def pages(self) -> list[tuple[Any, ...]]:
        result = self.call("browser_session", {"action": "list_pages"})
        pages = result.structured_content["pages"]
        return [(p["stable_page_id"], p.get("selected", False), p["url"], p.get("closed", False)) for p in pages]

    def frame(self) -> Any:
        frames = self.call("browser_session", {"action": "list_frames"}).structured_content
        return json.dumps(frames.get("frames"), sort_keys=True)


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory, http_server) -> Iterator[Harness]:
    from httpserver import Reply

    http_server.route("/fuzz-hostile/page.html", Reply(200, PAGE))
    base = tmp_path_factory.mktemp("fuzz-hostile")
    root = base / "artifacts"
    with start_blocking_portal(backend="asyncio") as portal:
        manager, server = portal.call(_build, root)
        try:
            with portal.wrap_async_context_manager(Client(server)) as client:
                tools = {t.name: t for t in portal.call(client.list_tools).tools}
                h = Harness(portal, client, tools, root)
                for path in ("/fuzz-hostile/page.html", "/a.html"):
                    nav = h.call("browser_session", {"action": "navigate", "url": http_server.url(path)})
                    assert not nav.is_error, nav.content[0].text
                    if path == "/fuzz-hostile/page.html":
                        portal.call(manager.new_page)  # a second tab, so a changed selection would show
                (root / "downloads").mkdir(parents=True, exist_ok=True)
                (root / "downloads" / "report.csv").write_text("a,b\n1,2\n")
                yield h
        finally:
            portal.call(manager.close)


async def _build(root: Path) -> tuple[Any, Any]:
    return build_app(Settings(artifact_dir=str(root)))


def _outside_files(root: Path) -> set[str]:
    base = root.parent
    return {str(p) for p in base.rglob("*") if root not in p.parents and p != root}


@pytest.mark.slow
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(call=CALLS)
def test_hostile_well_typed_arguments_never_crash_or_change_state(harness: Harness, call):
    action, args = call
    before_pages, before_frames = harness.pages(), harness.frame()
    outside = _outside_files(harness.root)
    log = harness.root / "audit.jsonl"
    log_before = log.read_bytes() if log.exists() else b""
    result = harness.call("browser_session", {"action": action, **args})
    sc = result.structured_content
    assert sc is not None, result.content
    jsonschema.validate(sc, harness.tools["browser_session"].output_schema)
    if result.is_error:
        assert sc["code"] not in ("INTERNAL_ERROR",), (action, args, sc)
        assert result.content[0].text.startswith(f"Error {sc['code']}")
        # validated arguments never fail validation: the handler itself answered
        assert sc["code"] != "INVALID_ARGUMENT" or "errors" not in sc, sc
    assert harness.pages() == before_pages, (action, args)
    assert harness.frame() == before_frames, (action, args)
    assert _outside_files(harness.root) == outside
    assert log.read_bytes().startswith(log_before)  # only ever appended to
