"""Network capture from raw CDP events: one entry per request hop, bodies that survive.

Why hand-built: Playwright over CDP drops redirect hops, ExtraInfo headers (cookies as
actually sent), bodies after navigation and WebSocket frames. Here every event is
handled by a synchronous callback in the connection's reader (a few dict operations,
never an await), and everything slow (``Network.getResponseBody``) runs in background
worker tasks, so a burst of thousands of requests is stored as fast as it arrives.

The recorder is composed along the data's path, one collaborator per concept: an
:class:`.events.EventCollector` turns events into entries (redirect and ExtraInfo pairing) of
an :class:`.store.EntryStore` (entries within a byte budget); :class:`.held.HeldBodies` fetches
bodies in the background and holds them, :class:`.bodies.BodyReader` reads and saves bodies on
demand, and :class:`.shape.RecordShaper` builds the redacted records the queries return.
:mod:`.model` holds the entry itself, :mod:`.har` exports the recorder as HAR.
"""

from __future__ import annotations

import builtins
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ...connection import CDPSession
from ...errors import CDPError, CDPException
from ..floors import single_reader
from ..listing import Selection, select_window
from ..redact import DEFAULT_REDACT_HEADERS, HeaderRedactor, redact_url
from .bodies import BodyReader
from .events import EventCollector
from .held import HeldBodies
from .model import (
    NETWORK_EVENTS,
    BodyIsBinary,
    BodyUnavailable,
    EntryNotFound,
    MiB,
    SavedBody,
    is_text_mime,
    iso_time,
    post_data_bytes,
)
from .resend import Resend, resend_of
from .shape import RecordShaper
from .store import DEFAULT_MAX_BYTES, EntryStore

__all__ = [
    "NetworkRecorder",
    "BodyUnavailable",
    "BodyIsBinary",
    "EntryNotFound",
    "SavedBody",
    "iso_time",
    "is_text_mime",
    "DEFAULT_MAX_BYTES",
    "Selection",
    "Resend",
]


#: the return type of methods defined after ``list`` (which shadows the builtin in the class body)
Records = builtins.list[dict[str, Any]]


class NetworkRecorder:
    """Per-page network capture: entries within a byte budget, held bodies, WebSocket frames.

    Construct once per page, then ``await attach(session)`` for the page session and for
    every child session (iframes in other processes, workers). ``captured_since`` says
    when capture started; nothing before it is claimed. ``max_bytes`` bounds the entries
    (estimated size, oldest evicted first), ``max_entries`` optionally caps their number.

    Several readers may share the capture: ``reader`` names the one reading now (default: a
    single reader). :meth:`clear` hides the entries from that reader only (:mod:`..floors`);
    every query, count, body read and export is the current reader's view.
    """

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
        durable_body_budget: int | None = None,
        ws_max_frames: int = 100,
        eager_workers: int = 4,
        eager_queue_max: int = 512,
        page_url: Callable[[], str] | None = None,
        reader: Callable[[], Hashable] = single_reader,
    ) -> None:
        preview_bytes = max(0, int(preview_bytes))
        #: Chrome's buffers for this page's responses (``Network.enable``)
        self.max_total_buffer_size = int(max_total_buffer_size)
        self.max_resource_buffer_size = int(max_resource_buffer_size)
        #: what Chrome keeps of this page's bodies in its browser process, across navigations
        #: (``Network.configureDurableMessages``); 0 turns it off. Chrome's buffer sizes unless given:
        #: once durable, Chrome answers body reads from that store, and a smaller one lost bodies of a
        #: burst of large responses that the renderer's buffers had kept (before the eager reads came).
        self.durable_body_budget = int(max_total_buffer_size if durable_body_budget is None else durable_body_budget)
        #: whether the page's own session keeps bodies across navigations (None: not asked yet)
        self.durable_bodies: bool | None = None
        #: what the page shows now; a new owner of the recorder may replace it (a relaunched browser's page)
        self._page_url_fn = page_url
        self.captured_since: str | None = None
        # An evicted entry takes its held body with it (the lambda: ``_held`` is made next).
        self._store = EntryStore(
            max_entries=max_entries,
            max_bytes=max_bytes,
            on_evict=lambda entry: self._held.forget(entry.id),
            reader=reader,
        )
        self._held = HeldBodies(
            self._store,
            max_bytes=eager_body_max_bytes,
            budget=eager_body_budget,
            workers=eager_workers,
            queue_max=eager_queue_max,
        )
        self._bodies = BodyReader(
            self._store,
            self._held,
            max_bytes=body_max_bytes,
            preview_bytes=preview_bytes,
            browser_max_bytes=self.max_resource_buffer_size,
        )
        self._events = EventCollector(
            self._store,
            page_url=lambda: self.page_url,
            request_finished=self._held.request_finished,
            preview_bytes=preview_bytes,
            ws_max_frames=int(ws_max_frames),
        )
        self._shaper = RecordShaper(HeaderRedactor(redact_headers), preview_bytes)
        self._subscriptions: builtins.list[Any] = []

    # -- attaching ----------------------------------------------------------------------

    async def attach(self, session: CDPSession, *, frame_kind: str = "page") -> None:
        """Subscribe first (so nothing is missed), then enable Network with large buffers."""
        if self.captured_since is None:
            self.captured_since = iso_time()
        if frame_kind == "page":
            self._events.adopt_page(session)
        kind = frame_kind
        sub = session.on(NETWORK_EVENTS, lambda ev: self._events.on_event(session, kind, ev))
        self._subscriptions.append(sub)
        if frame_kind in ("page", "iframe"):
            durable = await self._keep_bodies_durable(session)
            if frame_kind == "page":
                self.durable_bodies = durable
        params = {
            "maxTotalBufferSize": self.max_total_buffer_size,
            "maxResourceBufferSize": self.max_resource_buffer_size,
            "maxPostDataSize": max(self._held.max_bytes, 65536),
        }
        try:
            await session.send("Network.enable", params)
        except CDPError:
            # Some targets (service workers on old builds) refuse the buffer options.
            await session.send("Network.enable", {})

    async def _keep_bodies_durable(self, session: CDPSession) -> bool:
        """Ask Chrome to keep this session's response bodies outside the renderer, so that the body of
        an XHR whose handler navigates at once (the AJAX-then-redirect pattern) is still there when read.

        Why before ``Network.enable``: the first responses after it are covered too. Nothing the
        person sees changes (it is Chrome-side bookkeeping within ``durable_body_budget``). A Chrome
        without the method (older than the command, or another browser) refuses it: capture goes on
        as before, with the eager copies only (:mod:`.held`), and ``durable_bodies`` says so.
        """
        budget = self.durable_body_budget
        if budget <= 0:
            return False
        params = {"maxTotalBufferSize": budget, "maxResourceBufferSize": min(budget, self.max_resource_buffer_size)}
        try:
            await session.send("Network.configureDurableMessages", params, timeout=10)
        except CDPException:
            return False
        return True

    def detach(self) -> None:
        """Stop listening (entries stay readable); background fetches are cancelled."""
        for sub in self._subscriptions:
            sub.cancel()
        self._subscriptions.clear()
        self._held.cancel()

    @property
    def page_url(self) -> str:
        """The URL the page shows: the owner's answer if it gave one, else the last main document's."""
        if self._page_url_fn is not None:
            try:
                return self._page_url_fn() or self._events.shown_url
            except Exception:
                return self._events.shown_url
        return self._events.shown_url

    # -- counters and what the events said about the page ----------------------------------

    @property
    def max_entries(self) -> int | None:
        return self._store.max_entries

    @property
    def max_bytes(self) -> int:
        return self._store.max_bytes

    @property
    def stored_bytes(self) -> int:
        return self._store.stored_bytes

    @property
    def evicted(self) -> int:
        """Entries the current reader could have seen that went to the budget (oldest first)."""
        return self._store.evicted

    @property
    def evicted_total(self) -> int:
        """Every eviction since the start, whoever reads."""
        return self._store.evicted_total

    @property
    def floor(self) -> int:
        """The current reader's floor: entries with an id up to it were cleared for it (0: none)."""
        return self._store.floor

    @property
    def held_bytes(self) -> int:
        return self._held.held_bytes

    @property
    def bodies_dropped(self) -> int:
        return self._held.dropped

    @property
    def eager_body_max_bytes(self) -> int:
        """Bodies up to this size are read as soon as they finish (:mod:`.held`)."""
        return self._held.max_bytes

    def navigated_after(self, entry_id: int) -> int | None:
        """The id of the first main-frame navigation stored after ``entry_id``, if the page moved on since.

        Why: a body Chrome no longer has was most often lost to that navigation; the answer names it
        instead of guessing."""
        return next((d["id"] for d in self.main_documents() if d["id"] > entry_id), None)

    @property
    def completed(self) -> int:
        """Requests that reached loadingFinished/loadingFailed since attach (never reset by clear)."""
        return self._events.completed

    @property
    def page_marks(self) -> deque[tuple[str, float]]:
        """("dcl" | "load", monotonic timestamp) of the page's main frame, newest last."""
        return self._events.page_marks

    @property
    def downloads(self) -> deque[dict[str, Any]]:
        """Downloads that began on the page, newest last (``seq``, ``url``, ``file``, ``entry``)."""
        return self._events.downloads

    @property
    def downloads_seen(self) -> int:
        return self._events.downloads_seen

    # -- queries ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._store)

    @property
    def stats(self) -> dict[str, Any]:
        """The current reader's view (``stored``, ``evicted``, ``cleared``: stored but hidden by its clear)
        and the budgets (``storedBytes`` and the held bodies count every stored entry, hidden ones too)."""
        return {
            "capturedSince": self.captured_since,
            "stored": len(self._store),
            "cleared": self._store.hidden(),
            "storedBytes": self.stored_bytes,
            "maxBytes": self.max_bytes,
            "maxEntries": self.max_entries,
            "evicted": self.evicted,
            "bodiesHeld": len(self._held),
            "bodiesHeldBytes": self.held_bytes,
            "bodiesDropped": self.bodies_dropped,
            "bodiesDurable": self.durable_bodies,
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
    ) -> Records:
        """Summaries matching every given filter, oldest first; ``limit`` keeps the newest."""
        picked = self._store.matching(resource_types, status_min, url_contains, method, failed_only, since_id)
        if limit is not None and limit >= 0:
            picked = picked[-limit:] if limit else []
        return [self._shaper.summary(e) for e in picked]

    def query(
        self,
        *,
        resource_types: Iterable[str] | None = None,
        status_min: int | None = None,
        url_contains: str | None = None,
        method: str | None = None,
        failed_only: bool = False,
        limit: int | None = None,
        since_id: int | None = None,
        brief: bool = False,
    ) -> Selection:
        """One page of summaries and how many match before and after it.

        With ``since_id`` the oldest ``limit`` entries after it (the next page is
        ``since_id=<last id>``); without it the newest ``limit``. Only the page is shaped.
        ``brief``: only the fields a list line shows (:meth:`.RecordShaper.brief`), for the list answers.
        """
        matching = self._store.matching(resource_types, status_min, url_contains, method, failed_only, since_id)
        picked, earlier, after = select_window(matching, limit=limit, since_id=since_id)
        shape = self._shaper.brief if brief else self._shaper.summary
        return Selection([shape(e) for e in picked], earlier, after)

    def entries(self) -> Records:
        """Every stored entry in full (redacted), oldest first: the HAR exporter's input."""
        return [self._shaper.full(e) for e in self._store.visible()]

    def main_documents(self) -> Records:
        """The page's navigations still stored, oldest first: first hop id, start (monotonic and
        ISO), final URL after redirects. One per main-frame document request chain."""
        stored = self._store.entries
        out: Records = []
        for e in builtins.list(self._store.visible()):
            if e.resource_type != "document" or e.frame_kind != "page" or e.redirected_from is not None:
                continue
            if not e.frame_id or e.frame_id != e.session.target_info.get("targetId"):
                continue  # a same-process iframe's document
            last = e
            while last.redirected_to is not None and last.redirected_to in stored:
                last = stored[last.redirected_to]
            out.append({"id": e.id, "ts": e.start_ts, "started": iso_time(e.wall_time), "url": redact_url(last.url)})
        return out

    def first_entry(self) -> tuple[int, str] | None:
        """(id, page URL, redacted) of the oldest stored entry the current reader sees."""
        for e in self._store.visible():
            return e.id, redact_url(e.page_url)
        return None

    def har_inputs(self) -> Iterator[tuple[dict[str, Any], str | None, bytes | None]]:
        """(full redacted entry, raw post data, held response body) per entry, for the HAR writer."""
        for e in builtins.list(self._store.visible()):
            yield self._shaper.full(e), e.post_data, self._held.get(e.id)

    def held_body(self, entry_id: int) -> bytes | None:
        """The eagerly fetched response body of an entry, if we hold it (None for one the reader cleared)."""
        if int(entry_id) <= self._store.floor:
            return None
        return self._held.get(int(entry_id))

    def get(self, entry_id: int) -> dict[str, Any]:
        """The full entry (redacted headers, initiator, timing, last WebSocket frames)."""
        return self._shaper.full(self._store.find(entry_id))

    def entry_id_for(self, request_id: str) -> int | None:
        """The id of the newest stored entry (redirect hop) of a CDP ``requestId``, on any session."""
        return self._events.entry_id_for(request_id)

    # -- bodies ----------------------------------------------------------------------------------

    async def drain(self, timeout: float = 10.0) -> None:
        """Wait until queued eager body fetches are done (tests, shutdown, debug bundles)."""
        await self._held.drain(timeout)

    async def body_bytes(self, entry_id: int, which: str = "response") -> tuple[bytes, str, str]:
        """Raw body bytes, its mime type and where it came from (held/browser/request)."""
        return await self._bodies.body_bytes(entry_id, which)

    async def resend(self, entry_id: int) -> Resend:
        """What sending entry ``entry_id`` again from its page would send (raw: the caller redacts).

        The request body is Chrome's own copy (exact, binary included) while it has one, else the
        captured text; ``body_known`` is False when neither exists (over ``maxPostDataSize`` and gone
        from Chrome since, e.g. after a navigation), so that a caller never sends it with an empty body.
        """
        e = self._store.find(entry_id)
        if not e.has_post_data and e.post_data is None:
            return resend_of(e, None, True)
        if not e.session.closed:
            try:
                result = await e.session.send("Network.getRequestPostData", {"requestId": e.request_id}, timeout=15)
            except CDPException:
                pass
            else:
                return resend_of(e, post_data_bytes(result), True)
        if e.post_data is not None:
            return resend_of(e, e.post_data.encode("utf-8", "surrogateescape"), True)
        return resend_of(e, None, False)

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
        return await self._bodies.save_body(
            entry_id, which=which, dest_dir=dest_dir, max_bytes=max_bytes, allow_binary=allow_binary
        )

    def clear(self) -> int:
        """Hide the stored entries from the current reader (the others still see them); returns how many.

        Nothing is freed: the entries and their held bodies stay for the other readers, within their
        budgets (the hidden entries are the oldest, so they are evicted first). In-flight requests
        keep being recorded: a hop that arrives later shows to every reader.
        """
        return self._store.clear()

    def forget_caller(self, caller: str) -> None:
        """The reader ``caller`` left: its clear goes with it (a reader of that name would see everything)."""
        self._store.floors.forget(caller)
