"""The user's JavaScript dialogs: never answered by us unless handle_dialog says so, seen by every call.

Through the real MCP client, on both targets, with the tab in the background. The page opens
its dialogs itself (a timer, as after a save); the "user" is a CDP client of the test's own,
which also plays the person who answers a dialog in Chrome.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
from background_tabs import activate
from faults_util import UserTabs, serving
from lean_util import records

import cdp_core
from targets.errors import ErrorCode

FAST = 5.0  # hang guard for calls that must answer at once


@asynccontextmanager
async def users_hands(http_url: str, target_id: str) -> AsyncIterator[Any]:
    """The user's own view of a tab: run its script, read its title browser-side, answer its dialog."""
    async with cdp_core.connect(http_url) as browser:
        session = await browser.attach(target_id)
        opened = asyncio.Event()
        session.on("Page.javascriptDialogOpening", lambda _e: opened.set())
        await session.send("Page.enable")

        class Hands:
            async def run(self, expression: str) -> None:
                await session.send("Runtime.evaluate", {"expression": expression})

            async def ask(self, kind: str) -> None:
                """The page opens a dialog on a timer (a hidden tab's timers run late: wait until it is open)."""
                opened.clear()
                await self.run(f"askLater({kind!r}, 50)")
                with anyio.fail_after(10):
                    await opened.wait()
                await asyncio.sleep(0.1)

            async def title(self) -> str:  # browser-side: answers even while a dialog freezes the page
                info = await browser.send("Target.getTargetInfo", {"targetId": target_id})
                return str(info["targetInfo"]["title"])

            async def answer(self, accept: bool) -> None:
                await session.send("Page.handleJavaScriptDialog", {"accept": accept})

        yield Hands()


async def _open(chrome: Any, http_server: Any) -> tuple[str, str]:
    user = UserTabs(chrome.http_url)
    orders = await user.open(http_server.url("/bg/dialog.html"))
    front = await user.open(http_server.url("/faults/tab.html?name=front"))
    await activate(chrome.http_url, front)
    return orders, front


async def _blocked_everywhere(agent: Any, message: str | None, *, users: bool = True) -> None:
    """Every call that needs the page says DIALOG_OPEN at once (with the message when Chrome gave it)."""
    session_calls = [
        ("snapshot", {}),
        ("evaluate_js", {"expression": "1"}),
        ("get_dom", {}),
        ("screenshot", {}),
        ("wait_for", {"text": "Orders", "timeout_ms": 20000}),
        ("list_frames", {}),
        ("export_state", {}),
    ]
    for action, args in session_calls:
        sc = await agent.err(action, ErrorCode.DIALOG_OPEN, timeout=FAST, **args)
        # the user's dialog, in the user's Chrome: the answer says it is theirs
        if users:
            assert sc["dialog"]["byUser"] is True and "the user's" in sc["hint"], (action, sc)
        else:  # the internal browser's dialogs come from the agent's own pages: handle_dialog answers them
            assert "byUser" not in sc["dialog"] and "handle_dialog" in sc["hint"], (action, sc)
        if message is not None:
            assert sc["dialog"]["message"] == message, (action, sc)
        else:
            assert sc["dialog"] == {"type": "unknown", "beforeAttach": True, "byUser": True}, (action, sc)
    for action, args in (("click", {"selector": "#plain"}), ("press_key", {"key": "Enter"})):
        result = await agent.call("browser_interact", FAST, action=action, **args)
        assert result.is_error and result.structured_content["code"] == ErrorCode.DIALOG_OPEN, result.content[0].text


async def test_users_confirm_after_a_selector_action_is_left_to_the_user(users_chrome, http_server, tmp_path):
    orders, _front = await _open(users_chrome, http_server)
    async with serving(tmp_path / "artifacts") as agent, users_hands(users_chrome.http_url, orders) as hands:
        await agent.s("attach_cdp", cdp_url=users_chrome.http_url)
        await agent.s("select_page_by_title", title_contains="Orders")
        clicked = await agent.call("browser_interact", action="click", selector="#plain")
        assert not clicked.is_error, clicked.content[0].text

        await hands.ask("confirm")
        await asyncio.sleep(0.5)
        assert await hands.title() == "Orders"  # nobody answered it (Playwright used to cancel it in 9 ms)
        # the tab list and the status show the user's dialog, in both renderings
        listed = await agent.call("browser_session", action="list_pages")
        orders_tab = next(p for p in listed.structured_content["pages"] if p["title"] == "Orders")
        assert orders_tab["dialog"] == {"type": "confirm", "message": "Delete order 7?", "byUser": True}
        assert "the user's confirm dialog open: 'Delete order 7?'" in listed.content[0].text
        status = await agent.call("browser_session", action="get_browser_status")
        assert status.structured_content["browser"]["currentPage"]["dialog"]["byUser"] is True
        assert "the user's confirm dialog open" in status.content[0].text
        listed_dialogs = status.structured_content["browser"]["dialogs"]
        assert [(d["stable_page_id"], d["message"], d["byUser"]) for d in listed_dialogs] == [
            (orders_tab["stable_page_id"], "Delete order 7?", True)
        ]
        assert f"the user's confirm dialog open in {orders_tab['stable_page_id']}" in status.content[0].text
        await _blocked_everywhere(agent, "Delete order 7?")

        handled = await agent.s("handle_dialog", dialog_action="dismiss", timeout=FAST)
        assert handled["dialog"]["message"] == "Delete order 7?"
        assert await hands.title() == "answered:false"

        await hands.ask("prompt")
        sc = await agent.err("snapshot", ErrorCode.DIALOG_OPEN, timeout=FAST)
        assert sc["dialog"] == {
            "type": "prompt",
            "message": "Who approves order 7?",
            "defaultPrompt": "nobody",
            "url": http_server.url("/bg/dialog.html"),
            "byUser": True,
        }
        await agent.s("handle_dialog", dialog_action="accept", prompt_text="Ada", timeout=FAST)
        assert await hands.title() == "answered:Ada"

        # the user answers one themselves: we see it closed and the page answers again
        await hands.ask("confirm")
        await hands.answer(True)
        assert await agent.js("document.title") == "answered:true"


async def test_a_dialog_opened_before_any_call_is_seen_at_once(fresh_chromium, http_server, tmp_path):
    orders, _front = await _open(fresh_chromium, http_server)
    async with serving(tmp_path / "artifacts") as agent, users_hands(fresh_chromium.http_url, orders) as hands:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="Orders")
        await hands.ask("alert")
        await _blocked_everywhere(agent, "Order 7 saved")
        bundle = await agent.s("debug_bundle", timeout=FAST)
        assert bundle["dialog"]["message"] == "Order 7 saved"
        handled = await agent.s("handle_dialog", timeout=FAST)
        assert handled["dialog"]["message"] == "Order 7 saved"
        assert await agent.js("document.title") == "answered:undefined"


async def test_a_dialog_open_at_attach_is_reported_and_left_to_the_user(fresh_chromium, http_server, tmp_path):
    orders, _front = await _open(fresh_chromium, http_server)
    async with users_hands(fresh_chromium.http_url, orders) as hands:
        await hands.ask("confirm")
        async with serving(tmp_path / "artifacts") as agent:
            with anyio.fail_after(15):  # the frozen tab must not hold the attach for its listeners' timeouts
                await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
            await agent.s("select_page_by_title", title_contains="Orders")
            await _blocked_everywhere(agent, None)
            refused = await agent.err("handle_dialog", ErrorCode.DIALOG_OPEN, timeout=FAST)
            assert "ask the user" in refused["hint"]
            assert records(await agent.s("console_list")) == []  # reads of the capture still answer
            assert await hands.title() == "Orders"  # we answered nothing

            await hands.answer(True)  # the user clicks OK in Chrome
            await asyncio.sleep(0.5)
            assert await agent.js("document.title") == "answered:true"
            snap = await agent.s("snapshot", interactive_only=True)
            assert any(line.get("name") == "Plain" for line in records(snap, "lines"))
            # capture was attached once the page answered: the error logged after the dialog is there
            entries = records(await agent.s("console_list", types=["error"]))
            assert any("after the dialog: true" in e["text"] for e in entries), entries


async def test_internal_browser_dialogs_wait_for_handle_dialog(http_server, tmp_path):
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/bg/dialog.html"))
        clicked = await agent.call("browser_interact", action="click", selector="#plain")
        assert not clicked.is_error, clicked.content[0].text
        await agent.js("askLater('confirm', 50); 1")
        await asyncio.sleep(1.5)  # a background tab's timer may run a second late
        async with httpx.AsyncClient(trust_env=False) as http:
            listed = (await http.get(f"{agent.manager.launch.cdp_url}/json/list")).json()
        assert any(t["title"] == "Orders" for t in listed), listed  # still unanswered
        await _blocked_everywhere(agent, "Delete order 7?", users=False)
        await agent.s("handle_dialog", dialog_action="accept", timeout=FAST)
        assert await agent.js("document.title") == "answered:true"
