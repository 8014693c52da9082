"""The capture hook: every page of a browser, and every iframe/worker inside it, on one socket.

A :class:`SessionHub` owns one ``cdp_core`` browser connection. It asks the browser to
auto-attach (flattened) to every page, existing and new, pausing new ones
(``waitForDebuggerOnStart``); on each page session it asks again for the page's
out-of-process iframes and workers. For every session it awaits the registered session
listeners (capture enables its domains there) *before* resuming the target with
``Runtime.runIfWaitingForDebugger``, so the first request of a new tab or iframe is seen.

The hub never navigates, reloads or closes anything; auto-attach and resuming are the
only commands it sends to the targets, which is what makes it safe on the user's Chrome.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from cdp_core import Browser, CDPEvent, CDPException, CDPSession
from targets.pages.page import PageHandle, SessionKind, SessionRecord
from targets.pages.registry import PageRegistry

if TYPE_CHECKING:
    from targets.base import BrowserTarget

__all__ = ["SessionHub", "Listeners", "SessionListener", "PageClosedListener", "BeforeDetachListener", "utc_now"]

log = logging.getLogger("targets.hub")

SessionListener = Callable[[PageHandle, CDPSession, str], Awaitable[None]]
PageClosedListener = Callable[[PageHandle], None]
#: Awaited with the pages of a connection about to be let go (detach, shutdown, attaching elsewhere).
BeforeDetachListener = Callable[[list[PageHandle]], Awaitable[None]]

#: A listener that takes longer than this is abandoned, so a tab is never left frozen.
LISTENER_TIMEOUT = 10.0
#: How long the attach waits for a page to confirm auto-attach (a frozen page confirms later).
AUTO_ATTACH_REPLY_TIMEOUT = 2.0
_AUTO_ATTACH = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Listeners:
    """The listeners of the whole manager, shared by both targets' hubs."""

    def __init__(self) -> None:
        self.session: list[SessionListener] = []
        self.page_closed: list[PageClosedListener] = []
        #: What must leave the user's pages while our sessions can still reach them (debug points).
        self.before_detach: list[BeforeDetachListener] = []


def _kind_of(target_type: str) -> SessionKind | None:
    if target_type == "iframe":
        return "iframe"
    if "worker" in target_type:
        return "worker"
    return None


class SessionHub:
    """Attaches to all pages of one browser connection and keeps its :class:`PageRegistry` current."""

    def __init__(
        self,
        browser: Browser,
        target: Literal["launch", "cdp"],
        registry: PageRegistry,
        listeners: Listeners,
        new_stable_id: Callable[[], str],
        owner: BrowserTarget,
    ) -> None:
        self.browser = browser
        self.target = target
        self.registry = registry
        self.listeners = listeners
        self._new_stable_id = new_stable_id
        self._owner = owner
        #: Attaches and listener calls in progress, each with the target id it attaches (None: a child or replay).
        self._tasks: dict[asyncio.Task[None], str | None] = {}
        self._page_waiters: dict[str, list[asyncio.Future[PageHandle]]] = {}
        self._started = False

    # -- start / stop -----------------------------------------------------------------

    async def start(self) -> None:
        """Subscribe, discover and auto-attach; returns once the existing pages are registered."""
        root = self.browser.session
        root.on("Target.attachedToTarget", self._on_attached)
        root.on("Target.targetInfoChanged", self._on_info_changed)
        root.on("Target.targetDestroyed", self._on_destroyed)
        await self.browser.send("Target.setDiscoverTargets", {"discover": True})
        await self.browser.send("Target.setAutoAttach", {**_AUTO_ATTACH, "filter": [{"type": "page"}]})
        self._started = True
        await self.sync()

    async def settle(self, timeout: float = LISTENER_TIMEOUT + 2) -> None:
        """Wait until every attach in progress has run its listeners (new tabs are then listed)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while self._tasks:
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                break
            await asyncio.wait(set(self._tasks), timeout=remaining)

    async def sync(self) -> None:
        """Attach explicitly to any page auto-attach did not give us, and mark vanished ones closed."""
        await self.settle()
        infos = await self.browser.targets(("page",))
        alive = {info["targetId"] for info in infos}
        for page in self.registry.pages:
            if page.target_id not in alive:
                self.mark_closed(page)
        for info in infos:  # titles change without an event sometimes reaching us first
            known = self.registry.by_target_id(info["targetId"])
            if known is not None:
                known.title, known.url = info.get("title", known.title), info.get("url", known.url)
        for info in infos:
            target_id = info["targetId"]
            if self.registry.by_target_id(target_id) is None and not self._attaching(target_id):
                try:
                    session = await self.browser.attach(target_id)
                except CDPException as exc:
                    log.debug("could not attach to %s: %s", target_id, exc)
                    continue
                held = self.registry.by_target_id(target_id)
                if held is not None:
                    # Chrome announces an explicit attach with Target.attachedToTarget too, and
                    # _on_attached has already registered the page on this very session: detaching
                    # it as a duplicate would close the page again at once. Only a second session is one.
                    if held.session is not session:
                        await self._attach_page(session, None, waiting=False)
                    continue
                await self._attach_page(session, self._new_page(session, info), waiting=False)
        await self.settle()

    def mark_closed(self, page: PageHandle) -> None:
        if page.closed:
            return
        page.closed = True
        page.sessions.clear()
        for cb in list(self.listeners.page_closed):
            try:
                cb(page)
            except Exception:
                log.exception("page-closed listener failed")

    def close_all(self) -> None:
        """Mark every page closed (the connection is gone or we detached)."""
        for page in self.registry.all_pages:
            self.mark_closed(page)
        for task in list(self._tasks):
            task.cancel()

    # -- waiting for a page -----------------------------------------------------------

    async def wait_for_page(self, target_id: str, timeout: float = 10.0) -> PageHandle:
        """The handle of ``target_id`` once its attach (listeners included) is done."""
        page = self.registry.by_target_id(target_id)
        if page is not None and not self._attaching(target_id):
            return page
        future: asyncio.Future[PageHandle] = asyncio.get_running_loop().create_future()
        self._page_waiters.setdefault(target_id, []).append(future)
        try:
            async with asyncio.timeout(timeout):
                return await future
        except TimeoutError:
            await self.sync()
            page = self.registry.by_target_id(target_id)
            if page is None:
                raise
            return page
        finally:
            waiters = self._page_waiters.get(target_id, [])
            if future in waiters:
                waiters.remove(future)

    # -- listeners ----------------------------------------------------------------------

    def replay_listener(self, cb: SessionListener) -> None:
        """Call a listener added late for every session that already exists."""
        for page in self.registry.pages:
            for record in list(page.sessions):
                self._spawn(self._call_listener(page, record, cb), key=None)

    async def _call_listener(self, page: PageHandle, record: SessionRecord, cb: SessionListener) -> None:
        if id(cb) in record.seen_by or record.session.closed:
            return
        record.seen_by.add(id(cb))
        try:
            await asyncio.wait_for(cb(page, record.session, record.kind), LISTENER_TIMEOUT)
        except (CDPException, TimeoutError) as exc:
            log.info("session listener %r on %s %s: %s", cb, record.kind, page.stable_page_id, exc)
        except Exception:
            log.exception("session listener %r failed", cb)

    async def _run_listeners(self, page: PageHandle, record: SessionRecord) -> None:
        done: set[int] = set()
        while True:  # listeners added while we await are picked up too (seen_by prevents doubles)
            pending = [cb for cb in self.listeners.session if id(cb) not in done]
            if not pending:
                return
            for cb in pending:
                done.add(id(cb))
                await self._call_listener(page, record, cb)

    # -- events -------------------------------------------------------------------------

    def _spawn(self, coro: Coroutine[Any, Any, None], key: str | None) -> None:
        # A page's attach work is the browser's, whichever call noticed the page: no caller's context.
        task = asyncio.get_running_loop().create_task(coro, context=contextvars.Context())
        self._tasks[task] = key
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.pop(task, None)
        if not task.cancelled() and task.exception() is not None:
            # The tab went away mid-attach, typically; never let it surface as an unretrieved error.
            log.debug("attach task failed: %r", task.exception())

    def _attaching(self, target_id: str) -> bool:
        return any(key == target_id for task, key in self._tasks.items() if not task.done())

    def _on_attached(self, event: CDPEvent) -> None:
        params = event.params
        info = params.get("targetInfo") or {}
        session = self.browser.connection.session(params.get("sessionId", ""))
        if session is None or info.get("type") != "page":
            return
        held = self.registry.by_target_id(info.get("targetId", ""))
        if held is not None and held.session is session:
            return  # the event of our own explicit attach (sync), already registered on this session
        page = self._new_page(session, info)
        self._spawn(self._attach_page(session, page, bool(params.get("waitingForDebugger"))), info.get("targetId"))

    def _on_info_changed(self, event: CDPEvent) -> None:
        info = event.params.get("targetInfo") or {}
        page = self.registry.by_target_id(info.get("targetId", ""))
        if page is not None:
            page.title = info.get("title", page.title)
            page.url = info.get("url", page.url)

    def _on_destroyed(self, event: CDPEvent) -> None:
        page = self.registry.by_target_id(event.params.get("targetId", ""))
        if page is not None:
            self.mark_closed(page)

    # -- attaching ----------------------------------------------------------------------

    def _new_page(self, session: CDPSession, info: dict[str, Any]) -> PageHandle | None:
        """Register a page synchronously (in event order, so ids and listing follow Chrome's order)."""
        target_id = info.get("targetId") or session.target_info.get("targetId", "")
        if self.registry.by_target_id(target_id) is not None:
            return None
        page = PageHandle(
            stable_page_id=self._new_stable_id(),
            target_id=target_id,
            target=self.target,
            session=session,
            attached_at=utc_now(),
            title=info.get("title", ""),
            url=info.get("url", ""),
            opener_target_id=info.get("openerId") or None,
            _owner=self._owner,
        )
        inherited = self._owner.take_inheritance()
        if inherited:
            page.data.update(inherited)  # before the listeners run: capture goes on in the same stores
        page.sessions.append(SessionRecord(session, "page", info))
        session.on("Target.attachedToTarget", lambda ev: self._on_child_attached(page, ev))
        session.on_close(lambda _s: self._on_page_session_closed(page))
        self.registry.add(page)
        return page

    async def _attach_page(self, session: CDPSession, page: PageHandle | None, waiting: bool) -> None:
        """Run the listeners on a page session, ask for its children, then let it run."""
        if page is None:
            # A second session for a page we already hold (explicit attach raced auto-attach).
            await self._resume(session, waiting)
            await session.detach()
            return
        try:
            # Children first: the auto-attach request goes out before the listeners run, so iframes
            # created meanwhile are caught (and paused); their own listeners wait for the page's.
            # Its reply is awaited after the listeners, briefly: a page frozen by a dialog that was
            # open before we attached answers it only once the user closes the dialog (Chrome
            # still applies it then), and must not hold the attach for the default 30 s.
            auto_attach = asyncio.ensure_future(session.send("Target.setAutoAttach", _AUTO_ATTACH))
            auto_attach.add_done_callback(lambda f: f.cancelled() or f.exception())
            await self._run_listeners(page, page.sessions[0])
            done, _ = await asyncio.wait({auto_attach}, timeout=AUTO_ATTACH_REPLY_TIMEOUT)
            if not done:
                log.info("auto-attach on %s not answered yet (the page is frozen?)", page.target_id)
            elif auto_attach.exception() is not None:
                log.debug("auto-attach on %s failed: %s", page.target_id, auto_attach.exception())
            await self._resume(session, waiting)
        finally:
            page._ready.set()
            for future in self._page_waiters.pop(page.target_id, []):
                if not future.done():
                    future.set_result(page)

    def _on_page_session_closed(self, page: PageHandle) -> None:
        # The tab closed, crashed away, or the socket went: the handle is unusable either way.
        self.mark_closed(page)

    def _on_child_attached(self, page: PageHandle, event: CDPEvent) -> None:
        params = event.params
        info = params.get("targetInfo") or {}
        session = self.browser.connection.session(params.get("sessionId", ""))
        if session is None:
            return
        self._spawn(self._attach_child(page, session, info, bool(params.get("waitingForDebugger"))), None)

    async def _attach_child(self, page: PageHandle, session: CDPSession, info: dict[str, Any], waiting: bool) -> None:
        kind = _kind_of(info.get("type", ""))
        try:
            await asyncio.wait_for(page._ready.wait(), LISTENER_TIMEOUT)
        except TimeoutError:
            pass
        if kind is not None and not page.closed:
            record = SessionRecord(session, kind, info)
            page.sessions.append(record)
            session.on_close(lambda _s: page.sessions.remove(record) if record in page.sessions else None)
            session.on("Target.attachedToTarget", lambda ev: self._on_child_attached(page, ev))
            await self._run_listeners(page, record)
            if kind == "iframe":
                try:
                    await session.send("Target.setAutoAttach", _AUTO_ATTACH)
                except CDPException as exc:
                    log.debug("auto-attach in child %s failed: %s", info.get("targetId"), exc)
        await self._resume(session, waiting)

    @staticmethod
    async def _resume(session: CDPSession, waiting: bool) -> None:
        if not waiting:
            return
        try:
            await session.send("Runtime.runIfWaitingForDebugger")
        except CDPException as exc:
            log.debug("resume failed: %s", exc)
