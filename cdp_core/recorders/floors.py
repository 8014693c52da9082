"""Clears per reader: a recorder's clear hides entries from the reader who asked, not from everyone.

Why not delete: several readers (MCP sessions of one server) read one page's capture, and one
reader's clear must never take another's evidence. A clear sets that reader's *floor*, the
newest id stored at that moment; its reads skip every entry at or below it, while the others
still see everything. Nothing is freed by a clear: the store's own budget (bytes, optional entry
cap, oldest evicted first) bounds memory as before, and it evicts hidden entries first because
they are the oldest.

Who reads is asked of a reader-key function the recorder's owner passes (the MCP layer passes
the caller of the call in progress); the default is one reader, so a recorder used alone behaves
as a clear always did. The stores keep entries in id order and evict the oldest first, which lets
a floor say in O(1) how many stored entries it hides: it remembers how many entries ever stored
had an id at or below it (``below``); those evicted since are gone from the front of the store.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

__all__ = ["Floor", "ReaderFloors", "single_reader"]


def single_reader() -> None:
    """The reader key of a recorder with one reader (the default): every read is the same reader's."""
    return None


@dataclass(frozen=True)
class Floor:
    """One reader's clear: entries with ``id <= floor`` are hidden from it.

    ``below``: how many entries ever stored had an id at or below ``id`` (the ones stored at the
    clear plus the ones evicted before it).
    """

    id: int = 0
    below: int = 0

    def hidden(self, evicted: int) -> int:
        """How many stored entries this floor hides, ``evicted`` having gone from the store so far."""
        return max(0, self.below - evicted)

    def evicted_since(self, evicted: int) -> int:
        """How many evictions took entries this reader could still see (above its floor)."""
        return max(0, evicted - self.below)


NO_FLOOR = Floor()


class ReaderFloors:
    """The floor of each reader that cleared; a reader that never cleared sees everything."""

    def __init__(self, reader: Callable[[], Hashable] = single_reader) -> None:
        #: who is reading now (called on every read: cheap, e.g. a context variable)
        self.reader = reader
        self._floors: dict[Hashable, Floor] = {}

    def current(self) -> Floor:
        """The floor of the reader reading now (``Floor()`` when it never cleared)."""
        return self._floors.get(self.reader(), NO_FLOOR)

    def raise_to(self, newest_id: int, stored: int, evicted: int) -> None:
        """The current reader cleared: hide everything up to ``newest_id``, the newest stored id.

        ``stored`` entries are in the store now, ``evicted`` went before: all of them have ids up to
        ``newest_id``. A floor never goes down (clearing an empty view keeps the last floor).
        """
        key = self.reader()
        floor = self._floors.get(key, NO_FLOOR)
        if newest_id > floor.id:
            self._floors[key] = Floor(newest_id, stored + evicted)

    def forget(self, reader: Hashable) -> None:
        """``reader`` is gone (its session ended): its floor goes too."""
        self._floors.pop(reader, None)

    def readers(self) -> list[Hashable]:
        """The readers that hold a floor."""
        return list(self._floors)
