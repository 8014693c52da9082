"""The follower of one tab move: which document the command started, and what that document did.

:mod:`targets.pages.navigation` sends the commands (``Page.navigate``, history, reload) and bounds the
wait; this module reads the main frame's events while it waits and decides when the move is
done: the new document reached ``wait_until``, failed, was replaced by a navigation that started
before it committed (a rival: ``navigate`` sends again), moved on by itself after it committed
(a client-side redirect: followed), or started a navigation of its own that brought no document
(a download, a 204, a refused URL: that stops its loading, so the wait ends and says so).
Separate because it is the state machine of the events alone, with no command of its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from cdp_core import CDPEvent

from .page import PageHandle

__all__ = ["ATTEMPTS", "EVENTS", "FAILED_REDIRECT_GRACE_S", "MAX_REDIRECTS_SHOWN", "WAIT_UNTIL", "Follower", "StatusFn"]

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

#: A page that keeps redirecting itself is followed until the timeout; the answer names the last few.
MAX_REDIRECTS_SHOWN = 5

#: Seconds to wait, once the page's own navigation away from our document failed without a new
#: document, for a next navigation (the failed one was replaced) or for our document's milestone.
FAILED_REDIRECT_GRACE_S = 0.3

EVENTS = (
    "Page.lifecycleEvent",
    "Page.frameStartedNavigating",
    "Page.frameNavigated",
    "Page.navigatedWithinDocument",
    "Network.loadingFailed",
)


class Follower:
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
        #: URLs our document moved on to by itself (script, meta refresh) after it committed, followed
        self.redirects: list[str] = []
        #: the page's own navigation away from our document failed, no other came: stop waiting at the grace's end
        self._grace: asyncio.TimerHandle | None = None
        self._grace_over = False
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
        elif (successor := self._successor_commit()) is not None:
            self.redirects.append(self.urls.get(successor) or "another URL")
            self.loader = successor  # the wait goes on for the document the page moved on to
            self._check()
        elif self.failed_redirect() is not None:
            # The page stays on our document, which may never reach wait_until now (a navigation
            # refused by ALLOWED_URLS stops its loading): after the grace the answer says so.
            if self._grace_over:
                self.done.set()
            elif self._grace is None:
                self._grace = asyncio.get_running_loop().call_later(FAILED_REDIRECT_GRACE_S, self._end_grace)

    def _end_grace(self) -> None:
        self._grace_over = True
        self._check()

    def failed_redirect(self) -> tuple[str, str] | None:
        """``(url, error)`` of the page's own navigation away from our document, when it failed without
        a document of its own (refused, aborted, a download) and nothing started after it."""
        ours = self.commits.get(self.loader or "")
        if ours is None or not self.starts:
            return None
        newest = max(self.starts, key=self.starts.__getitem__)
        if self.starts[newest] < ours or newest in self.commits or newest not in self.unreachable:
            return None
        return self.urls.get(newest) or "another URL", self.unreachable[newest]

    def _successor_commit(self) -> str | None:
        """The newest loader that committed after our document had: the page moved on before ``wait_until``.

        Unlike a rival (started before our commit, it replaced ours), this one started from our own
        document: a client-side redirect. Known only once our loader is known and committed.
        """
        ours = self.commits.get(self.loader or "")
        if ours is None:
            return None
        later = [loader for loader, at in self.commits.items() if at > ours and self.starts.get(loader, at) > ours]
        return max(later, key=self.commits.__getitem__) if later else None

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
