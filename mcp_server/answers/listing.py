"""What console and network listings share as the model reads them: cuts, places, paging lines.

See capture_render.py for the rules both renderings follow.
"""

from __future__ import annotations

from typing import Any

from cdp_core.recorders.listing import Selection
from mcp_server.answers.lean import Keep, short_url

__all__ = [
    "TEXT_CHARS",
    "URL_CHARS",
    "PAYLOAD_CHARS",
    "LOCATED_TYPES",
    "ISSUE_FIELDS",
    "CONSOLE_COLUMNS",
    "NETWORK_COLUMNS",
    "cut",
    "same_doc",
    "where",
    "frame_text",
    "location",
    "paging",
    "header",
    "listing_data",
    "shared_values",
]

#: List text and JSON cut long messages and URLs at the same length (the *_get actions do not).
TEXT_CHARS = 200
URL_CHARS = 200
PAYLOAD_CHARS = 200
#: Types whose source location matters in a list: what went wrong. Logs have theirs in console_get.
LOCATED_TYPES = frozenset({"error", "pageerror", "warning", "assert", "trace", "issue", "logpoint", "snapshot"})
#: What a DevTools issue (type ``issue``, cdp_core/recorders/console/audits.py) adds to its line.
ISSUE_FIELDS = ("kind", "reason", "severity", "element", "cookie", "request", "omitted")

CONSOLE_COLUMNS = ["id", "type", "text"]
NETWORK_COLUMNS = ["id", "method", "status", "type", "url"]


def shared_values(entries: list[dict[str, Any]], fields: tuple[str, ...]) -> dict[str, Any]:
    """``{field: value}`` for each of ``fields`` that all ``entries`` (two or more) have with one value.

    Why: a list filtered to one kind (``types=["error"]``, ``method="POST"``, a burst of
    ``console.log``) repeated that kind on every row and line, tokens the model reads and values
    each client parses for nothing; said once, beside the rows, it is as informative. Decided
    before the rows are built, so they are built without it (no second pass over them).
    """
    if len(entries) < 2:
        return {}
    shared: dict[str, Any] = {}
    for name in fields:
        values = {entry.get(name) for entry in entries}
        if len(values) == 1:
            (value,) = values
            if isinstance(value, (str, int)) and not isinstance(value, bool):
                shared[name] = value
    return shared


def cut(text: str, limit: int) -> str:
    text = " ".join(str(text).split()) if "\n" in str(text) else str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def same_doc(a: str | None, b: str | None) -> bool:
    return (a or "").split("#", 1)[0] == (b or "").split("#", 1)[0]


def where(url: Any, line: Any, col: Any, base: str | None) -> str:
    return (
        f"{short_url(str(url or ''), base)}"
        + ("" if line is None else f":{line}")
        + ("" if col is None or line is None else f":{col}")
    )


def frame_text(frame: dict[str, Any], base: str | None, *, code: bool = False) -> str:
    """``fn (url:line:col)`` of a stack frame, URLs shortened against the page; source-mapped frames
    name the original first and keep the generated place: ``validateOrder (/src/orders.js:14:5)
    [generated o (/js/orders.min.js:1:139)]``, with ``code`` its line of source when the map has it."""
    fn = frame.get("function") or "(anonymous)"
    here = f"{fn} ({where(frame.get('url'), frame.get('lineNumber'), frame.get('columnNumber'), base)})"
    original = frame.get("original")
    if not original:
        return here
    o_fn = original.get("function") or fn
    there = where(original.get("url"), original.get("lineNumber"), original.get("columnNumber"), base)
    text = f"{o_fn} ({there}) [generated {here}]"
    if code and original.get("code"):
        text += f": {' '.join(str(original['code']).split())[:160]}"
    return text


def location(entry: dict[str, Any], base: str | None, *, column: bool = False) -> str | None:
    loc = entry.get("location") or {}
    if not loc.get("url"):
        return None
    here = where(loc["url"], loc.get("lineNumber"), loc.get("columnNumber") if column else None, base)
    original = loc.get("original")
    if not original:
        return here
    there = where(original.get("url"), original.get("lineNumber"), original.get("columnNumber"), base)
    return f"{there} [generated {here}]"


def paging(sel: Selection, since_id: int | None, what: str) -> tuple[list[str], str | None]:
    """Footer lines and the hint: how many entries lie after / before this page, and the next call."""
    notes: list[str] = []
    hint = None
    last = sel.entries[-1]["id"] if sel.entries else since_id
    if sel.after:
        hint = f"{sel.after} more after #{last}: call {what} again with since_id={last}"
        notes.append(hint)
    if sel.earlier:
        first = sel.entries[0]["id"] if sel.entries else None
        earlier = f"{sel.earlier} earlier (before #{first}): since_id=0 reads from the oldest, page by page"
        notes.append(earlier)
        hint = hint or earlier
    return notes, hint


def header(
    count: int, noun: str, total: int, page_url: str | None, since: str | None, evicted: int, shared: str = ""
) -> str:
    """A listing's first line; ``shared`` is what every row has in common (said here, not per row)."""
    head = f"{count} {noun}" + (f" of {total}" if total != count else "")
    head += f" on {page_url or '(no page)'}, captured since {since or 'attach'}"
    if evicted:
        head += f"; {evicted} older evicted (store budget)"
    if shared:
        head += f" (all {shared})"
    return head


def listing_data(
    sel: Selection,
    page_url: str | None,
    since: str | None,
    evicted: int,
    shared: dict[str, Any],
    columns: list[str],
    rows: list[list[Any]],
    hint: str | None,
) -> dict[str, Any]:
    """The structured side of a console or network listing: one shape for both (docs/tools.md)."""
    return {
        "page": page_url,
        "capturedSince": since,
        "total": sel.total,
        "earlier": sel.earlier or None,
        "after": sel.after or None,
        "evicted": evicted or None,
        "shared": shared or None,
        "columns": columns if sel.entries else None,
        # Rows are built lean (a row of scalars is what lean() returns unchanged): the envelope's
        # pass need not call itself once per row. Empty: dropped, as lean drops an empty list.
        "entries": Keep(rows) if rows else [],
        "hint": hint,
    }
