"""Input in a tab whose page loaded while hidden, in a headful Chrome, and answers that say whether it arrived.

In a person's (headful) Chrome a page that loaded in a background tab (Ctrl+click, an agent's
hidden tab, the page after a submit) used to drop every click and key press while Chrome
acknowledged them, and the answer said "clicked ... nothing observable followed". Headless
Chromium does not show it, so these tests run ``headful_chromium`` under Xvfb. The tab stays
in the background throughout: the user's choice of tab is never changed.
"""

from __future__ import annotations

import struct
import urllib.parse
from pathlib import Path
from typing import Any

from background_tabs import CALL, activate, interact, uid_of, visibility
from faults_util import UserTabs, serving
from httpserver import Reply, Request
from lean_util import assert_lean, records

from targets.errors import ErrorCode

_ORDER = (
    "<!doctype html><title>New order</title><form method=post action='/hid/order'>"
    "<label>Item <input name=item value=''></label><button id=go>Order</button></form>"
)
_CONFIRM = (
    "<!doctype html><title>Confirm order</title><form method=post action='/hid/confirm'>"
    "<label>Note <input id=note name=note></label></form><p id=moved>not yet</p>"
    "<div id=drag role=button aria-label='Card' draggable=true style='width:80px;height:30px'>drag me</div>"
    "<section id=drop aria-label='Lane' style='width:120px;height:60px;background:#eee'>drop here</section>"
    "<script>drop.addEventListener('dragover', e => e.preventDefault());"
    "drop.addEventListener('drop', e => { e.preventDefault(); moved.textContent = 'dropped'; });</script>"
)
#: the button is covered by a "tooltip" as soon as the pointer comes over it: a click lands on the tip
_TIP = (
    "<!doctype html><title>Tip</title><button id=b style='position:absolute;left:20px;top:20px;width:120px;"
    "height:40px' onclick=\"document.title='clicked'\">Pay</button>"
    "<div id=tip style='display:none;position:absolute;left:0;top:0;width:300px;height:120px;background:#ffc'>"
    "hint</div><script>b.addEventListener('mousemove', () => { tip.style.display = 'block'; });</script>"
)


def _routes(http_server: Any) -> dict[str, list[dict[str, list[str]]]]:
    posts: dict[str, list[dict[str, list[str]]]] = {"order": [], "confirm": []}

    def post(kind: str, then: str) -> Any:
        def handle(req: Request) -> Reply:
            posts[kind].append(urllib.parse.parse_qs(req.body.decode()))
            return Reply(302, "", headers={"Location": then})

        return handle

    http_server.route("/hid/order.html", Reply(200, _ORDER))
    http_server.route("/hid/confirm.html", Reply(200, _CONFIRM))
    http_server.route("/hid/tip.html", Reply(200, _TIP))
    http_server.route("/hid/order", post("order", "/hid/confirm.html"))
    http_server.route("/hid/confirm", post("confirm", "/hid/order.html?done=1"))
    return posts


async def _hidden_loaded(chrome: Any, http_server: Any, path: str) -> tuple[str, str]:
    """The user's front tab, and a tab opened behind it whose page loaded hidden (a Ctrl+click)."""
    user = UserTabs(chrome.http_url)
    front = await user.open(http_server.url("/faults/tab.html?name=front"))
    await activate(chrome.http_url, front)
    tab = await user.open(http_server.url(path), background=True)
    return front, tab


async def test_click_and_enter_reach_a_tab_loaded_hidden(headful_chromium, http_server, tmp_path):
    posts = _routes(http_server)
    front, tab = await _hidden_loaded(headful_chromium, http_server, "/hid/order.html")
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=headful_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="New order")
        assert await agent.js("document.visibilityState") == "hidden"
        snap = await agent.s("snapshot", interactive_only=True)
        await interact(agent, "fill_uid", uid=uid_of(snap, "textbox", "Item"), value="tea")
        result = await agent.call("browser_interact", CALL, action="click_uid", uid=uid_of(snap, "button", "Order"))
        assert not result.is_error, result.content[0].text
        data = assert_lean(result)
        assert data["message"].startswith("clicked [uid="), data
        assert records(data["followed"], "requests")[0]["method"] == "POST", data
        assert posts["order"] == [{"item": ["tea"]}]

        # the page after the submit loaded hidden too: type into it and press Enter to submit it
        assert await agent.js("document.title") == "Confirm order"
        assert await agent.js("document.visibilityState") == "hidden"
        snap = await agent.s("snapshot", interactive_only=True)
        note = uid_of(snap, "textbox", "Note")
        typed = await interact(agent, "type_text", uid=note, text="ring twice")
        assert typed["chars"] == 10
        pressed = await agent.call("browser_interact", CALL, action="press_uid", uid=note, key="Enter")
        assert not pressed.is_error, pressed.content[0].text
        assert pressed.content[0].text.startswith("pressed Enter in"), pressed.content[0].text
        assert posts["confirm"] == [{"note": ["ring twice"]}]
    assert await visibility(headful_chromium.http_url, front) == "visible"
    assert await visibility(headful_chromium.http_url, tab) == "hidden"


async def test_hover_and_drag_reach_a_tab_loaded_hidden(headful_chromium, http_server, tmp_path):
    _routes(http_server)
    front, tab = await _hidden_loaded(headful_chromium, http_server, "/hid/confirm.html")
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=headful_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="Confirm order")
        await interact(agent, "hover", selector="#drop")
        assert await agent.js("document.getElementById('drop').matches(':hover')") is True
        snap = await agent.s("snapshot")
        await interact(agent, "drag", from_uid=uid_of(snap, "button", "Card"), to_uid=uid_of(snap, "region", "Lane"))
        assert await agent.js("document.getElementById('moved').textContent") == "dropped"
    assert await visibility(headful_chromium.http_url, front) == "visible"
    assert await visibility(headful_chromium.http_url, tab) == "hidden"


async def test_a_click_that_lands_elsewhere_says_so(chromium, http_server, tmp_path):
    """The pointer's arrival covers the button with a tip: Chrome acknowledges the click, the page
    delivers it to the tip. The answer says where it landed (not "clicked"), in both renderings."""
    _routes(http_server)
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/hid/tip.html"))
        result = await agent.call("browser_interact", CALL, action="click", selector="#b")
        assert result.is_error, result.content[0].text
        data = result.structured_content
        assert data["code"] == ErrorCode.INPUT_NOT_DELIVERED, data
        assert data["message"] == 'click: the click landed on <div id="tip">, not on #b', data
        assert data["message"] in result.content[0].text and "clicked" not in result.content[0].text
        assert await agent.js("document.title") == "Tip"  # the button's handler never ran


async def test_input_the_page_never_gets_is_not_called_done(headful_chromium, http_server, tmp_path, monkeypatch):
    """Without waking the hidden-loaded page (the old behaviour), Chrome acknowledges the click and
    the key, the page gets nothing: the answers say so instead of "clicked" / "pressed"."""
    from mcp_server.input import delivery

    async def asleep(session: Any, context_id: int | None = None) -> bool:
        return False

    monkeypatch.setattr(delivery, "wake", asleep)
    posts = _routes(http_server)
    await _hidden_loaded(headful_chromium, http_server, "/hid/order.html")
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=headful_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="New order")
        clicked = await agent.call("browser_interact", CALL, action="click", selector="#go")
        assert clicked.is_error and clicked.structured_content["code"] == ErrorCode.INPUT_NOT_DELIVERED
        assert clicked.structured_content["message"] == (
            "click: Chrome accepted the click for #go but the page received no event"
        ), clicked.structured_content
        pressed = await agent.call("browser_interact", CALL, action="press_key", selector="input", key="Enter")
        assert pressed.is_error and pressed.structured_content["code"] == ErrorCode.INPUT_NOT_DELIVERED
        assert "received no event" in pressed.content[0].text
        assert posts["order"] == []


def _png_size(path: str) -> tuple[int, int]:
    head = Path(path).read_bytes()[:24]
    width, height = struct.unpack(">II", head[16:24])
    return width, height


async def test_full_page_screenshot_of_a_hidden_tab(headful_chromium, http_server, tmp_path):
    http_server.route(
        "/hid/long.html", Reply(200, "<!doctype html><title>Long</title><div style='height:3000px'>tall</div>")
    )
    front, tab = await _hidden_loaded(headful_chromium, http_server, "/hid/long.html")
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=headful_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="Long")
        shot = await agent.call("browser_session", CALL, action="screenshot", full_page=True)
        assert not shot.is_error, shot.content[0].text
        data = shot.structured_content
        width, height = _png_size(data["path"])
        text = shot.content[0].text
        # the whole page (3000 px), said so in both renderings; a hidden tab used to give the viewport
        assert height >= 3000 and data["fullPage"] is True and text.endswith(" bytes, full page)"), (height, text)
        assert width >= 800, width  # the page's width, not a sliver
        assert await agent.js("document.visibilityState") == "hidden"
    assert await visibility(headful_chromium.http_url, front) == "visible"
    assert await visibility(headful_chromium.http_url, tab) == "hidden"


async def test_a_screenshot_shorter_than_the_page_does_not_say_full_page(chromium, http_server, tmp_path, monkeypatch):
    """When Chrome hands back only the viewport (as a hidden tab's capture from the view did), the answer
    says so with both heights, and ``fullPage`` is absent: it used to say "full page" regardless."""
    from mcp_server.features.screenshot import actions as legacy

    real = legacy.capture_png

    async def viewport_only(page: Any, params: dict[str, Any], *, timeout: float) -> dict[str, Any]:
        return await real(page, {"format": "png"}, timeout=timeout)

    monkeypatch.setattr(legacy, "capture_png", viewport_only)
    http_server.route(
        "/hid/long2.html", Reply(200, "<!doctype html><title>Long</title><div style='height:3000px'>tall</div>")
    )
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/hid/long2.html"))
        shot = await agent.call("browser_session", CALL, action="screenshot", full_page=True)
        assert not shot.is_error, shot.content[0].text
        data = assert_lean(shot)
        _width, height = _png_size(data["path"])
        page_height = await agent.js("document.documentElement.scrollHeight")
        assert "fullPage" not in data, data
        assert shot.content[0].text.endswith(f"bytes, NOT the full page: {height} of {page_height} px tall)"), shot


async def test_a_key_into_a_field_of_a_child_frame_is_seen_there(chromium, http_server, tmp_path):
    """press_key with no selector goes to the focused field, here in a same-process child frame: its
    delivery is looked for in that frame (a key event there never reaches the main frame's window)."""
    http_server.route(
        "/hid/framed.html",
        Reply(
            200,
            '<!doctype html><title>Framed</title><iframe id=f srcdoc="<input id=q '
            "onkeydown='parent.document.title=event.key'>\"></iframe>",
        ),
    )
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/hid/framed.html"))
        await agent.js(
            "new Promise(r => { const f = document.getElementById('f'); const go = () => "
            "{ f.contentDocument.getElementById('q').focus(); r(true); }; "
            "f.contentDocument.readyState === 'complete' ? go() : f.onload = go; })"
        )
        pressed = await agent.call("browser_interact", CALL, action="press_key", key="x")
        assert not pressed.is_error, pressed.content[0].text
        assert pressed.content[0].text.startswith("pressed x in the focused element"), pressed.content[0].text
        assert await agent.js("document.title") == "x"
