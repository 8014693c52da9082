"""Navigation over our own CDP session: ``Page.navigate``, history and reload, plus lifecycle events, no Playwright.

Playwright is for launching and for actions with actionability checks; a navigation
needs neither, and doing it here means attaching to the user's Chrome never starts a
Playwright connection just to change a URL. ``wait_until`` follows Playwright's names.

All three ways of moving a tab (a URL, a history entry, a reload) share one follower: it
learns which document the command started (``Page.navigate`` says so in its reply; history
and reload only through ``Page.frameStartedNavigating`` or the first lifecycle event of a new
loader), then waits for that document's ``wait_until`` event. A same-document move (a fragment,
``pushState``) and a page restored from the back/forward cache fire no load: both end the wait
at once and say so.

``Page.navigate`` answers when the response is in, a moment before the document commits: only
the document's own events say it committed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from cdp_core import CDPEvent, CDPException

from .errors import ErrorCode, ToolFailure
from .page import PageHandle

__all__ = ["WAIT_UNTIL", "navigate_page", "go_history", "reload_page", "NavigationError", "StatusFn"]

#: hears the steps of a load ("waiting for the response", "response received (DOMContentLoaded),
#: waiting for 'load'"), for progress messages
StatusFn = Callable[[str], None]
#: lifecycle events worth naming in progress messages and in a timeout's ``reached``
_MILESTONES = ("DOMContentLoaded", "load", "firstContentfulPaint", "networkAlmostIdle", "networkIdle")

#: Playwright's ``wait_until`` names -> the main frame's ``Page.lifecycleEvent`` name (None: commit).
WAIT_UNTIL: dict[str, str | None] = {
    "commit": None,
    "domcontentloaded": "DOMContentLoaded",
    "load": "load",
    "networkidle": "networkIdle",
}

_EVENTS = (
    "Page.lifecycleEvent",
    "Page.frameStartedNavigating",
    "Page.frameNavigated",
    "Page.navigatedWithinDocument",
    "Network.loadingFailed",
)


class NavigationError(Exception):
    """The navigation failed (``net::ERR_...``), or there is nowhere to go (no history entry)."""

    def __init__(self, error_text: str, *, nowhere: bool = False) -> None:
        super().__init__(error_text)
        self.error_text = error_text
        self.nowhere = nowhere


class _Follower:
    """What the main frame did since the command was sent: its new loader, events, failure.

    Events are matched to the new document by its loader id: a late event of an earlier
    navigation (Chrome commits the error page of a refused one after ``Page.navigate`` answered)
    must not end or fail this one.
    """

    def __init__(self, page: PageHandle, wanted: str | None, on_status: StatusFn | None = None) -> None:
        self.page = page
        self.wanted = wanted
        self.wait_until = next((name for name, event in WAIT_UNTIL.items() if event == wanted), "commit")
        self.on_status = on_status
        #: learn the new loader from events (history, reload); Page.navigate names it in its reply
        self.infer = True
        #: the command was sent: events before it belong to an earlier navigation
        self.started = False
        self.old_loader: str | None = None
        self.loader: str | None = None
        #: Page.navigate answered: the response is in (the document commits a moment later)
        self.answered = False
        #: the new document is there (a frameNavigated or lifecycle event of its loader)
        self.committed = False
        self.seen: set[tuple[str, str]] = set()
        self.unreachable: dict[str, str] = {}  # loader -> why its document could not load
        self.commits: set[str] = set()  # loaders whose document committed (the old document excepted)
        self.done = asyncio.Event()
        self.same_document = False
        self.restored = False
        self.failure: str | None = None

    def expect(self, loader: str) -> None:
        """``Page.navigate`` answered with the new document's loader: its response is in, not committed yet."""
        self.loader = loader
        self.answered = True
        self.committed = loader in self.commits  # its commit may have come before the reply
        self._check()

    def reached(self) -> list[str]:
        """The new document's milestones so far (DOMContentLoaded, load...), in Chrome's order."""
        order = {name: i for i, name in enumerate(_MILESTONES)}
        names = {name for loader, name in self.seen if loader == self.loader and name in order}
        return sorted(names, key=order.__getitem__)

    def say(self, text: str) -> None:
        if self.on_status is not None:
            self.on_status(text)

    def say_progress(self) -> None:
        reached = ", ".join(self.reached())
        self.say(f"response received{f' ({reached})' if reached else ''}, waiting for {self.wait_until!r}")

    def finish(self, *, same_document: bool = False) -> None:
        self.same_document = self.same_document or same_document
        self.done.set()

    def _check(self) -> None:
        if self.loader is None:
            return
        if self.loader in self.unreachable:
            self.failure = self.unreachable[self.loader]
            self.done.set()
        elif (self.loader, self.wanted) in self.seen or (self.wanted is None and (self.infer or self.committed)):
            self.done.set()

    def _committed(self, loader: str) -> None:
        if loader and loader != self.old_loader and self.started:
            self.commits.add(loader)
        if loader == self.loader:
            self.committed = True

    def on_event(self, event: CDPEvent) -> None:
        p = event.params
        method = event.method
        if method == "Network.loadingFailed":
            # A document request's id is its loader's id: that navigation failed (Chrome shows its error page).
            if p.get("type") == "Document" and p.get("requestId"):
                self.unreachable[str(p["requestId"])] = str(p.get("errorText") or "net::ERR_FAILED")
                self._check()
            return
        frame = p.get("frame") or {}
        if (p.get("frameId") or frame.get("id")) != self.page.target_id:
            return
        learn = self.infer and self.started and self.loader is None
        if method == "Page.frameStartedNavigating":
            if learn and "SameDocument" not in str(p.get("navigationType") or ""):
                self.loader = p.get("loaderId") or None
        elif method == "Page.navigatedWithinDocument":
            if learn:
                self.finish(same_document=True)
        elif method == "Page.frameNavigated":
            loader = str(frame.get("loaderId") or "")
            if p.get("type") == "BackForwardCacheRestore" and self.infer and self.started:
                # The restored document keeps its old loader id; only a history move of ours restores one.
                self.restored = self.committed = True
                self.finish()
                return
            if frame.get("unreachableUrl"):
                self.unreachable.setdefault(loader, f"net::ERR_FAILED ({frame['unreachableUrl']} could not be loaded)")
            if learn and loader != self.old_loader:
                self.loader = loader  # a Chrome without Page.frameStartedNavigating
            self._committed(loader)
        elif method == "Page.lifecycleEvent":
            loader, name = str(p.get("loaderId") or ""), str(p.get("name") or "")
            self.seen.add((loader, name))
            if learn and name == "init" and loader != self.old_loader:
                self.loader = loader  # a Chrome without Page.frameStartedNavigating
            self._committed(loader)
            if loader == self.loader and name in _MILESTONES and self.wanted is not None:
                self.say_progress()
        self._check()


async def _main_loader(page: PageHandle) -> str | None:
    try:
        tree = await page.session.send("Page.getFrameTree", timeout=5)
        return tree["frameTree"]["frame"].get("loaderId")
    except (CDPException, KeyError, TypeError):
        return None


async def _follow(
    page: PageHandle,
    start: Callable[[_Follower], Awaitable[None]],
    *,
    wait_until: str,
    timeout_ms: int,
    what: str,
    on_status: StatusFn | None = None,
) -> dict[str, Any]:
    """Run ``start`` (sends the command) and wait for the document it brings to reach ``wait_until``.

    A timeout raises TIMEOUT with ``committed`` (the new document had arrived) and, then,
    ``reached`` (its lifecycle milestones so far): a caller cut short by its own bound can tell
    "still loading" (wait on) from "no response" (the navigation was stopped).
    """
    session = page.session
    follower = _Follower(page, WAIT_UNTIL[wait_until], on_status)
    try:
        async with asyncio.timeout(timeout_ms / 1000):
            await session.send("Page.enable")
            await session.send("Page.setLifecycleEventsEnabled", {"enabled": True})
            await _attempt(page, follower, start)
    except TimeoutError:
        raise await _timed_out(page, follower, what, wait_until, timeout_ms) from None
    if follower.failure is not None:
        raise NavigationError(follower.failure)
    facts = await _page_facts(page)
    if follower.same_document:
        facts["sameDocument"] = True
    if follower.restored:
        facts["fromBackForwardCache"] = True
    return facts


async def _attempt(page: PageHandle, follower: _Follower, start: Callable[[_Follower], Awaitable[None]]) -> None:
    """Send the command and wait until ``follower`` is done (reached or failed)."""
    subscription = page.session.on(_EVENTS, follower.on_event)
    try:
        follower.old_loader = await _main_loader(page)
        follower.started = True
        follower.say("waiting for the response")
        await start(follower)
        if (follower.committed or follower.answered) and not follower.done.is_set():
            follower.say_progress()
        await follower.done.wait()
    finally:
        subscription.cancel()


async def _timed_out(page: PageHandle, follower: _Follower, what: str, wait_until: str, timeout_ms: int) -> ToolFailure:
    """The TIMEOUT answer; a navigation that has not committed is stopped first.

    Not even committed (no response yet, or the response but not the document): while such a
    navigation is pending Chrome holds every later command of this tab's session, so each following
    call would hang too. Stopping it keeps the page as it was (the previous document) and usable.
    """
    stopped = False
    if not follower.committed:
        try:
            await page.session.send("Page.stopLoading", timeout=5)
            stopped = True
        except CDPException:
            pass
    why = "the response came but not the document" if follower.answered else "no response"
    return ToolFailure(
        ErrorCode.TIMEOUT,
        f"{what} did not reach {wait_until!r} within {timeout_ms} ms"
        + (f" ({why}; the navigation was stopped, the page shows what it showed before)." if stopped else "."),
        hint="Retry with a larger timeout_ms or wait_until='domcontentloaded'.",
        stopped=stopped,
        committed=follower.committed,
        **({"reached": follower.reached()} if follower.committed else {}),
    )


async def navigate_page(
    page: PageHandle, url: str, *, wait_until: str, timeout_ms: int, on_status: StatusFn | None = None
) -> dict[str, Any]:
    """Navigate ``page`` and wait for ``wait_until``; returns url, title, status (None if unknown).

    Waits for the document to commit even for ``commit``: ``Page.navigate`` answers before it does.
    """

    async def start(follower: _Follower) -> None:
        follower.infer = False
        reply = await page.session.send("Page.navigate", {"url": url}, timeout=None)
        if reply.get("errorText"):
            raise NavigationError(reply["errorText"])
        if reply.get("loaderId") is None:
            follower.finish(same_document=True)  # only the fragment changed: nothing to wait for
            return
        follower.expect(reply["loaderId"])

    return await _follow(
        page, start, wait_until=wait_until, timeout_ms=timeout_ms, what=f"Navigation to {url}", on_status=on_status
    )


async def go_history(
    page: PageHandle,
    delta: int,
    *,
    wait_until: str,
    timeout_ms: int,
    check_url: Callable[[str], None] | None = None,
    on_status: StatusFn | None = None,
) -> dict[str, Any]:
    """Go ``delta`` entries back (-1) or forward (+1) in the tab's history, as its back button does.

    ``check_url`` may refuse the entry's URL (the internal browser's URL policy) before anything moves.
    """
    history = await page.session.send("Page.getNavigationHistory")
    entries, index = history.get("entries") or [], int(history.get("currentIndex", 0))
    target = index + delta
    word = "back" if delta < 0 else "forward"
    if not 0 <= target < len(entries):
        raise NavigationError(f"there is no page to go {word} to in this tab's history", nowhere=True)
    entry = entries[target]
    if check_url is not None:
        check_url(str(entry.get("url") or ""))

    async def start(follower: _Follower) -> None:
        await page.session.send("Page.navigateToHistoryEntry", {"entryId": entry["id"]})

    facts = await _follow(
        page, start, wait_until=wait_until, timeout_ms=timeout_ms, what=f"Going {word}", on_status=on_status
    )
    return {**facts, "historyIndex": target, "historyLength": len(entries)}


async def reload_page(
    page: PageHandle, *, ignore_cache: bool, wait_until: str, timeout_ms: int, on_status: StatusFn | None = None
) -> dict[str, Any]:
    """Reload the tab (bypassing the cache when asked), as its reload button does."""

    async def start(follower: _Follower) -> None:
        await page.session.send("Page.reload", {"ignoreCache": ignore_cache})

    facts = await _follow(page, start, wait_until=wait_until, timeout_ms=timeout_ms, what="Reload", on_status=on_status)
    if ignore_cache:
        facts["ignoredCache"] = True
    return facts


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
