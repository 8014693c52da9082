"""Was the traced tab in the background? Its timings are then not the person's, and the answer says so first.

Chrome throttles a hidden tab: its timers wake once a second (once a minute after five minutes),
it paints no frames, and its requests wait in Chrome's queue (a phpMyAdmin page that loads in
1.7 s in front took 6.8 s behind another tab, its 435-byte icons 5.5 s each, all of it queueing).
A trace of such a tab measures Chrome's throttling, not the app.

The trace events themselves do not say it with the categories we record (the scheduler's
visibility events come with a flood of per-task events, and are per renderer process, which
same-site tabs share), so the page says it: ``document.visibilityState`` when the trace starts,
and at the stop the document's own record of its visibility changes (the ``visibility-state``
performance entries, each with its time), read without adding anything to the page. A page that
navigated during the trace has its record from its new document on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cdp_core.errors import CDPException
from mcp_server.page.hidden import HIDDEN_WARNING

if TYPE_CHECKING:
    from targets import PageHandle

__all__ = [
    "VisibilityMark",
    "WARNING",
    "changes_since",
    "mark",
    "notes_for",
    "over_trace",
    "visibility_fields",
    "visibility_line",
]

#: What the answer says first when the tab was hidden for any part of the trace (the words of every
#: answer with timings of a hidden tab).
WARNING = HIDDEN_WARNING

_START_JS = "[document.visibilityState, performance.timeOrigin + performance.now()]"
_STOP_JS = (
    "(() => { let e = []; try { e = performance.getEntriesByType('visibility-state')"
    ".map(x => [x.name, x.startTime]); } catch (_) {} "
    "return [document.visibilityState, performance.timeOrigin, performance.timeOrigin + performance.now(), e]; })()"
)


@dataclass(frozen=True)
class VisibilityMark:
    """The tab's visibility when the trace started, and when that was (epoch ms, the page's clock)."""

    state: str
    at_ms: float


async def _evaluate(page: PageHandle, expression: str) -> Any:
    try:
        reply = await page.session.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, timeout=5
        )
    except (CDPException, TimeoutError):
        return None
    return (reply.get("result") or {}).get("value")


async def mark(page: PageHandle) -> VisibilityMark | None:
    """The tab's visibility now (None: the page did not answer)."""
    value = await _evaluate(page, _START_JS)
    if not isinstance(value, list) or len(value) != 2 or not isinstance(value[1], int | float):
        return None
    return VisibilityMark(state=str(value[0]), at_ms=float(value[1]))


def changes_since(start: VisibilityMark, time_origin: float, entries: list[Any]) -> list[dict[str, Any]]:
    """The visibility changes after ``start``: ``[{"atMs": ms into the trace, "state": ...}]``.

    ``entries`` are the document's ``visibility-state`` entries (``[state, ms after timeOrigin]``),
    its first one the state it started in; a state equal to the one before is no change.
    """
    out: list[dict[str, Any]] = []
    current = start.state
    for entry in entries:
        if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[1], int | float):
            continue
        at = time_origin + float(entry[1]) - start.at_ms
        state = str(entry[0])
        if at <= 0 or state == current:
            continue
        out.append({"atMs": round(at), "state": state})
        current = state
    return out


async def over_trace(page: PageHandle, start: VisibilityMark | None) -> dict[str, Any] | None:
    """The tab's visibility over the trace, or None when unknown (no mark at start, the page gone)."""
    if start is None or page.closed:
        return None
    value = await _evaluate(page, _STOP_JS)
    if not isinstance(value, list) or len(value) != 4 or not isinstance(value[1], int | float):
        return None
    state, origin, entries = str(value[0]), float(value[1]), value[3] if isinstance(value[3], list) else []
    changes = changes_since(start, origin, entries)
    if changes and changes[-1]["state"] != state:  # the record missed the last change: the state now wins
        changes.append({"atMs": round(float(value[2]) - start.at_ms), "state": state})
    if not changes and state != start.state:  # a new document with no record of the change
        changes.append({"atMs": round(float(value[2]) - start.at_ms), "state": state})
    return {"start": start.state, "changes": changes}


def visibility_fields(facts: dict[str, Any] | None) -> dict[str, Any]:
    """The answer's top-level fields: ``visibility`` ("hidden" throughout, or "partly hidden" with the
    states from the start on, ms into the trace) and ``warning``; nothing when the tab was in front
    throughout or it is unknown."""
    if not facts:
        return {}
    states = [facts.get("start"), *(c.get("state") for c in facts.get("changes") or [])]
    if "hidden" not in states:
        return {}
    if all(s == "hidden" for s in states):
        return {"visibility": "hidden", "warning": WARNING}
    steps = [{"atMs": 0, "state": facts.get("start")}, *facts["changes"]]
    return {"visibility": "partly hidden", "visibilityChanges": steps, "warning": WARNING}


def visibility_line(fields: dict[str, Any]) -> str:
    """The text's first line for ``visibility_fields``'s answer ('' when there is nothing to say)."""
    if not fields:
        return ""
    if fields["visibility"] == "hidden":
        return f"The tab was hidden (in the background) for the whole trace: {WARNING}."
    steps = ", ".join(f"{c['state']} at {_at(c['atMs'])}" for c in fields.get("visibilityChanges") or [])
    return f"The tab was hidden (in the background) for part of the trace ({steps}): {WARNING} while hidden."


def _at(ms: float) -> str:
    return f"{ms / 1000:.1f} s" if ms >= 1000 else f"{ms:.0f} ms"


#: the summary's note when no FCP came, and what it says once the tab is known to have been hidden
_NO_FCP = "no first contentful paint after the navigation"
_NO_FCP_HIDDEN = f"{_NO_FCP}: the tab was hidden, and Chrome paints no frames for a background tab"


def notes_for(notes: list[Any], fields: dict[str, Any]) -> list[Any]:
    """The summary's notes, the no-FCP one saying why when the tab was hidden throughout."""
    if fields.get("visibility") != "hidden":
        return notes
    return [_NO_FCP_HIDDEN if isinstance(n, str) and n.startswith(_NO_FCP) else n for n in notes]
