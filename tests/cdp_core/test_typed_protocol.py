"""The typed protocol (``session.cdp``) against a real Chromium: same dicts, same errors, typed events.

The typed path must be the raw path with types, nothing else: what it returns is what
``send`` returns, its errors and timeouts are ``send``'s, and an ``EventName`` subscribes to
the very events its plain string would.
"""

from __future__ import annotations

import asyncio

import pytest

import cdp_core
from cdp_core import Browser, CDPEvent, CDPSession
from cdp_core.protocol import CDP


async def test_typed_command_returns_what_send_returns(cdp_page: CDPSession) -> None:
    raw = await cdp_page.send("Runtime.evaluate", {"expression": "({a: [1, 2]})", "returnByValue": True})
    typed = await cdp_page.cdp.Runtime.evaluate(expression="({a: [1, 2]})", returnByValue=True)
    assert typed == raw and typed["result"].get("value") == {"a": [1, 2]}
    await cdp_page.cdp.Runtime.enable()  # a command without a result is typed as returning None


async def test_typed_events_are_the_same_events(cdp_page: CDPSession) -> None:
    cdp = cdp_page.cdp
    seen: list[float] = []
    subscription = cdp_page.on(cdp.Page.loadEventFired, lambda event: seen.append(event.params["timestamp"]))
    async with cdp_page.events(cdp.Page.loadEventFired) as loads, cdp_page.events("Page.loadEventFired") as plain:
        await cdp.Page.enable()
        waiter = asyncio.ensure_future(cdp_page.wait_for(cdp.Page.frameNavigated, timeout=10))
        frame = await cdp.Page.navigate(url="data:text/html,<title>typed</title>")
        typed_event = await loads.get(timeout=10)
        plain_event = await plain.get(timeout=10)
        navigated = await waiter
    subscription.cancel()
    assert isinstance(typed_event, CDPEvent) and typed_event.method == "Page.loadEventFired"
    assert typed_event.params == plain_event.params and seen == [typed_event.params["timestamp"]]
    assert navigated.params["frame"]["id"] == frame["frameId"]


async def test_typed_errors_and_timeouts_are_sends(cdp_page: CDPSession) -> None:
    with pytest.raises(cdp_core.CDPError) as err:
        await cdp_page.cdp.DOM.describeNode(nodeId=987654)
    assert err.value.method == "DOM.describeNode"
    slow = CDP(cdp_page, timeout=0.2)
    with pytest.raises(cdp_core.CDPTimeout):
        await slow.Runtime.evaluate(expression="new Promise(() => {})", awaitPromise=True)
    assert cdp_page.connection.pending_count == 0


async def test_browser_level_typed_commands(cdp_browser: Browser) -> None:
    targets = await cdp_browser.cdp.Target.getTargets()
    assert any(info["type"] == "page" for info in targets["targetInfos"])
    version = await cdp_browser.cdp.Browser.getVersion()
    assert version["product"].startswith(("Chrome/", "HeadlessChrome/"))
