"""2026-era clients have no session: a `session` name keeps each agent's own tab, frame and marks.

Two Python SDK clients speak 2026-07-28 to one ``mcp-browser --http`` server, as two agents
would; each names its view with ``session=``. Without the name they share the default view,
which is what the 2026 revision gives a server that cannot tell two requests' clients apart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from httpserver import Reply
from mcp_http import http_client, running_http_server


def _tab(title: str) -> Reply:
    return Reply(
        200, f"<!doctype html><title>{title}</title><script>console.error('err-{title}')</script><h1>{title}</h1>"
    )


async def _call(client: Any, action: str, **arguments: Any) -> tuple[dict[str, Any], str]:
    result = await client.call_tool("browser_session", {"action": action, **arguments})
    text = result.content[0].text if result.content else ""
    return result.structured_content or {}, text


async def test_two_named_sessions_keep_their_own_tab_and_marks(tmp_path: Path, http_server: Any) -> None:
    http_server.route("/fatture", _tab("fatture"))
    http_server.route("/ordini", _tab("ordini"))
    with running_http_server(tmp_path / "artifacts") as port:
        url = f"http://127.0.0.1:{port}/mcp"
        async with http_client(url) as a, http_client(url) as b:
            assert a.protocol_version == "2026-07-28"
            await _call(a, "navigate", url=http_server.url("/fatture"), session="agent-a")
            await _call(b, "use_launch_browser", session="agent-b")
            await _call(b, "new_page", url=http_server.url("/ordini"), session="agent-b")

            current, _ = await _call(a, "get_current_page", session="agent-a")
            assert current["page"]["title"] == "fatture"  # B's new tab did not move A
            listed, text = await _call(a, "console_list", session="agent-a")
            assert "err-fatture" in text and "err-ordini" not in text
            current, _ = await _call(b, "get_current_page", session="agent-b")
            assert current["page"]["title"] == "ordini"

            await _call(a, "capture_mark", session="agent-a")
            refused, text = await _call(b, "debug_bundle", since_mark="m1", session="agent-b")
            assert refused["status"] == "error" and "no capture mark 'm1'" in text  # A's mark is A's

            left, text = await _call(b, "close_browser_target", target="launch", session="agent-b")
            assert left["otherSessions"] == 1 and "stays open" in text
            current, _ = await _call(a, "get_current_page", session="agent-a")
            assert current["page"]["title"] == "fatture"  # A's browser was not closed under it


async def test_a_session_name_that_is_no_name_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    with running_http_server(tmp_path / "artifacts") as port:
        async with http_client(f"http://127.0.0.1:{port}/mcp") as client:
            before, _ = await _call(client, "get_browser_status")
            refused, text = await _call(client, "get_browser_status", session="two words")
            assert refused["code"] == "INVALID_ARGUMENT" and "session must be a name" in text
            after, _ = await _call(client, "get_browser_status")
            assert after.get("activeTarget") == before.get("activeTarget")
