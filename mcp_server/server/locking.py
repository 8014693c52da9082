"""Who may run at the same time: reads never wait, page work is one call per page, state changes alone.

Every action declares what it needs (``@action(..., lock=...)``), and the server takes it
around the handler:

``read``
    Reads of what the server already holds (capture stores, capabilities, status, the page
    list, saved files). Takes nothing, so it never waits behind a long call. A read must
    not run page scripts and must not change state.
``page``
    Uses the selected page: scripts, input, navigation, screenshots. Holds the state lock
    *shared* for the whole call (the target and the selection cannot change under it) and
    the page's own mutex from :meth:`ToolContext.page` on, so the scripts of two calls
    never interleave on one page.
``poll``
    A long wait made of short steps (``wait_for``): the handler takes the page for each
    step itself (``async with ctx.step(page)``) and holds nothing between steps, so reads,
    page calls and state changes run between two polls.
``state``
    Changes which browser or page is active, or a browser's life (attach, detach, launch,
    close, select_page). Holds the state lock *exclusively*: it waits for the page calls in
    progress, and page calls that arrive after it wait for it.

The state lock is fair (first come, first served): a state change waiting for a page call
holds back the page calls behind it, and is not starved by them. Releasing is synchronous,
so a cancelled call frees everything in its ``finally`` without awaiting (inside a
cancelled anyio scope every await would be cancelled again).

A call that has to change state just to find its page (nothing active yet: launch or
attach first; the browser died: relaunch) takes the state lock exclusively for that part,
whatever it declared (:meth:`ToolContext.page`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
import weakref
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from targets import BrowserManager, PageHandle

__all__ = [
    "LockMode", "LOCK_MODES", "StateLock", "CallLocks", "CallHold", "Holder", "Busy", "locks_for", "OVERRUN_GRACE_S",
    "overrun_grace",
]  # fmt: skip

#: Seconds past its call bound a call may keep a lock (to phrase its answer) before it is stopped;
#: a tenth of a short bound (MCP_MAX_CALL_SECONDS=2: 0.5 s).
OVERRUN_GRACE_S = 5.0


def overrun_grace(bound: float) -> float:
    """The grace after a call bound of ``bound`` seconds: :data:`OVERRUN_GRACE_S`, less for short bounds."""
    return min(OVERRUN_GRACE_S, max(0.5, bound / 10))


LockMode = Literal["read", "page", "poll", "state"]
LOCK_MODES: tuple[LockMode, ...] = ("read", "page", "poll", "state")

_ids = itertools.count(1)


@dataclass
class Holder:
    """One call's hold on a lock: who (``label``: tool.action) and since when, for BUSY answers and progress."""

    label: str
    exclusive: bool
    since: float = field(default_factory=time.monotonic)
    id: int = field(default_factory=lambda: next(_ids))

    def describe(self) -> str:
        return f"{self.label} (running {time.monotonic() - self.since:.1f} s)"


class StateLock:
    """A fair readers-writer lock: many shared holders or one exclusive holder.

    Waiters are served in arrival order; consecutive shared waiters at the head of the
    queue are admitted together. :meth:`release` is synchronous.
    """

    def __init__(self) -> None:
        self._shared: dict[int, Holder] = {}
        self._exclusive: Holder | None = None
        self._queue: deque[tuple[Holder, asyncio.Future[None]]] = deque()

    # -- inspection -------------------------------------------------------------------------

    @property
    def holders(self) -> list[Holder]:
        return [self._exclusive] if self._exclusive is not None else list(self._shared.values())

    @property
    def waiting(self) -> int:
        return len(self._queue)

    def locked(self) -> bool:
        return self._exclusive is not None or bool(self._shared)

    # -- acquire / release ------------------------------------------------------------------

    def _can_enter(self, holder: Holder) -> bool:
        if self._exclusive is not None:
            return False
        return not self._shared if holder.exclusive else True

    def _enter(self, holder: Holder) -> None:
        if holder.exclusive:
            self._exclusive = holder
        else:
            self._shared[holder.id] = holder

    async def acquire(self, holder: Holder) -> Holder:
        """Wait for the lock (shared or exclusive as ``holder`` says); cancellation leaves no trace."""
        if not self._queue and self._can_enter(holder):
            self._enter(holder)
            return holder
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (holder, future)
        self._queue.append(entry)
        try:
            await future
        except BaseException:
            if future.done() and not future.cancelled():
                self.release(holder)  # granted just as we were cancelled: give it back
            else:
                try:
                    self._queue.remove(entry)
                except ValueError:
                    pass
                self._wake()  # a writer leaving the queue may let readers in
            raise
        return holder

    def release(self, holder: Holder) -> None:
        if self._exclusive is holder:
            self._exclusive = None
        else:
            self._shared.pop(holder.id, None)
        self._wake()

    def _wake(self) -> None:
        while self._queue:
            holder, future = self._queue[0]
            if future.done():  # cancelled while queued
                self._queue.popleft()
                continue
            if not self._can_enter(holder):
                return
            self._queue.popleft()
            self._enter(holder)
            future.set_result(None)


class CallLocks:
    """The state lock plus one mutex per page, shared by every client of one browser manager."""

    def __init__(self) -> None:
        self.state = StateLock()
        self._pages: weakref.WeakKeyDictionary[Any, asyncio.Lock] = weakref.WeakKeyDictionary()
        self._page_holders: weakref.WeakKeyDictionary[Any, Holder] = weakref.WeakKeyDictionary()

    def page_lock(self, page: PageHandle) -> asyncio.Lock:
        lock = self._pages.get(page)
        if lock is None:
            lock = self._pages[page] = asyncio.Lock()
        return lock

    def page_holder(self, page: PageHandle) -> Holder | None:
        return self._page_holders.get(page)

    async def acquire_page(self, page: PageHandle, holder: Holder) -> None:
        await self.page_lock(page).acquire()
        self._page_holders[page] = holder

    def release_page(self, page: PageHandle) -> None:
        self._page_holders.pop(page, None)
        lock = self._pages.get(page)
        if lock is not None and lock.locked():
            lock.release()

    def busy(self) -> bool:
        """Whether any call holds the state lock or a page (tests wait on this)."""
        return self.state.locked() or any(lock.locked() for lock in list(self._pages.values()))

    def describe_holders(self, page: PageHandle | None = None) -> str:
        """Who holds what, for a BUSY answer or a progress message: 'navigate (running 3.2 s)'."""
        holders = self.state.holders
        if page is not None and (held := self.page_holder(page)) is not None:
            holders = [held, *[h for h in holders if h is not held]]
        seen: set[int] = set()
        parts = []
        for h in holders:
            if h.id not in seen:
                seen.add(h.id)
                parts.append(h.describe())
        return ", ".join(parts[:3]) or "another call"


_BY_MANAGER: weakref.WeakKeyDictionary[Any, CallLocks] = weakref.WeakKeyDictionary()


def locks_for(manager: BrowserManager) -> CallLocks:
    """The one :class:`CallLocks` of ``manager`` (every server and client on it shares them)."""
    try:
        locks = _BY_MANAGER.get(manager)
    except TypeError:  # not weakly referenceable (None in unit tests): locks of its own
        return CallLocks()
    if locks is None:
        locks = _BY_MANAGER[manager] = CallLocks()
    return locks


class Busy(Exception):
    """The lock did not come free before the call's deadline; ``holders`` says who holds it."""

    def __init__(self, holders: str) -> None:
        super().__init__(holders)
        self.holders = holders


class CallHold:
    """What one call holds (its state hold, its pages) and how it takes them; released all at once.

    ``deadline`` (``loop.time()``) bounds every wait for a lock: past it :class:`Busy` is
    raised. ``on_wait(text)`` is told who the call waits for, for its progress messages.

    Holding is bounded too: ``limit`` (the ``asyncio.timeout`` around the handler, set by the
    server) is armed for ``deadline`` + ``grace`` (:func:`overrun_grace`) as soon as the call takes a lock,
    so a call stuck while holding one (a discovery endpoint that never answers, a hung renderer)
    is stopped there and every other call gets the lock back. :meth:`overrun_allowed` lifts it for
    a part that must not be cut (a trace being saved).
    """

    def __init__(
        self,
        locks: CallLocks,
        mode: LockMode,
        label: str,
        *,
        deadline: float | None = None,
        on_wait: Any = None,
        grace: float = OVERRUN_GRACE_S,
    ) -> None:
        self.locks = locks
        self.grace = grace
        self.mode: LockMode = mode
        self.label = label
        self.deadline = deadline
        self.on_wait = on_wait
        self._state: Holder | None = None
        self._pages: list[Any] = []
        #: the handler's timeout (``asyncio.timeout(None)``), armed when a lock is taken
        self.limit: Any = None
        self._unbounded = 0

    # -- what is held ----------------------------------------------------------------------

    @property
    def exclusive(self) -> bool:
        return self._state is not None and self._state.exclusive

    def holds_page(self, page: PageHandle) -> bool:
        return self.exclusive or any(p is page for p in self._pages)

    # -- the bound on holding ---------------------------------------------------------------

    def _arm(self) -> None:
        """Bound the call once it holds a lock: stopped at its deadline + the grace, whatever it waits on."""
        if self.limit is None or self.deadline is None or self._unbounded or self.limit.when() is not None:
            return
        self.limit.reschedule(self.deadline + self.grace)

    @property
    def overran(self) -> bool:
        """Whether the handler's time ran out (its ``limit`` expired) while it held a lock."""
        return self.limit is not None and self.limit.expired()

    @contextlib.contextmanager
    def overrun_allowed(self) -> Any:
        """A part of the call that must not be cut at the bound (it would lose its result)."""
        self._unbounded += 1
        if self.limit is not None:
            self.limit.reschedule(None)
        try:
            yield
        finally:
            self._unbounded -= 1
            if self._state is not None or self._pages:
                self._arm()

    # -- taking and giving back ------------------------------------------------------------

    async def _bounded(self, waiting: Any, who: str) -> None:
        if self.on_wait is not None:
            self.on_wait(f"waiting for {who}")
        timeout = None if self.deadline is None else self.deadline - asyncio.get_running_loop().time()
        try:
            if timeout is None:
                await waiting
            else:
                async with asyncio.timeout(max(0.0, timeout)):
                    await waiting
        except TimeoutError:
            raise Busy(who) from None
        finally:
            if self.on_wait is not None:
                self.on_wait(None)

    async def _take_state(self, exclusive: bool) -> None:
        holder = Holder(self.label, exclusive)
        state = self.locks.state
        if not state.waiting and state._can_enter(holder):
            state._enter(holder)
        else:
            await self._bounded(state.acquire(holder), self.locks.describe_holders())
        self._state = holder
        self._arm()

    def _give_state(self) -> None:
        if self._state is not None:
            self.locks.state.release(self._state)
            self._state = None

    async def enter(self) -> None:
        """Take what the declared mode holds for the whole call."""
        if self.mode == "page":
            await self._take_state(exclusive=False)
        elif self.mode == "state":
            await self._take_state(exclusive=True)

    async def hold_page(self, page: PageHandle) -> None:
        """Page mode: take ``page``'s mutex until the call ends (no-op if held, or under the exclusive lock)."""
        if self.mode != "page" or self.holds_page(page):
            return
        await self._take_page(page)
        self._pages.append(page)
        self._arm()

    async def _take_page(self, page: PageHandle) -> None:
        holder = Holder(self.label, True)
        if self.locks.page_lock(page).locked():
            await self._bounded(self.locks.acquire_page(page, holder), self.locks.describe_holders(page))
        else:
            await self.locks.acquire_page(page, holder)

    def release_all(self) -> None:
        """Give back everything (synchronous: safe in the ``finally`` of a cancelled call)."""
        for page in reversed(self._pages):
            self.locks.release_page(page)
        self._pages.clear()
        self._give_state()

    # -- temporary holds -------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def exclusively(self) -> AsyncIterator[None]:
        """The state lock exclusively for a block (to launch, attach or relaunch), then back to the mode's hold.

        Pages held are given back first: waiting for the exclusive lock while holding a page
        another shared holder waits for would deadlock.
        """
        if self.exclusive:
            yield
            return
        for page in reversed(self._pages):
            self.locks.release_page(page)
        self._pages.clear()
        had_shared = self._state is not None
        self._give_state()
        try:
            await self._take_state(exclusive=True)
            yield
        finally:
            self._give_state()
        if had_shared:
            await self._take_state(exclusive=False)

    @contextlib.asynccontextmanager
    async def step(self, page: PageHandle) -> AsyncIterator[None]:
        """Poll mode: the state lock shared and ``page``'s mutex for one step of a long wait."""
        if self.mode != "poll" or self.exclusive:
            yield
            return
        await self._take_state(exclusive=False)
        try:
            await self._take_page(page)
            self._arm()
            try:
                yield
            finally:
                self.locks.release_page(page)
        finally:
            self._give_state()
