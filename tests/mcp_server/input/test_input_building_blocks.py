"""The input module's building blocks, which the drag, upload, type and form actions build on.

Driven directly on a page of the user's Chrome that is in the background (another tab
activated), attached through the real server wiring: drag (HTML5 and pointer-based), file
inputs, multiple selects, key combinations, fill on date inputs and contenteditable, and the
clear refusals (read-only, not a text field, disabled option).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from background_tabs import activate
from faults_util import UserTabs, serving

from mcp_server.input import actions as inp
from mcp_server.input.element import element_from_selector
from mcp_server.input.keyboard import parse_combo
from targets.errors import ErrorCode, ToolFailure


async def _page(agent, chrome, http_server):
    user = UserTabs(chrome.http_url)
    front = await user.open(http_server.url("/faults/tab.html?name=front"))
    await activate(chrome.http_url, front)
    await user.open(http_server.url("/bg/widgets.html"), background=True)  # loads hidden (Ctrl+click)
    await agent.s("attach_cdp", cdp_url=chrome.http_url)
    await agent.s("select_page_by_title", title_contains="Widgets")
    assert await agent.js("document.visibilityState") == "hidden"
    return await agent.manager.current_page()


async def _el(page, selector):
    element, _ = await element_from_selector(page, selector)
    return element


async def out(agent) -> str:
    return await agent.js("document.getElementById('out').textContent")


async def test_building_blocks_in_a_background_tab(users_chrome, http_server, tmp_path: Path):
    upload = tmp_path / "invoice.txt"
    upload.write_text("total 12")
    async with serving(tmp_path / "artifacts") as agent:
        page = await _page(agent, users_chrome, http_server)

        result = await inp.drag(await _el(page, "#card"), await _el(page, "#lane"), "drag", timeout_ms=3000)
        assert result["html5"] and (await out(agent)).endswith("dragstart;drop:card-7;")
        result = await inp.drag(await _el(page, "#knob"), await _el(page, "#track"), "drag", timeout_ms=3000)
        assert not result["html5"] and (await out(agent)).endswith("grab;released-on-track;")

        await inp.set_input_files(await _el(page, "#file"), [str(upload)], "upload", timeout_ms=3000)
        assert (await out(agent)).endswith("files:invoice.txt;")

        picked = await inp.select_options(await _el(page, "#multi"), ["a", "Beta"], "select", timeout_ms=3000)
        assert picked == {"values": ["a", "b"], "labels": ["Alpha", "Beta"]}
        with pytest.raises(ToolFailure) as refused:
            await inp.select_options(await _el(page, "#multi"), ["Gamma"], "select", timeout_ms=300)
        assert "disabled" in refused.value.message
        with pytest.raises(ToolFailure) as missing:
            await inp.select_options(await _el(page, "#multi"), ["Delta"], "select", timeout_ms=300)
        assert missing.value.code == ErrorCode.INVALID_ARGUMENT and "Alpha" in (missing.value.hint or "")

        when = await inp.fill(await _el(page, "#when"), "2026-12-03", "fill", timeout_ms=3000)
        assert when.held == len("2026-12-03") and when.editor is None
        assert await agent.js("document.getElementById('when').value") == "2026-12-03"
        edited = await inp.fill(await _el(page, "#editor"), "new text", "fill", timeout_ms=3000)
        assert edited.held == len("new text") and edited.editor is None  # a contenteditable holds its text
        assert await agent.js("document.getElementById('editor').innerText") == "new text"
        with pytest.raises(ToolFailure) as readonly:
            await inp.fill(await _el(page, "#ro"), "x", "fill", timeout_ms=200)
        assert "read-only" in readonly.value.message and readonly.value.code == ErrorCode.ELEMENT_NOT_INTERACTABLE
        with pytest.raises(ToolFailure) as not_text:
            await inp.fill(await _el(page, "#file"), "x", "fill", timeout_ms=5000)
        assert "not a text field" in not_text.value.message and "waited" not in not_text.value.message

        # key combinations in the focused field: select all and type over it, Shift+Tab back
        first = await _el(page, "#first")
        await inp.press_key(first, None, "Control+a", "press", timeout_ms=3000)
        await inp.press_key(first, None, "x", "press", timeout_ms=3000)
        assert await agent.js("document.getElementById('first').value") == "x"
        await inp.press_key(await _el(page, "#second"), None, "Shift+Tab", "press", timeout_ms=3000)
        assert await agent.js("document.activeElement.id") == "first"
        with pytest.raises(ToolFailure) as unknown:
            await inp.press_key(first, None, "Hyper+q", "press", timeout_ms=300)
        assert unknown.value.code == ErrorCode.INVALID_ARGUMENT
        assert await agent.js("document.visibilityState") == "hidden"


def test_key_combinations_parse():
    mods, key = parse_combo("Control+Shift+ArrowLeft")
    assert [m.key for m in mods] == ["Control", "Shift"] and key.key == "ArrowLeft"
    assert parse_combo("+")[1].key == "+"
    assert parse_combo("Control++")[1].key == "+"
    assert parse_combo("ctrl+a")[0][0].key == "Control"
    assert parse_combo("Enter")[1].text == "\r"
