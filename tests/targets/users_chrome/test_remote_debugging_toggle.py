"""The Chrome a person has open, reached through Chrome's remote-debugging toggle: one Allow per attachment.

Headful Chromium under Xvfb (headless cannot show the dialog), started with a temporary HOME
whose profile has the toggle on and no debugging flag (tests/toggle_chrome.py). The person's
hand is xdotool on the real "Allow remote debugging?" dialog. The agent is a real MCP client.
What is asserted is what the user sees: how many times Chrome asked, and what the agent is told.
"""

from __future__ import annotations

import asyncio
import urllib.parse
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from faults_util import serving
from httpserver import Reply, Request
from toggle_chrome import ToggleChrome

from cdp_core import connection as cdp_connection

CALL = 60.0


@pytest.fixture
def toggle_chrome(virtual_display: Any, http_server: Any) -> Iterator[ToggleChrome]:
    chrome = ToggleChrome.start(virtual_display, [http_server.url("/bg/form.html")])
    yield chrome
    chrome.stop()


@pytest.fixture
def handshakes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every websocket this process opens (each one is a dialog in a toggle Chrome)."""
    opened: list[str] = []
    original = cdp_connection.Connection.open.__func__  # type: ignore[attr-defined]

    async def counting(cls: Any, ws_url: str, **kwargs: Any) -> Any:
        opened.append(ws_url)
        return await original(cls, ws_url, **kwargs)

    monkeypatch.setattr(cdp_connection.Connection, "open", classmethod(counting))
    return opened


def _point_at(agent: Any, chrome: ToggleChrome) -> None:
    """Discovery looks where the person's Chrome lives (their HOME), and nowhere else (no :9222 probe)."""
    agent.manager.settings.profile_dirs = chrome.profile_dirs()
    agent.manager.settings.probe_ports = ()


async def _attach_while_the_user_answers(
    agent: Any, answer: Any, meanwhile: Any = None, **args: Any
) -> tuple[Any, list[str]]:
    """attach_cdp, while the person's hand answers the dialog once it shows; returns (result, progress messages).

    ``meanwhile()`` runs while the dialog shows, before the hand answers it.
    """
    messages: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")

    async def call() -> Any:
        with anyio.fail_after(CALL):
            return await agent.client.call_tool(
                "browser_session", {"action": "attach_cdp", **args}, progress_callback=on_progress
            )

    task = asyncio.ensure_future(call())
    if meanwhile is not None:
        await anyio.to_thread.run_sync(chrome_of(answer).wait_for_dialog)
        await meanwhile()
        assert not task.done()  # still waiting for the person
    await anyio.to_thread.run_sync(answer)
    return await task, messages


def chrome_of(answer: Any) -> ToggleChrome:
    return answer.__self__


def _uid(snapshot: dict[str, Any], role: str, name: str) -> int:
    from lean_util import records

    for line in records(snapshot, "lines"):
        if line.get("role") == role and line.get("name") == name:
            return int(line["uid"])
    raise AssertionError(f"no {role} {name!r}")


async def test_attach_without_url_one_allow_for_a_whole_session(toggle_chrome, http_server, handshakes, tmp_path):
    posts: list[dict[str, list[str]]] = []

    def save(req: Request) -> Reply:
        posts.append(urllib.parse.parse_qs(req.body.decode()))
        return Reply(302, "", headers={"Location": "/bg/done.html?saved=1"})

    http_server.route("/bg/save", save)
    async with serving(tmp_path / "artifacts") as agent:
        _point_at(agent, toggle_chrome)

        async def state_change_meanwhile() -> None:
            # attach_cdp holds no lock while Chrome waits for the person: a call that takes the
            # state lock exclusively answers at once
            with anyio.fail_after(10):
                closed = await agent.call("browser_session", action="close_browser_target", target="launch")
            assert not closed.is_error, closed.content[0].text

        result, progress = await _attach_while_the_user_answers(agent, toggle_chrome.allow, state_change_meanwhile)
        assert not result.is_error, result.content[0].text
        sc = result.structured_content
        assert sc["found"]["how"] == "toggle" and sc["found"]["port"] == toggle_chrome.chrome.port
        assert sc["found"]["via"] == "discovery" and "Chromium" in result.content[0].text
        assert sc["found"]["profileDir"] == str(toggle_chrome.profile_dir) and sc["found"]["browser"] == "Chromium"
        assert any("asking the user to click Allow" in m for m in progress), progress
        assert "detach_cdp when done" in result.content[0].text

        # A session of twenty-odd actions: Chrome must not ask again.
        caps = await agent.s("get_capabilities")
        assert caps["browser"]["cdp"]["active"] is True and caps["browser"]["launch"]["active"] is False
        assert caps["browser"]["activeTarget"] == "cdp" and caps["browser"]["supportsCdpAttach"] is True
        assert caps["browser"]["cdp"]["found"]["how"] == "toggle"
        await agent.s("get_browser_status")
        again = await agent.s("attach_cdp")  # a second attach goes on with the same connection
        assert again["alreadyAttached"] is True
        await agent.s("list_pages")
        snap = await agent.s("snapshot", interactive_only=True)
        await agent.call("browser_interact", CALL, action="fill_uid", uid=_uid(snap, "textbox", "Name"), value="Grace")
        await agent.s("get_dom", selector="form")
        await agent.s("console_list")
        await agent.s("network_list")
        shot = await agent.call("browser_session", CALL, action="screenshot")
        assert not shot.is_error, shot.content[0].text
        await agent.s("performance_start_trace")
        clicked = await agent.call("browser_interact", CALL, action="click", selector="#save")
        assert not clicked.is_error, clicked.content[0].text
        await agent.s("performance_stop_trace")
        await agent.s("wait_for", text="changed successfully", timeout_ms=10000)
        assert posts and posts[0]["name"] == ["Grace"]
        await agent.s("network_list")
        await agent.s("debug_bundle")
        await agent.s("memory_snapshot")
        await agent.s("cookies")
        opened = await agent.s("new_page", url=http_server.url("/a.html"))
        await agent.s("list_pages")
        await agent.s("snapshot")
        await agent.s("close_page", stable_page_id=opened["page"]["stable_page_id"])
        await agent.s("select_page_by_title", title_contains="Saved")
        await agent.s("evaluate_js", expression="document.title")
        await agent.s("get_current_page")

        assert toggle_chrome.answered == 1
        assert len(handshakes) == 1, handshakes  # one websocket: one dialog, for all of the above
        assert not toggle_chrome.dialog_showing()

        detached = await agent.s("detach_cdp")
        assert detached["detached"] is True
        for action in ("snapshot", "network_list", "console_list", "get_current_page"):
            err = await agent.err(action, "NOT_ATTACHED")
            assert "attach_cdp" in err["hint"] and "use_launch_browser" in err["hint"], err
    assert toggle_chrome.chrome.alive


async def test_inspect_address_cancel_then_attach_again(toggle_chrome, handshakes, tmp_path):
    async with serving(tmp_path / "artifacts") as agent:
        _point_at(agent, toggle_chrome)
        address = toggle_chrome.inspect_address  # http://127.0.0.1:PORT, whose /json/version answers 404
        result, _ = await _attach_while_the_user_answers(agent, toggle_chrome.cancel, cdp_url=address)
        assert result.is_error, result.content[0].text
        sc = result.structured_content
        assert sc["code"] == "CDP_PERMISSION_DENIED", sc
        assert "declined" in sc["message"] and "dialog" in sc["message"]
        assert "user declined in Chrome's" in sc["hint"], sc["hint"]
        status = await agent.s("get_browser_status")
        assert status["browser"].get("activeTarget") is None  # nothing changed

        result, _ = await _attach_while_the_user_answers(agent, toggle_chrome.allow, cdp_url=address)
        assert not result.is_error, result.content[0].text
        assert result.structured_content["found"]["how"] == "toggle"
        pages = await agent.s("list_pages")
        assert any("Change client" in p.get("title", "") for p in pages["pages"])
        await agent.s("detach_cdp")
    assert toggle_chrome.answered == 2 and len(handshakes) == 2


async def test_a_slow_allow_answers_waiting_and_the_next_attach_joins_it(toggle_chrome, handshakes, tmp_path):
    async with serving(tmp_path / "artifacts", max_call_seconds=4) as agent:
        _point_at(agent, toggle_chrome)
        with anyio.fail_after(CALL):
            first = await agent.call("browser_session", CALL, action="attach_cdp")
        assert not first.is_error, first.content[0].text
        sc = first.structured_content
        assert sc["status"] == "waiting" and sc["continueWith"] == {"action": "attach_cdp"}
        assert "click Allow" in first.content[0].text and "no second dialog" in first.content[0].text
        assert await anyio.to_thread.run_sync(toggle_chrome.dialog_showing)  # the request is still open
        # Meanwhile nothing is locked: reads and status answer at once.
        status = await agent.s("get_browser_status")
        assert status["browser"]["cdp"]["waitingForAllow"]["askedAt"] == sc["askedAt"]

        second = await agent.call("browser_session", CALL, action="attach_cdp")
        assert second.structured_content["status"] == "waiting"  # joined: still the same request
        await anyio.to_thread.run_sync(toggle_chrome.allow)
        third = await agent.s("attach_cdp")
        assert third["status"] == "ok" and third["selected"]["stable_page_id"]  # attached, a tab selected
        await agent.s("snapshot")
    assert toggle_chrome.answered == 1 and len(handshakes) == 1


async def test_detach_withdraws_a_request_the_user_has_not_answered(toggle_chrome, handshakes, tmp_path):
    async with serving(tmp_path / "artifacts", max_call_seconds=3) as agent:
        _point_at(agent, toggle_chrome)
        first = await agent.call("browser_session", CALL, action="attach_cdp")
        assert first.structured_content["status"] == "waiting", first.content[0].text
        result = await agent.call("browser_session", CALL, action="detach_cdp")
        assert not result.is_error and result.structured_content["withdrewRequest"] is True
        # Chrome keeps its dialog up after our socket closed (measured): the answer tells the agent
        # so, and whatever the user clicks then attaches nothing.
        assert "Chrome may still show" in result.content[0].text
        assert await anyio.to_thread.run_sync(toggle_chrome.dialog_showing)
        status = await agent.s("get_browser_status")
        assert "waitingForAllow" not in status["browser"]["cdp"]
        await anyio.to_thread.run_sync(toggle_chrome.allow)
        status = await agent.s("get_browser_status")
        assert status["browser"].get("activeTarget") is None
    assert len(handshakes) == 1
