"""``navigate(page, url, wait=...)``: load a URL in a tab and return once it is loaded, in one call.

The raw protocol needs four steps in the right order (enable the domain, subscribe to the
event *before* navigating, send ``Page.navigate``, check ``errorText``); a test that gets the
order wrong is flaky. ``wait="load"`` returns at the ``load`` event, ``wait="idle"`` when the
page also has had no network request in flight for 500 ms (Chrome's ``networkIdle``
lifecycle event), ``wait="none"`` as soon as the navigation was committed to.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from .errors import CDPError
from .session import CDPSession

__all__ = ["NavigationError", "navigate"]

Wait = Literal["load", "idle", "none"]


class NavigationError(CDPError):
    """The browser refused the URL or could not load it (``errorText``: ``net::ERR_CONNECTION_REFUSED``...)."""


async def navigate(page: CDPSession, url: str, *, wait: Wait = "load", timeout: float = 30.0) -> dict[str, Any]:
    """Navigate ``page`` to ``url`` and wait as ``wait`` says; answers ``Page.navigate``'s result.

    Raises :class:`NavigationError` when the browser reports an error for the URL and
    ``TimeoutError`` when the page does not get there within ``timeout`` seconds.
    """
    if wait not in ("load", "idle", "none"):
        raise ValueError(f"wait must be 'load', 'idle' or 'none', not {wait!r}")
    await page.send("Page.enable")
    if wait == "idle":
        await page.send("Page.setLifecycleEventsEnabled", {"enabled": True})
    async with asyncio.timeout(timeout):
        async with page.events(("Page.loadEventFired", "Page.lifecycleEvent")) as events:
            result = await page.send("Page.navigate", {"url": url}, timeout=timeout)
            if result.get("errorText"):
                raise NavigationError("Page.navigate", -32000, f"{url}: {result['errorText']}")
            loader = result.get("loaderId")
            if wait == "none" or not loader:  # same-document navigation (#hash): nothing more will load
                return result
            async for event in events:
                if wait == "load" and event.method == "Page.loadEventFired":
                    return result
                params = event.params
                if wait == "idle" and params.get("name") == "networkIdle" and params.get("loaderId") == loader:
                    return result
    raise TimeoutError(f"{url}: the tab closed before it loaded")
