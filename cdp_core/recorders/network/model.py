"""The data of network capture: one :class:`Entry` per request hop, errors, and small helpers.

Shared by the collaborators of :class:`~cdp_core.recorders.network.NetworkRecorder`: the
collector fills entries (:mod:`.events`), the store bounds them (:mod:`.store`), the body
keepers read their bodies (:mod:`.held`, :mod:`.bodies`) and the shaper builds the output
records (:mod:`.shape`). Entries hold raw data; redaction happens on output.
"""

from __future__ import annotations

import base64
import re
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...connection import CDPSession

__all__ = [
    "Entry",
    "WsFrame",
    "SavedBody",
    "EntryNotFound",
    "BodyUnavailable",
    "BodyIsBinary",
    "iso_time",
    "is_text_mime",
    "NETWORK_EVENTS",
    "EAGER_TYPES",
    "MiB",
    "write_file",
    "decode_body",
    "post_data_bytes",
    "header",
    "content_length",
    "looks_textual",
    "slug",
    "extension",
]

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
    # A response the browser took as a download (its request then ends in net::ERR_ABORTED).
    "Page.downloadWillBegin",
)


class EntryNotFound(LookupError):
    """No entry with that id (never captured, cleared or evicted)."""


class BodyUnavailable(Exception):
    """The browser no longer has this body (navigation, eviction) and we did not hold it.

    ``reason`` names the case in one word, so that the next step offered beside the message
    fits it (an answer whose hint contradicts its message sends the agent the wrong way):
    ``websocket``, ``redirect_hop``, ``no_response``, ``not_finished``, ``tab_closed``,
    ``over_chrome_limit``, ``gone`` (Chrome no longer has it), ``no_request_body``, ``request_gone``.
    """

    def __init__(self, message: str, reason: str = "gone") -> None:
        super().__init__(message)
        self.reason = reason


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
class WsFrame:
    direction: str  # "sent" | "received" | "error"
    epoch: float
    opcode: int
    length: int
    preview: str


@dataclass(slots=True, eq=False)
class Entry:
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
    #: the file name Chrome suggested when it took this response as a download (None: not one)
    download: str | None = None
    encoded_bytes: int | None = None
    redirected_from: int | None = None
    redirected_to: int | None = None
    frame_kind: str = "page"
    #: Chrome's ``hasExtraInfo`` for this hop: will the ExtraInfo events come (None: no response yet)
    extra_info_said: bool | None = None
    body_state: str = "none"  # none | pending | held | too_large | failed | dropped
    request_body_file: str | None = None
    response_body_file: str | None = None
    # WebSocket only
    frames: deque[WsFrame] | None = None
    frames_sent: int = 0
    frames_received: int = 0
    ws_closed: bool = False
    extras: dict[str, Any] = field(default_factory=dict)
    #: (post data, content type, preview) of the last payload preview made: every list asks again
    post_preview: tuple[str, str | None, str] | None = None
    #: estimated bytes this entry holds (strings and headers plus a fixed overhead): the store's budget
    size: int = 0

    @property
    def resp_extra_expected(self) -> bool:
        """A response ExtraInfo may still come: Chrome did not say it won't (cache, some workers)."""
        return self.extra_info_said is not False

    @property
    def sent_headers_pending(self) -> bool:
        """The request headers held are Chrome's provisional ones; the headers as sent are still to come.

        ``requestWillBeSentExtraInfo`` (the headers on the wire: the Cookie, the real
        User-Agent) may arrive after the response. Until it does, a read shows the provisional
        headers, and must say so rather than pass them off as what was sent. Not pending when
        Chrome said none will come (cache, data: URLs), for WebSockets, and for failed requests.
        """
        if self.request_extra_headers is not None or self.frames is not None or self.failed:
            return False
        if self.extra_info_said is None:
            return not self.finished  # in flight: Chrome has not said yet
        return self.extra_info_said

    @property
    def duration_ms(self) -> float | None:
        if self.end_ts is None:
            return None
        return round((self.end_ts - self.start_ts) * 1000, 3)


def write_file(path: Path, data: bytes) -> None:
    """Bodies are at most a few MiB: a synchronous write is shorter than a thread hop."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def decode_body(result: dict[str, Any]) -> bytes:
    body = result.get("body", "")
    if result.get("base64Encoded"):
        return base64.b64decode(body)
    return str(body).encode("utf-8", "surrogateescape")


def post_data_bytes(result: dict[str, Any]) -> bytes:
    """The bytes of a ``Network.getRequestPostData`` answer (base64 for a binary body, else text)."""
    data = str(result.get("postData", ""))
    if result.get("base64Encoded"):
        return base64.b64decode(data)
    return data.encode("utf-8", "surrogateescape")


def header(headers: dict[str, Any] | None, name: str) -> str | None:
    for k, v in (headers or {}).items():
        if k.lower() == name:
            return str(v)
    return None


def content_length(headers: dict[str, Any] | None) -> int | None:
    value = header(headers, "content-length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def looks_textual(data: bytes) -> bool:
    sample = data[:4096]
    if b"\x00" in sample:
        return False
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start > len(sample) - 4  # a multi-byte char cut at the sample's end
    return True


def slug(url: str) -> str:
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


def extension(mime: str, binary: bool) -> str:
    return _EXT.get(mime.lower(), ".bin" if binary else ".txt")
