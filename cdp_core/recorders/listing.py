"""Paging through a recorder's entries: one window of a listing and what lies around it.

Shared by the console and network recorders so both page the same way: without ``since_id``
a listing shows the newest ``limit`` entries and says how many are earlier; with ``since_id``
it shows the oldest ``limit`` after that id and says how many come after, so every entry is
reachable by calling again with ``since_id=<last id shown>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["Selection", "select_window"]

T = TypeVar("T")


@dataclass
class Selection:
    """One page of a listing: the entries, and how many matching entries lie before and after it."""

    entries: list[dict[str, Any]]
    earlier: int = 0
    after: int = 0

    @property
    def total(self) -> int:
        return self.earlier + len(self.entries) + self.after


def select_window(matching: list[T], *, limit: int | None, since_id: int | None) -> tuple[list[T], int, int]:
    """The slice a listing returns: with ``since_id`` the oldest ``limit`` after it (read forward
    page by page), without it the newest ``limit``. Returns (slice, earlier, after)."""
    if limit is None or limit < 0 or limit >= len(matching):
        return matching, 0, 0
    if since_id is not None:
        return matching[:limit], 0, len(matching) - limit
    return matching[len(matching) - limit :], len(matching) - limit, 0
