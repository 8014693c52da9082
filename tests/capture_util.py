"""Shared helpers of the capture tests: a tab of our own with recorders attached, and polling."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import cdp_core
from cdp_core import Browser, CDPSession
from cdp_core.recorders.console import ConsoleRecorder
from cdp_core.recorders.network import NetworkRecorder


@dataclass
class Tab:
    browser: Browser
    session: CDPSession
    network: NetworkRecorder
    console: ConsoleRecorder

    async def eval(self, expression: str, *, await_promise: bool = True) -> Any:
        result = await self.session.send(
            "Runtime.evaluate", {"expression": expression, "awaitPromise": await_promise, "returnByValue": True}
        )
        if "exceptionDetails" in result:
            raise AssertionError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def goto(self, url: str) -> None:
        loaded = asyncio.ensure_future(self.session.wait_for("Page.loadEventFired", timeout=20))
        await asyncio.sleep(0)
        await self.session.send("Page.navigate", {"url": url})
        await loaded


async def until(predicate: Callable[[], Any], timeout: float = 20.0, what: str = "condition") -> Any:
    """Poll ``predicate`` until it is truthy (a wait, not a timing assertion)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def wait_loaded(session: CDPSession, path: str) -> None:
    """A tab opened by someone else: wait until it shows ``path`` and finished loading."""
    expression = "location.pathname + ' ' + document.readyState"
    for _ in range(500):
        reply = await session.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if reply["result"].get("value") == f"{path} complete":
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never loaded")


@contextlib.asynccontextmanager
async def open_tab(chromium: Any, url: str | None = None, **network_options: Any) -> AsyncIterator[Tab]:
    """A new tab with a NetworkRecorder and ConsoleRecorder attached before anything loads."""
    console_max = network_options.pop("console_max_entries", 300)
    async with cdp_core.connect(chromium.http_url) as browser:
        session = await browser.new_page("about:blank")
        network = NetworkRecorder(**network_options)
        console = ConsoleRecorder(max_entries=console_max)
        await network.attach(session)
        await console.attach(session)
        await session.send("Page.enable")
        tab = Tab(browser, session, network, console)
        try:
            if url:
                await tab.goto(url)
            yield tab
        finally:
            network.detach()
            target_id = session.target_info.get("targetId")
            if target_id:
                with contextlib.suppress(Exception):
                    await browser.close_target(target_id)
