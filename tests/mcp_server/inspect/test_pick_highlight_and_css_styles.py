"""Looking together with the person: css_styles, pick_element, highlight, in a Chrome with a window.

The test plays the person on a virtual screen (Xvfb, xdotool): it clicks the field while
``pick_element`` waits, presses Escape, and reads the page through a CDP client of its own
while ``highlight`` shows. The page (tests/pages/looking/) hides one button by a class on its
parent in its own ``<style>``, another by a rule compiled from SCSS (a real ``sass`` build,
committed with its map), and puts a transparent shield over Save.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import paths
from faults_util import Agent, UserTabs, serving
from lean_util import assert_carries, assert_lean, records
from png_pixels import png_rgb

import cdp_core
from targets.errors import ErrorCode

PAGES = paths.PAGES / "looking"


def line_of(path: Path, after: str, needle: str) -> int:
    """1-based line of the first ``needle`` after the line holding ``after`` (what a person finds in the file)."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if after in line)
    return next(i for i in range(start, len(lines)) if needle in lines[i]) + 1


@contextlib.asynccontextmanager
async def looking(chrome: Any, http_server: Any, tmp_path: Path) -> AsyncIterator[tuple[Agent, str, str]]:
    """The agent attached to the person's Chrome, on the looking page: (agent, page URL, its target id)."""
    url = http_server.url("/looking/look.html")
    target = await UserTabs(chrome.http_url).open(url)
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=chrome.http_url)
        await agent.s("select_page_by_title", title_contains="Looking together")
        yield agent, url, target


async def css(agent: Agent, **args: Any) -> tuple[Any, dict[str, Any]]:
    result = await agent.call("browser_session", action="css_styles", **args)
    assert not result.is_error, result.content[0].text
    return result, assert_lean(result)


async def test_css_styles_names_the_parent_rule_that_hides_a_button(headful_chromium, http_server, tmp_path):
    async with looking(headful_chromium, http_server, tmp_path) as (agent, url, _):
        # in the page's own <style>: the document's line
        result, sc = await css(agent, selector="#delete")
        line = line_of(PAGES / "look.html", ".sheet.folded {", "display: none")
        reason = sc["reasons"][0]
        assert sc["verdict"] == "hidden"
        assert reason["why"] == "display:none" and reason["on"] == "div.sheet.folded" and reason["up"] == 1
        assert reason["rule"] == ".sheet.folded" and reason["at"] == f"{url}:{line}"
        assert_carries(result, f"{url}:{line}", ".sheet.folded", "div.sheet.folded")
        assert "on its parent div.sheet.folded" in result.content[0].text

        # compiled from SCSS: the CSS line and, through the map, the SCSS line
        result, sc = await css(agent, selector="#cancel")
        css_url = http_server.url("/looking/look.css")
        reason = sc["reasons"][0]
        assert reason["at"] == f"{css_url}:{line_of(PAGES / 'look.css', '.panel.collapsed', 'display: none')}"
        assert reason["source"] == f"/looking/look.scss:{line_of(PAGES / 'look.scss', '&.collapsed', 'display: none')}"
        assert_carries(result, reason["source"])

        # a visible control says so, with the rules that shape it
        result, sc = await css(agent, selector="#ok")
        assert sc["verdict"] == "visible and clickable" and "reasons" not in sc
        ok = next(r["uid"] for r in records(await agent.s("snapshot"), "lines") if r.get("name") == "OK")
        assert sc["uid"] == ok and f"[uid={ok}]" in result.content[0].text


async def test_css_styles_reports_the_transparent_shield_over_save(headful_chromium, http_server, tmp_path):
    async with looking(headful_chromium, http_server, tmp_path) as (agent, _, _):
        snap = await agent.s("snapshot")
        save = next(r["uid"] for r in records(snap, "lines") if r.get("role") == "button" and r.get("name") == "Save")
        result, sc = await css(agent, uid=save)
        assert sc["verdict"] == "covered" and sc["uid"] == save
        assert sc["reasons"][0]["why"] == "covered by div#shield.shield"
        assert_carries(result, "covered by div#shield.shield")
        # the click the agent would make is refused for the same reason
        click = await agent.call("browser_interact", action="click_uid", uid=save, timeout_ms=500)
        assert click.is_error and "shield" in click.content[0].text


async def screen_point(agent: Agent, chrome: Any, target: str, selector: str) -> tuple[int, int]:
    """Where ``selector``'s center is on the screen: the window's position plus the page's offset in it."""
    async with cdp_core.connect(chrome.http_url) as person:
        window = await person.send("Browser.getWindowForTarget", {"targetId": target})
    bounds = window["bounds"]
    box = await agent.js(
        "JSON.stringify({ow: outerWidth, oh: outerHeight, iw: innerWidth, ih: innerHeight,"
        f" r: document.querySelector({json.dumps(selector)}).getBoundingClientRect()}})"
    )
    m = json.loads(box)
    x = bounds["left"] + (m["ow"] - m["iw"]) / 2 + m["r"]["x"] + m["r"]["width"] / 2
    y = bounds["top"] + (m["oh"] - m["ih"]) + m["r"]["y"] + m["r"]["height"] / 2
    return round(x), round(y)


async def pick_while(agent: Agent, person: Any) -> Any:
    """Call pick_element; when its progress asks the person to click, run ``person()``."""
    asked = asyncio.Event()
    messages: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        messages.append(message or "")
        if message and "click the element in Chrome" in message:
            asked.set()

    async def play() -> None:
        with anyio.fail_after(30):
            await asked.wait()
        await person()

    task = asyncio.ensure_future(play())
    try:
        with anyio.fail_after(60):
            result = await agent.client.call_tool(
                "browser_session", {"action": "pick_element", "timeout_ms": 30000}, progress_callback=on_progress
            )
    finally:
        await task
    return result


async def test_pick_element_answers_the_uid_of_the_field_the_person_clicks(
    headful_chromium, virtual_display, http_server, tmp_path
):
    async with looking(headful_chromium, http_server, tmp_path) as (agent, _, target):
        snap = await agent.s("snapshot")
        email = next(r["uid"] for r in records(snap, "lines") if r.get("role") == "textbox")
        x, y = await screen_point(agent, headful_chromium, target, "#email")
        await agent.js("window.__clicks = 0; addEventListener('mousedown', () => window.__clicks++, true)")

        async def person() -> None:
            await asyncio.sleep(0.2)
            virtual_display.xdotool("mousemove", str(x), str(y), "click", "1")

        result = await pick_while(agent, person)
        assert not result.is_error, result.content[0].text
        sc = assert_lean(result)
        assert sc["uid"] == email, result.content[0].text
        assert sc["line"][:3] == ["textbox", "Email", email]
        assert sc["verdict"] == "visible and clickable"
        assert_carries(result, f"[uid={email}]", "tab brought to front")
        # the click picked: the page never got it, and inspect mode is off again
        assert await agent.js("window.__clicks") == 0
        assert await agent.js("document.activeElement.id") != "email"
        virtual_display.xdotool("mousemove", str(x), str(y), "click", "1")
        with anyio.fail_after(10):
            while await agent.js("window.__clicks") != 1:
                await asyncio.sleep(0.05)

        # a click on the caption inside a button picks the button: the line a person means
        ok = next(r["uid"] for r in records(snap, "lines") if r.get("role") == "button" and r.get("name") == "OK")
        x, y = await screen_point(agent, headful_chromium, target, "#ok-label")

        async def caption() -> None:
            await asyncio.sleep(0.2)
            virtual_display.xdotool("mousemove", str(x), str(y), "click", "1")

        result = await pick_while(agent, caption)
        assert not result.is_error, result.content[0].text
        sc = assert_lean(result)
        assert sc["uid"] == ok and sc["element"] == "button#ok", result.content[0].text


async def test_pick_element_escape_leaves_inspect_mode_with_a_hint(
    headful_chromium, virtual_display, http_server, tmp_path
):
    async with looking(headful_chromium, http_server, tmp_path) as (agent, _, target):
        before = await agent.js("document.documentElement.outerHTML")

        async def person() -> None:
            await asyncio.sleep(0.2)
            virtual_display.xdotool("key", "Escape")

        result = await pick_while(agent, person)
        assert not result.is_error, result.content[0].text
        sc = assert_lean(result)
        assert sc["cancelled"] is True and "pick_element again" in sc["hint"]
        assert await agent.js("document.documentElement.outerHTML") == before

        # nobody clicks: TIMEOUT with a hint, and inspect mode is off again (a click reaches the page)
        sc = await agent.err("pick_element", ErrorCode.TIMEOUT, timeout_ms=1000)
        assert "pick_element again" in sc["hint"]
        await agent.js("window.__clicks = 0; addEventListener('mousedown', () => window.__clicks++, true)")
        x, y = await screen_point(agent, headful_chromium, target, "#ok")
        virtual_display.xdotool("mousemove", str(x), str(y), "click", "1")
        with anyio.fail_after(10):
            while await agent.js("window.__clicks") != 1:
                await asyncio.sleep(0.05)


async def overlay_pixels(chrome: Any, target: str, box: dict[str, float]) -> int:
    """How many pixels in ``box`` carry the overlay's content blue, in what the person's window shows."""
    async with cdp_core.connect(chrome.http_url) as person:
        session = await person.attach(target)
        shot = await session.send("Page.captureScreenshot", {"format": "png"}, timeout=30)
        await session.detach()
    image = png_rgb(base64.b64decode(shot["data"]))
    blue = 0
    for y in range(int(box["y"]) + 1, int(box["y"] + box["height"]) - 1):
        for x in range(int(box["x"]) + 1, int(box["x"] + box["width"]) - 1):
            r, g, b = image.pixel(x, y)
            # content colour rgba(111, 168, 220, 0.66) over the page: blue clearly above red
            if b - r > 40 and b > 150:
                blue += 1
    return blue


async def test_highlight_answers_at_once_and_removes_chromes_overlay_later(headful_chromium, http_server, tmp_path):
    async with looking(headful_chromium, http_server, tmp_path) as (agent, _, target):
        before = await agent.js("document.documentElement.outerHTML")
        box = json.loads(await agent.js("JSON.stringify(document.querySelector('#email').getBoundingClientRect())"))
        assert await overlay_pixels(headful_chromium, target, box) == 0

        # 60 s on screen: the call answers while the overlay is still there (it used to hold the call)
        result = await agent.call("browser_session", action="highlight", selector="#email", seconds=60)
        assert not result.is_error, result.content[0].text
        sc = assert_lean(result)
        assert sc["element"] == "input#email" and sc["seconds"] == 60
        assert "goes by itself" in result.content[0].text
        assert await overlay_pixels(headful_chromium, target, box) > 0
        # the page's lock is free: another call on the tab runs while it shows
        assert await agent.js("document.documentElement.outerHTML") == before

        # a second highlight replaces the first one's removal: a short one takes the overlay away
        await agent.s("highlight", selector="#email", seconds=0.2)
        with anyio.fail_after(60):
            while await overlay_pixels(headful_chromium, target, box):
                await anyio.sleep(0.3)
        assert await agent.js("document.documentElement.outerHTML") == before


async def test_pick_element_is_refused_on_a_headless_browser(chromium, http_server, tmp_path):
    target = await UserTabs(chromium.http_url).open(http_server.url("/looking/look.html"))
    try:
        async with serving(tmp_path / "artifacts") as agent:
            await agent.s("attach_cdp", cdp_url=chromium.http_url)
            await agent.s("select_page_by_title", title_contains="Looking together")
            sc = await agent.err("pick_element", ErrorCode.NOT_ALLOWED)
            assert "headless" in sc["message"]
            # css_styles and highlight need no person
            await agent.s("css_styles", selector="#delete")
            await agent.s("highlight", selector="#ok", seconds=0.2)
    finally:
        await UserTabs(chromium.http_url).close(target)


KINDS = [
    # selector, verdict, why, on (the ancestor, "" = itself), rule selector (None: none named)
    ("#v", "hidden", "visibility:hidden", "div.ghost", ".ghost"),
    ("#o", "transparent", "opacity:0", "div.faded", ".faded"),
    ("#p", "ignores clicks", "pointer-events:none", "div.locked", ".locked"),
    ("#d", "disabled", "disabled", "fieldset", None),
    ("#i", "inert", "inert", "div", None),
    ("#c", "clipped", "outside an overflow:hidden box", "div.box", ".box"),
    ("#a", "off-screen", "off the page at (-9999,", "", None),
    ("#z", "empty box", "empty box (", "", ".flat"),
    ("#s", "clipped", "cut to nothing by clip/clip-path", "", ".sr"),
    ("#h", "hidden", "display:none", "div", "[hidden]"),
]


async def test_css_styles_names_every_kind_of_hidden_and_blocked(chromium, http_server, tmp_path):
    url = http_server.url("/looking/kinds.html")
    target = await UserTabs(chromium.http_url).open(url)
    try:
        async with serving(tmp_path / "artifacts") as agent:
            await agent.s("attach_cdp", cdp_url=chromium.http_url)
            await agent.s("select_page_by_title", title_contains="Every kind of hidden")
            before = await agent.js("document.documentElement.outerHTML")
            for selector, verdict, why, on, rule in KINDS:
                result, sc = await css(agent, selector=selector)
                reason = sc["reasons"][0]
                assert sc["verdict"] == verdict, (selector, result.content[0].text)
                assert reason["why"].startswith(why), (selector, result.content[0].text)
                assert reason.get("on", "") == on, (selector, result.content[0].text)
                if rule is not None:
                    assert reason.get("rule", "").startswith(rule), (selector, result.content[0].text)
                if rule is not None and rule.startswith("."):
                    assert reason["at"].startswith(f"{url}:"), (selector, result.content[0].text)
            # a covering element that has a snapshot line is named with its uid
            busy = next(r["uid"] for r in records(await agent.s("snapshot"), "lines") if r.get("name") == "Busy")
            result, sc = await css(agent, selector="#u")
            assert sc["verdict"] == "covered" and sc["reasons"][0]["uid"] == busy, result.content[0].text
            assert f"covered by div.veil [uid={busy}]" in result.content[0].text
            assert await agent.js("document.documentElement.outerHTML") == before
            bad = await agent.call("browser_session", action="css_styles", uid=1, selector="#v")
            assert bad.is_error and bad.structured_content["code"] == ErrorCode.INVALID_ARGUMENT
    finally:
        await UserTabs(chromium.http_url).close(target)
