"""The state of a :class:`~cdp_core.recorders.network.NetworkRecorder` and its bounded entry store.

Why a byte budget and not an entry count: what costs memory is what an entry holds (headers,
post data, initiator stacks, WebSocket frames), not how many there are. A burst of 500 small
requests fits many times over in the default budget (``max_bytes``, 32 MiB of estimated entry
size), so nothing of it is lost, while a page that streams for hours still cannot exhaust
memory: the oldest entries go first and ``evicted`` counts them. ``max_entries`` stays as an
explicit cap on top (``NETWORK_MAX_ENTRIES``). Held response bodies have their own budget
(:mod:`.bodies`).
"""

from __future__ import annotations

import asyncio
import itertools
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from typing import Any

from ...connection import CDPSession
from ..redact import DEFAULT_REDACT_HEADERS, HeaderRedactor
from .model import Entry, MiB

__all__ = ["RecorderState", "DEFAULT_MAX_BYTES", "ENTRY_OVERHEAD", "ITEM_OVERHEAD", "headers_size"]

#: Default budget of the entry store (estimated bytes), documented in docs/configuration.md.
DEFAULT_MAX_BYTES = 32 * MiB
#: What an entry costs besides its strings: the dataclass, its dicts, the chain bookkeeping.
ENTRY_OVERHEAD = 1500
#: Per header (or frame) on top of its characters: the dict slot and the two string objects.
ITEM_OVERHEAD = 100

ChainKey = tuple[str | None, str]


def headers_size(headers: dict[str, Any] | None) -> int:
    """Estimated bytes of a header dict."""
    if not headers:
        return 0
    return sum(len(str(k)) + len(str(v)) + ITEM_OVERHEAD for k, v in headers.items())


def _initiator_size(initiator: dict[str, Any] | None) -> int:
    if not initiator:
        return 0
    frames = 0
    stack = initiator.get("stack")
    while stack:
        frames += len(stack.get("callFrames") or [])
        stack = stack.get("parent")
    return 200 + frames * 250 + len(str(initiator.get("url") or ""))


#: Downloads remembered per page (what an action started is read right after it).
DOWNLOADS_KEPT = 100

class RecorderState:
    """Settings, entries and pairing state shared by the recorder's collect / bodies / shape parts."""

    def __init__(
        self,
        *,
        max_entries: int | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
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
        #: explicit cap on the number of entries (None: only the byte budget bounds the store)
        self.max_entries = max(1, int(max_entries)) if max_entries else None
        #: budget of the entry store in estimated bytes (held bodies not included)
        self.max_bytes = max(64 * 1024, int(max_bytes))
        self.stored_bytes = 0
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
        #: downloads that began on the page, newest last: ``seq`` (1, 2, ...), ``url``, ``file`` and
        #: ``entry`` (the id of the request that brought it; None for a blob: or data: URL)
        self.downloads: deque[dict[str, Any]] = deque(maxlen=DOWNLOADS_KEPT)
        self.downloads_seen = 0
        self.captured_since: str | None = None
        self.evicted = 0
        #: Requests that reached loadingFinished/loadingFailed since attach (never reset by clear).
        self.completed = 0
        self._ids = itertools.count(1)
        self._entries: OrderedDict[int, Entry] = OrderedDict()
        # (sessionId, requestId) -> hops of that request, oldest first; kept for a while after
        # the request ended so late ExtraInfo events still find their hop.
        self._chains: dict[ChainKey, list[Entry]] = {}
        self._done_keys: deque[ChainKey] = deque()
        self._chain_limit = max(8000, (self.max_entries or 0) * 8)
        self._early_req_extra: dict[ChainKey, deque[dict[str, Any]]] = {}
        self._early_resp_extra: dict[ChainKey, deque[dict[str, Any]]] = {}
        self._held: OrderedDict[int, bytes] = OrderedDict()
        self.held_bytes = 0
        self.bodies_dropped = 0
        self._eager_queue: deque[Entry] = deque()
        self._eager_queue_max = eager_queue_max
        self._eager_workers_max = max(1, eager_workers)
        self._eager_workers: set[asyncio.Task[None]] = set()
        self._sessions: list[CDPSession] = []
        self._subscriptions: list[Any] = []

    # -- the store -------------------------------------------------------------------------------

    def _key(self, session: CDPSession, params: dict[str, Any]) -> ChainKey | None:
        rid = params.get("requestId")
        return (session.session_id, rid) if rid else None

    def _current(self, key: ChainKey) -> Entry | None:
        chain = self._chains.get(key)
        return chain[-1] if chain else None

    def _store(self, entry: Entry) -> None:
        entry.size = (
            ENTRY_OVERHEAD
            + 2 * len(entry.url)
            + len(entry.document_url)
            + headers_size(entry.request_headers)
            + headers_size(entry.request_extra_headers)
            + len(entry.post_data or "")
            + _initiator_size(entry.initiator)
        )
        self._entries[entry.id] = entry
        self.stored_bytes += entry.size
        self._evict()

    def _grow(self, entry: Entry, delta: int) -> None:
        """``entry`` holds ``delta`` more bytes (a response, ExtraInfo headers, a frame); keep the budget."""
        if delta == 0 or entry.id not in self._entries:
            return
        entry.size += delta
        self.stored_bytes += delta
        self._evict()

    def _evict(self) -> None:
        """Drop the oldest entries (and their held bodies) while over the count cap or the byte budget."""
        entries = self._entries
        while len(entries) > 1 and (
            (self.max_entries is not None and len(entries) > self.max_entries) or self.stored_bytes > self.max_bytes
        ):
            _, old = entries.popitem(last=False)
            self.evicted += 1
            self.stored_bytes -= old.size
            body = self._held.pop(old.id, None)
            if body is not None:
                self.held_bytes -= len(body)

    def _retire(self, key: ChainKey) -> None:
        """A request ended: keep its chain for late ExtraInfo, but only a bounded number."""
        self._done_keys.append(key)
        limit = max(2000, (self.max_entries or 0) * 2)
        while len(self._done_keys) > limit:
            old = self._done_keys.popleft()
            chain = self._chains.get(old)
            if chain and not chain[-1].finished:
                continue
            self._chains.pop(old, None)
            self._early_req_extra.pop(old, None)
            self._early_resp_extra.pop(old, None)

    def _purge_chains(self) -> None:
        """Requests that never ended (tab closed mid-load, streams) must not pile up: forget evicted ones."""
        dead = [k for k, chain in self._chains.items() if chain[-1].id not in self._entries]
        for k in dead:
            del self._chains[k]
            self._early_req_extra.pop(k, None)
            self._early_resp_extra.pop(k, None)
        self._chain_limit = max(self._chain_limit, 2 * len(self._chains))

    def _missing_message(self, entry_id: int) -> str:
        first = next(iter(self._entries), None)
        if int(entry_id) < 1:
            return f"no network entry {entry_id}: ids start at 1"
        if first is not None and int(entry_id) < first and self.evicted:
            return f"network entry {entry_id} was evicted (oldest kept is {first}; {self.evicted} evicted)"
        return f"no network entry {entry_id} (never captured, or cleared)"

    @property
    def page_url(self) -> str:
        if self._page_url_fn is not None:
            try:
                return self._page_url_fn() or self._page_url
            except Exception:
                return self._page_url
        return self._page_url

    def _maybe_fetch_eagerly(self, entry: Entry) -> None:
        """Queue the bodies of a finished request (implemented by :class:`.bodies.NetworkBodies`)."""
