"""Collecting network capture: the CDP event handlers, synchronous and cheap, in the reader.

Pairing rules (measured, see docs): redirects reuse one ``requestId`` and each
``requestWillBeSent`` with ``redirectResponse`` closes the previous hop; ExtraInfo events may
come before or after their main event, or never; a failed fetch can be ``responseReceived``
then ``loadingFailed``. Every handler is a few dict operations, never an await: anything slow
(bodies) is queued for :mod:`.bodies`.
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
from .state import ITEM_OVERHEAD, RecorderState, headers_size

__all__ = ["NetworkEvents"]

#: Estimated bytes of a response's timing dict.
TIMING_SIZE = 600
#: How many of the newest requests are searched for the one a download came from.
DOWNLOAD_LOOKBACK = 200


class NetworkEvents(RecorderState):
    """The handlers of every Network event the recorder subscribes to."""

    def _on_event(self, session: CDPSession, frame_kind: str, ev: CDPEvent) -> None:
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

    def _on_request_extra(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        key = self._key(session, p)
        if key is None:
            return
        # Hops of one requestId get their request ExtraInfo in order (FIFO): the first hop still
        # without one takes it; if every hop has one, it belongs to a hop not created yet.
        for entry in self._chains.get(key, ()):
            if entry.request_extra_headers is None and entry.frames is None:
                entry.request_extra_headers = p.get("headers") or {}
                self._grow(entry, headers_size(entry.request_extra_headers))
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
            self._page_url = entry.url

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
        self._grow(entry, after - before + (TIMING_SIZE if entry.timing else 0))

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
                self._grow(entry, headers_size(entry.response_extra_headers))
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
        self._grow(entry, len(text))
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
        self._grow(entry, headers_size(entry.request_headers))

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
        self._grow(entry, headers_size(entry.response_headers) + headers_size(entry.request_extra_headers))
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
        self._grow(entry, len(cut) + ITEM_OVERHEAD - dropped)

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
        for candidate in itertools.islice(reversed(self._entries.values()), DOWNLOAD_LOOKBACK):
            if candidate.session is session and candidate.url == url and candidate.download is None:
                entry = candidate
                break
        if entry is not None:
            entry.download = name
        self.downloads_seen += 1
        self.downloads.append(
            {"seq": self.downloads_seen, "url": url, "file": name, "entry": entry.id if entry else None}
        )

    def _on_page_mark(self, session: CDPSession, frame_kind: str, kind: str, p: dict[str, Any]) -> None:
        if frame_kind == "page" and session is self._page_session and p.get("timestamp"):
            self.page_marks.append((kind, float(p["timestamp"])))


_HANDLERS: dict[str, Callable[[NetworkEvents, CDPSession, str, dict[str, Any]], None]] = {
    "Network.requestWillBeSent": NetworkEvents._on_request,
    "Network.requestWillBeSentExtraInfo": NetworkEvents._on_request_extra,
    "Network.responseReceived": NetworkEvents._on_response,
    "Network.responseReceivedExtraInfo": NetworkEvents._on_response_extra,
    "Network.loadingFinished": NetworkEvents._on_finished,
    "Network.loadingFailed": NetworkEvents._on_failed,
    "Network.requestServedFromCache": NetworkEvents._on_served_from_cache,
    "Network.webSocketCreated": NetworkEvents._on_ws_created,
    "Network.webSocketWillSendHandshakeRequest": NetworkEvents._on_ws_handshake_request,
    "Network.webSocketHandshakeResponseReceived": NetworkEvents._on_ws_handshake_response,
    "Network.webSocketFrameSent": NetworkEvents._on_ws_sent,
    "Network.webSocketFrameReceived": NetworkEvents._on_ws_received,
    "Network.webSocketFrameError": NetworkEvents._on_ws_error,
    "Network.webSocketClosed": NetworkEvents._on_ws_closed,
    "Page.domContentEventFired": lambda r, s, k, p: r._on_page_mark(s, k, "dcl", p),
    "Page.loadEventFired": lambda r, s, k, p: r._on_page_mark(s, k, "load", p),
    "Page.downloadWillBegin": NetworkEvents._on_download,
}
