"""``BROWSER_EVALUATE_ENABLED=false``: no agent-written JavaScript runs, with a clear EVALUATE_DISABLED error.

The setting comes from the environment as a user sets it. ``evaluate_js`` (condensed and
legacy) and ``wait_for`` predicates are refused, and the page shows the code never ran (a
side channel outside the tools reads a flag the code would have set). The fixed, reviewed
actions keep working, and get_capabilities says evaluate is off.
"""

from __future__ import annotations

from pathlib import Path

from httpserver import Reply
from mcp.client import Client

from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings


async def test_evaluate_disabled_refuses_agent_javascript(tmp_path: Path, http_server):
    http_server.route("/sec-eval/page.html", Reply(200, "<title>Eval off</title><p id=p>ready</p>"))
    settings = Settings.load({"BROWSER_EVALUATE_ENABLED": "false", "MCP_ARTIFACT_DIR": str(tmp_path / "artifacts")})
    assert settings.evaluate_enabled is False
    manager, server = build_app(settings)
    try:
        async with Client(server) as client:

            async def call(tool: str, **args):
                result = await client.call_tool(tool, args)
                return bool(result.is_error), result.structured_content, result.content[0].text

            is_error, sc, _ = await call("browser_navigate", url=http_server.url("/sec-eval/page.html"))
            assert not is_error, sc
            refusals = [
                await call("browser_session", action="evaluate_js", expression="window.__ran = 'evaluate'; 1"),
                await call("browser_evaluate_js", expression="window.__ran = 'legacy'; 1"),
                await call("browser_session", action="wait_for", predicate="(window.__ran = 'predicate', true)"),
                await call(
                    "browser_session", action="wait_for", text="ready", predicate="(window.__ran = 'both', true)"
                ),
            ]
            for is_error, sc, text in refusals:
                assert is_error and sc["code"] == "EVALUATE_DISABLED", sc
                assert text.startswith("Error EVALUATE_DISABLED") and sc["hint"]
            page = await manager.current_page()  # side channel: did any of it run?
            ran = await page.session.send("Runtime.evaluate", {"expression": "typeof window.__ran"})
            assert ran["result"]["value"] == "undefined"

            caps = (await client.call_tool("browser_session", {"action": "get_capabilities"})).structured_content
            assert caps["settings"].get("evaluateEnabled", False) is False
            for action, args in (
                ("wait_for", {"text": "ready", "timeout_ms": 5000}),
                ("snapshot", {}),
                ("get_dom", {"selector": "#p"}),
            ):
                result = await client.call_tool("browser_session", {"action": action, **args})
                assert not result.is_error, (action, result.content[0].text)
    finally:
        await manager.close()


async def test_evaluate_disabled_refuses_documents_written_in_the_url(tmp_path: Path, http_server):
    """With evaluate off, ``new_page url=data:text/html,<script>`` once still ran the agent's code."""
    ran = "/sec-eval/ran"
    http_server.route(ran, Reply(204, ""))
    beacon = f"<script>fetch('{http_server.url(ran)}')</script>"
    settings = Settings.load({"BROWSER_EVALUATE_ENABLED": "false", "MCP_ARTIFACT_DIR": str(tmp_path / "artifacts")})
    manager, server = build_app(settings)
    try:
        async with Client(server) as client:
            for action, url in (
                ("new_page", f"data:text/html,{beacon}"),
                ("navigate", f"data:text/html;charset=utf-8,{beacon}"),
                ("navigate", "data:text%2Fhtml," + beacon),
                ("new_page", f"data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' onload=\"{beacon}\"/>"),
                ("navigate", f"data:application/xhtml+xml,<html xmlns='http://www.w3.org/1999/xhtml'>{beacon}</html>"),
            ):
                result = await client.call_tool("browser_session", {"action": action, "url": url})
                assert result.is_error and result.structured_content["code"] == "EVALUATE_DISABLED", (action, url)
            inert = await client.call_tool("browser_session", {"action": "navigate", "url": "data:text/plain,hello"})
            assert not inert.is_error, inert.content[0].text
    finally:
        await manager.close()
    assert not [r for r in http_server.requests if r.path == ran]


_LOOP_JS = """var k = 0;
function tick(n) {
  for (var i = 0; i < n; i++) {
    k = k + 1;
  }
  return k;
}
"""


async def _points_page(http_server, client) -> None:
    http_server.route("/sec-eval/app.js", Reply(200, _LOOP_JS, "application/javascript"))
    http_server.route("/sec-eval/points.html", Reply(200, "<title>Points</title><script src=app.js></script>"))
    result = await client.call_tool("browser_navigate", {"url": http_server.url("/sec-eval/points.html")})
    assert not result.is_error, result.content[0].text


async def test_evaluate_disabled_keeps_points_to_reading_values(tmp_path: Path, http_server):
    """A logpoint's expression and a point's condition run in the page: with evaluate off, only reads."""
    settings = Settings.load({"BROWSER_EVALUATE_ENABLED": "false", "MCP_ARTIFACT_DIR": str(tmp_path / "artifacts")})
    manager, server = build_app(settings)
    try:
        async with Client(server) as client:
            await _points_page(http_server, client)
            page = await manager.current_page()
            for action, args in (
                ("debug_logpoint", {"expression": "(fetch('/sec-eval/leak?c='+document.cookie), 1)"}),
                ("debug_logpoint", {"expression": "k", "condition": "(document.title='AGENT_JS_RAN', false)"}),
                ("debug_snapshot", {"condition": "(window.__ran = 1, false)"}),
                ("debug_logpoint", {"expression": "k--"}),
            ):
                point = {"action": action, "source": "app.js", "line": 4, **args}
                result = await client.call_tool("browser_session", point)
                sc = result.structured_content
                assert result.is_error and sc["code"] == "EVALUATE_DISABLED", (args, sc)
                assert "may only read values" in result.content[0].text
            listed = await client.call_tool("browser_session", {"action": "debug_list"})
            assert "points" not in (listed.structured_content or {}) or not listed.structured_content["points"]
            # reads are still a logpoint
            result = await client.call_tool(
                "browser_session",
                {
                    "action": "debug_logpoint",
                    "source": "app.js",
                    "line": 4,
                    "expression": "k, i",
                    "condition": "k >= 1",
                },
            )
            assert not result.is_error, result.content[0].text
            await page.session.send("Runtime.evaluate", {"expression": "tick(3)"})
            logged = await client.call_tool("browser_session", {"action": "console_list", "types": ["logpoint"]})
            assert (
                "k=1, i=1" in logged.content[0].text
                and "k=2, i=2" in logged.content[0].text
                and "k=0" not in logged.content[0].text
            ), logged.content[0].text
            side = await page.session.send(
                "Runtime.evaluate", {"expression": "document.title + ' ' + typeof window.__ran", "returnByValue": True}
            )
            assert side["result"]["value"] == "Points undefined"
    finally:
        await manager.close()
    assert not [r for r in http_server.requests if r.path.startswith("/sec-eval/leak")]


async def test_a_condition_that_stays_false_is_asked_a_bounded_number_of_times(tmp_path: Path, http_server):
    """Every evaluation counts, true or false: a point that never hits cannot run its condition forever."""
    from cdp_core.recorders.debugger.capture import CONDITION_CHECKS_MAX

    settings = Settings.load({"MCP_ARTIFACT_DIR": str(tmp_path / "artifacts")})
    manager, server = build_app(settings)
    try:
        async with Client(server) as client:
            await _points_page(http_server, client)
            page = await manager.current_page()
            result = await client.call_tool(
                "browser_session",
                {
                    "action": "debug_logpoint",
                    "source": "app.js",
                    "line": 4,
                    "expression": "k",
                    "condition": "(window.__asked = (window.__asked || 0) + 1, false)",
                },
            )
            assert not result.is_error, result.content[0].text
            runs = CONDITION_CHECKS_MAX * 2
            await page.session.send("Runtime.evaluate", {"expression": f"tick({runs})"}, timeout=120)
            asked = await page.session.send("Runtime.evaluate", {"expression": "window.__asked", "returnByValue": True})
            assert asked["result"]["value"] == CONDITION_CHECKS_MAX
    finally:
        await manager.close()
