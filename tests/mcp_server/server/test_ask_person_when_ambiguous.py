"""When a tab name matches several tabs, a client with elicitation asks the person which one.

Two tabs share a title ("Fatture"). Without elicitation the answer is AMBIGUOUS_MATCH with
candidates, as before. With it, the person is shown the candidates as one choice: in the
2025 form (``elicitation/create`` during the call) and in the 2026-07-28 form (an input-required
result, answered by the client's retry). Choosing selects that tab and the answer says the
person chose; cancelling or declining leaves the selection as it was, with a hint that says so.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest
from httpserver import Reply
from mcp.client import Client

from mcp_server.cli.main import build_app
from mcp_server.server.mcp_features import ask_person
from mcp_server.server.settings import Settings

PAGE = "<!doctype html><title>Fatture</title><p>{which}</p>"


def person(action: str, pick: str | None = None) -> Any:
    """An elicitation callback that plays the person: accept the option containing ``pick``, or cancel."""
    seen: list[Any] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        seen.append(params)
        options = [o["const"] for o in params.requested_schema["properties"]["choice"]["oneOf"]]
        if action != "accept":
            return types.ElicitResult(action=action)
        return types.ElicitResult(action="accept", content={"choice": next(o for o in options if pick in o)})

    answer.seen = seen  # type: ignore[attr-defined]
    return answer


async def session(tmp_path, http_server, mode: str, callback: Any = None) -> tuple[Any, Any, Client]:
    http_server.route("/ask/one.html", Reply(200, PAGE.format(which="one")))
    http_server.route("/ask/two.html", Reply(200, PAGE.format(which="two")))
    manager, server = build_app(Settings(artifact_dir=str(tmp_path / "artifacts")))
    client = Client(server, mode=mode, elicitation_callback=callback)
    return manager, server, client


async def open_two(client: Client, http_server) -> None:
    for name in ("one", "two"):
        action = "navigate" if name == "one" else "new_page"
        result = await client.call_tool(
            "browser_session", {"action": action, "url": http_server.url(f"/ask/{name}.html")}
        )
        assert not result.is_error, result.content[0].text
    await client.call_tool("browser_session", {"action": "select_page", "stable_page_id": "p1"})


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # legacy: the 2025 handshake; auto: 2026-07-28
async def test_the_person_picks_the_tab(tmp_path, http_server, mode):
    callback = person("accept", pick="two.html")
    manager, _, client = await session(tmp_path, http_server, mode, callback)
    try:
        async with client:
            await open_two(client, http_server)
            result = await client.call_tool(
                "browser_session", {"action": "select_page_by_title", "title_contains": "Fatture"}
            )
            current = await client.call_tool("browser_session", {"action": "get_current_page"})
            era = client.protocol_version
    finally:
        await manager.close()
    assert era == ("2026-07-28" if mode == "auto" else "2025-11-25")
    assert not result.is_error, result.content[0].text
    assert result.content[0].text.startswith("The person chose p2: Fatture <")
    assert result.structured_content["message"].startswith("The person chose p2")
    assert current.structured_content["page"]["url"].endswith("/ask/two.html")
    (asked,) = callback.seen
    assert "Which tab" in asked.message
    assert len(asked.requested_schema["properties"]["choice"]["oneOf"]) == 2


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("action", ["cancel", "decline"])
async def test_cancel_or_decline_leaves_the_selection_and_says_so(tmp_path, http_server, mode, action):
    manager, _, client = await session(tmp_path, http_server, mode, person(action))
    try:
        async with client:
            await open_two(client, http_server)
            result = await client.call_tool(
                "browser_session", {"action": "select_page_by_title", "title_contains": "Fatture"}
            )
            current = await client.call_tool("browser_session", {"action": "get_current_page"})
    finally:
        await manager.close()
    assert result.is_error and result.structured_content["code"] == "AMBIGUOUS_MATCH"
    said = "cancelled" if action == "cancel" else "declined"
    assert f"Asked the person: the person {said}" in result.structured_content["hint"]
    assert f"the person {said}" in result.content[0].text
    assert len(result.structured_content["candidates"]) == 2
    assert current.structured_content["page"]["url"].endswith("/ask/one.html")


async def test_without_elicitation_the_answer_is_the_candidates(tmp_path, http_server):
    manager, _, client = await session(tmp_path, http_server, "legacy")
    try:
        async with client:
            await open_two(client, http_server)
            result = await client.call_tool(
                "browser_session", {"action": "select_page_by_title", "title_contains": "Fatture"}
            )
    finally:
        await manager.close()
    assert result.is_error and result.structured_content["code"] == "AMBIGUOUS_MATCH"
    assert "Asked the person" not in result.content[0].text


def test_several_chromes_become_a_choice_of_attach_calls():
    sc = {
        "code": "AMBIGUOUS_MATCH",
        "hint": "Call attach_cdp with user_data_dir=…",
        "candidates": [
            {
                "browser": "Chrome",
                "port": 9222,
                "how": "DevToolsActivePort",
                "profileDir": "/home/u/.config/google-chrome",
            },
            {"browser": "Chromium", "port": 9333, "how": "probe"},
        ],
    }
    choice = ask_person.choice_of("attach_cdp", sc)
    assert choice is not None and "Which one" in choice.message
    assert list(choice.options.values()) == [
        {"action": "attach_cdp", "user_data_dir": "/home/u/.config/google-chrome"},
        {"action": "attach_cdp", "cdp_url": "http://127.0.0.1:9333"},
    ]
    assert ask_person.chosen(choice, "accept", {"choice": "nothing like it"}) == (
        "the person's answer matched none of the candidates"
    )
    assert ask_person.choice_of("navigate", sc) is None  # only what a person can settle


async def test_a_person_who_never_answers_gets_a_clear_answer_not_a_hang(tmp_path, http_server, monkeypatch):
    import anyio

    from mcp_server.server import app

    monkeypatch.setattr(app, "ASK_PERSON_SECONDS", 1.0)

    async def away(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    manager, _, client = await session(tmp_path, http_server, "legacy", away)
    try:
        async with client:
            await open_two(client, http_server)
            result = await client.call_tool(
                "browser_session", {"action": "select_page_by_title", "title_contains": "Fatture"}
            )
    finally:
        await manager.close()
    assert result.is_error and result.structured_content["code"] == "AMBIGUOUS_MATCH"
    assert "Asked the person: no answer in 1 s" in result.structured_content["hint"]
