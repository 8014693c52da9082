"""A session: one target you send commands to and hear events from, on a :class:`Connection`.

The connection owns the socket, the ids and the reply futures; a session is a view of one
target on it (the socket's own, or a flattened ``sessionId`` on the browser socket) with its
own event subscribers. Separate from :mod:`.connection` because it is what callers hold and
use (send, on, events, wait_for, detach), while the connection is the plumbing behind it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar, cast, overload

from .errors import CDPError, ConnectionClosed, SessionClosed
from .events import (
    DEFAULT_QUEUE_SIZE,
    CDPEvent,
    EventHandler,
    EventName,
    EventStream,
    Subscription,
    TypedEvent,
    _Subscriber,
    _SubscriberSet,
    normalize_methods,
)

if TYPE_CHECKING:
    from .connection import Connection
    from .models import CDPModel
    from .protocol import CDP

__all__ = ["CDPSession", "DEFAULT_TIMEOUT"]

log = logging.getLogger("cdp_core")

DEFAULT_TIMEOUT = 30.0

M = TypeVar("M", bound="CDPModel")
P = TypeVar("P")


class CDPSession:
    """A target you can send commands to and hear events from.

    Obtained from :meth:`Connection.root` (the socket's own target) or from
    :meth:`cdp_core.Browser.attach` (a flattened session). It does not own the socket:
    closing a flattened session detaches from the target and leaves the browser alone.
    """

    def __init__(
        self,
        connection: Connection,
        session_id: str | None,
        target_info: dict[str, Any] | None = None,
    ) -> None:
        self.connection = connection
        self.session_id = session_id
        #: ``Target.TargetInfo`` as a dict, when known (flattened sessions).
        self.target_info: dict[str, Any] = dict(target_info or {})
        self._subscribers = _SubscriberSet()
        self._closed: BaseException | None = None
        self._close_callbacks: list[Callable[[CDPSession], None]] = []

    # -- commands ---------------------------------------------------------------------

    async def send(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = DEFAULT_TIMEOUT
    ) -> dict[str, Any]:
        """Send one command and return its ``result`` dict.

        Raises :class:`CDPError` for a protocol error, :class:`CDPTimeout` when no reply
        came within ``timeout`` seconds (``None`` waits forever), and
        :class:`ConnectionClosed` / :class:`SessionClosed` when the socket or session
        is gone, before or while waiting.
        """
        if self._closed is not None:
            raise self._closed
        return await self.connection._send(method, params, self.session_id, timeout)

    # -- typed commands ---------------------------------------------------------------

    @property
    def cdp(self) -> CDP:
        """Every protocol domain, typed, on this session: ``await page.cdp.Page.navigate(url=...)``.

        The generated :mod:`cdp_core.protocol` is imported on first use, one domain module
        at a time; code that never touches it never loads it.
        """
        from .protocol import CDP

        return CDP(self)

    # -- events -----------------------------------------------------------------------

    @overload
    def on(
        self,
        methods: EventName[P],
        handler: Callable[[TypedEvent[P]], Any],
        *,
        maxsize: int = DEFAULT_QUEUE_SIZE,
    ) -> Subscription: ...

    @overload
    def on(
        self, methods: str | Iterable[str] | None, handler: EventHandler, *, maxsize: int = DEFAULT_QUEUE_SIZE
    ) -> Subscription: ...

    def on(self, methods: Any, handler: Any, *, maxsize: int = DEFAULT_QUEUE_SIZE) -> Subscription:
        """Call ``handler(event)`` for each matching event.

        A plain function runs inline in the reader (keep it quick); a coroutine
        function runs in its own task fed by a bounded queue, so it may send commands.
        """
        sub = Subscription(normalize_methods(methods), handler, self._unsubscribe, maxsize)
        self._add(sub)
        return sub

    @overload
    def events(  # type: ignore[overload-overlap]  # an EventName is a str: typed view of the same events
        self, methods: EventName[P], *, maxsize: int = DEFAULT_QUEUE_SIZE
    ) -> EventStream[TypedEvent[P]]: ...

    @overload
    def events(
        self, methods: str | Iterable[str] | None = None, *, maxsize: int = DEFAULT_QUEUE_SIZE
    ) -> EventStream[CDPEvent]: ...

    @overload
    def events(self, methods: type[M], *, maxsize: int = DEFAULT_QUEUE_SIZE) -> EventStream[M]: ...

    def events(self, methods: Any = None, *, maxsize: int = DEFAULT_QUEUE_SIZE) -> EventStream[Any]:
        """An ``async for`` stream of events.

        ``methods`` is a method name, several names, ``"*"``/``None`` for all, an
        :class:`~cdp_core.events.EventName` of :mod:`cdp_core.protocol` (the same events, with
        typed ``params``), or a typed event model from :mod:`cdp_core.models` (a class with a
        ``METHOD`` attribute), in which case the stream yields parsed model instances.
        """
        convert: Callable[[CDPEvent], Any] | None = None
        if isinstance(methods, type) and hasattr(methods, "METHOD"):
            model = cast("type[CDPModel]", methods)
            methods = model.METHOD  # type: ignore[attr-defined]

            def convert(ev: CDPEvent) -> Any:
                return model.model_validate(ev.params)

        stream: EventStream[Any] = EventStream(normalize_methods(methods), self._unsubscribe, maxsize, convert)
        self._add(stream)
        return stream

    @overload
    async def wait_for(  # type: ignore[overload-overlap]  # an EventName is a str: typed view of the same event
        self,
        method: EventName[P],
        predicate: Callable[[TypedEvent[P]], bool] | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> TypedEvent[P]: ...

    @overload
    async def wait_for(
        self,
        method: str,
        predicate: Callable[[CDPEvent], bool] | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> CDPEvent: ...

    async def wait_for(
        self,
        method: str,
        predicate: Callable[[Any], bool] | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> Any:
        """Wait for the next event ``method`` (matching ``predicate``).

        Subscribe *before* triggering what produces the event, e.g. with
        ``waiter = asyncio.ensure_future(session.wait_for(...))``.
        """
        stream: EventStream[CDPEvent] = self.events(method)
        async with stream:
            async with asyncio.timeout(timeout):
                async for ev in stream:
                    if predicate is None or predicate(ev):
                        return ev
        raise stream.end_reason or ConnectionClosed("event stream ended")  # the tab closed while we waited

    def _add(self, sub: _Subscriber) -> None:
        if self._closed is not None:
            sub.finish(self._closed)
            return
        self._subscribers.add(sub)

    def _unsubscribe(self, sub: _Subscriber) -> None:
        self._subscribers.remove(sub)

    @property
    def dropped_events(self) -> int:
        """Events lost by this session's subscribers because their queues were full."""
        return sum(s.dropped for s in self._subscribers.all())

    # -- life cycle -------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed is not None

    def on_close(self, callback: Callable[[CDPSession], None]) -> Callable[[], None]:
        """Run ``callback(session)`` once when the session ends (detach, crash, socket loss).

        Returns a function that unregisters the callback, so short-lived watchers (one
        per trace, per action) do not pile up on a long-lived session.
        """
        if self._closed is not None:
            callback(self)
            return lambda: None
        self._close_callbacks.append(callback)

        def remove() -> None:
            if callback in self._close_callbacks:
                self._close_callbacks.remove(callback)

        return remove

    def _dispatch(self, event: CDPEvent) -> None:
        self._subscribers.dispatch(event)

    def _finish(self, error: BaseException) -> None:
        if self._closed is not None:
            return
        self._closed = error
        self._subscribers.finish_all(error)
        callbacks, self._close_callbacks = self._close_callbacks, []
        for cb in callbacks:
            try:
                cb(self)
            except Exception:
                log.exception("session close callback failed")

    async def close(self, *, timeout: float = 10.0) -> None:
        """Close this session's tab (``Target.closeTarget``) and wait until the browser has let go of it.

        Closing is asynchronous in Chrome: this returns once the session ended (its event
        streams finish normally) or after ``timeout`` seconds. Closing a tab that is already
        gone is not an error. Only flattened sessions have a tab (:meth:`Browser.attach`,
        :meth:`Browser.new_page`); on the root session it raises ``ValueError``. Never call
        it on a tab you did not open (a user's tab).
        """
        target_id = self.target_info.get("targetId")
        if self.session_id is None or not target_id:
            raise ValueError("this session has no tab of its own to close (root session)")
        ended = asyncio.Event()
        self.on_close(lambda _session: ended.set())
        try:
            await self.connection.root.send("Target.closeTarget", {"targetId": target_id})
        except CDPError:
            pass  # already closed
        except ConnectionClosed:
            return
        if self._closed is None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await ended.wait()

    async def detach(self) -> None:
        """Detach a flattened session (the target keeps running); no-op on a root session."""
        if self.session_id is None or self._closed is not None:
            return
        try:
            await self.connection.root.send("Target.detachFromTarget", {"sessionId": self.session_id})
        except (CDPError, ConnectionClosed):
            pass
        self.connection._drop_session(self.session_id, SessionClosed("session detached"))

    def __repr__(self) -> str:
        kind = self.target_info.get("type", "?")
        return f"<CDPSession {self.session_id or 'root'} {kind} {self.target_info.get('url', '')!r}>"
