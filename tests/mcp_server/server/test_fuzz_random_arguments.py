"""Random and malformed arguments to every tool and action: always a structured answer, never a crash.

Hypothesis drives synchronous examples; the server, its real browser and the SDK client live on
an event loop in a blocking portal, so one browser serves every example. After each call the
answer must validate against the tool's outputSchema, an error must carry a stable code other
than INTERNAL_ERROR, and the selected page must be the one selected before.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.client import Client

from mcp_server.evidence import capture
from mcp_server.server.app import BrowserMCP
from mcp_server.server.settings import Settings
from targets import BrowserManager

#: Actions that switch or close targets, or leave the page: tested deliberately elsewhere.
SKIP = {
    "attach_cdp",
    "detach_cdp",
    "use_launch_browser",
    "close_browser_target",
    "navigate",
    "load_state",
    "go_back",
    "go_forward",
    "reload",
    "new_page",
    "close_page",
}


class Harness:
    def __init__(self, portal: BlockingPortal, client: Client, app: BrowserMCP, tools: dict[str, Any]) -> None:
        self.portal, self.client, self.app, self.tools = portal, client, app, tools

    def call(self, tool: str, args: dict[str, Any]):
        return self.portal.call(self.client.call_tool, tool, args)

    def current(self) -> str:
        result = self.call("browser_session", {"action": "get_current_page"})
        return result.structured_content["page"]["stable_page_id"]


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory, http_server) -> Iterator[Harness]:
    settings = Settings(artifact_dir=tmp_path_factory.mktemp("fuzz-artifacts"))
    with start_blocking_portal(backend="asyncio") as portal:

        async def make() -> BrowserMCP:
            manager = BrowserManager(settings.target_settings())
            capture.install(manager, settings)
            return BrowserMCP(settings, manager)

        app = portal.call(make)
        try:
            # The client's task group must be entered and left by one task: the portal runs it so.
            with portal.wrap_async_context_manager(Client(app.build())) as client:
                tools = {t.name: t for t in portal.call(client.list_tools).tools}
                h = Harness(portal, client, app, tools)
                nav = h.call("browser_navigate", {"url": http_server.url("/mcp/app.html?fuzz")})
                assert not nav.is_error, nav.content[0].text
                yield h
        finally:
            portal.call(app.manager.close)


def _action_names() -> list[tuple[str, str]]:
    app = BrowserMCP(Settings(), manager=None, toolset="condensed")
    return [(tool, name) for tool, route in app.routes.items() for name in route.actions if name not in SKIP]


ACTIONS = _action_names()
FIELDS = sorted(
    {
        name
        for route in BrowserMCP(Settings(), manager=None, toolset="condensed").routes.values()
        for name in route.tool.input_schema["properties"]
        if name != "action"
    }
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
arguments = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=12), json_values, max_size=4)


def _check(h: Harness, tool: str, result: Any) -> None:
    sc = result.structured_content
    assert sc is not None, result.content
    jsonschema.validate(sc, h.tools[tool].output_schema)
    assert sc["status"] == ("error" if result.is_error else "ok")
    if result.is_error:
        assert sc["code"] != "INTERNAL_ERROR", sc
        assert result.content[0].text.startswith(f"Error {sc['code']}")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pick=st.sampled_from(ACTIONS), args=arguments, action_noise=st.sampled_from([None, 0, "", "nope", ["x"]]))
def test_random_arguments_to_condensed_tools(harness: Harness, pick, args, action_noise):
    tool, name = pick
    before = harness.current()
    result = harness.call(tool, {**args, "action": name})
    _check(harness, tool, result)
    if result.structured_content.get("code") == "DIALOG_OPEN":
        harness.call("browser_session", {"action": "handle_dialog", "dialog_action": "dismiss"})
    noisy = harness.call(tool, {**args, "action": action_noise})
    _check(harness, tool, noisy)
    assert noisy.is_error and noisy.structured_content["code"] in ("UNKNOWN_ACTION", "INVALID_ARGUMENT")
    assert harness.current() == before


LEGACY = sorted(
    spec.legacy
    for spec in BrowserMCP(Settings(), manager=None, toolset="legacy").specs
    if spec.legacy and spec.name not in SKIP
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool=st.sampled_from(LEGACY), args=arguments)
def test_random_arguments_to_legacy_tools(harness: Harness, tool, args):
    before = harness.current()
    result = harness.call(tool, args)
    _check(harness, tool, result)
    if result.structured_content.get("code") == "DIALOG_OPEN":
        harness.call("browser_session", {"action": "handle_dialog", "dialog_action": "dismiss"})
    assert harness.current() == before
