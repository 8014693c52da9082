"""What both targets share: a ``cdp_core`` connection with its :class:`SessionHub` and a page
registry. Every action goes through these sessions (no Playwright page is ever looked up).

Subclasses decide how the browser is obtained (:mod:`targets.internal.launch` starts one,
:mod:`targets.users_chrome.cdp` attaches to the user's).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal

from cdp_core import Browser, CDPException, CDPSession
from targets.pages.page import PageHandle
from targets.pages.registry import PageRegistry

from .errors import ErrorCode, ToolFailure
from .hub import SessionHub, utc_now

__all__ = ["BrowserTarget"]

log = logging.getLogger("targets")


class BrowserTarget:
    """The explicit state of one target: browser socket, hub, pages, URL, attach time, loss."""

    name: Literal["launch", "cdp"]

    def __init__(self) -> None:
        self.browser: Browser | None = None
        self.hub: SessionHub | None = None
        self.registry = PageRegistry()
        self.cdp_url: str | None = None
        self.attached_at: str | None = None
        #: Why and when the connection was lost (the browser died or was restarted), else None.
        self.lost: dict[str, str] | None = None

    # -- state ------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.browser is not None and not self.browser.closed and self.lost is None

    def state(self) -> dict[str, Any]:
        """A snapshot of this target's state (for status and debugging; no I/O)."""
        selected = self.registry.selected
        return {
            "connected": self.connected,
            "cdpUrl": self.cdp_url,
            "attachedAt": self.attached_at,
            "pages": [p.stable_page_id for p in self.registry.pages],
            "selected": selected.stable_page_id if selected is not None and not selected.closed else None,
            "lost": self.lost,
        }

    def _watch(self, browser: Browser) -> None:
        """Mark the target lost (and its pages closed) when its socket ends without our asking."""

        def on_close(_session: CDPSession) -> None:
            if self.browser is browser and self.lost is None:
                reason = browser.connection.close_reason
                self.lost = {"at": utc_now(), "reason": str(reason) if reason else "connection closed"}
                if self.hub is not None:
                    self.hub.close_all()

        browser.session.on_close(on_close)

    async def _drop_connection(self) -> None:
        """Close our socket and forget the pages (the browser itself is not touched)."""
        hub, browser = self.hub, self.browser
        self.hub = None
        self.browser = None
        if hub is not None:
            hub.close_all()
        if browser is not None:
            try:
                await browser.close()
            except CDPException:
                pass
        self.registry.clear()

    def take_inheritance(self) -> dict[str, Any] | None:
        """Data a page of this target's previous browser left for its first new page (none here).

        Only the internal browser is started again after a crash (:class:`LaunchTarget` overrides
        this); the hub asks every target alike when it registers a page.
        """
        return None

    # -- tabs -----------------------------------------------------------------------

    async def open_tab(self, *, background: bool = False) -> PageHandle:
        """Open an ``about:blank`` tab, wait until capture is attached to it, and select it."""
        if self.browser is None or self.hub is None:
            raise ToolFailure(ErrorCode.NOT_ATTACHED, f"The {self.name} browser is not connected.")
        created = await self.browser.send("Target.createTarget", {"url": "about:blank", "background": background})
        page = await self.hub.wait_for_page(created["targetId"])
        self.registry.select(page)
        return page

    async def close_tab(self, page: PageHandle) -> None:
        """Close one tab and wait (briefly) until it is gone; callers decide whether that is allowed."""
        if self.browser is None or page.closed:
            return
        await self.browser.close_target(page.target_id)
        # closeTarget only starts closing; wait until the tab is really gone.
        for _ in range(100):
            if page.session.closed:
                break
            await asyncio.sleep(0.02)
        if self.hub is not None:
            self.hub.mark_closed(page)
