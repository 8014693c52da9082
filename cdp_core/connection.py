"""One websocket, its message ids, its pending replies and its sessions.

A :class:`Connection` is the only place that owns ids and reply futures, like
puppeteer's ``Connection``: every :class:`~cdp_core.session.CDPSession` (the socket's own
target, or a flattened ``sessionId`` on the browser socket) sends through it. The single reader
task routes replies by ``id`` and events by ``sessionId``; when it ends for any reason
every pending command and every event stream fails at once with
:class:`~cdp_core.errors.ConnectionClosed`.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import json
import logging
from typing import Any

import msgspec
import websockets
from websockets.asyncio.client import ClientConnection

from .errors import CDPError, CDPException, CDPTimeout, ConnectionClosed, HandshakeRejected, SessionClosed
from .events import CDPEvent
from .session import DEFAULT_TIMEOUT, CDPSession

log = logging.getLogger("cdp_core")

__all__ = ["Connection", "CDPSession", "DEFAULT_TIMEOUT", "MAX_MESSAGE_SIZE"]

#: Screenshots and trace chunks exceed websockets' 1 MiB default; puppeteer uses 256 MiB.
MAX_MESSAGE_SIZE = 256 * 1024 * 1024

_decode_fast = msgspec.json.Decoder().decode


def decode_message(raw: bytes | str) -> Any:
    """One CDP message as Python values.

    msgspec first: on recorded Chrome traffic it decodes event bursts and big one-string
    answers (screenshots, bodies, trace chunks) faster than ``json``
    (tests/bench/decode_bench.py measures by how much). It refuses what ``json`` accepts and Chrome can send (a
    lone UTF-16 surrogate escaped in a console message, for one), so those fall back.
    """
    try:
        return _decode_fast(raw)
    except msgspec.DecodeError:
        return json.loads(raw)


class _connect_without_redirects(websockets.connect):  # noqa: N801 - used like the function it extends
    """``websockets.connect`` that refuses every redirect instead of following up to ten of them."""

    def process_redirect(self, exc: Exception) -> Exception | str:
        location = getattr(getattr(exc, "response", None), "headers", {}).get("Location")
        if location is None:
            return exc
        return websockets.exceptions.InvalidHandshake(
            f"the endpoint redirected to {location[:200]}; a debugging socket never redirects, so it is not followed"
        )


def _expire(future: asyncio.Future[dict[str, Any]], method: str, timeout: float) -> None:
    if not future.done():
        future.set_exception(CDPTimeout(method, timeout))


class _Pending:
    __slots__ = ("future", "method", "session_id")

    def __init__(self, future: asyncio.Future[dict[str, Any]], method: str, session_id: str | None):
        self.future = future
        self.method = method
        self.session_id = session_id


class Connection:
    """A websocket to a browser or to one target, with one reader task.

    Create with :meth:`open`; it is an async context manager. ``root`` is the session
    of the socket's own target (the browser for ``/devtools/browser/...``).
    """

    def __init__(self, ws: ClientConnection, url: str) -> None:
        self.url = url
        self._ws = ws
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self.root = CDPSession(self, None)
        self._sessions: dict[str, CDPSession] = {}
        self._closed: ConnectionClosed | None = None
        #: Events whose ``sessionId`` matched no known session (counted, not fatal).
        self.unroutable_events = 0
        self._loop = asyncio.get_running_loop()
        # The read loop belongs to the connection, not to the call that opened it: it runs in a
        # fresh context, so no caller's context variables reach the event handlers it runs.
        self._reader = self._loop.create_task(
            self._read_loop(), name=f"cdp-reader {url}", context=contextvars.Context()
        )
        self._closed_event = asyncio.Event()

    @classmethod
    async def open(cls, ws_url: str, *, max_size: int = MAX_MESSAGE_SIZE, open_timeout: float = 10.0) -> Connection:
        """Open the websocket ``ws_url`` (no proxy, no compression, large messages, no redirects).

        A browser's debugging socket never redirects; an endpoint that answers the handshake
        with a 3xx is refused instead of followed, so the address a caller checked is the
        address we talk to (:attr:`peer` tells which one that was). ``open_timeout`` bounds the
        handshake: a Chrome whose remote-debugging toggle is on holds it until the person clicks
        Allow (or Cancel: :class:`HandshakeRejected`), so callers waiting for a person pass a long one.
        """
        try:
            ws = await _connect_without_redirects(
                ws_url,
                max_size=max_size,
                compression=None,
                proxy=None,
                open_timeout=open_timeout,
                ping_interval=None,
                write_limit=2**20,
            )
        except websockets.exceptions.InvalidStatus as exc:
            status = exc.response.status_code
            body = bytes(exc.response.body or b"")[:200].decode("utf-8", "replace").strip()
            reason = f"cannot open {ws_url}: the browser answered HTTP {status}" + (f" {body!r}" if body else "")
            raise HandshakeRejected(reason, status=status) from exc
        except (OSError, websockets.exceptions.WebSocketException, TimeoutError) as exc:
            raise ConnectionClosed(f"cannot open {ws_url}: {exc}") from exc
        return cls(ws, ws_url)

    @property
    def peer(self) -> tuple[str, int] | None:
        """``(address, port)`` of the socket's other end, as connected (after any name resolution)."""
        try:
            peer = self._ws.transport.get_extra_info("peername")
        except Exception:  # noqa: BLE001 - a transport without a peer (closed) has none
            return None
        return (str(peer[0]), int(peer[1])) if peer else None

    # -- sending ----------------------------------------------------------------------

    async def send(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = DEFAULT_TIMEOUT
    ) -> dict[str, Any]:
        """Send a command to the socket's own target (same as ``root.send``)."""
        return await self._send(method, params, None, timeout)

    async def _send(
        self, method: str, params: dict[str, Any] | None, session_id: str | None, timeout: float | None
    ) -> dict[str, Any]:
        if self._closed is not None:
            raise self._closed
        msg_id = next(self._ids)
        message: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if session_id is not None:
            message["sessionId"] = session_id
        # Encoded before the future is registered: params that are not JSON (a TypeError, the
        # caller's to fix) must leave no orphan future for the close to fail unheard.
        text = json.dumps(message)
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            # Its reader runs on the loop it was opened on: from here the reply would never come.
            raise CDPException(
                f"{method}: this connection was opened on another event loop, which is not running now; "
                "open it on the loop that uses it (with pytest, let the fixture and the test share a loop: "
                "docs/testing.md)"
            )
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        # Register before sending: a fast reply must find its future.
        self._pending[msg_id] = _Pending(future, method, session_id)
        try:
            await self._ws.send(text)
        except websockets.exceptions.ConnectionClosed:
            self._pending.pop(msg_id, None)
            raise self._closed or ConnectionClosed("connection closed while sending") from None
        # A timer that fails the future is cheaper per call than an asyncio.timeout() scope,
        # and this is the hot path of every command.
        timer = None if timeout is None else loop.call_later(timeout, _expire, future, method, timeout)
        try:
            return await future
        finally:
            if timer is not None:
                timer.cancel()
            self._pending.pop(msg_id, None)

    # -- sessions ---------------------------------------------------------------------

    def session(self, session_id: str) -> CDPSession | None:
        """The flattened session with this id, if it is attached."""
        return self._sessions.get(session_id)

    @property
    def sessions(self) -> list[CDPSession]:
        """Flattened sessions currently attached through this socket."""
        return list(self._sessions.values())

    def _ensure_session(self, session_id: str, target_info: dict[str, Any] | None) -> CDPSession:
        session = self._sessions.get(session_id)
        if session is None:
            session = CDPSession(self, session_id, target_info)
            self._sessions[session_id] = session
        elif target_info:
            session.target_info.update(target_info)
        return session

    def _drop_session(self, session_id: str, error: BaseException) -> None:
        session = self._sessions.pop(session_id, None)
        for pending in list(self._pending.values()):
            if pending.session_id == session_id and not pending.future.done():
                pending.future.set_exception(error)
        if session is not None:
            session._finish(error)

    # -- reading ----------------------------------------------------------------------

    async def _read_loop(self) -> None:
        reason = ConnectionClosed("connection closed")
        try:
            recv = self._ws.recv
            while True:
                # bytes, not str: no UTF-8 decoding pass before the decoder's own
                raw = await recv(decode=False)
                try:
                    message = decode_message(raw)
                except ValueError:
                    log.warning("unparsable CDP message dropped (%d bytes)", len(raw))
                    continue
                try:
                    self._handle(message)
                except Exception:  # never let one odd message end the reader
                    log.exception("failed to handle CDP message")
        except websockets.exceptions.ConnectionClosedOK:
            pass  # closed cleanly (by either side): the default reason says so
        except websockets.exceptions.ConnectionClosed as exc:
            rcvd = exc.rcvd
            reason = ConnectionClosed(
                f"connection closed: {rcvd.code} {rcvd.reason}".strip() if rcvd else "connection lost",
                code=rcvd.code if rcvd else None,
            )
        except asyncio.CancelledError:
            reason = ConnectionClosed("connection closed by client")
            raise
        except Exception as exc:  # pragma: no cover - defensive
            reason = ConnectionClosed(f"reader failed: {exc!r}")
            log.exception("CDP reader failed")
        finally:
            self._shutdown(reason)

    def _handle(self, message: dict[str, Any]) -> None:
        msg_id = message.get("id")
        if msg_id is not None:
            pending = self._pending.get(msg_id)
            if pending is None or pending.future.done():
                return  # timed out or cancelled already
            error = message.get("error")
            if error is not None:
                pending.future.set_exception(
                    CDPError(pending.method, error.get("code", 0), error.get("message", ""), error.get("data"))
                )
            else:
                pending.future.set_result(message.get("result", {}))
            return
        method = message.get("method")
        if method is None:
            return
        params = message.get("params") or {}
        session_id = message.get("sessionId")
        session: CDPSession | None
        if session_id is None:
            session = self.root
        else:
            session = self._sessions.get(session_id)
            if session is None:
                self.unroutable_events += 1
                return
        # Session bookkeeping happens before subscribers see the event, so a handler
        # of attachedToTarget can already talk to the new session.
        if method == "Target.attachedToTarget":
            child = params.get("sessionId")
            if child:
                self._ensure_session(child, params.get("targetInfo"))
        elif method == "Target.detachedFromTarget":
            child = params.get("sessionId")
            if child:
                self._drop_session(child, SessionClosed("target detached"))
        elif method == "Target.targetInfoChanged":
            info = params.get("targetInfo") or {}
            for s in self._sessions.values():
                if s.target_info.get("targetId") == info.get("targetId"):
                    s.target_info.update(info)
        session._dispatch(CDPEvent(method, params, session_id))

    def _shutdown(self, reason: ConnectionClosed) -> None:
        if self._closed is not None:
            return
        self._closed = reason
        for pending in self._pending.values():
            if not pending.future.done():
                pending.future.set_exception(reason)
        self._pending.clear()
        for session_id in list(self._sessions):
            self._drop_session(session_id, reason)
        self.root._finish(reason)
        self._closed_event.set()

    # -- life cycle -------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed is not None

    @property
    def close_reason(self) -> ConnectionClosed | None:
        return self._closed

    @property
    def pending_count(self) -> int:
        """Commands sent and not yet answered (a map that only grows would be a leak)."""
        return len(self._pending)

    async def wait_closed(self) -> None:
        """Return once the socket is closed, whoever closed it."""
        await self._closed_event.wait()

    async def close(self) -> None:
        """Close the socket; pending commands fail with ConnectionClosed."""
        if self._closed is None:
            try:
                await asyncio.wait_for(self._ws.close(), 5)
            except Exception:
                pass
            self._shutdown(ConnectionClosed("connection closed by client"))
        if not self._reader.done():
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):
                pass

    async def __aenter__(self) -> Connection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
