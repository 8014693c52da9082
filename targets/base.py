"""What both targets share: a ``cdp_core`` connection with its :class:`SessionHub`, a page
registry, and the mapping from our pages to Playwright's (for actions).

Subclasses decide how the browser is obtained (:mod:`targets.launch` starts one,
:mod:`targets.cdp` attaches to the user's) and how Playwright reaches it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Literal

from cdp_core import Browser, CDPException

from .errors import ErrorCode, ToolFailure
from .hub import SessionHub, utc_now
from .page import PageHandle
from .registry import PageRegistry

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Frame, Page

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
        self._pw_page_ids: dict[Any, str] = {}

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

        def on_close(_session: Any) -> None:
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
        self._pw_page_ids.clear()

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

    # -- Playwright mapping -----------------------------------------------------------

    async def _playwright_contexts(self) -> list[BrowserContext]:  # pragma: no cover - abstract
        raise NotImplementedError

    async def playwright_page_for(self, page: PageHandle) -> Page:
        """Find the Playwright Page of ``page`` by asking each Playwright page for its targetId."""
        deadline = asyncio.get_running_loop().time() + 5.0
        for known in [p for p in self._pw_page_ids if p.is_closed()]:
            del self._pw_page_ids[known]
        while True:
            for context in await self._playwright_contexts():
                for pw_page in context.pages:
                    if pw_page.is_closed():
                        continue
                    target_id = self._pw_page_ids.get(pw_page)
                    if target_id is None:
                        target_id = await _target_id_of(pw_page)
                        if target_id is None:
                            continue
                        self._pw_page_ids[pw_page] = target_id
                    if target_id == page.target_id:
                        return pw_page
            if page.closed or asyncio.get_running_loop().time() > deadline:
                break
            await asyncio.sleep(0.05)  # Playwright may not have seen a brand-new tab yet
        page._check_open()
        raise ToolFailure(
            ErrorCode.INTERNAL_ERROR,
            f"Playwright does not see page {page.stable_page_id} ({page.url}).",
            hint="Call list_pages and select the page again.",
        )

    async def playwright_frame_for(self, page: PageHandle) -> Frame:
        """The Playwright Frame of ``page.active_frame`` (matched by URL and name along its ancestry)."""
        pw_page = await self.playwright_page_for(page)
        frame_id = page.active_frame
        if not frame_id or frame_id == page.target_id:
            return pw_page.main_frame
        chain = await _frame_chain(page, frame_id)
        if chain:
            found = _match_chain(pw_page.main_frame, chain[1:])
            if found is not None:
                return found
        raise ToolFailure(
            ErrorCode.FRAME_NOT_FOUND,
            f"Frame {frame_id} is no longer in page {page.stable_page_id}.",
            hint="Call list_frames and select the frame again.",
            frame_id=frame_id,
        )


async def _target_id_of(pw_page: Page) -> str | None:
    try:
        cdp = await pw_page.context.new_cdp_session(pw_page)
    except Exception:  # closed meanwhile, or not a Chromium page
        return None
    try:
        info = await cdp.send("Target.getTargetInfo")
        return info["targetInfo"]["targetId"]
    except Exception:
        return None
    finally:
        try:
            await cdp.detach()
        except Exception:
            pass


async def _frame_chain(page: PageHandle, frame_id: str) -> list[tuple[str, str]] | None:
    """``[(url, name), ...]`` from the main frame down to ``frame_id``, from the page's frame tree."""
    try:
        tree = (await page.session.send("Page.getFrameTree"))["frameTree"]
    except CDPException:
        return None

    def walk(node: dict[str, Any], path: list[tuple[str, str]]) -> list[tuple[str, str]] | None:
        frame = node["frame"]
        here = [*path, (frame.get("url", ""), frame.get("name", ""))]
        if frame["id"] == frame_id:
            return here
        for child in node.get("childFrames", []) or []:
            found = walk(child, here)
            if found:
                return found
        return None

    found = walk(tree, [])
    if found:
        return found
    # An out-of-process iframe: its target id is its frame id; its parent is the main frame
    # (good enough for the common case of one level).
    for record in page.sessions:
        if record.kind == "iframe" and record.target_info.get("targetId") == frame_id:
            url = record.session.target_info.get("url") or record.target_info.get("url", "")
            return [("", ""), (url, "")]
    return None


def _match_chain(frame: Frame, chain: list[tuple[str, str]]) -> Frame | None:
    if not chain:
        return frame
    url, name = chain[0]
    children = frame.child_frames
    candidates = [f for f in children if f.url == url and (not name or f.name == name)]
    if not candidates:
        candidates = [f for f in children if f.url == url]
    for child in candidates:
        found = _match_chain(child, chain[1:])
        if found is not None:
            return found
    return None
