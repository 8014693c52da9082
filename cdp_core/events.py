"""Event delivery: the reader never waits for a subscriber.

The reader loop of a :class:`~cdp_core.connection.Connection` hands each event to its
session, which offers it to every matching subscriber without awaiting anything:

- a synchronous callback is called inline (it must be quick; an exception it raises is
  counted and logged, never allowed to kill the reader);
- an async callback or an ``async for`` stream gets the event through its own bounded
  queue. A full queue drops the event and increments ``dropped``: a slow consumer loses
  its own events, visibly, and never stalls the socket (a handler that awaits a command
  inside the reader would deadlock, since its reply could never be read).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from .errors import ConnectionClosed, SessionClosed

log = logging.getLogger("cdp_core")

__all__ = ["CDPEvent", "EventName", "EventStream", "Subscription", "EventHandler", "TypedEvent"]

DEFAULT_QUEUE_SIZE = 10_000


@dataclass(slots=True, frozen=True)
class CDPEvent:
    """One protocol event as received: method name, raw params and its session."""

    method: str
    params: dict[str, Any]
    session_id: str | None = None


T = TypeVar("T")
P_co = TypeVar("P_co", covariant=True)
EventHandler = Callable[[CDPEvent], Any] | Callable[[CDPEvent], Awaitable[Any]]


class EventName(str, Generic[P_co]):
    """An event's method name that also carries the type of its params, for type checkers.

    It is a plain ``str`` at run time (``"Page.loadEventFired"``), so it works wherever a
    method name does. The generated domains of :mod:`cdp_core.protocol` define one per event
    (``cdp.Page.loadEventFired``); ``session.events(name)``, ``session.wait_for(name)`` and
    ``session.on(name, handler)`` then give events whose ``params`` are typed.
    """

    __slots__ = ()


class TypedEvent(Protocol[P_co]):
    """What a type checker sees of a :class:`CDPEvent` received for an :class:`EventName`.

    The objects are the very same :class:`CDPEvent` instances; only ``params`` is typed.
    """

    @property
    def method(self) -> str: ...

    @property
    def params(self) -> P_co: ...

    @property
    def session_id(self) -> str | None: ...


class _Subscriber:
    """What a session keeps per subscription: the methods it wants and how to deliver."""

    __slots__ = ("methods", "closed", "dropped", "errors")

    def __init__(self, methods: frozenset[str] | None) -> None:
        self.methods = methods  # None means every event
        self.closed = False
        self.dropped = 0
        self.errors = 0

    def offer(self, event: CDPEvent) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def finish(self, error: BaseException | None) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class Subscription(_Subscriber):
    """A callback subscription; call :meth:`cancel` (or use ``with``) to stop it."""

    __slots__ = ("_handler", "_is_async", "_queue", "_worker", "_maxsize", "_unsubscribe")

    def __init__(
        self,
        methods: frozenset[str] | None,
        handler: EventHandler,
        unsubscribe: Callable[[_Subscriber], None],
        maxsize: int = DEFAULT_QUEUE_SIZE,
    ) -> None:
        super().__init__(methods)
        self._handler = handler
        self._is_async = inspect.iscoroutinefunction(handler)
        self._queue: deque[CDPEvent] = deque()
        self._worker: asyncio.Task[None] | None = None
        self._maxsize = maxsize
        self._unsubscribe = unsubscribe

    def offer(self, event: CDPEvent) -> None:
        if self.closed:
            return
        if not self._is_async:
            try:
                self._handler(event)
            except Exception:  # a bad handler must not stop the reader
                self.errors += 1
                log.exception("event handler for %s failed", event.method)
            return
        if len(self._queue) >= self._maxsize:
            self.dropped += 1
            return
        self._queue.append(event)
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        while self._queue and not self.closed:
            event = self._queue.popleft()
            try:
                await self._handler(event)
            except Exception:
                self.errors += 1
                log.exception("async event handler for %s failed", event.method)

    def finish(self, error: BaseException | None) -> None:
        self.closed = True
        self._queue.clear()

    def cancel(self) -> None:
        """Stop delivering events to this handler."""
        if not self.closed:
            self.finish(None)
            self._unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()


class EventStream(_Subscriber, Generic[T]):
    """An ``async for`` view of events with a bounded buffer.

    Iteration ends normally after :meth:`close` and when its tab closes or the session is
    detached (:attr:`end_reason` is then the :class:`SessionClosed`): a loop over a tab's
    events simply finishes with the tab. If the whole connection goes away, the buffered
    events are still delivered and then :class:`ConnectionClosed` is raised, so a consumer
    can tell "the tab ended" from "the browser went away".
    """

    __slots__ = ("_queue", "_maxsize", "_waiter", "_error", "_convert", "_unsubscribe", "end_reason")

    def __init__(
        self,
        methods: frozenset[str] | None,
        unsubscribe: Callable[[_Subscriber], None],
        maxsize: int = DEFAULT_QUEUE_SIZE,
        convert: Callable[[CDPEvent], T] | None = None,
    ) -> None:
        super().__init__(methods)
        self._queue: deque[CDPEvent] = deque()
        self._maxsize = maxsize
        self._waiter: asyncio.Future[None] | None = None
        self._error: BaseException | None = None
        self._convert = convert
        self._unsubscribe = unsubscribe
        #: Why the stream ended without an error: a :class:`SessionClosed` (tab closed, detached), else None.
        self.end_reason: BaseException | None = None

    def offer(self, event: CDPEvent) -> None:
        if self.closed:
            return
        if len(self._queue) >= self._maxsize:
            self.dropped += 1
            return
        self._queue.append(event)
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def finish(self, error: BaseException | None) -> None:
        if self.closed:
            return
        self.closed = True
        if isinstance(error, SessionClosed):
            self.end_reason = error  # the tab is gone: the stream ends, it does not fail
        else:
            self._error = error
        self._wake()

    def close(self) -> None:
        """Stop the stream; iteration ends once the buffer is empty."""
        if not self.closed:
            self.finish(None)
            self._unsubscribe(self)

    @property
    def pending(self) -> int:
        """Events buffered and not yet consumed."""
        return len(self._queue)

    def __aiter__(self) -> AsyncIterator[T]:
        return self

    async def __anext__(self) -> T:
        while True:
            if self._queue:
                event = self._queue.popleft()
                return self._convert(event) if self._convert else event  # type: ignore[return-value]
            if self.closed:
                if self._error is not None:
                    raise self._error
                raise StopAsyncIteration
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None

    async def get(self, timeout: float | None = None) -> T:
        """The next event, waiting at most ``timeout`` seconds (``TimeoutError``)."""
        async with asyncio.timeout(timeout):
            try:
                return await self.__anext__()
            except StopAsyncIteration:
                raise self.end_reason or ConnectionClosed("event stream closed") from None

    async def __aenter__(self) -> EventStream[T]:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


@dataclass
class _SubscriberSet:
    """Subscribers of one session, indexed by method for a cheap dispatch."""

    by_method: dict[str, list[_Subscriber]] = field(default_factory=dict)
    wildcard: list[_Subscriber] = field(default_factory=list)

    def add(self, sub: _Subscriber) -> None:
        if sub.methods is None:
            self.wildcard.append(sub)
        else:
            for m in sub.methods:
                self.by_method.setdefault(m, []).append(sub)

    def remove(self, sub: _Subscriber) -> None:
        if sub.methods is None:
            if sub in self.wildcard:
                self.wildcard.remove(sub)
            return
        for m in sub.methods:
            subs = self.by_method.get(m)
            if subs and sub in subs:
                subs.remove(sub)
                if not subs:
                    del self.by_method[m]

    def dispatch(self, event: CDPEvent) -> None:
        subs = self.by_method.get(event.method)
        if subs:
            for sub in tuple(subs):
                sub.offer(event)
        for sub in tuple(self.wildcard):
            sub.offer(event)

    def all(self) -> Iterable[_Subscriber]:
        seen: set[int] = set()
        for subs in (*self.by_method.values(), self.wildcard):
            for sub in subs:
                if id(sub) not in seen:
                    seen.add(id(sub))
                    yield sub

    def finish_all(self, error: BaseException | None) -> None:
        for sub in list(self.all()):
            sub.finish(error)
        self.by_method.clear()
        self.wildcard.clear()


def normalize_methods(methods: str | Iterable[str] | None) -> frozenset[str] | None:
    """``"*"`` or ``None`` subscribe to everything; a string or iterable names methods."""
    if methods is None or methods == "*":
        return None
    if isinstance(methods, str):
        return frozenset((methods,))
    return frozenset(methods)
