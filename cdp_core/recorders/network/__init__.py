"""Network capture from raw CDP events: one entry per request hop, bodies that survive.

Why hand-built: Playwright over CDP drops redirect hops, ExtraInfo headers (cookies as
actually sent), bodies after navigation and WebSocket frames. Here every event is
handled by a synchronous callback in the connection's reader (a few dict operations,
never an await), and everything slow (``Network.getResponseBody``) runs in background
worker tasks, so a burst of thousands of requests is stored as fast as it arrives.

The recorder is built along the data's path: :mod:`.events` collects (event
handlers, redirect and ExtraInfo pairing), :mod:`.state` stores (entries within a
byte budget), :mod:`.bodies` keeps bodies and :mod:`.shape` builds the
redacted records this module's queries return. :mod:`.model` holds the entry itself.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Iterator
from typing import Any

from ...connection import CDPSession
from ...errors import CDPError
from ..listing import Selection, select_window
from .bodies import NetworkBodies
from .events import NetworkEvents
from .model import (
    NETWORK_EVENTS,
    BodyIsBinary,
    BodyUnavailable,
    Entry,
    EntryNotFound,
    SavedBody,
    is_text_mime,
    iso_time,
)
from .shape import NetworkShapes
from .state import DEFAULT_MAX_BYTES

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
]


#: the return type of methods defined after ``list`` (which shadows the builtin in the class body)
Records = builtins.list[dict[str, Any]]


class NetworkRecorder(NetworkEvents, NetworkBodies, NetworkShapes):
    """Per-page network capture: entries within a byte budget, held bodies, WebSocket frames.

    Construct once per page, then ``await attach(session)`` for the page session and for
    every child session (iframes in other processes, workers). ``captured_since`` says
    when capture started; nothing before it is claimed. ``max_bytes`` bounds the entries
    (estimated size, oldest evicted first), ``max_entries`` optionally caps their number.
    """

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

    # -- queries ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def stats(self) -> dict[str, Any]:
        return {
            "capturedSince": self.captured_since,
            "stored": len(self._entries),
            "storedBytes": self.stored_bytes,
            "maxBytes": self.max_bytes,
            "maxEntries": self.max_entries,
            "evicted": self.evicted,
            "bodiesHeld": len(self._held),
            "bodiesHeldBytes": self.held_bytes,
            "bodiesDropped": self.bodies_dropped,
            "completed": self.completed,
        }

    def _matching(
        self,
        resource_types: Iterable[str] | None,
        status_min: int | None,
        url_contains: str | None,
        method: str | None,
        failed_only: bool,
        since_id: int | None,
    ) -> list[Entry]:
        if not (resource_types or url_contains or method or failed_only) and status_min is None and since_id is None:
            return list(self._entries.values())  # everything: no test per entry
        types = {t.lower() for t in resource_types} if resource_types else None
        meth = method.upper() if method else None
        picked: list[Entry] = []
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
        return picked

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
        picked = self._matching(resource_types, status_min, url_contains, method, failed_only, since_id)
        if limit is not None and limit >= 0:
            picked = picked[-limit:] if limit else []
        return [self._summary(e) for e in picked]

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
        ``brief``: only the fields a list line shows (``_brief``), for the list answers.
        """
        matching = self._matching(resource_types, status_min, url_contains, method, failed_only, since_id)
        picked, earlier, after = select_window(matching, limit=limit, since_id=since_id)
        shape = self._brief if brief else self._summary
        return Selection([shape(e) for e in picked], earlier, after)

    def entries(self) -> Records:
        """Every stored entry in full (redacted), oldest first: the HAR exporter's input."""
        return [self._full(e) for e in self._entries.values()]

    def main_documents(self) -> Records:
        """The page's navigations still stored, oldest first: first hop id, start (monotonic and
        ISO), final URL after redirects. One per main-frame document request chain."""
        out: Records = []
        for e in builtins.list(self._entries.values()):
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

    def clear(self) -> int:
        """Forget stored entries and held bodies; in-flight requests keep being recorded."""
        n = len(self._entries)
        self._entries.clear()
        self.stored_bytes = 0
        self._held.clear()
        self.held_bytes = 0
        self.evicted = 0
        self._eager_queue.clear()
        return n
