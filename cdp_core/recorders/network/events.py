"""Collecting network capture: the CDP event handlers, synchronous and cheap, in the reader.

Pairing rules (measured, see docs): redirects reuse one ``requestId`` and each ``requestWillBeSent``
with ``redirectResponse`` closes the previous hop; ExtraInfo events may come before or after
their main event, or never; a failed fetch can be ``responseReceived`` then ``loadingFailed``.
Every handler is a few dict operations, never an await: anything slow (bodies) is handed to
``request_finished`` (:class:`.held.HeldBodies`), which only queues it.
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from ...connection import CDPSession
from ...events import CDPEvent
from .model import Entry, WsFrame
from .store import ITEM_OVERHEAD, EntryStore, headers_size

__all__ = ["EventCollector", "DOWNLOADS_KEPT"]

#: Estimated bytes of a response's timing dict.
TIMING_SIZE = 600
#: How many of the newest requests are searched for the one a download came from.
DOWNLOAD_LOOKBACK = 200
#: Downloads remembered per page (what an action started is read right after it).
DOWNLOADS_KEPT = 100

ChainKey = tuple[str | None, str]


class EventCollector:
    """Turns Network events into entries of ``store``: one per request hop, ExtraInfo paired.

    It also keeps what the same events say about the page: its DOMContentLoaded and load marks
    (the HAR's page timings), the downloads it began, and the URL it shows.
    """

    def __init__(
        self,
        store: EntryStore,
        *,
        page_url: Callable[[], str],
        request_finished: Callable[[Entry], None],
        preview_bytes: int,
        ws_max_frames: int,
    ) -> None:
        self._store = store
        self._page_url = page_url
        self._request_finished = request_finished
        self.preview_bytes = preview_bytes
        self.ws_max_frames = ws_max_frames
        #: Requests that reached loadingFinished/loadingFailed (never reset by the store's clear).
        self.completed = 0
        #: the page's own session (its frame's marks and document URL count), the first one adopted
        self.page_session: CDPSession | None = None
        #: the URL the page shows, as its last main-frame document response said
        self.shown_url = ""
        #: ("dcl" | "load", monotonic timestamp) of the page session's main frame, newest last
        self.page_marks: deque[tuple[str, float]] = deque(maxlen=512)
        #: downloads that began on the page, newest last: ``seq`` (1, 2, ...), ``url``, ``file`` and
        #: ``entry`` (the id of the request that brought it; None for a blob: or data: URL)
        self.downloads: deque[dict[str, Any]] = deque(maxlen=DOWNLOADS_KEPT)
        self.downloads_seen = 0
        self._ids = itertools.count(1)
        # (sessionId, requestId) -> hops of that request, oldest first; kept for a while after
        # the request ended so late ExtraInfo events still find their hop.
        self.chains: dict[ChainKey, list[Entry]] = {}
        self.chain_limit = max(8000, (store.max_entries or 0) * 8)
        self._done_keys: deque[ChainKey] = deque()
        self._early_req_extra: dict[ChainKey, deque[dict[str, Any]]] = {}
        self._early_resp_extra: dict[ChainKey, deque[dict[str, Any]]] = {}

    def adopt_page(self, session: CDPSession) -> None:
        """``session`` is the page's own (the first adopted stays): its URL is the page's until a document says."""
        if self.page_session is None:
            self.page_session = session
            self.shown_url = str(session.target_info.get("url", ""))

    def entry_id_for(self, request_id: str) -> int | None:
        """The id of the newest stored entry (redirect hop) of a CDP ``requestId``, on any session."""
        for (_, rid), chain in self.chains.items():
            if rid == request_id and chain and chain[-1].id in self._store:
                return chain[-1].id
        return None

    # -- pairing state -------------------------------------------------------------------

    def _key(self, session: CDPSession, params: dict[str, Any]) -> ChainKey | None:
        rid = params.get("requestId")
        return (session.session_id, rid) if rid else None

    def _current(self, key: ChainKey) -> Entry | None:
        chain = self.chains.get(key)
        return chain[-1] if chain else None

    def _retire(self, key: ChainKey) -> None:
        """A request ended: keep its chain for late ExtraInfo, but only a bounded number."""
        self._done_keys.append(key)
        limit = max(2000, (self._store.max_entries or 0) * 2)
        while len(self._done_keys) > limit:
            old = self._done_keys.popleft()
            chain = self.chains.get(old)
            if chain and not chain[-1].finished:
                continue
            self.chains.pop(old, None)
            self._early_req_extra.pop(old, None)
            self._early_resp_extra.pop(old, None)

    def _purge_chains(self) -> None:
        """Requests that never ended (tab closed mid-load, streams) must not pile up: forget evicted ones."""
        dead = [k for k, chain in self.chains.items() if chain[-1].id not in self._store]
        for k in dead:
            del self.chains[k]
            self._early_req_extra.pop(k, None)
            self._early_resp_extra.pop(k, None)
        self.chain_limit = max(self.chain_limit, 2 * len(self.chains))

    # -- handlers ------------------------------------------------------------------------

    def on_event(self, session: CDPSession, frame_kind: str, ev: CDPEvent) -> None:
        handler = _HANDLERS.get(ev.method)
        if handler is not None:
            handler(self, session, frame_kind, ev.params)

    def _on_request(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        key = self._key(session, p)
        if key is None:
            return
        req = p.get("request") or {}
        previous = self._current(key)
        redirect = p.get("redirectResponse")
        if previous is not None and redirect is not None and not previous.finished:
            self._apply_response(previous, redirect, p.get("timestamp"), p.get("type"))
            if isinstance(p.get("redirectHasExtraInfo"), bool):
                previous.extra_info_said = p["redirectHasExtraInfo"]
            previous.end_ts = p.get("timestamp", previous.start_ts)
            previous.finished = True
            previous.encoded_bytes = int(redirect.get("encodedDataLength") or 0)
        rtype = str(p.get("type") or "other").lower()
        url = str(req.get("url", "")) + str(req.get("urlFragment") or "")
        entry = Entry(
            id=next(self._ids),
            request_id=key[1],
            session=session,
            wall_time=float(p.get("wallTime") or time.time()),
            start_ts=float(p.get("timestamp") or 0.0),
            page_url=self._page_url(),
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
            self.chains[key].append(entry)
        else:
            self.chains[key] = [entry]
            if len(self.chains) > self.chain_limit:
                self._purge_chains()
        early = self._early_req_extra.get(key)
        if early:
            entry.request_extra_headers = early.popleft().get("headers")
        self._store.add(entry)

    def _on_request_extra(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        key = self._key(session, p)
        if key is None:
            return
        # Hops of one requestId get their request ExtraInfo in order (FIFO): the first hop still
        # without one takes it; if every hop has one, it belongs to a hop not created yet.
        for entry in self.chains.get(key, ()):
            if entry.request_extra_headers is None and entry.frames is None:
                entry.request_extra_headers = p.get("headers") or {}
                self._store.grow(entry, headers_size(entry.request_extra_headers))
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
        if isinstance(p.get("hasExtraInfo"), bool):
            entry.extra_info_said = p["hasExtraInfo"]
        if (
            entry.resource_type == "document"
            and entry.frame_kind == "page"
            and entry.frame_id
            and entry.frame_id == session.target_info.get("targetId")
        ):
            self.shown_url = entry.url

    def _apply_response(self, entry: Entry, resp: dict[str, Any], ts: Any, rtype: Any) -> None:
        before = headers_size(entry.response_headers) + headers_size(entry.request_extra_headers)
        before += headers_size(entry.response_extra_headers) + len(entry.status_text) + len(entry.mime_type)
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
        after = headers_size(entry.response_headers) + headers_size(entry.request_extra_headers)
        after += headers_size(entry.response_extra_headers) + len(entry.status_text) + len(entry.mime_type)
        self._store.grow(entry, after - before + (TIMING_SIZE if entry.timing else 0))

    def _on_response_extra(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        key = self._key(session, p)
        if key is None:
            return
        for entry in self.chains.get(key, ()):
            # The first hop that has a response but no ExtraInfo yet is this one's.
            if (
                entry.response_extra_headers is None
                and entry.status is not None
                and not entry.from_cache
                and entry.resp_extra_expected
            ):
                entry.response_extra_headers = p.get("headers") or {}
                self._store.grow(entry, headers_size(entry.response_extra_headers))
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
        self._request_finished(entry)

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
        self._store.grow(entry, len(text))
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
        entry = Entry(
            id=next(self._ids),
            request_id=key[1],
            session=session,
            wall_time=time.time(),
            start_ts=0.0,
            page_url=self._page_url(),
            method="GET",
            url=str(p.get("url", "")),
            resource_type="websocket",
            request_headers={},
            initiator=p.get("initiator"),
            frame_kind=frame_kind,
            frames=deque(maxlen=self.ws_max_frames),
        )
        self.chains[key] = [entry]
        self._store.add(entry)

    def _on_ws_handshake_request(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        entry = self._ws_entry(session, p)
        if entry is None:
            return
        entry.start_ts = float(p.get("timestamp") or 0.0)
        if p.get("wallTime"):
            entry.wall_time = float(p["wallTime"])
        entry.request_headers = dict((p.get("request") or {}).get("headers") or {})
        self._store.grow(entry, headers_size(entry.request_headers))

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
        self._store.grow(entry, headers_size(entry.response_headers) + headers_size(entry.request_extra_headers))
        entry.response_ts = float(p.get("timestamp") or 0.0)

    def _ws_entry(self, session: CDPSession, p: dict[str, Any]) -> Entry | None:
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
        dropped = len(entry.frames[0].preview) + ITEM_OVERHEAD if len(entry.frames) == entry.frames.maxlen else 0
        entry.frames.append(WsFrame(direction, time.time(), opcode, len(payload), cut))
        self._store.grow(entry, len(cut) + ITEM_OVERHEAD - dropped)

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

    def _on_download(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        """Chrome took a response as a download: its request is marked (the ERR_ABORTED that ends it
        is the download's own doing, not a failure) and the download is remembered."""
        url = str(p.get("url") or "")
        name = str(p.get("suggestedFilename") or "") or url.rsplit("/", 1)[-1].split("?", 1)[0] or "download"
        entry = None
        # The download begins as its response arrives: its request is among the newest ones.
        for candidate in itertools.islice(reversed(self._store.entries.values()), DOWNLOAD_LOOKBACK):
            if candidate.session is session and candidate.url == url and candidate.download is None:
                entry = candidate
                break
        if entry is not None:
            entry.download = name
        self.downloads_seen += 1
        self.downloads.append(
            {
                "seq": self.downloads_seen,
                "url": url,
                "file": name,
                "entry": entry.id if entry else None,
                "began": time.monotonic(),
            }
        )

    def _on_page_mark(self, session: CDPSession, frame_kind: str, kind: str, p: dict[str, Any]) -> None:
        if frame_kind == "page" and session is self.page_session and p.get("timestamp"):
            self.page_marks.append((kind, float(p["timestamp"])))


_HANDLERS: dict[str, Callable[[EventCollector, CDPSession, str, dict[str, Any]], None]] = {
    "Network.requestWillBeSent": EventCollector._on_request,
    "Network.requestWillBeSentExtraInfo": EventCollector._on_request_extra,
    "Network.responseReceived": EventCollector._on_response,
    "Network.responseReceivedExtraInfo": EventCollector._on_response_extra,
    "Network.loadingFinished": EventCollector._on_finished,
    "Network.loadingFailed": EventCollector._on_failed,
    "Network.requestServedFromCache": EventCollector._on_served_from_cache,
    "Network.webSocketCreated": EventCollector._on_ws_created,
    "Network.webSocketWillSendHandshakeRequest": EventCollector._on_ws_handshake_request,
    "Network.webSocketHandshakeResponseReceived": EventCollector._on_ws_handshake_response,
    "Network.webSocketFrameSent": EventCollector._on_ws_sent,
    "Network.webSocketFrameReceived": EventCollector._on_ws_received,
    "Network.webSocketFrameError": EventCollector._on_ws_error,
    "Network.webSocketClosed": EventCollector._on_ws_closed,
    "Page.domContentEventFired": lambda r, s, k, p: r._on_page_mark(s, k, "dcl", p),
    "Page.loadEventFired": lambda r, s, k, p: r._on_page_mark(s, k, "load", p),
    "Page.downloadWillBegin": EventCollector._on_download,
}
