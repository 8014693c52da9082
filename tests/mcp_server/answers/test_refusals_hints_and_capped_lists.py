"""Honest answers: refusals that name what is accepted, hints that match the input, capped lists
that say what they left out, errors within the shared answer-size rule.

A new user's slips, on a page served on 127.0.0.1: ``console_list types=["errors"]``
silently matched nothing; ``debug_bundle max_items=3`` showed 3 of 5 HTTP errors without saying so;
``attach_cdp "not a url"`` answered NOT_ALLOWED "non-loopback"; ``console_get id=0`` said "evicted
(0 evicted)"; the BODY_UNAVAILABLE hint for a GET's request body talked about response bodies; an
unknown action's error was twice its text.
"""

from __future__ import annotations

from typing import Any

import pytest
from httpserver import Reply
from lean_util import answer_text, assert_lean, records
from mcp.client import Client

PAGE = """<!doctype html><title>Admin</title><link rel="icon" href="data:,"><p>admin</p>
<script>
console.error("first error"); console.error("second error");
Promise.all([1, 2, 3, 4, 5].map(i => fetch("/missing/" + i))).then(() => { window.done = true; });
</script>"""


@pytest.fixture
async def client(app_client: Client, http_server) -> Client:
    http_server.route("/admin.html", Reply(200, PAGE))
    for i in range(1, 6):
        http_server.route(f"/missing/{i}", Reply(404, "not here"))
    return app_client


async def _call(client: Client, action: str, **args: Any) -> Any:
    return await client.call_tool("browser_session", {"action": action, **args})


async def _loaded(client: Client, http_server) -> None:
    await _call(client, "navigate", url=http_server.url("/admin.html"))
    done = await _call(client, "wait_for", predicate="window.done === true", timeout_ms=10000)
    assert not done.is_error, answer_text(done)


async def test_an_unknown_console_type_is_refused_with_the_types(client, http_server):
    await _loaded(client, http_server)
    result = await _call(client, "console_list", types=["errors"])
    assert result.is_error and result.structured_content["code"] == "INVALID_ARGUMENT"
    text = answer_text(result)
    assert "'errors'" in text and "did you mean error" in text and "pageerror" in text and "warning" in text
    assert_lean(result)
    legacy = await _call(client, "get_console_logs", types=["warn", "eror"])
    assert legacy.is_error and "'eror'" in answer_text(legacy)
    ok = await _call(client, "console_list", types=["error", "warn"])
    assert not ok.is_error and len(records(ok.structured_content)) >= 2  # the two errors and the 404s


async def test_debug_bundle_says_what_its_capped_lists_left_out(client, http_server):
    await _loaded(client, http_server)
    result = await _call(client, "debug_bundle", max_items=3, include_snapshot=False, include_storage=False)
    sc = assert_lean(result)
    text = answer_text(result)
    assert sc["network"]["httpErrorCount"] == 5 and len(sc["network"]["httpErrors"]) == 3
    assert "3 newest of 5 HTTP errors" in text and sc["network"]["leftOut"] == {"httpErrors": 2}
    whole = await _call(client, "debug_bundle", max_items=30, include_snapshot=False, include_storage=False)
    assert "leftOut" not in whole.structured_content["network"] and "newest of" not in answer_text(whole)


async def test_error_codes_and_hints_match_the_input(client, http_server):
    result = await _call(client, "attach_cdp", cdp_url="not a url")
    assert result.structured_content["code"] == "INVALID_ARGUMENT", answer_text(result)
    assert "non-loopback" not in answer_text(result)
    await _loaded(client, http_server)
    result = await _call(client, "console_get", id=0)
    assert result.is_error and "evicted" not in answer_text(result) and "ids start at 1" in answer_text(result)
    listed = await _call(client, "network_list", url_contains="/missing/1")
    entry = records(listed.structured_content)[0]
    result = await _call(client, "network_save_body", id=entry["id"], body="request")
    assert result.structured_content["code"] == "BODY_UNAVAILABLE"
    hint = result.structured_content["hint"]
    assert "sent no body" in hint and "responses are kept" not in hint, hint


async def test_an_unknown_action_error_keeps_the_size_rule(client):
    for args in ({"action": "no_such_action"}, {}):
        result = await client.call_tool("browser_session", args)
        assert result.is_error
        assert "console_list" in answer_text(result)  # the actions it has, said once, in both renderings
        assert_lean(result)
