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

``Page.navigate`` answers when the response is in, before the document commits: in that moment
Chrome no longer drops the old page's own navigations (a timer's ``location.replace``), and one
that starts then commits over ours, so ours never reaches ``wait_until``. ``navigate`` notices
that rival and sends its navigation again, a few times within the one timeout, then says who
interrupted it (:class:`NavigationInterrupted`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from cdp_core import CDPEvent, CDPException

from .errors import ErrorCode, ToolFailure
from .page import PageHandle

__all__ = [
    "WAIT_UNTIL",
    "navigate_page",
    "go_history",
    "reload_page",
    "NavigationError",
    "NavigationInterrupted",
    "StatusFn",
]

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

#: How often ``navigate`` sends its navigation when the page's own navigation replaced it: the page
#: moved in the few milliseconds between our response and our commit, which a second try rarely meets.
ATTEMPTS = 3

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


class NavigationInterrupted(NavigationError):
    """Every attempt of ``navigate`` was replaced by a navigation the page started itself.

    ``interrupted_by`` holds the URL each attempt lost to, in order.
    """

    def __init__(self, interrupted_by: list[str]) -> None:
        times = "once" if len(interrupted_by) == 1 else f"{len(interrupted_by)} times"
        super().__init__(f"interrupted {times} by the page's own navigation (last to {interrupted_by[-1]})")
        self.interrupted_by = interrupted_by


class _Follower:
    """What the main frame did since the command was sent: its new loader, events, failure.

    Events are matched to the new document by its loader id: a late event of an earlier
    navigation (Chrome commits the error page of a refused one after ``Page.navigate`` answered)
    must not end or fail this one. When ``Page.navigate`` named the loader (``infer`` False), the
    follower also watches for a rival: a navigation that started after ours, before our document
    committed, and then committed itself (our document is gone or never came): ``interrupted_by``.
    """

    def __init__(
        self,
        page: PageHandle,
        wanted: str | None,
        on_status: StatusFn | None = None,
        *,
        attempt: int = 1,
        after: str | None = None,
    ) -> None:
        self.page = page
        self.wanted = wanted
        self.wait_until = next((name for name, event in WAIT_UNTIL.items() if event == wanted), "commit")
        self.on_status = on_status
        #: which try this is, and (from the second on) the URL of the page's navigation that ended the last
        self.attempt = attempt
        self.after = after
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
        #: every main-frame event gets the next number: which loader started or committed first
        self._order = 0
        self.starts: dict[str, int] = {}  # loader -> when its cross-document navigation started
        self.commits: dict[str, int] = {}  # loader -> when its document committed (old document excepted)
        self.urls: dict[str, str] = {}  # loader -> the URL it navigates to
        self.interrupted_by: str | None = None
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
        """Tell the progress messages; a second try says so in every step, and why."""
        if self.on_status is None:
            return
        if self.attempt > 1:
            why = f"the page's own navigation to {self.after} interrupted the last"
            text += f" (attempt {self.attempt} of {ATTEMPTS}: {why})"
        self.on_status(text)

    def say_progress(self) -> None:
        reached = ", ".join(self.reached())
        self.say(f"response received{f' ({reached})' if reached else ''}, waiting for {self.wait_until!r}")

    def finish(self, *, same_document: bool = False) -> None:
        self.same_document = self.same_document or same_document
        self.done.set()

    def rivals(self) -> list[str]:
        """Loaders whose navigation started after ours (the page's own, or another client's), oldest first.

        Without ``Page.frameStartedNavigating`` (an older Chrome) nothing is known of starts: every
        other loader that commits counts.
        """
        if self.infer or self.loader is None:
            return []
        if not self.starts:
            return [loader for loader in self.commits if loader != self.loader]
        if self.loader not in self.starts:
            return []
        ours = self.starts[self.loader]
        return sorted((loader for loader, at in self.starts.items() if at > ours), key=self.starts.__getitem__)

    def _rival_commit(self) -> str | None:
        """The loader of a rival that committed while our document was not (yet, or any more) the page's."""
        ours = self.commits.get(self.loader or "")
        for loader in self.rivals():
            if loader in self.commits and (ours is None or self.starts.get(loader, self.commits[loader]) < ours):
                return loader
        return None

    def aborted_by_rival(self, error_text: str) -> bool:
        """Our navigation failed with ``net::ERR_ABORTED`` because a rival started (it cancels ours)."""
        rivals = self.rivals()
        if "ERR_ABORTED" not in error_text or not rivals:
            return False
        self.interrupt(rivals[-1])
        return True

    def interrupt(self, loader: str) -> None:
        self.interrupted_by = self.urls.get(loader) or "another URL"
        self.done.set()

    def _check(self) -> None:
        if self.loader is None or self.done.is_set():
            return  # once done, a later event (the page moving on after our load) changes nothing
        if self.loader in self.unreachable:
            if not self.aborted_by_rival(self.unreachable[self.loader]):
                self.failure = self.unreachable[self.loader]
                self.done.set()
        elif (self.loader, self.wanted) in self.seen or (self.wanted is None and (self.infer or self.committed)):
            self.done.set()
        elif (rival := self._rival_commit()) is not None:
            self.interrupt(rival)

    def _number(self) -> int:
        self._order += 1
        return self._order

    def _committed(self, loader: str) -> None:
        if loader and loader != self.old_loader and self.started:
            self.commits.setdefault(loader, self._number())
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
            if "SameDocument" in str(p.get("navigationType") or ""):
                return
            loader = str(p.get("loaderId") or "")
            if loader and self.started:
                self.starts.setdefault(loader, self._number())
                self.urls.setdefault(loader, str(p.get("url") or ""))
            if learn:
                self.loader = loader or None
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
            self.urls.setdefault(loader, str(frame.get("unreachableUrl") or frame.get("url") or ""))
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

    When the page's own navigation replaced ours (``navigate`` only), the command is sent again,
    up to :data:`ATTEMPTS` times within the same timeout, then :class:`NavigationInterrupted`:
    the user asked for that URL, and the next try almost always gets there. The answer lists the
    URLs that interrupted it (``interruptedBy``).
    """
    session = page.session
    follower = _Follower(page, WAIT_UNTIL[wait_until], on_status)
    interrupted_by: list[str] = []
    try:
        async with asyncio.timeout(timeout_ms / 1000):
            await session.send("Page.enable")
            await session.send("Page.setLifecycleEventsEnabled", {"enabled": True})
            while True:
                await _attempt(page, follower, start)
                if follower.interrupted_by is None:
                    break
                interrupted_by.append(follower.interrupted_by)
                if len(interrupted_by) >= ATTEMPTS:
                    raise NavigationInterrupted(interrupted_by)
                follower = _Follower(
                    page, follower.wanted, on_status, attempt=follower.attempt + 1, after=interrupted_by[-1]
                )
    except TimeoutError:
        raise await _timed_out(page, follower, what, wait_until, timeout_ms, interrupted_by) from None
    if follower.failure is not None:
        raise NavigationError(follower.failure)
    facts = await _page_facts(page)
    if follower.same_document:
        facts["sameDocument"] = True
    if follower.restored:
        facts["fromBackForwardCache"] = True
    if interrupted_by:
        facts["interruptedBy"] = interrupted_by
    return facts


async def _attempt(page: PageHandle, follower: _Follower, start: Callable[[_Follower], Awaitable[None]]) -> None:
    """One try: send the command and wait until ``follower`` is done (reached, failed or interrupted)."""
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


async def _timed_out(
    page: PageHandle, follower: _Follower, what: str, wait_until: str, timeout_ms: int, interrupted_by: list[str]
) -> ToolFailure:
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
        **({"interruptedBy": interrupted_by} if interrupted_by else {}),
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
        if reply.get("loaderId") is None and not reply.get("errorText"):
            follower.finish(same_document=True)  # only the fragment changed: nothing to wait for
            return
        follower.loader = reply.get("loaderId")
        if reply.get("errorText") and not follower.aborted_by_rival(str(reply["errorText"])):
            raise NavigationError(reply["errorText"])
        if not follower.done.is_set():
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
