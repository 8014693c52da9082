"""``memory_snapshot`` through a real MCP client: a leaking legacy page, as an agent would look at it.

The page keeps 600 removed ``<div>``s in an array (the classic leak of a long-lived page
that rebuilds a table without dropping its rows): the snapshot counts exactly those as
detached DOM nodes. A second snapshot ``compare_to`` the first shows what grew, by
constructor. The file is a real ``.heapsnapshot`` (the JSON DevTools' Memory panel loads).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpserver import Reply
from lean_util import answer_text, assert_lean, records
from mcp.client import Client

import cdp_core
from cdp_core.heap_snapshot import read_heap_snapshot, summarize_heap
from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings

PAGE = """<!doctype html><html><head><title>Elenco ordini</title></head><body><table id="t"></table>
<script>
class OrderRow { constructor(i) { this.id = i; this.label = "ordine " + i; } }
window.rows = []; window.detached = [];
function leakRows(n) {
  // Rebuild the table, but keep the removed cells around: they become detached DOM nodes.
  for (let i = 0; i < n; i++) {
    const div = document.createElement("div");
    div.textContent = "riga " + i;
    document.body.appendChild(div);
    div.remove();
    window.detached.push(div);
    window.rows.push(new OrderRow(i));
  }
  return window.detached.length;
}
</script></body></html>"""


@pytest.fixture
def leaky_page(http_server) -> str:
    http_server.route("/mem/ordini.html", Reply(200, PAGE))
    return http_server.url("/mem/ordini.html")


async def call(client: Client, action: str, **args: Any) -> tuple[Any, dict[str, Any]]:
    result = await client.call_tool("browser_session", {"action": action, **args})
    return result, result.structured_content or {}


async def test_600_detached_divs_and_growth_since_an_earlier_snapshot(client: Client, leaky_page: str, artifacts_dir):
    await call(client, "navigate", url=leaky_page)
    result, first = await call(client, "memory_snapshot")
    assert not result.is_error, first
    assert first["snapshotPath"].startswith("memory/") and first["snapshotPath"].endswith(".heapsnapshot")
    assert "<div>" not in first.get("detachedDomNodes", {}).get("byTag", {})

    _, leaked = await call(client, "evaluate_js", expression="leakRows(600)")
    assert leaked["result"] == 600
    result, second = await call(client, "memory_snapshot", compare_to=first["snapshotPath"])
    assert not result.is_error, second
    assert second["detachedDomNodes"]["byTag"]["<div>"] == 600
    assert second["detachedDomNodes"]["count"] >= 600
    growth = {g["name"]: g for g in records(second, "growth")}  # rows under columns [name, count, bytes]
    assert growth["<div>"]["count"] == 600
    assert growth["OrderRow"]["count"] == 600 and growth["OrderRow"]["bytes"] > 0
    assert_lean(result)
    assert second["comparedTo"] == first["snapshotPath"]
    assert second["nodeCount"] > first["nodeCount"] and second["totalSize"] > 0
    text = answer_text(result)
    assert "Detached DOM nodes: " in text and "<div> 600" in text
    assert "<div> +600" in text

    # The file is the JSON DevTools loads: a real snapshot whose node count matches the answer.
    path = artifacts_dir / second["snapshotPath"]
    raw = json.loads(path.read_text())
    assert raw["snapshot"]["node_count"] == second["nodeCount"]
    assert set(raw) >= {"snapshot", "nodes", "edges", "strings"}
    assert not list(path.parent.glob("*.part"))
    # Our compact reader agrees with json.load on what it read.
    snap = read_heap_snapshot(path)
    assert list(snap.nodes) == raw["nodes"] and list(snap.edges) == raw["edges"] and snap.strings == raw["strings"]
    by_tag = {d["tag"]: d["count"] for d in summarize_heap(snap)["detachedNodes"]["byTag"]}
    assert by_tag["<div>"] == 600


async def test_bad_compare_to_is_refused_before_any_snapshot(client: Client, leaky_page: str, artifacts_dir: Path):
    await call(client, "navigate", url=leaky_page)
    result, sc = await call(client, "memory_snapshot", compare_to="memory/nope.heapsnapshot")
    assert result.is_error and sc["code"] == "FILE_NOT_FOUND"
    result, sc = await call(client, "memory_snapshot", compare_to="/etc/passwd")
    assert result.is_error and sc["code"] == "PATH_OUTSIDE_ARTIFACTS"
    assert not (artifacts_dir / "memory").exists() or not list((artifacts_dir / "memory").iterdir())


async def test_users_chrome_background_tab(artifacts_dir: Path, leaky_page: str, fresh_chromium):
    tab = await cdp_core.new_tab(fresh_chromium.http_url, leaky_page)
    other = await cdp_core.new_tab(fresh_chromium.http_url, "about:blank")
    async with httpx.AsyncClient(trust_env=False) as http:
        await http.get(f"{fresh_chromium.http_url}/json/activate/{other.id}")
    async with cdp_core.connect(fresh_chromium.http_url) as user:  # the user's page leaked before we came
        session = await user.attach(tab.id)
        for _ in range(200):
            reply = await session.send("Runtime.evaluate", {"expression": "typeof leakRows", "returnByValue": True})
            if reply["result"]["value"] == "function":
                break
            await asyncio.sleep(0.05)
        await session.send("Runtime.evaluate", {"expression": "leakRows(600)"})
    manager, server = build_app(Settings(artifact_dir=str(artifacts_dir)))
    try:
        async with Client(server) as c:
            _, sc = await call(c, "attach_cdp", cdp_url=fresh_chromium.http_url)
            result, sc = await call(c, "select_page", url_contains="/mem/ordini.html")
            assert not result.is_error, sc
            result, sc = await call(c, "memory_snapshot")
            assert not result.is_error, sc
            assert sc["detachedDomNodes"]["byTag"]["<div>"] == 600
            await call(c, "detach_cdp")
    finally:
        await manager.close()
    # The user's tab is as it was: same page, its leak intact (no reload), still in the background.
    async with cdp_core.connect(fresh_chromium.http_url) as user:
        session = await user.attach(tab.id)
        reply = await session.send(
            "Runtime.evaluate",
            {
                "expression": "[location.pathname, window.detached.length, document.visibilityState]",
                "returnByValue": True,
            },
        )
        assert reply["result"]["value"] == ["/mem/ordini.html", 600, "hidden"]


async def test_a_summary_longer_than_the_call_bound_answers_with_the_file(
    artifacts_dir: Path, leaky_page: str, monkeypatch: pytest.MonkeyPatch
):
    """A huge heap's summary may outlast MCP_MAX_CALL_SECONDS: the answer still comes in time, with the file."""
    import time

    import mcp_server.features.memory.actions as memory

    real = memory.heap_summary

    def slow_summary(path: Path) -> dict[str, Any]:
        time.sleep(6)
        return real(path)

    monkeypatch.setattr(memory, "heap_summary", slow_summary)
    manager, server = build_app(Settings(artifact_dir=str(artifacts_dir), max_call_seconds=4))
    try:
        async with Client(server) as c:
            await call(c, "navigate", url=leaky_page)
            result, sc = await call(c, "memory_snapshot")
            assert not result.is_error, sc
            assert sc["summaryPending"] is True and (artifacts_dir / sc["snapshotPath"]).is_file()
            assert "goes on in the background" in answer_text(result)
    finally:
        await manager.close()
