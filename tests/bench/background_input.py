"""Benchmark: input on a tab the user is not looking at, before (Playwright) and after (mcp_server.input).

Run: ``.venv/bin/python tests/bench/background_input.py [--rounds 10] [--headful]``

A headless Chromium plays the user's Chrome: the form tab is put in the background by
activating another tab (``/json/activate``), as a user does by clicking another tab. Printed:

- before: Playwright's ``locator.click`` / ``hover`` on the hidden tab (what the server used),
  with a 3 s timeout: how many time out, and the same click once the tab is in front;
- after: each uid and selector action through a real MCP client session on the hidden tab
  (median and worst of the rounds, whole call including the follow-up report), the same click on
  the visible tab, and the input module alone (no MCP, no follow-up) as a ratio hidden/visible;
- the delivery check alone (input/delivery.py: isolated-world listeners installed and removed),
  which every click, key press and text insertion pays;
- fill and submit (POST -> 302 -> page load, the answer naming the POST) and a screenshot,
  all in the hidden tab;
- the out-of-process iframe click in the hidden tab.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import httpx  # noqa: E402
from faults_util import UserTabs, serving  # noqa: E402
from headful import VirtualDisplay  # noqa: E402
from httpserver import Reply, TestServer  # noqa: E402
from lean_util import records  # noqa: E402

from cdp_core import ChromiumProcess  # noqa: E402
from mcp_server.input import actions as inp  # noqa: E402
from mcp_server.input.delivery import PRESS, RELEASE, watching  # noqa: E402
from mcp_server.input.element import element_from_selector  # noqa: E402


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:7.1f} ms, worst {max(values) * 1000:7.1f} ms"


async def activate(http_url: str, target_id: str) -> None:
    async with httpx.AsyncClient(trust_env=False) as http:
        (await http.put(f"{http_url}/json/activate/{target_id}")).raise_for_status()


async def before_playwright(http_url: str, rounds: int, form_tab: str, front_tab: str) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(http_url, no_defaults=True)
        page = next(p for c in browser.contexts for p in c.pages if p.url.endswith("/bg/form.html"))
        for name, call in (
            ("click", lambda: page.locator("#menu").click(timeout=3000)),
            ("hover", lambda: page.locator("#menu").hover(timeout=3000)),
        ):
            outcomes, times = [], []
            for _ in range(max(1, rounds // 5)):
                t0 = time.perf_counter()
                try:
                    await call()
                    outcomes.append("ok")
                except Exception as exc:  # noqa: BLE001 - a timeout is the measured outcome
                    outcomes.append(type(exc).__name__)
                times.append(time.perf_counter() - t0)
            timeouts = sum(o != "ok" for o in outcomes)
            print(f"  before  Playwright {name:6} hidden tab : {timeouts}/{len(outcomes)} timed out; {ms(times)}")
        await activate(http_url, form_tab)
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            await page.locator("#menu").click(timeout=3000)
            times.append(time.perf_counter() - t0)
        print(f"  before  Playwright click  visible tab: {ms(times)}")
        await activate(http_url, front_tab)
        # Stopping the driver drops its socket; the browser and its tabs stay.


async def after(agent: Any, rounds: int, http_url: str, form_tab: str, front_tab: str) -> None:
    await agent.s("attach_cdp", cdp_url=http_url)
    await agent.s("select_page_by_title", title_contains="Change client")
    assert await agent.js("document.visibilityState") == "hidden"
    snap = await agent.s("snapshot", interactive_only=True)
    uids = {(line.get("role"), line.get("name")): line["uid"] for line in records(snap, "lines") if "uid" in line}
    calls = {
        "click_uid": ("browser_interact", {"action": "click_uid", "uid": uids[("link", "Export")]}),
        "fill_uid": ("browser_interact", {"action": "fill_uid", "uid": uids[("textbox", "Name")], "value": "Ada L"}),
        "hover_uid": ("browser_interact", {"action": "hover_uid", "uid": uids[("textbox", "Name")]}),
        "press_uid": ("browser_interact", {"action": "press_uid", "uid": uids[("textbox", "Name")], "key": "End"}),
        "select(fill_uid)": (
            "browser_interact",
            {"action": "fill_uid", "uid": uids[("combobox", "Country")], "value": "France"},
        ),
        "check(fill_uid)": ("browser_interact", {"action": "fill_uid", "uid": uids[("checkbox", "VIP")], "value": "x"}),
        "click": ("browser_interact", {"action": "click", "selector": "#menu"}),
        "fill": ("browser_interact", {"action": "fill", "selector": "#notes", "value": "n"}),
        "hover": ("browser_interact", {"action": "hover", "selector": "#menu"}),
        "press_key": ("browser_interact", {"action": "press_key", "selector": "#name", "key": "Home"}),
    }
    for name, (tool, args) in calls.items():
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            result = await agent.call(tool, **args)
            times.append(time.perf_counter() - t0)
            assert not result.is_error, result.content[0].text
        print(f"  after   MCP {name:17} hidden tab : {ms(times)}")

    page = await agent.manager.current_page()

    async def engine_click() -> float:
        element, _ = await element_from_selector(page, "#menu")
        t0 = time.perf_counter()
        await inp.click(element, "bench", timeout_ms=5000)
        took = time.perf_counter() - t0
        await element.release()
        return took

    hidden = [await engine_click() for _ in range(rounds)]
    element, _ = await element_from_selector(page, "#menu")
    checks = []
    for _ in range(rounds):  # what each click pays to know the page got it (input/delivery.py)
        t0 = time.perf_counter()
        async with watching(element.session, element.frame_id, PRESS + RELEASE, element.object_id):
            pass
        checks.append(time.perf_counter() - t0)
    await element.release()
    await activate(http_url, form_tab)
    assert await agent.js("document.visibilityState") == "visible"
    visible = [await engine_click() for _ in range(rounds)]
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        await agent.call("browser_interact", action="click", selector="#menu")
        times.append(time.perf_counter() - t0)
    print(f"  after   MCP click             visible tab: {ms(times)}")
    await activate(http_url, front_tab)
    ratio = statistics.median(hidden) / statistics.median(visible)
    print(f"  after   input.click alone     hidden tab : {ms(hidden)}")
    print(f"  after   input.click alone     visible tab: {ms(visible)}  (hidden/visible = {ratio:.2f})")
    print(f"  after   delivery check alone  hidden tab : {ms(checks)}  (installed and removed, no input)")


async def submit_and_screenshot(agent: Any, rounds: int, http_url: str) -> None:
    """Fill and submit the form in the hidden tab (POST -> 302 -> page load, answer with the POST), and screenshots."""
    fills, submits, shots, failed_shots = [], [], [], 0
    for _ in range(rounds):
        await agent.s("select_page_by_title", title_contains="Change client")
        t0 = time.perf_counter()
        result = await agent.call("browser_interact", action="fill", selector="#name", value="Grace")
        fills.append(time.perf_counter() - t0)
        assert not result.is_error, result.content[0].text
        t0 = time.perf_counter()
        result = await agent.call("browser_interact", action="click", selector="#save")
        submits.append(time.perf_counter() - t0)
        assert "POST" in result.content[0].text and "302" in result.content[0].text, result.content[0].text
        assert await agent.js("document.visibilityState") == "hidden"
        t0 = time.perf_counter()
        shot = await agent.call("browser_session", action="screenshot")
        shots.append(time.perf_counter() - t0)
        failed_shots += bool(shot.is_error)
        await agent.s("navigate", url=(await agent.manager.current_page()).url.replace("done.html", "form.html"))
    print(f"  after   MCP fill (selector)     hidden tab : {ms(fills)}")
    print(f"  after   MCP submit click (POST->302->load, report) hidden tab: {ms(submits)}")
    print(f"  after   MCP screenshot          hidden tab : {ms(shots)}; {failed_shots}/{rounds} said why it failed")


async def oopif(agent: Any, rounds: int) -> None:
    await agent.s("select_page_by_title", title_contains="Frame host")
    snap = await agent.s("snapshot")
    uid = next(ln["uid"] for ln in records(snap, "lines") if ln.get("role") == "button" and ln.get("name") == "OK")
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        result = await agent.call("browser_interact", action="click_uid", uid=uid)
        times.append(time.perf_counter() - t0)
        assert not result.is_error, result.content[0].text
    print(f"  after   MCP click_uid (out-of-process iframe) hidden tab: {ms(times)}")


async def run(rounds: int, headful: bool) -> None:
    server = TestServer().start()
    server.route("/bg/save", Reply(302, "", headers={"Location": "/bg/done.html"}))
    display = VirtualDisplay.start() if headful else None
    chrome = ChromiumProcess.start(headless=not headful, env=display.env() if display else None)
    try:
        user = UserTabs(chrome.http_url)
        form_tab = await user.open(server.url("/bg/form.html"))
        await user.open(server.url("/bg/frame_parent.html"))
        front_tab = await user.open(server.url("/faults/tab.html?name=front"))
        await activate(chrome.http_url, front_tab)
        mode = "headful (Xvfb)" if headful else "headless"
        print(f"Chromium {mode} {chrome.http_url}, {rounds} rounds; form tab in the background (/json/activate)")
        await before_playwright(chrome.http_url, rounds, form_tab, front_tab)
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            async with serving(Path(tmp)) as agent:
                await after(agent, rounds, chrome.http_url, form_tab, front_tab)
                await submit_and_screenshot(agent, rounds, chrome.http_url)
                await oopif(agent, rounds)
    finally:
        chrome.stop()
        server.stop()
        if display is not None:
            display.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--headful", action="store_true", help="a Chromium with a window on Xvfb, as a person's")
    args = parser.parse_args()
    asyncio.run(run(args.rounds, args.headful))


if __name__ == "__main__":
    main()
