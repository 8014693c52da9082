"""The trace actions through the SDK's real client, on the server the CLI builds.

The internal (launch) browser loads the slow report page; the agent starts a trace with
reload=true, stops it, and reads the summary, the way an agent would.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trace_pages
from lean_util import record
from mcp.client import Client

import cdp_core
from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings


@pytest.fixture
async def app(artifacts_dir: Path) -> AsyncIterator[tuple[object, object]]:
    manager, server = build_app(Settings(artifact_dir=str(artifacts_dir)))
    try:
        yield manager, server
    finally:
        await manager.close()


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


async def call(client: Client, action: str, **args):
    result = await client.call_tool("browser_session", {"action": action, **args})
    return result, result.structured_content or {}


async def test_errors_without_a_trace_and_no_browser_launched(app, artifacts_dir: Path):
    manager, server = app
    async with Client(server) as client:
        result, sc = await call(client, "performance_stop_trace")
        assert result.is_error and sc["code"] == "NO_TRACE_RUNNING" and "performance_start_trace" in sc["hint"]
        result, sc = await call(client, "performance_summary")
        assert result.is_error and sc["code"] == "NO_TRACE"
        result, sc = await call(client, "performance_summary", trace_path="../../etc/passwd")
        assert result.is_error and sc["code"] == "PATH_OUTSIDE_ARTIFACTS"
        result, sc = await call(client, "performance_summary", trace_path="traces/missing.json")
        assert result.is_error and sc["code"] == "FILE_NOT_FOUND"
        write(artifacts_dir / "notes.json", '{"hello": "world"}')  # JSON, but not a trace
        result, sc = await call(client, "performance_summary", trace_path="notes.json")
        assert result.is_error and sc["code"] == "INVALID_ARGUMENT" and "not a readable trace" in sc["message"]
        _, caps = await call(client, "get_capabilities")
    experimental = set(caps.get("experimental", []))
    assert {"performance_start_trace", "performance_stop_trace", "performance_summary"} <= experimental
    assert manager.active_target is None  # none of these launched a browser


async def test_trace_the_slow_report_page_end_to_end(app, http_server, artifacts_dir: Path):
    manager, server = app
    url = trace_pages.install(http_server)
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async with Client(server, mode="legacy") as client:  # real JSON-RPC framing for progress
        result, sc = await call(client, "navigate", url=url)
        assert not result.is_error, sc
        result, sc = await call(client, "performance_start_trace", reload=True, save_path="/tmp/elsewhere.json")
        assert result.is_error and sc["code"] == "PATH_OUTSIDE_ARTIFACTS"
        result, sc = await call(client, "performance_start_trace", reload=True)
        assert not result.is_error, sc
        assert sc["tracing"] is True and sc["reloaded"] is True and sc["loadEventFired"] is True
        result, sc = await call(client, "performance_start_trace")
        assert result.is_error and sc["code"] == "TRACE_ALREADY_RUNNING"
        result, sc = await call(client, "performance_summary")
        assert result.is_error and sc["code"] == "NO_TRACE" and "stop" in sc["hint"]
        await trace_pages.wait_busy_done((await manager.current_page()).session)
        result = await client.call_tool(
            "browser_session", {"action": "performance_stop_trace"}, progress_callback=on_progress
        )
        stop = result.structured_content
        assert not result.is_error, stop
        result, again = await call(client, "performance_stop_trace")
        assert result.is_error and again["code"] == "NO_TRACE_RUNNING"
        result, summary = await call(client, "performance_summary")
        assert not result.is_error, summary
        _, by_path = await call(client, "performance_summary", trace_path=stop["tracePath"])

    path = artifacts_dir / stop["tracePath"]
    assert path.parent == artifacts_dir / "traces" and path.name.startswith("trace-") and path.suffix == ".json"
    assert stop["bytes"] == path.stat().st_size and not stop.get("dataLossOccurred")
    assert isinstance(json.loads(path.read_text())["traceEvents"], list)
    # progress values are the call's elapsed seconds (growing); the messages say how much was saved
    values = [p[0] for p in progress]
    assert values and values == sorted(set(values))
    assert f"performance_stop_trace: saved {stop['bytes'] / 1e6:.1f} MB of trace" in [p[2] for p in progress]

    assert summary["tracePath"] == stop["tracePath"] == by_path["tracePath"]
    assert summary["navigationUrl"] == url
    assert summary["requestCount"] >= trace_pages.FETCHES
    longest = record(summary["longestTasks"][0], summary["columns"]["longestTasks"])
    assert summary["longTaskCount"] >= 1 and longest["durationMs"] >= 250
    assert longest["function"] == "busyLoop"
    assert summary["fcpMs"] is not None and summary["loadMs"] is not None
    assert stop["summary"]["longTaskCount"] == summary["longTaskCount"]
    text = result.content[0].text
    assert "busyLoop" in text and "request" in text


async def test_save_path_inside_artifacts_is_used(app, http_server, artifacts_dir: Path):
    _, server = app
    url = trace_pages.install(http_server)
    async with Client(server) as client:
        await call(client, "navigate", url=url)
        result, sc = await call(client, "performance_start_trace", save_path="report/slow-page.json")
        assert not result.is_error, sc
        result, sc = await call(client, "performance_stop_trace")
        assert not result.is_error, sc
        first = sc
        # A path as the answers show it (relative to the artifacts root) is used as given,
        # not nested as traces/traces/as-shown.json.
        await call(client, "performance_start_trace")
        result, sc = await call(client, "performance_stop_trace", save_path="traces/as-shown.json")
        assert not result.is_error, sc
    saved = artifacts_dir / "traces" / "report" / "slow-page.json"
    assert first["tracePath"] == "traces/report/slow-page.json" and saved.is_file()
    # No navigation inside this trace: page-load marks are absent, and the summary says why.
    assert "fcpMs" not in first["summary"] and any("reload=true" in n for n in first["summary"]["notes"])
    assert sc["tracePath"] == "traces/as-shown.json" and (artifacts_dir / "traces" / "as-shown.json").is_file()
    assert not (artifacts_dir / "traces" / "traces").exists()


async def test_stop_finds_the_trace_after_another_tab_was_selected_and_a_closed_tab_loses_it(app, http_server):
    manager, server = app
    url = trace_pages.install(http_server)
    async with Client(server) as client:
        await call(client, "navigate", url=url)
        _, started = await call(client, "performance_start_trace")
        traced_id = started["page"]["stable_page_id"]
        second = await manager.new_page(http_server.url("/a.html"))
        _, current = await call(client, "get_current_page")
        assert current["page"]["stable_page_id"] == second.stable_page_id != traced_id
        result, stop = await call(client, "performance_stop_trace")
        assert not result.is_error, stop
        assert stop["page"]["stable_page_id"] == traced_id

        result, sc = await call(client, "performance_start_trace")
        assert not result.is_error and sc["page"]["stable_page_id"] == second.stable_page_id
        await second.session.connection.root.send("Target.closeTarget", {"targetId": second.target_id})
        for _ in range(100):
            if second.closed or second.session.closed:
                break
            await asyncio.sleep(0.05)
        result, sc = await call(client, "performance_stop_trace")
        assert result.is_error and sc["code"] == "PAGE_CLOSED" and "lost" in sc["message"]
        result, sc = await call(client, "performance_stop_trace")
        assert result.is_error and sc["code"] == "NO_TRACE_RUNNING"
        # The browser is not left tracing: the first tab can be traced again.
        await call(client, "select_page", stable_page_id=traced_id)
        result, sc = await call(client, "performance_start_trace")
        assert not result.is_error, sc
        result, sc = await call(client, "performance_stop_trace")
        assert not result.is_error, sc


async def test_tracing_the_users_chrome_never_reloads_unless_asked(app, http_server, fresh_chromium):
    manager, server = app
    url = trace_pages.install(http_server) + "?tab=users-own"

    def loads() -> int:  # loads of the user's tab (the test server is shared by the session)
        return sum(1 for r in http_server.requests if r.path == "/trace/report.html" and r.query.get("tab"))

    await cdp_core.new_tab(fresh_chromium.http_url, url)  # the user's own tab
    for _ in range(200):
        if loads() >= 1:
            break
        await asyncio.sleep(0.05)
    assert loads() == 1
    async with Client(server) as client:
        result, sc = await call(client, "attach_cdp", cdp_url=fresh_chromium.http_url)
        assert not result.is_error, sc
        await call(client, "select_page_by_url", url_contains="/trace/report.html")
        result, sc = await call(client, "performance_start_trace")
        assert not result.is_error and sc["page"]["target"] == "cdp" and sc.get("reloaded", False) is False
        result, stop = await call(client, "performance_stop_trace")
        assert not result.is_error, stop
        assert loads() == 1  # not reloaded
        result, sc = await call(client, "performance_start_trace", reload=True)  # asked for: allowed
        assert not result.is_error and sc["reloaded"] is True and sc["loadEventFired"] is True
        await trace_pages.wait_busy_done((await manager.current_page()).session)  # FCP may come after load
        result, stop = await call(client, "performance_stop_trace")
        assert not result.is_error, stop
    assert loads() == 2
    assert stop["summary"]["navigationUrl"] == url and stop["summary"]["fcpMs"] is not None
