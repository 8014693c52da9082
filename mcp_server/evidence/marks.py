"""Capture marks: ``capture_mark`` notes where a tab's capture stands, ``debug_bundle since_mark`` reads after it.

Why counters and not only a time: a request or console line is "after the mark" when its id is
above the newest id the tab's recorder held at the mark, which is exact (two events in the same
millisecond, a clock step). The time is kept for what has no id: the length of the span after
the mark, and a tab other than the one marked (read by clock, and said so).

The marks live in one :class:`Marks` object kept in what the server hands to every call
(``ToolContext.state``, :func:`marks_of`), never in module globals: a server with several MCP
sessions can give each its own state without changing this module.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cdp_core.recorders.network import iso_time
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from mcp_server.server.context import ToolContext

__all__ = ["Mark", "Marks", "MAX_MARKS", "marks_of"]

#: Marks kept; the oldest goes first (a name is never reused, so an old one is said to be gone).
MAX_MARKS = 50


@dataclass(frozen=True)
class Mark:
    """One mark: its name (``m1``), when, and the selected tab's capture positions."""

    name: str
    #: seconds since the epoch, and the same as ISO-8601 UTC (how every capture time reads)
    epoch: float
    at: str
    #: the tab that was selected (its stable id) and the newest ids of its recorders (0: none)
    page: str | None
    network_id: int
    console_id: int
    #: when that tab's capture started (a capture started after the mark holds only later entries)
    captured_since: str | None
    #: what the tab showed the person at the mark (alerts, messages, invalid fields), as the bundle keeps them
    on_screen: tuple[dict[str, Any], ...] = field(default=())

    def brief(self) -> dict[str, Any]:
        """The mark as answers show it (the positions included: they say what "after" means)."""
        return {
            "name": self.name,
            "at": self.at,
            "page": self.page,
            "afterNetworkId": self.network_id,
            "afterConsoleId": self.console_id,
        }


class Marks:
    """The marks of one server (later: of one MCP session), by name, oldest first."""

    def __init__(self, limit: int = MAX_MARKS) -> None:
        self._marks: OrderedDict[str, Mark] = OrderedDict()
        self._made = 0
        self._limit = max(1, limit)

    def __len__(self) -> int:
        return len(self._marks)

    @property
    def names(self) -> list[str]:
        return list(self._marks)

    def add(
        self,
        *,
        page: str | None,
        network_id: int,
        console_id: int,
        captured_since: str | None,
        on_screen: tuple[dict[str, Any], ...] = (),
        epoch: float | None = None,
    ) -> Mark:
        """A new mark ``m<n>`` (n counts every mark this object made)."""
        self._made += 1
        now = time.time() if epoch is None else epoch
        mark = Mark(
            name=f"m{self._made}",
            epoch=now,
            at=iso_time(now),
            page=page,
            network_id=network_id,
            console_id=console_id,
            captured_since=captured_since,
            on_screen=on_screen,
        )
        self._marks[mark.name] = mark
        while len(self._marks) > self._limit:
            self._marks.popitem(last=False)
        return mark

    def get(self, name: str) -> Mark:
        """The mark called ``name``, or INVALID_ARGUMENT listing the marks there are."""
        mark = self._marks.get(name.strip())
        if mark is not None:
            return mark
        known = self.names
        if known:
            hint = f"use one of {', '.join(known)}, or call capture_mark for a new one"
        else:
            hint = "call browser_session action=capture_mark first (no mark was made yet)"
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"no capture mark {name!r}", hint=hint, knownMarks=known)


def marks_of(ctx: ToolContext) -> Marks:
    """The marks of the server (or session) this call came from, made at the first need."""
    marks = ctx.state.get("marks")
    if not isinstance(marks, Marks):
        marks = ctx.state["marks"] = Marks()
    return marks
