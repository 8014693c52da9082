"""The entries of a :class:`~cdp_core.recorders.network.NetworkRecorder`, within a byte budget.

Why a byte budget and not an entry count: what costs memory is what an entry holds (headers,
post data, initiator stacks, WebSocket frames), not how many there are. A burst of 500 small
requests fits many times over in the default budget (``max_bytes``, 32 MiB of estimated entry
size), so nothing of it is lost, while a page that streams for hours still cannot exhaust
memory: the oldest entries go first and ``evicted`` counts them. ``max_entries`` stays as an
explicit cap on top (``NETWORK_MAX_ENTRIES``). Held response bodies have their own budget
(:mod:`.held`).

Several readers may share the store: a clear hides entries from the reader who asked
(:mod:`..floors`), and every read here is the current reader's view.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from ..floors import ReaderFloors, single_reader
from ..redact import redact_url
from .model import Entry, EntryNotFound, MiB

__all__ = ["EntryStore", "DEFAULT_MAX_BYTES", "ENTRY_OVERHEAD", "ITEM_OVERHEAD", "headers_size"]

#: Default budget of the entry store (estimated bytes), documented in docs/configuration.md.
DEFAULT_MAX_BYTES = 32 * MiB
#: What an entry costs besides its strings: the dataclass, its dicts, the chain bookkeeping.
ENTRY_OVERHEAD = 1500
#: Per header (or frame) on top of its characters: the dict slot and the two string objects.
ITEM_OVERHEAD = 100


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


class EntryStore:
    """Entries by id, oldest first, evicted oldest first past ``max_entries`` or ``max_bytes``.

    ``on_evict`` hears of every evicted entry, so what hangs off an entry elsewhere (its held
    body) goes with it and stops counting against its own budget. ``reader`` names the reader of
    the read in progress (:class:`..floors.ReaderFloors`); ``entries`` holds every stored entry,
    hidden or not, for the recorder's own bookkeeping.
    """

    def __init__(
        self,
        *,
        max_entries: int | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        on_evict: Callable[[Entry], None] | None = None,
        reader: Callable[[], Hashable] = single_reader,
    ) -> None:
        #: explicit cap on the number of entries (None: only the byte budget bounds the store)
        self.max_entries = max(1, int(max_entries)) if max_entries else None
        #: budget of the store in estimated bytes (held bodies not included)
        self.max_bytes = max(64 * 1024, int(max_bytes))
        self.stored_bytes = 0
        #: evictions since the start, whoever reads (:attr:`evicted` is the current reader's share)
        self.evicted_total = 0
        self.entries: OrderedDict[int, Entry] = OrderedDict()
        self._on_evict = on_evict
        self.floors = ReaderFloors(reader)

    @property
    def evicted(self) -> int:
        """Evictions of entries the current reader could still see (above its floor)."""
        return self.floors.current().evicted_since(self.evicted_total)

    @property
    def floor(self) -> int:
        """The current reader's floor: ids up to it were cleared for it (0: never cleared)."""
        return self.floors.current().id

    def hidden(self) -> int:
        """How many stored entries the current reader's clear hides (the oldest stored ones)."""
        return self.floors.current().hidden(self.evicted_total)

    def __len__(self) -> int:
        return len(self.entries) - self.hidden()

    def __contains__(self, entry_id: object) -> bool:
        """Whether the entry is stored (hidden or not: the collectors ask it of their own entries)."""
        return entry_id in self.entries

    def visible(self) -> Iterable[Entry]:
        """The entries the current reader sees, oldest first."""
        hidden = self.hidden()
        values = self.entries.values()
        return itertools.islice(values, hidden, None) if hidden else values

    def get(self, entry_id: int) -> Entry | None:
        return self.entries.get(int(entry_id))

    def find(self, entry_id: int) -> Entry:
        """The entry, or :class:`EntryNotFound` saying whether it was cleared, evicted or never was.

        An entry the current reader cleared is not found, though stored: that reader asked not to see it.
        """
        wanted = int(entry_id)
        entry = self.entries.get(wanted) if wanted > self.floor else None
        if entry is None:
            raise EntryNotFound(self._missing_message(entry_id))
        return entry

    def add(self, entry: Entry) -> None:
        entry.size = (
            ENTRY_OVERHEAD
            + 2 * len(entry.url)
            + len(entry.document_url)
            + headers_size(entry.request_headers)
            + headers_size(entry.request_extra_headers)
            + len(entry.post_data or "")
            + _initiator_size(entry.initiator)
        )
        self.entries[entry.id] = entry
        self.stored_bytes += entry.size
        self._evict()

    def grow(self, entry: Entry, delta: int) -> None:
        """``entry`` holds ``delta`` more bytes (a response, ExtraInfo headers, a frame); keep the budget."""
        if delta == 0 or entry.id not in self.entries:
            return
        entry.size += delta
        self.stored_bytes += delta
        self._evict()

    def _evict(self) -> None:
        """Drop the oldest entries while over the count cap or the byte budget."""
        entries = self.entries
        while len(entries) > 1 and (
            (self.max_entries is not None and len(entries) > self.max_entries) or self.stored_bytes > self.max_bytes
        ):
            _, old = entries.popitem(last=False)
            self.evicted_total += 1
            self.stored_bytes -= old.size
            if self._on_evict is not None:
                self._on_evict(old)

    def matching(
        self,
        resource_types: Iterable[str] | None,
        status_min: int | None,
        url_contains: str | None,
        method: str | None,
        failed_only: bool,
        since_id: int | None,
    ) -> list[Entry]:
        """The entries passing every given filter, oldest first."""
        if not (resource_types or url_contains or method or failed_only) and status_min is None and since_id is None:
            return list(self.visible())  # everything: no test per entry
        types = {t.lower() for t in resource_types} if resource_types else None
        meth = method.upper() if method else None
        picked: list[Entry] = []
        for entry in self.visible():
            if since_id is not None and entry.id <= since_id:
                continue
            if types is not None and entry.resource_type not in types:
                continue
            if status_min is not None and (entry.status is None or entry.status < status_min):
                continue
            if url_contains and url_contains not in entry.url and url_contains not in redact_url(entry.url):
                # the raw URL, or the URL as records show it (a filter copied from a list line)
                continue
            if meth and entry.method.upper() != meth:
                continue
            if failed_only and not entry.failed:
                continue
            picked.append(entry)
        return picked

    def clear(self) -> int:
        """Hide every stored entry from the current reader (the others still see them); returns how many.

        Nothing is freed: the budget bounds the store and evicts the hidden entries first (the oldest).
        """
        n = len(self)
        self.floors.raise_to(next(reversed(self.entries), 0), len(self.entries), self.evicted_total)
        return n

    def _missing_message(self, entry_id: int) -> str:
        wanted = int(entry_id)
        if wanted < 1:
            return f"no network entry {entry_id}: ids start at 1"
        if wanted <= self.floor:
            return f"network entry {entry_id} was cleared (the clear hid entries up to {self.floor})"
        first = next(iter(self.entries), None)
        if first is not None and wanted < first and self.evicted:
            return f"network entry {entry_id} was evicted (oldest kept is {first}; {self.evicted} evicted)"
        return f"no network entry {entry_id} (never captured)"
