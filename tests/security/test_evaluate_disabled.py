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
