"""Faults: a JavaScript dialog left open in the user's Chrome, through the real MCP client.

An open ``alert()`` freezes its page: every script, input or screenshot on it would wait
until someone answers the dialog. Nothing here may hang: calls that need the page answer
DIALOG_OPEN (hint: handle_dialog) at once, reads of the capture keep working, and once the
dialog is handled the page answers again. Playwright (which would dismiss dialogs itself)
is not connected to the user's Chrome until an input action needs it.
"""

from __future__ import annotations

import asyncio

import anyio
from faults_util import UserTabs, serving
from lean_util import records

from targets.errors import ErrorCode


async def _open_alert(agent, text: str) -> None:
    """The page opens an alert by itself (a timer), then waits: the agent's next calls find it open."""
    await agent.js(f"setTimeout(() => alert({text!r}), 50); 1")
    await asyncio.sleep(0.3)


async def test_a_dialog_left_open_never_hangs_a_call(fresh_chromium, http_server, tmp_path):
    await UserTabs(fresh_chromium.http_url).open(http_server.url("/faults/tab.html?name=dialog"))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="Faults dialog")
        await agent.js("console.error('before the alert'); 1")
        await _open_alert(agent, "stuck here")

        blocked = [
            ("evaluate_js", {"expression": "document.title"}),
            ("get_dom", {}),
            ("screenshot", {}),
            ("snapshot", {}),
            ("wait_for", {"text": "Faults", "timeout_ms": 20000}),
            ("export_state", {}),
            ("list_frames", {}),
            ("select_frame", {"frame_index": 0}),
        ]
        for action, args in blocked:
            sc = await agent.err(action, ErrorCode.DIALOG_OPEN, timeout=20, **args)
            assert "handle_dialog" in sc["hint"] and sc["dialog"]["message"] == "stuck here", action
        for tool, args in (("browser_click", {"selector": "#h"}), ("browser_evaluate_js", {"expression": "1"})):
            result = await agent.call(tool, 20, **args)
            assert result.is_error and result.structured_content["code"] == ErrorCode.DIALOG_OPEN, tool

        # reads that do not need the page's script answer, the bundle reports the dialog
        assert "before the alert" in [e["text"] for e in records(await agent.s("console_list"))]
        assert records(await agent.s("network_list")) is not None
        bundle = await agent.s("debug_bundle", include_screenshot=True, timeout=20)
        assert bundle["dialog"]["message"] == "stuck here"
        assert any("dialog" in note for note in bundle.get("notes", []))
        assert not any("unavailable" in note for note in bundle["notes"]), bundle["notes"]  # nothing waited it out
        assert (await agent.s("list_pages"))["pages"]

        # handled: the page answers again
        handled = await agent.s("handle_dialog", dialog_action="accept")
        assert handled["dialog"]["message"] == "stuck here"
        assert await agent.js("document.title") == "Faults dialog"

        # an alert opened by the very call that evaluates: the call answers instead of waiting on it
        result = await agent.call("browser_session", 20, action="evaluate_js", expression="alert('from the call'); 1")
        sc = result.structured_content
        if result.is_error:
            assert sc["code"] == ErrorCode.DIALOG_OPEN and "handle_dialog" in sc["hint"], result.content[0].text
        else:
            assert sc["dialog"]["message"] == "from the call"
        await agent.s("handle_dialog", dialog_action="dismiss")
        assert await agent.js("document.title") == "Faults dialog"

        # a wait_for predicate that opens an alert: said at once, not after the predicate's 5 s bound (it
        # used to wait 10 s, then claim the script was stopped "so the page answers again": it did not)
        with anyio.fail_after(4):
            opened = await agent.err(
                "wait_for", ErrorCode.DIALOG_OPEN, predicate="alert('from the wait')", timeout_ms=9000
            )
        assert opened["dialog"]["message"] == "from the wait" and "handle_dialog" in opened["hint"], opened
        await agent.s("handle_dialog", dialog_action="dismiss")
        assert await agent.js("document.title") == "Faults dialog"

        # navigating away while a dialog is open: Chrome would hold the navigation, so it is refused at once
        await _open_alert(agent, "leaving")
        refused = await agent.err("navigate", ErrorCode.DIALOG_OPEN, url=http_server.url("/faults/tab.html?name=next"))
        assert refused["dialog"]["message"] == "leaving"
        await agent.s("handle_dialog", dialog_action="dismiss")
        await agent.s("navigate", url=http_server.url("/faults/tab.html?name=next"))
        assert await agent.js("document.title") == "Faults next"
    assert fresh_chromium.alive


async def test_leaving_a_form_with_unsaved_changes_answers_the_prompt_at_once(fresh_chromium, http_server, tmp_path):
    """An edit form that asks before it is left (beforeunload), in a background tab of the user's Chrome,
    with something typed. navigate waited its whole timeout behind the prompt, then said 'no response; the
    navigation was stopped', and left the prompt open in the user's tab. It answers DIALOG_OPEN at once
    (navigate and reload alike); dismiss keeps the page and what was typed, accept lets the move go on."""
    from httpserver import Reply

    guard = "<script>addEventListener('beforeunload', e => { e.preventDefault(); e.returnValue = ''; })</script>"
    http_server.route("/faults/edit.html", Reply(200, f"<!doctype html><title>Edit order</title><input id=qty>{guard}"))
    http_server.route("/faults/list.html", Reply(200, "<!doctype html><title>Orders</title><p>list"))
    user = UserTabs(fresh_chromium.http_url)
    await user.open(http_server.url("/faults/edit.html"))
    await user.open(http_server.url("/faults/tab.html?name=front"))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="Edit order")
        await agent.call("browser_interact", action="fill", selector="#qty", value="12")  # a user gesture: Chrome asks
        leave = http_server.url("/faults/list.html")
        for action, args in (("navigate", {"url": leave}), ("reload", {})):
            with anyio.fail_after(10):  # the move's own timeout is 20 s: waiting for it fails here
                refused = await agent.err(action, ErrorCode.DIALOG_OPEN, timeout_ms=20000, **args)
            assert refused["dialog"]["type"] == "beforeunload", refused
            assert "asks before it is left" in refused["message"] and "dismiss stays" in refused["hint"], refused
            await agent.s("handle_dialog", dialog_action="dismiss")
            assert (await agent.s("get_current_page"))["page"]["url"] == http_server.url("/faults/edit.html")
            assert await agent.js("document.getElementById('qty').value") == "12"
        await agent.err("navigate", ErrorCode.DIALOG_OPEN, url=leave)
        accepted = await agent.s("handle_dialog", dialog_action="accept")
        assert accepted["followed"]["navigation"]["to"] == leave, accepted
        assert (await agent.s("get_current_page"))["page"]["title"] == "Orders"
