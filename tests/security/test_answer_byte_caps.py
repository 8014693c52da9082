"""Every answer stays under the server's byte caps, whatever the page does.

The attack: snapshot structured output was uncapped (6 MB over stdio; over streamable HTTP more
than 1 MiB broke the client's stream) and a 1.5 MB URL set by the page inflated ``list_pages``
and ``debug_bundle``. Here a page with thousands of controls, a megabyte URL, a megabyte console
message and a megabyte title is read with every big reader, over the HTTP transport as a
client uses it: every call is answered, text and structured content each stay within
``MCP_MAX_ANSWER_BYTES``, and a cut answer says so (``capped``) and still validates against the
tool's output schema. The pure shrinking rules are tested on their own too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from httpserver import Reply
from mcp_http import http_client, running_http_server

from mcp_server.server.answer_cap import CAP_KEY, cap_answer
from mcp_server.server.schema_output import output_schema
from mcp_server.server.tool_answer import TextBlock, ToolAnswer

LIMIT = 64 * 1024
ITEMS = "".join(f"<li><button>item {i} {'x' * 60}</button></li>" for i in range(3000))
PAGE = f"""<!doctype html><title>Caps</title><ul>{ITEMS}</ul>
<script>
history.replaceState({{}}, '', '?' + 'u'.repeat(1500000));
document.title = 'T' + 't'.repeat(1000000);
console.log('c'.repeat(1000000));
</script>"""


def _sizes(result: Any) -> tuple[int, int]:
    text = sum(len(b.text.encode()) for b in result.content if b.type == "text")
    structured = len(json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":")).encode())
    return text, structured


def test_shrinking_keeps_every_key_and_type_and_says_what_was_cut():
    big = {
        "schemaVersion": "1",
        "status": "ok",
        "message": "m" * 500,
        "page": {"url": "u" * 2_000_000, "title": "t"},
        "lines": [{"uid": i, "role": "button", "name": "n" * 80} for i in range(60_000)],
        "stats": {"lines": 60_000},
        "headers": {f"h{i}": "v" * 50 for i in range(5000)},
    }
    result = ToolAnswer(content=[TextBlock("x" * 3_000_000)], structured_content=big, is_error=False)
    capped = cap_answer(result, max_text=LIMIT, max_structured=LIMIT)
    text, structured = _sizes(capped)
    assert text <= LIMIT + 200 and structured <= LIMIT
    sc = capped.structured_content
    assert set(big) <= set(sc) and sc["status"] == "ok" and sc["schemaVersion"] == "1"
    assert isinstance(sc["lines"], list) and isinstance(sc["page"]["url"], str) and isinstance(sc["headers"], dict)
    assert sc["stats"] == {"lines": 60_000}  # small values are not touched
    assert sc[CAP_KEY]["bytes"] > 2_000_000 and sc[CAP_KEY]["cut"]
    assert "answer cut" in capped.content[0].text
    jsonschema.validate(sc, output_schema())
    small = ToolAnswer(content=[TextBlock("ok")], structured_content={"a": 1})
    assert cap_answer(small) is small  # what fits is passed through untouched


@pytest.fixture
def http_url(tmp_path: Path) -> Any:
    env_limit = {"MCP_MAX_ANSWER_BYTES": str(LIMIT)}
    with running_http_server(tmp_path / "artifacts", env=env_limit) as port:
        yield f"http://127.0.0.1:{port}/mcp"


async def test_big_page_data_never_breaks_the_http_stream(http_url, http_server):
    http_server.route("/caps/page.html", Reply(200, PAGE))
    calls = [
        ("navigate", {"url": http_server.url("/caps/page.html")}),
        ("snapshot", {"max_lines": 20000, "max_chars": 500000}),
        ("get_dom", {"max_chars": 500000}),
        ("list_pages", {}),
        ("get_current_page", {}),
        ("console_list", {"limit": 1000}),
        ("get_console_logs", {"limit": 1000}),
        ("network_list", {"limit": 1000}),
        ("debug_bundle", {}),
    ]
    async with http_client(http_url, mode="legacy") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        capped = []
        for action, args in calls:
            result = await client.call_tool("browser_session", {"action": action, **args})
            assert not result.is_error, (action, result.content[0].text[:300])
            text, structured = _sizes(result)
            assert text <= LIMIT + 200 and structured <= LIMIT, (action, text, structured)
            jsonschema.validate(result.structured_content, tools["browser_session"].output_schema)
            if CAP_KEY in result.structured_content:
                capped.append(action)
        assert {"snapshot", "get_dom"} <= set(capped), capped  # the test really hit the cap
        # The server is still fine afterwards.
        assert not (await client.call_tool("browser_session", {"action": "get_capabilities"})).is_error


async def test_a_page_set_megabyte_url_is_cut_in_every_answer(tmp_path, http_server):
    """Third review: a 1.5 MB URL set by the page filled get_dom, list_frames and network_list limit=1
    to the byte cap (262,011 bytes) whatever max_chars or limit said."""
    from faults_util import serving
    from httpserver import Reply

    http_server.route("/long-url/page.html", Reply(200, "<title>long</title><p id=p>x</p>"))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/long-url/page.html"))
        await agent.js("history.pushState(null, '', '?q=' + 'a'.repeat(1500000)); fetch(location.href).then(() => 1)")
        await agent.s("wait_for", network_idle=True)
        for action, args in (
            ("get_dom", {"selector": "#p", "max_chars": 2000}),
            ("list_frames", {}),
            ("network_list", {"limit": 1}),
            ("get_current_page", {}),
            ("list_pages", {}),
        ):
            result = await agent.call("browser_session", action=action, **args)
            text = result.content[0].text
            js = json.dumps(result.structured_content)
            assert len(text) < 20_000 and len(js) < 20_000, (action, len(text), len(js))
            assert "a" * 5000 not in text + js, (action, text[:500])  # the URL is said cut, not whole
