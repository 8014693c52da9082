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

A document that commits and then moves on by itself before ``wait_until`` (a login page's
``location.replace``, a meta refresh) is followed: the wait goes on for the new document, and
the answer lists the URLs it moved to (``clientRedirects``). Waiting for the first document's
``load``, which never comes, would spend the whole timeout.

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

from cdp_core import CDPException
from targets.errors import ErrorCode, ToolFailure

from .navigation_follow import ATTEMPTS, EVENTS, MAX_REDIRECTS_SHOWN, WAIT_UNTIL, Follower, StatusFn
from .page import PageHandle

__all__ = [
    "NO_PAGE",
    "brought_no_page",
    "WAIT_UNTIL",
    "navigate_page",
    "go_history",
    "reload_page",
    "NavigationError",
    "NavigationInterrupted",
    "StatusFn",
]


#: What ``net::ERR_ABORTED`` of a navigation nobody replaced means: its answer was no page.
NO_PAGE = "Chrome stopped it, as it does when the answer is a download or empty, e.g. 204"


def brought_no_page(error_text: str) -> bool:
    """A navigation that ended without a document of its own (a download, a 204), not a network failure."""
    return "ERR_ABORTED" in error_text


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


async def _main_loader(page: PageHandle) -> str | None:
    try:
        tree = await page.session.send("Page.getFrameTree", timeout=5)
        loader = tree["frameTree"]["frame"].get("loaderId")
        return loader if isinstance(loader, str) else None
    except (CDPException, KeyError, TypeError):
        return None


async def _follow(
    page: PageHandle,
    start: Callable[[Follower], Awaitable[None]],
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
    follower = Follower(page, WAIT_UNTIL[wait_until], on_status)
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
                follower = Follower(
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
    if follower.redirects:
        facts["clientRedirects"] = follower.redirects[-MAX_REDIRECTS_SHOWN:]
    if (failed := follower.failed_redirect()) is not None:
        facts["clientRedirectFailed"] = {"url": failed[0], "error": failed[1]}
        if follower.wanted is not None and follower.wanted not in follower.reached():
            facts["reached"] = follower.reached()
    return facts


async def _attempt(page: PageHandle, follower: Follower, start: Callable[[Follower], Awaitable[None]]) -> None:
    """One try: send the command and wait until ``follower`` is done (reached, failed or interrupted)."""
    subscription = page.session.on(EVENTS, follower.on_event)
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
    page: PageHandle, follower: Follower, what: str, wait_until: str, timeout_ms: int, interrupted_by: list[str]
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
        **({"clientRedirects": follower.redirects[-MAX_REDIRECTS_SHOWN:]} if follower.redirects else {}),
    )


async def navigate_page(
    page: PageHandle, url: str, *, wait_until: str, timeout_ms: int, on_status: StatusFn | None = None
) -> dict[str, Any]:
    """Navigate ``page`` and wait for ``wait_until``; returns url, title, status (None if unknown).

    Waits for the document to commit even for ``commit``: ``Page.navigate`` answers before it does.
    """

    async def start(follower: Follower) -> None:
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

    async def start(follower: Follower) -> None:
        await page.session.send("Page.navigateToHistoryEntry", {"entryId": entry["id"]})

    facts = await _follow(
        page, start, wait_until=wait_until, timeout_ms=timeout_ms, what=f"Going {word}", on_status=on_status
    )
    return {**facts, "historyIndex": target, "historyLength": len(entries)}


async def reload_page(
    page: PageHandle, *, ignore_cache: bool, wait_until: str, timeout_ms: int, on_status: StatusFn | None = None
) -> dict[str, Any]:
    """Reload the tab (bypassing the cache when asked), as its reload button does."""

    async def start(follower: Follower) -> None:
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
