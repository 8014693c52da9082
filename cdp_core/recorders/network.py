"""Network capture from raw CDP events: one entry per request hop, bodies that survive.

Why hand-built: Playwright over CDP drops redirect hops, ExtraInfo headers (cookies as
actually sent), bodies after navigation and WebSocket frames. Here every event is
handled by a synchronous callback in the connection's reader (a few dict operations,
never an await), and everything slow (``Network.getResponseBody``) runs in background
worker tasks, so a burst of thousands of requests is stored as fast as it arrives.

Pairing rules (measured, see docs): redirects reuse one ``requestId`` and each
``requestWillBeSent`` with ``redirectResponse`` closes the previous hop; ExtraInfo
events may come before or after their main event, or never; a failed fetch can be
``responseReceived`` then ``loadingFailed``.
"""

from __future__ import annotations

import asyncio
import base64
import builtins
import hashlib
import itertools
import logging
import re
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..connection import CDPSession
from ..errors import CDPError, CDPException
from ..events import CDPEvent
from .redact import DEFAULT_REDACT_HEADERS, HeaderRedactor, redact_form_fields, redact_secrets_in_text, truncate_text

log = logging.getLogger("cdp_core.recorders.network")

__all__ = ["NetworkRecorder", "BodyUnavailable", "BodyIsBinary", "EntryNotFound", "SavedBody", "iso_time"]

MiB = 1024 * 1024
EAGER_TYPES = frozenset({"document", "xhr", "fetch"})
TEXT_MIME = re.compile(
    r"^(text/|image/svg\+xml|application/"
    r"(json|javascript|ecmascript|xml|xhtml\+xml|x-www-form-urlencoded|.*\+json|.*\+xml))"
)

NETWORK_EVENTS = (
    "Network.requestWillBeSent",
    "Network.requestWillBeSentExtraInfo",
    "Network.responseReceived",
    "Network.responseReceivedExtraInfo",
    "Network.loadingFinished",
    "Network.loadingFailed",
    "Network.requestServedFromCache",
    "Network.webSocketCreated",
    "Network.webSocketWillSendHandshakeRequest",
    "Network.webSocketHandshakeResponseReceived",
    "Network.webSocketFrameSent",
    "Network.webSocketFrameReceived",
    "Network.webSocketFrameError",
    "Network.webSocketClosed",
    # The main frame's DOMContentLoaded and load (Page is enabled on every page session by the
    # dialog watch): the HAR's page timings.
    "Page.domContentEventFired",
    "Page.loadEventFired",
)


class EntryNotFound(LookupError):
    """No entry with that id (never captured, cleared or evicted)."""


class BodyUnavailable(Exception):
    """The browser no longer has this body (navigation, eviction) and we did not hold it."""


class BodyIsBinary(Exception):
    """A binary body was asked for without ``allow_binary``."""


def iso_time(epoch_seconds: float | None = None) -> str:
    """ISO-8601 UTC with milliseconds; ``None`` means now."""
    ts = time.time() if epoch_seconds is None else epoch_seconds
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def is_text_mime(mime: str) -> bool:
    return bool(TEXT_MIME.match((mime or "").lower()))


@dataclass(slots=True)
class SavedBody:
    """Where a body was written and what it was."""

    file_path: str
    bytes: int
    total_bytes: int
    mime_type: str
    sha256: str
    preview: str
    truncated: bool
    source: str  # "held" (eager copy), "browser" (fetched now), "request" (post data)

    def to_dict(self) -> dict[str, Any]:
        return {
            "filePath": self.file_path,
            "bytes": self.bytes,
            "totalBytes": self.total_bytes,
            "mimeType": self.mime_type,
            "sha256": self.sha256,
            "preview": self.preview,
            "truncated": self.truncated,
            "source": self.source,
        }


@dataclass(slots=True)
class _Frame:
    direction: str  # "sent" | "received" | "error"
    epoch: float
    opcode: int
    length: int
    preview: str


@dataclass(slots=True, eq=False)
class _Entry:
    """One request hop (or one WebSocket connection); raw data, redacted only on output."""

    id: int
    request_id: str
    session: CDPSession
    wall_time: float
    start_ts: float
    page_url: str
    method: str
    url: str
    resource_type: str
    request_headers: dict[str, Any]
    post_data: str | None = None
    has_post_data: bool = False
    initiator: dict[str, Any] | None = None
    frame_id: str | None = None
    document_url: str = ""
    request_extra_headers: dict[str, Any] | None = None
    status: int | None = None
    status_text: str = ""
    response_headers: dict[str, Any] | None = None
    response_extra_headers: dict[str, Any] | None = None
    mime_type: str = ""
    remote_address: str | None = None
    protocol: str | None = None
    from_cache: bool = False
    timing: dict[str, Any] | None = None
    response_ts: float | None = None
    end_ts: float | None = None
    finished: bool = False
    failed: bool = False
    failure_text: str | None = None
    canceled: bool = False
    encoded_bytes: int | None = None
    redirected_from: int | None = None
    redirected_to: int | None = None
    frame_kind: str = "page"
    resp_extra_expected: bool = True  # False when Chrome said hasExtraInfo=false (cache, some workers)
    body_state: str = "none"  # none | pending | held | too_large | failed | dropped
    request_body_file: str | None = None
    response_body_file: str | None = None
    # WebSocket only
    frames: deque[_Frame] | None = None
    frames_sent: int = 0
    frames_received: int = 0
    ws_closed: bool = False
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def duration_ms(self) -> float | None:
        if self.end_ts is None:
            return None
        return round((self.end_ts - self.start_ts) * 1000, 3)


class NetworkRecorder:
    """Per-page network capture: ring buffer of entries, held bodies, WebSocket frames.

    Construct once per page, then ``await attach(session)`` for the page session and for
    every child session (iframes in other processes, workers). ``captured_since`` says
    when capture started; nothing before it is claimed.
    """

    def __init__(
        self,
        *,
        max_entries: int = 300,
        preview_bytes: int = 2048,
        redact_headers: Iterable[str] = DEFAULT_REDACT_HEADERS,
        body_max_bytes: int = 5 * MiB,
        eager_body_max_bytes: int = 1 * MiB,
        eager_body_budget: int = 64 * MiB,
        max_total_buffer_size: int = 200 * MiB,
        max_resource_buffer_size: int = 20 * MiB,
        ws_max_frames: int = 100,
        eager_workers: int = 4,
        eager_queue_max: int = 512,
        page_url: Callable[[], str] | None = None,
    ) -> None:
        self.max_entries = max(1, int(max_entries))
        self.preview_bytes = max(0, int(preview_bytes))
        self.redactor = HeaderRedactor(redact_headers)
        self.body_max_bytes = int(body_max_bytes)
        self.eager_body_max_bytes = int(eager_body_max_bytes)
        self.eager_body_budget = int(eager_body_budget)
        self.max_total_buffer_size = int(max_total_buffer_size)
        self.max_resource_buffer_size = int(max_resource_buffer_size)
        self.ws_max_frames = int(ws_max_frames)
        self._page_url_fn = page_url
        self._page_url = ""
        self._page_session: CDPSession | None = None
        #: ("dcl" | "load", monotonic timestamp) of the page session's main frame, newest last
        self.page_marks: deque[tuple[str, float]] = deque(maxlen=512)
        self.captured_since: str | None = None
        self.evicted = 0
        #: Requests that reached loadingFinished/loadingFailed since attach (never reset by clear).
        self.completed = 0
        self._ids = itertools.count(1)
        self._entries: OrderedDict[int, _Entry] = OrderedDict()
        # (sessionId, requestId) -> hops of that request, oldest first; kept for a while after
        # the request ended so late ExtraInfo events still find their hop.
        self._chains: dict[tuple[str | None, str], list[_Entry]] = {}
        self._done_keys: deque[tuple[str | None, str]] = deque()
        self._chain_limit = max(8000, self.max_entries * 8)
        self._early_req_extra: dict[tuple[str | None, str], deque[dict[str, Any]]] = {}
        self._early_resp_extra: dict[tuple[str | None, str], deque[dict[str, Any]]] = {}
        self._held: OrderedDict[int, bytes] = OrderedDict()
        self.held_bytes = 0
        self.bodies_dropped = 0
        self._eager_queue: deque[_Entry] = deque()
        self._eager_queue_max = eager_queue_max
        self._eager_workers_max = max(1, eager_workers)
        self._eager_workers: set[asyncio.Task[None]] = set()
        self.eager_skipped = 0
        self._sessions: list[CDPSession] = []
        self._subscriptions: list[Any] = []

    # -- attaching ----------------------------------------------------------------------

    async def attach(self, session: CDPSession, *, frame_kind: str = "page") -> None:
        """Subscribe first (so nothing is missed), then enable Network with large buffers."""
        if self.captured_since is None:
            self.captured_since = iso_time()
        if frame_kind == "page" and self._page_session is None:
            self._page_session = session
            self._page_url = str(session.target_info.get("url", ""))
        kind = frame_kind
        sub = session.on(NETWORK_EVENTS, lambda ev: self._on_event(session, kind, ev))
        self._subscriptions.append(sub)
        self._sessions.append(session)
        params = {
            "maxTotalBufferSize": self.max_total_buffer_size,
            "maxResourceBufferSize": self.max_resource_buffer_size,
            "maxPostDataSize": max(self.eager_body_max_bytes, 65536),
        }
        try:
            await session.send("Network.enable", params)
        except CDPError:
            # Some targets (service workers on old builds) refuse the buffer options.
            await session.send("Network.enable", {})

    def detach(self) -> None:
        """Stop listening (entries stay readable); background fetches are cancelled."""
        for sub in self._subscriptions:
            sub.cancel()
        self._subscriptions.clear()
        for task in list(self._eager_workers):
            task.cancel()

    @property
    def page_url(self) -> str:
        if self._page_url_fn is not None:
            try:
                return self._page_url_fn() or self._page_url
            except Exception:
                return self._page_url
        return self._page_url

    # -- event handling (sync, in the reader) ------------------------------------------------

    def _on_event(self, session: CDPSession, frame_kind: str, ev: CDPEvent) -> None:
        handler = _HANDLERS.get(ev.method)
        if handler is not None:
            handler(self, session, frame_kind, ev.params)

    def _key(self, session: CDPSession, params: dict[str, Any]) -> tuple[str | None, str] | None:
        rid = params.get("requestId")
        return (session.session_id, rid) if rid else None

    def _current(self, key: tuple[str | None, str]) -> _Entry | None:
        chain = self._chains.get(key)
        return chain[-1] if chain else None

    def _store(self, entry: _Entry) -> None:
        self._entries[entry.id] = entry
        while len(self._entries) > self.max_entries:
            _, old = self._entries.popitem(last=False)
            self.evicted += 1
            body = self._held.pop(old.id, None)
            if body is not None:
                self.held_bytes -= len(body)

    def _retire(self, key: tuple[str | None, str]) -> None:
        """A request ended: keep its chain for late ExtraInfo, but only a bounded number."""
        self._done_keys.append(key)
        limit = max(2000, self.max_entries * 2)
        while len(self._done_keys) > limit:
            old = self._done_keys.popleft()
            chain = self._chains.get(old)
            if chain and not chain[-1].finished:
                continue
            self._chains.pop(old, None)
            self._early_req_extra.pop(old, None)
            self._early_resp_extra.pop(old, None)

    def _on_request(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        key = self._key(session, p)
        if key is None:
            return
        req = p.get("request") or {}
        previous = self._current(key)
        redirect = p.get("redirectResponse")
        if previous is not None and redirect is not None and not previous.finished:
            self._apply_response(previous, redirect, p.get("timestamp"), p.get("type"))
            if p.get("redirectHasExtraInfo") is False:
                previous.resp_extra_expected = False
            previous.end_ts = p.get("timestamp", previous.start_ts)
            previous.finished = True
            previous.encoded_bytes = int(redirect.get("encodedDataLength") or 0)
        rtype = str(p.get("type") or "other").lower()
        url = str(req.get("url", "")) + str(req.get("urlFragment") or "")
        entry = _Entry(
            id=next(self._ids),
            request_id=key[1],
            session=session,
            wall_time=float(p.get("wallTime") or time.time()),
            start_ts=float(p.get("timestamp") or 0.0),
            page_url=self.page_url,
            method=str(req.get("method", "GET")),
            url=url,
            resource_type=rtype,
            request_headers=dict(req.get("headers") or {}),
            post_data=req.get("postData"),
            has_post_data=bool(req.get("hasPostData") or req.get("postData")),
            initiator=p.get("initiator"),
            frame_id=p.get("frameId"),
            document_url=str(p.get("documentURL") or ""),
            frame_kind=frame_kind,
        )
        if previous is not None and redirect is not None:
            entry.redirected_from = previous.id
            previous.redirected_to = entry.id
            self._chains[key].append(entry)
        else:
            self._chains[key] = [entry]
            if len(self._chains) > self._chain_limit:
                self._purge_chains()
        early = self._early_req_extra.get(key)
        if early:
            entry.request_extra_headers = early.popleft().get("headers")
        self._store(entry)

    def _purge_chains(self) -> None:
        """Requests that never ended (tab closed mid-load, streams) must not pile up: forget evicted ones."""
        dead = [k for k, chain in self._chains.items() if chain[-1].id not in self._entries]
        for k in dead:
            del self._chains[k]
            self._early_req_extra.pop(k, None)
            self._early_resp_extra.pop(k, None)
        self._chain_limit = max(self._chain_limit, 2 * len(self._chains))

    def _on_request_extra(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        key = self._key(session, p)
        if key is None:
            return
        # Hops of one requestId get their request ExtraInfo in order (FIFO): the first hop still
        # without one takes it; if every hop has one, it belongs to a hop not created yet.
        for entry in self._chains.get(key, ()):
            if entry.request_extra_headers is None and entry.frames is None:
                entry.request_extra_headers = p.get("headers") or {}
                return
        pending = self._early_req_extra.setdefault(key, deque(maxlen=16))
        pending.append(p)

    def _on_response(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        key = self._key(session, p)
        if key is None:
            return
        entry = self._current(key)
        if entry is None:
            return
        resp = p.get("response") or {}
        self._apply_response(entry, resp, p.get("timestamp"), p.get("type"))
        if p.get("hasExtraInfo") is False:
            entry.resp_extra_expected = False
        if (
            entry.resource_type == "document"
            and entry.frame_kind == "page"
            and entry.frame_id
            and entry.frame_id == session.target_info.get("targetId")
        ):
            self._page_url = entry.url

    def _apply_response(self, entry: _Entry, resp: dict[str, Any], ts: Any, rtype: Any) -> None:
        entry.status = int(resp.get("status") or 0)
        entry.status_text = str(resp.get("statusText") or "")
        entry.response_headers = dict(resp.get("headers") or {})
        entry.mime_type = str(resp.get("mimeType") or "")
        ip = resp.get("remoteIPAddress")
        entry.remote_address = f"{ip}:{resp.get('remotePort')}" if ip else None
        entry.protocol = resp.get("protocol")
        entry.from_cache = bool(resp.get("fromDiskCache") or resp.get("fromPrefetchCache"))
        entry.timing = resp.get("timing")
        entry.response_ts = float(ts) if ts else None
        if rtype:
            entry.resource_type = str(rtype).lower()
        if entry.request_extra_headers is None and resp.get("requestHeaders"):
            entry.request_extra_headers = dict(resp["requestHeaders"])
        # Apply a response ExtraInfo that arrived before the response itself.
        key = (entry.session.session_id, entry.request_id)
        early = self._early_resp_extra.get(key)
        if early and entry.response_extra_headers is None and not entry.from_cache:
            entry.response_extra_headers = early.popleft().get("headers")

    def _on_response_extra(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        key = self._key(session, p)
        if key is None:
            return
        for entry in self._chains.get(key, ()):
            # The first hop that has a response but no ExtraInfo yet is this one's.
            if (
                entry.response_extra_headers is None
                and entry.status is not None
                and not entry.from_cache
                and entry.resp_extra_expected
            ):
                entry.response_extra_headers = p.get("headers") or {}
                if not entry.status and p.get("statusCode"):
                    entry.status = int(p["statusCode"])
                return
        self._early_resp_extra.setdefault(key, deque(maxlen=16)).append(p)

    def _on_finished(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        key = self._key(session, p)
        if key is None:
            return
        entry = self._current(key)
        if entry is None or entry.finished:
            return
        entry.finished = True
        self.completed += 1
        entry.end_ts = float(p.get("timestamp") or entry.start_ts)
        entry.encoded_bytes = int(p.get("encodedDataLength") or 0)
        self._retire(key)
        self._maybe_fetch_eagerly(entry)

    def _on_failed(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        key = self._key(session, p)
        if key is None:
            return
        entry = self._current(key)
        if entry is None:
            return
        if not entry.finished:
            self.completed += 1
        entry.finished = True
        entry.failed = True
        text = str(p.get("errorText") or "failed")
        if p.get("blockedReason"):
            text += f" (blocked: {p['blockedReason']})"
        if p.get("corsErrorStatus"):
            text += f" (CORS: {p['corsErrorStatus'].get('corsError')})"
        entry.failure_text = text
        entry.canceled = bool(p.get("canceled"))
        entry.end_ts = float(p.get("timestamp") or entry.start_ts)
        if p.get("type"):
            entry.resource_type = str(p["type"]).lower()
        self._retire(key)

    def _on_served_from_cache(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        key = self._key(session, p)
        entry = self._current(key) if key else None
        if entry is not None:
            entry.from_cache = True

    # WebSocket -------------------------------------------------------------------------

    def _on_ws_created(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        key = self._key(session, p)
        if key is None:
            return
        entry = _Entry(
            id=next(self._ids),
            request_id=key[1],
            session=session,
            wall_time=time.time(),
            start_ts=0.0,
            page_url=self.page_url,
            method="GET",
            url=str(p.get("url", "")),
            resource_type="websocket",
            request_headers={},
            initiator=p.get("initiator"),
            frame_kind=frame_kind,
            frames=deque(maxlen=self.ws_max_frames),
        )
        self._chains[key] = [entry]
        self._store(entry)

    def _on_ws_handshake_request(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        entry = self._ws_entry(session, p)
        if entry is None:
            return
        entry.start_ts = float(p.get("timestamp") or 0.0)
        if p.get("wallTime"):
            entry.wall_time = float(p["wallTime"])
        entry.request_headers = dict((p.get("request") or {}).get("headers") or {})

    def _on_ws_handshake_response(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        entry = self._ws_entry(session, p)
        if entry is None:
            return
        resp = p.get("response") or {}
        entry.status = int(resp.get("status") or 0)
        entry.status_text = str(resp.get("statusText") or "")
        entry.response_headers = dict(resp.get("headers") or {})
        if resp.get("requestHeaders"):
            entry.request_extra_headers = dict(resp["requestHeaders"])
        entry.response_ts = float(p.get("timestamp") or 0.0)

    def _ws_entry(self, session: CDPSession, p: dict[str, Any]) -> _Entry | None:
        key = self._key(session, p)
        entry = self._current(key) if key else None
        return entry if entry is not None and entry.frames is not None else None

    def _ws_frame(self, session: CDPSession, p: dict[str, Any], direction: str) -> None:
        entry = self._ws_entry(session, p)
        if entry is None or entry.frames is None:
            return
        if direction == "error":
            payload, opcode = str(p.get("errorMessage", "")), -1
        else:
            resp = p.get("response") or {}
            payload, opcode = str(resp.get("payloadData", "")), int(resp.get("opcode") or 1)
        if direction == "sent":
            entry.frames_sent += 1
        elif direction == "received":
            entry.frames_received += 1
        # Store only the bounded preview: frames can be megabytes and arrive by thousands.
        cut = payload[: self.preview_bytes]
        entry.frames.append(_Frame(direction, time.time(), opcode, len(payload), cut))

    def _on_ws_sent(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        self._ws_frame(session, p, "sent")

    def _on_ws_received(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        self._ws_frame(session, p, "received")

    def _on_ws_error(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        self._ws_frame(session, p, "error")

    def _on_ws_closed(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        entry = self._ws_entry(session, p)
        if entry is None:
            return
        entry.ws_closed = True
        entry.finished = True
        entry.end_ts = float(p.get("timestamp") or entry.start_ts)
        key = self._key(session, p)
        if key:
            self._retire(key)

    # -- eager bodies (background) -------------------------------------------------------------

    def _maybe_fetch_eagerly(self, entry: _Entry) -> None:
        """Queue the bodies of a finished document/xhr/fetch for the background workers (sync, cheap)."""
        if entry.resource_type not in EAGER_TYPES or self.eager_body_budget <= 0 or self.eager_body_max_bytes <= 0:
            return
        # Chrome leaves multipart-with-file and Blob bodies out of the event: ask for them too.
        want_request = entry.has_post_data and entry.post_data is None
        want_response = entry.status is not None and entry.status not in (204, 304) and not 300 <= entry.status < 400
        if want_response:
            declared = _content_length(entry.response_headers)
            # Never fetch what we would not keep: the encoded size or the declared length over the cap.
            if (entry.encoded_bytes or 0) > self.eager_body_max_bytes or (declared or 0) > self.eager_body_max_bytes:
                entry.body_state = "too_large"
                self.eager_skipped += 1
                want_response = False
        if not (want_request or want_response):
            return
        if len(self._eager_queue) >= self._eager_queue_max:
            dropped = self._eager_queue.popleft()
            if dropped.body_state == "pending":
                dropped.body_state = "none"
            self.eager_skipped += 1
        if want_response:
            entry.body_state = "pending"
        entry.extras["eager_request"] = want_request
        self._eager_queue.append(entry)
        if len(self._eager_workers) < self._eager_workers_max:
            try:
                task = asyncio.get_running_loop().create_task(self._eager_worker())
            except RuntimeError:
                return
            self._eager_workers.add(task)
            task.add_done_callback(self._eager_workers.discard)

    async def _eager_worker(self) -> None:
        while self._eager_queue:
            entry = self._eager_queue.popleft()
            if entry.id not in self._entries or entry.session.closed:
                if entry.body_state == "pending":
                    entry.body_state = "none"
                continue
            try:
                if entry.extras.pop("eager_request", False):
                    await self._fetch_request_body(entry)
                if entry.body_state == "pending":
                    await self._fetch_response_body(entry)
            except asyncio.CancelledError:
                raise
            except Exception:  # one odd body must not stop the worker and strand the queue
                log.exception("eager body fetch failed for %s", entry.url)
                if entry.body_state == "pending":
                    entry.body_state = "failed"

    async def _fetch_request_body(self, entry: _Entry) -> None:
        try:
            params = {"requestId": entry.request_id}
            result = await entry.session.send("Network.getRequestPostData", params, timeout=10)
        except CDPException:
            return
        post = result.get("postData")
        if isinstance(post, str) and len(post) <= self.eager_body_max_bytes:
            entry.post_data = post

    async def _fetch_response_body(self, entry: _Entry) -> None:
        try:
            params = {"requestId": entry.request_id}
            result = await entry.session.send("Network.getResponseBody", params, timeout=10)
        except CDPException:
            entry.body_state = "failed"
            return
        data = _decode_body(result)
        if len(data) > self.eager_body_max_bytes:
            entry.body_state = "too_large"
            return
        if entry.id in self._entries:
            self._hold(entry, data)

    def _hold(self, entry: _Entry, data: bytes) -> None:
        self._held[entry.id] = data
        self.held_bytes += len(data)
        entry.body_state = "held"
        while self.held_bytes > self.eager_body_budget and self._held:
            old_id, old = self._held.popitem(last=False)
            self.held_bytes -= len(old)
            self.bodies_dropped += 1
            old_entry = self._entries.get(old_id)
            if old_entry is not None:
                old_entry.body_state = "dropped"

    async def drain(self, timeout: float = 10.0) -> None:
        """Wait until queued eager body fetches are done (tests, shutdown, debug bundles)."""
        deadline = time.monotonic() + timeout
        while (self._eager_queue or self._eager_workers) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)

    # -- queries -------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def stats(self) -> dict[str, Any]:
        return {
            "capturedSince": self.captured_since,
            "stored": len(self._entries),
            "maxEntries": self.max_entries,
            "evicted": self.evicted,
            "bodiesHeld": len(self._held),
            "bodiesHeldBytes": self.held_bytes,
            "bodiesDropped": self.bodies_dropped,
            "completed": self.completed,
        }

    def list(
        self,
        *,
        resource_types: Iterable[str] | None = None,
        status_min: int | None = None,
        url_contains: str | None = None,
        method: str | None = None,
        failed_only: bool = False,
        limit: int | None = None,
        since_id: int | None = None,
    ) -> list[dict[str, Any]]:
        """Summaries matching every given filter, oldest first; ``limit`` keeps the newest."""
        types = {t.lower() for t in resource_types} if resource_types else None
        meth = method.upper() if method else None
        picked: list[_Entry] = []
        for entry in self._entries.values():
            if since_id is not None and entry.id <= since_id:
                continue
            if types is not None and entry.resource_type not in types:
                continue
            if status_min is not None and (entry.status is None or entry.status < status_min):
                continue
            if url_contains and url_contains not in entry.url:
                continue
            if meth and entry.method.upper() != meth:
                continue
            if failed_only and not entry.failed:
                continue
            picked.append(entry)
        if limit is not None and limit >= 0:
            picked = picked[-limit:] if limit else []
        return [self._summary(e) for e in picked]

    def entries(self) -> builtins.list[dict[str, Any]]:  # `list` here is the method above
        """Every stored entry in full (redacted), oldest first: the HAR exporter's input."""
        return [self._full(e) for e in self._entries.values()]

    def main_documents(self) -> builtins.list[dict[str, Any]]:
        """The page's navigations still stored, oldest first: first hop id, start (monotonic and
        ISO), final URL after redirects. One per main-frame document request chain."""
        out: list[dict[str, Any]] = []
        for e in list(self._entries.values()):
            if e.resource_type != "document" or e.frame_kind != "page" or e.redirected_from is not None:
                continue
            if not e.frame_id or e.frame_id != e.session.target_info.get("targetId"):
                continue  # a same-process iframe's document
            last = e
            while last.redirected_to is not None and last.redirected_to in self._entries:
                last = self._entries[last.redirected_to]
            out.append({"id": e.id, "ts": e.start_ts, "started": iso_time(e.wall_time), "url": last.url})
        return out

    def first_entry(self) -> tuple[int, str] | None:
        """(id, page URL) of the oldest stored entry."""
        for e in self._entries.values():
            return e.id, e.page_url
        return None

    def _on_page_mark(self, session: CDPSession, frame_kind: str, kind: str, p: dict[str, Any]) -> None:
        if frame_kind == "page" and session is self._page_session and p.get("timestamp"):
            self.page_marks.append((kind, float(p["timestamp"])))

    def har_inputs(self) -> Iterator[tuple[dict[str, Any], str | None, bytes | None]]:
        """(full redacted entry, raw post data, held response body) per entry, for the HAR writer."""
        for e in list(self._entries.values()):
            yield self._full(e), e.post_data, self._held.get(e.id)

    def held_body(self, entry_id: int) -> bytes | None:
        """The eagerly fetched response body of an entry, if we hold it."""
        return self._held.get(int(entry_id))

    def get(self, entry_id: int) -> dict[str, Any]:
        """The full entry (redacted headers, initiator, timing, last WebSocket frames)."""
        entry = self._entries.get(int(entry_id))
        if entry is None:
            raise EntryNotFound(self._missing_message(entry_id))
        return self._full(entry)

    def entry_id_for(self, request_id: str) -> int | None:
        """The id of the newest stored entry (redirect hop) of a CDP ``requestId``, on any session."""
        for (_, rid), chain in self._chains.items():
            if rid == request_id and chain and chain[-1].id in self._entries:
                return chain[-1].id
        return None

    def has(self, entry_id: int) -> bool:
        return int(entry_id) in self._entries

    def clear(self) -> int:
        """Forget stored entries and held bodies; in-flight requests keep being recorded."""
        n = len(self._entries)
        self._entries.clear()
        self._held.clear()
        self.held_bytes = 0
        self.evicted = 0
        self._eager_queue.clear()
        return n

    def _missing_message(self, entry_id: int) -> str:
        first = next(iter(self._entries), None)
        if first is not None and int(entry_id) < first:
            return f"network entry {entry_id} was evicted (oldest kept is {first}; {self.evicted} evicted)"
        return f"no network entry {entry_id}"

    # -- output shapes ---------------------------------------------------------------------------

    def _request_headers(self, e: _Entry) -> dict[str, str]:
        return self.redactor.headers(e.request_extra_headers or e.request_headers)

    def _response_headers(self, e: _Entry) -> dict[str, str]:
        return self.redactor.headers(e.response_extra_headers or e.response_headers)

    def _preview_headers(self, headers: dict[str, str]) -> dict[str, str]:
        out: dict[str, str] = {}
        used = 0
        for k, v in headers.items():
            used += len(k) + len(v) + 4
            if used > self.preview_bytes:
                out["…"] = "truncated"
                break
            out[k] = v
        return out

    def _post_preview(self, e: _Entry) -> str | None:
        if e.post_data is None:
            return "[post data not captured: use network_save_body body=request]" if e.has_post_data else None
        ctype = _header(e.request_extra_headers or e.request_headers, "content-type")
        text, cut = truncate_text(redact_form_fields(e.post_data, ctype), self.preview_bytes)
        return text + ("…" if cut else "")

    def _initiator(self, e: _Entry) -> dict[str, Any] | None:
        """Who started the request; line/column numbers 1-based like the console entries."""
        ini = e.initiator
        if not ini:
            return None
        out: dict[str, Any] = {"type": ini.get("type")}
        if ini.get("url"):
            out["url"] = ini["url"]
        if ini.get("lineNumber") is not None:
            out["lineNumber"] = int(ini["lineNumber"]) + 1
        stack = ini.get("stack")
        while stack:
            frames = stack.get("callFrames") or []
            if frames:
                out["stack"] = [
                    {
                        "function": f.get("functionName") or "(anonymous)",
                        "url": f.get("url"),
                        "lineNumber": int(f.get("lineNumber", 0)) + 1,
                        "columnNumber": int(f.get("columnNumber", 0)) + 1,
                    }
                    for f in frames[:10]
                ]
                out["stackTop"] = out["stack"][0]
                break
            stack = stack.get("parent")
        return out

    def _summary(self, e: _Entry) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": e.id,
            "requestId": e.request_id,
            "timestamp": iso_time(e.wall_time),
            "method": e.method,
            "url": e.url,
            "resourceType": e.resource_type,
            "status": e.status,
            "statusText": e.status_text,
            "failed": e.failed,
            "failureText": e.failure_text,
            "durationMs": e.duration_ms,
            "encodedBytes": e.encoded_bytes,
            "mimeType": e.mime_type,
            "redirectedFrom": e.redirected_from,
            "bodyHeld": e.body_state == "held",
            "pageUrl": e.page_url,
            "requestBodyFile": e.request_body_file,
            "responseBodyFile": e.response_body_file,
        }
        if e.frames is not None:
            d["framesSent"] = e.frames_sent
            d["framesReceived"] = e.frames_received
            d["closed"] = e.ws_closed
        return d

    def _full(self, e: _Entry) -> dict[str, Any]:
        d = self._summary(e)
        d.update(
            {
                "documentUrl": e.document_url,
                "frameKind": e.frame_kind,
                "requestHeadersPreview": self._preview_headers(self._request_headers(e)),
                "responseHeadersPreview": self._preview_headers(self._response_headers(e)),
                "requestHeaders": self._request_headers(e),
                "responseHeaders": self._response_headers(e),
                "postDataPreview": self._post_preview(e),
                "hasPostData": e.has_post_data,
                "initiator": self._initiator(e),
                "redirectedTo": e.redirected_to,
                "remoteAddress": e.remote_address,
                "protocol": e.protocol,
                "fromCache": e.from_cache,
                "finished": e.finished,
                "bodyState": e.body_state,
                "timing": e.timing,
                "startedDateTime": iso_time(e.wall_time),
                "responseOffsetMs": round((e.response_ts - e.start_ts) * 1000, 3) if e.response_ts else None,
            }
        )
        if e.frames is not None:
            d["lastFrames"] = [
                {
                    "direction": f.direction,
                    "timestamp": iso_time(f.epoch),
                    "epoch": f.epoch,
                    "opcode": f.opcode,
                    "length": f.length,
                    "preview": redact_secrets_in_text(f.preview) + ("…" if f.length > len(f.preview) else ""),
                }
                for f in e.frames
            ]
        return d

    # -- bodies ----------------------------------------------------------------------------------

    async def _response_bytes(self, e: _Entry) -> tuple[bytes, str]:
        held = self._held.get(e.id)
        if held is not None:
            return held, "held"
        if e.frames is not None:
            raise BodyUnavailable(f"entry {e.id} is a WebSocket; its frames are in network_get")
        if e.redirected_to is not None:
            # The requestId now names the next hop: asking the browser would return the wrong body.
            raise BodyUnavailable(f"entry {e.id} is a redirect hop ({e.status}); see entry {e.redirected_to}")
        if e.failed and e.status is None:
            raise BodyUnavailable(f"request {e.id} failed ({e.failure_text}); there is no response body")
        if not e.finished:
            raise BodyUnavailable(f"response {e.id} has not finished loading yet")
        if e.session.closed:
            raise BodyUnavailable(f"the tab or frame of entry {e.id} is gone and its body was not held")
        try:
            result = await e.session.send("Network.getResponseBody", {"requestId": e.request_id}, timeout=15)
        except CDPException as exc:
            if e.encoded_bytes and e.encoded_bytes > self.max_resource_buffer_size:
                # Chrome keeps no body beyond maxResourceBufferSize: say why, not just "not found".
                raise BodyUnavailable(
                    f"the body of entry {e.id} ({e.encoded_bytes} bytes on the wire) is larger than the "
                    f"{self.max_resource_buffer_size} bytes Chrome keeps per response, so no copy exists"
                ) from exc
            raise BodyUnavailable(f"the browser no longer has the body of entry {e.id}: {exc}") from exc
        return _decode_body(result), "browser"

    async def _request_bytes(self, e: _Entry) -> tuple[bytes, str]:
        if e.post_data is not None:
            return e.post_data.encode("utf-8", "surrogateescape"), "request"
        if not e.has_post_data:
            raise BodyUnavailable(f"request {e.id} ({e.method}) has no body")
        try:
            result = await e.session.send("Network.getRequestPostData", {"requestId": e.request_id}, timeout=15)
        except CDPException as exc:
            raise BodyUnavailable(f"the browser no longer has the request body of entry {e.id}: {exc}") from exc
        return str(result.get("postData", "")).encode("utf-8", "surrogateescape"), "browser"

    async def body_bytes(self, entry_id: int, which: str = "response") -> tuple[bytes, str, str]:
        """Raw body bytes, its mime type and where it came from (held/browser/request)."""
        e = self._entries.get(int(entry_id))
        if e is None:
            raise EntryNotFound(self._missing_message(entry_id))
        if which == "request":
            data, source = await self._request_bytes(e)
            ctype = _header(e.request_extra_headers or e.request_headers, "content-type") or "text/plain"
            return data, ctype.split(";")[0].strip(), source
        data, source = await self._response_bytes(e)
        return data, e.mime_type or "application/octet-stream", source

    async def save_body(
        self,
        entry_id: int,
        *,
        which: str = "response",
        dest_dir: str | Path,
        max_bytes: int | None = None,
        allow_binary: bool = False,
    ) -> SavedBody:
        """Write a request or response body to ``dest_dir``; capped at ``max_bytes``."""
        if which not in ("response", "request"):
            raise ValueError("which must be 'response' or 'request'")
        e = self._entries.get(int(entry_id))
        if e is None:
            raise EntryNotFound(self._missing_message(entry_id))
        data, mime, source = await self.body_bytes(entry_id, which)
        binary = not is_text_mime(mime) and not _looks_textual(data)
        if binary and not allow_binary:
            raise BodyIsBinary(f"the {which} body of entry {entry_id} is binary ({mime}, {len(data)} bytes)")
        if which == "request" and not binary:
            # What the page sent may carry a typed password or token (login forms, JSON APIs): the
            # file gets the same field redaction as the preview, since saved files are tool output too.
            ctype = _header(e.request_extra_headers or e.request_headers, "content-type") or mime
            data = redact_form_fields(data.decode("utf-8", "surrogateescape"), ctype).encode("utf-8", "surrogateescape")
        cap = self.body_max_bytes if max_bytes is None else max(0, int(max_bytes))
        total = len(data)
        truncated = total > cap
        kept = data[:cap] if truncated else data
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
        path = Path(dest_dir) / f"{stamp}-{e.id}-{which}-{_slug(e.url)}{_extension(mime, binary)}"
        _write_file(path, kept)
        if which == "response":
            e.response_body_file = str(path)
        else:
            e.request_body_file = str(path)
        preview = "" if binary else kept[: self.preview_bytes].decode("utf-8", "replace")
        if which == "request" and preview:
            preview = redact_secrets_in_text(preview)  # already redacted whole above; a cut preview stays so
        return SavedBody(
            file_path=str(path),
            bytes=len(kept),
            total_bytes=total,
            mime_type=mime,
            sha256=hashlib.sha256(kept).hexdigest(),
            preview=preview,
            truncated=truncated,
            source=source,
        )


def _write_file(path: Path, data: bytes) -> None:
    """Bodies are at most a few MiB: a synchronous write is shorter than a thread hop."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _decode_body(result: dict[str, Any]) -> bytes:
    body = result.get("body", "")
    if result.get("base64Encoded"):
        return base64.b64decode(body)
    return str(body).encode("utf-8", "surrogateescape")


def _header(headers: dict[str, Any] | None, name: str) -> str | None:
    for k, v in (headers or {}).items():
        if k.lower() == name:
            return str(v)
    return None


def _content_length(headers: dict[str, Any] | None) -> int | None:
    value = _header(headers, "content-length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _looks_textual(data: bytes) -> bool:
    sample = data[:4096]
    if b"\x00" in sample:
        return False
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start > len(sample) - 4  # a multi-byte char cut at the sample's end
    return True


def _slug(url: str) -> str:
    tail = url.split("?")[0].rstrip("/").rsplit("/", 1)[-1] or "index"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", tail)[:40].strip("._") or "body"


_EXT = {
    "text/html": ".html",
    "application/json": ".json",
    "text/plain": ".txt",
    "text/css": ".css",
    "application/javascript": ".js",
    "text/javascript": ".js",
    "application/xml": ".xml",
    "text/xml": ".xml",
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/svg+xml": ".svg",
    "application/x-www-form-urlencoded": ".txt",
}


def _extension(mime: str, binary: bool) -> str:
    return _EXT.get(mime.lower(), ".bin" if binary else ".txt")


_HANDLERS: dict[str, Callable[[NetworkRecorder, CDPSession, str, dict[str, Any]], None]] = {
    "Network.requestWillBeSent": NetworkRecorder._on_request,
    "Network.requestWillBeSentExtraInfo": NetworkRecorder._on_request_extra,
    "Network.responseReceived": NetworkRecorder._on_response,
    "Network.responseReceivedExtraInfo": NetworkRecorder._on_response_extra,
    "Network.loadingFinished": NetworkRecorder._on_finished,
    "Network.loadingFailed": NetworkRecorder._on_failed,
    "Network.requestServedFromCache": NetworkRecorder._on_served_from_cache,
    "Network.webSocketCreated": NetworkRecorder._on_ws_created,
    "Network.webSocketWillSendHandshakeRequest": NetworkRecorder._on_ws_handshake_request,
    "Network.webSocketHandshakeResponseReceived": NetworkRecorder._on_ws_handshake_response,
    "Network.webSocketFrameSent": NetworkRecorder._on_ws_sent,
    "Network.webSocketFrameReceived": NetworkRecorder._on_ws_received,
    "Network.webSocketFrameError": NetworkRecorder._on_ws_error,
    "Network.webSocketClosed": NetworkRecorder._on_ws_closed,
    "Page.domContentEventFired": lambda r, s, k, p: r._on_page_mark(s, k, "dcl", p),
    "Page.loadEventFired": lambda r, s, k, p: r._on_page_mark(s, k, "load", p),
}
