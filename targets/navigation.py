"""Navigation over our own CDP session: ``Page.navigate`` plus lifecycle events, no Playwright.

Playwright is for launching and for actions with actionability checks; a navigation
needs neither, and doing it here means attaching to the user's Chrome never starts a
Playwright connection just to change a URL. ``wait_until`` follows Playwright's names.
"""

from __future__ import annotations

import asyncio
from typing import Any

from cdp_core import CDPEvent, CDPException

from .errors import ErrorCode, ToolFailure
from .page import PageHandle

__all__ = ["WAIT_UNTIL", "navigate_page", "NavigationError"]

#: Playwright's ``wait_until`` names -> the main frame's ``Page.lifecycleEvent`` name (None: commit).
WAIT_UNTIL: dict[str, str | None] = {
    "commit": None,
    "domcontentloaded": "DOMContentLoaded",
    "load": "load",
    "networkidle": "networkIdle",
}


class NavigationError(Exception):
    """``Page.navigate`` answered with an ``errorText`` (``net::ERR_...``)."""

    def __init__(self, error_text: str) -> None:
        super().__init__(error_text)
        self.error_text = error_text


async def navigate_page(page: PageHandle, url: str, *, wait_until: str, timeout_ms: int) -> dict[str, Any]:
    """Navigate ``page`` and wait for ``wait_until``; returns url, title, status (None if unknown)."""
    session = page.session
    wanted = WAIT_UNTIL[wait_until]
    seen: list[tuple[str, str]] = []
    arrived = asyncio.Event()
    loader: dict[str, str | None] = {"id": None}

    def on_lifecycle(event: CDPEvent) -> None:
        params = event.params
        if params.get("frameId") != page.target_id:
            return
        seen.append((params.get("loaderId", ""), params.get("name", "")))
        if loader["id"] is not None and (loader["id"], wanted) in seen:
            arrived.set()

    subscription = session.on("Page.lifecycleEvent", on_lifecycle)
    try:
        async with asyncio.timeout(timeout_ms / 1000):
            await session.send("Page.enable")
            await session.send("Page.setLifecycleEventsEnabled", {"enabled": True})
            reply = await session.send("Page.navigate", {"url": url}, timeout=None)
            if reply.get("errorText"):
                raise NavigationError(reply["errorText"])
            loader["id"] = reply.get("loaderId")
            # No loaderId: a same-document navigation (only the fragment changed); nothing to wait for.
            if wanted is not None and loader["id"] is not None and (loader["id"], wanted) not in seen:
                await arrived.wait()
    except TimeoutError:
        stopped = False
        if loader["id"] is None:
            # Not even committed (no response yet): while such a navigation is pending Chrome holds
            # every later command of this tab's session, so each following call would hang too.
            # Stopping it keeps the page as it was (the previous document) and usable.
            try:
                await session.send("Page.stopLoading", timeout=5)
                stopped = True
            except CDPException:
                pass
        raise ToolFailure(
            ErrorCode.TIMEOUT,
            f"Navigation to {url} did not reach {wait_until!r} within {timeout_ms} ms"
            + (" (no response; the navigation was stopped, the page shows what it showed before)." if stopped else "."),
            hint="Retry with a larger timeout_ms or wait_until='domcontentloaded'.",
            url=url,
            stopped=stopped,
        ) from None
    finally:
        subscription.cancel()
    return await _page_facts(page)


async def _page_facts(page: PageHandle) -> dict[str, Any]:
    expression = (
        "(() => { const n = performance.getEntriesByType('navigation')[0];"
        " return [location.href, document.title, n && n.responseStatus ? n.responseStatus : null]; })()"
    )
    try:
        reply = await page.session.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        href, title, status = reply["result"]["value"]
    except (CDPException, KeyError, TypeError, ValueError):
        return {"url": page.url, "title": page.title, "status": None}
    page.url, page.title = href, title
    return {"url": href, "title": title, "status": status}
