"""Trace answers: the text carries what the JSON carries, within the one answer-size rule.

The case: the JSON of ``performance_stop_trace`` and ``performance_summary`` was 4.3-4.7x their
text; the text named one hot function and one slow request where the JSON named five, so a
text-only client lost four. Here the slow report page is traced and each request URL, task and hot
function of the JSON is looked for in the text, and both answers are held to the shared bound.
"""

from __future__ import annotations

from pathlib import Path

import trace_pages
from lean_util import answer_text, assert_lean, record
from mcp.client import Client

from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings


async def test_trace_answers_name_every_request_task_and_function_of_their_json(http_server, artifacts_dir: Path):
    manager, server = build_app(Settings(artifact_dir=str(artifacts_dir)))
    try:
        url = trace_pages.install(http_server)
        async with Client(server) as client:
            await client.call_tool("browser_session", {"action": "navigate", "url": url})
            started = await client.call_tool("browser_session", {"action": "performance_start_trace", "reload": True})
            assert not started.is_error
            await trace_pages.wait_busy_done((await manager.current_page()).session)
            stop = await client.call_tool("browser_session", {"action": "performance_stop_trace"})
            summary = await client.call_tool("browser_session", {"action": "performance_summary"})
    finally:
        await manager.close()
    for result in (stop, summary):
        assert not result.is_error, answer_text(result)
        sc = assert_lean(result)
        s = sc.get("summary", sc)
        text = answer_text(result)
        assert len(s["slowestRequests"]) > 1 and len(s["hotFunctions"]) > 1
        requests = [record(r, s["columns"]["slowestRequests"]) for r in s["slowestRequests"]]
        functions = [record(h, s["columns"]["hotFunctions"]) for h in s["hotFunctions"]]
        for request in requests:
            assert request["url"] in text, (request, text)
        for hot in functions:
            assert hot["function"] in text, (hot, text)
        for task in (record(t, s["columns"]["longestTasks"]) for t in s["longestTasks"]):
            # a long task can have no function of its own (a parse, a GC under load): then none is named
            assert task["activity"] in text and task.get("function", "") in text, (task, text)
