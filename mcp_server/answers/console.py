"""Console entries as the model reads them: one text line and one row per entry, one record in full."""

from __future__ import annotations

from typing import Any

from cdp_core.recorders.console.load_errors import load_error_text
from cdp_core.recorders.listing import Selection
from mcp_server.answers.lean import lean, ms_since, short_url, when_text
from mcp_server.answers.listing import (
    CONSOLE_COLUMNS,
    ISSUE_FIELDS,
    LOCATED_TYPES,
    TEXT_CHARS,
    cut,
    frame_text,
    header,
    listing_data,
    location,
    paging,
    same_doc,
    shared_values,
)

__all__ = ["console_row", "console_line", "console_listing", "console_record", "request_link"]

#: what a line replayed at attach links to (its request was never captured)
NOT_CAPTURED = "not captured (before attach)"


def request_link(link: dict[str, Any] | None) -> str | None:
    """``#12 POST`` (the network entry a line is about, for network_get) or :data:`NOT_CAPTURED`.

    ``link`` is an entry's ``linkedRequest`` (mcp_server/evidence/console_requests.py).
    """
    if not link:
        return None
    if link.get("beforeAttach"):
        return NOT_CAPTURED
    return f"#{link['id']}" + (f" {link['method']}" if link.get("method") else "")


def _text(entry: dict[str, Any]) -> str:
    """A line's text; Chrome's "Failed to load resource" says its own status or net error, tersely."""
    loaded = entry.get("loadError")
    return load_error_text(loaded) if loaded else str(entry.get("text", ""))


def _console_fields(entry: dict[str, Any], page_url: str | None, *, stack: int = 0) -> dict[str, Any]:
    """The lean fields of a list entry (shared by its row and its line)."""
    out: dict[str, Any] = {"id": entry["id"], "type": entry["type"], "text": cut(_text(entry), TEXT_CHARS)}
    if entry.get("replayed"):
        out["replayed"] = True
    if entry["type"] in LOCATED_TYPES or stack:
        at = location(entry, page_url)
        if at:
            out["at"] = at
    link = request_link(entry.get("linkedRequest"))
    if link:
        out["request"] = link
    entry_page = entry.get("pageUrl")
    if entry_page and not same_doc(entry_page, page_url):
        out["page"] = short_url(entry_page, page_url)
    frame = entry.get("frameUrl")
    if frame and not same_doc(frame, entry_page or page_url):
        out["frame"] = short_url(frame, page_url)
    if entry["type"] == "issue":
        for key in ISSUE_FIELDS:
            if entry.get(key):
                out[key] = _issue_value(key, entry[key], page_url)
    if stack and entry.get("stack"):
        out["stack"] = [frame_text(f, page_url) for f in entry["stack"][:stack]]
    return out


def _issue_value(key: str, value: Any, page_url: str | None) -> Any:
    if key == "request" and isinstance(value, dict):
        return {k: (short_url(v, page_url) if k == "url" else v) for k, v in value.items() if v}
    return value


def _issue_text(f: dict[str, Any]) -> str:
    parts = []
    for key in ISSUE_FIELDS:
        value = f.get(key)
        if value is None:
            continue
        if isinstance(value, dict):
            value = " ".join(f"{k}={v}" for k, v in value.items())
        parts.append(f"{key}={value}")
    return f" [{'; '.join(parts)}]" if parts else ""


def console_row(entry: dict[str, Any], page_url: str | None, *, stack: int = 0) -> list[Any]:
    return _console_row(_console_fields(entry, page_url, stack=stack))


def _console_row(f: dict[str, Any]) -> list[Any]:
    row: list[Any] = [f["id"], f["type"], f["text"]]
    if len(f) > 3:
        row.append({k: v for k, v in f.items() if k not in _CONSOLE_COLUMN_SET})
    return row


_CONSOLE_COLUMN_SET = frozenset(CONSOLE_COLUMNS)


def console_line(entry: dict[str, Any], page_url: str | None, *, stack: int = 0) -> str:
    return _console_line(_console_fields(entry, page_url, stack=stack))


def _console_line(f: dict[str, Any]) -> str:
    line = f"#{f['id']} [{f['type']}]" + (" [replayed]" if f.get("replayed") else "") + f" {f['text']}"
    link = f.get("request") if f["type"] != "issue" else None  # an issue's request is one of its fields
    linked = bool(link) and str(link).startswith("#")
    if linked:  # ``→ #12 POST /api/save``: the request the line is about, at the line's URL
        line += f" → {link}" + (f" {f['at']}" if "at" in f else "")
    for key, label in (("at", ""), ("page", "page "), ("frame", "frame ")):
        if key in f and not (linked and key == "at"):
            line += f" ({label}{f[key]})"
    if link and not linked:
        line += f" → {link}"
    if f["type"] == "issue":
        line += _issue_text(f)
    for frame in f.get("stack", []):
        line += f"\n    at {frame}"
    return line


def console_listing(
    sel: Selection,
    *,
    page_url: str | None,
    since: str | None,
    evicted: int,
    since_id: int | None,
    stack: int = 0,
) -> tuple[str, dict[str, Any]]:
    """(text, data) of a console list answer."""
    n = len(sel.entries)
    noun = f"console entr{'y' if n == 1 else 'ies'}"
    shared = shared_values(sel.entries, ("type",))
    said = f"[{shared['type']}]" if shared else ""
    lines = [header(n, noun, sel.total, page_url, since, evicted, said) + (":" if n else "")]
    rows = _lines_and_rows(sel.entries, page_url, stack, lines, shared_type=bool(shared))
    columns = TYPE_SHARED_COLUMNS if shared else CONSOLE_COLUMNS
    notes, hint = paging(sel, since_id, "console_list")
    lines += [f"[{note}]" for note in notes]
    data = listing_data(sel, page_url, since, evicted, shared, columns, rows, hint)
    return "\n".join(lines), data


#: The columns of a listing whose entries all have one type (said once, in ``shared``).
TYPE_SHARED_COLUMNS = [c for c in CONSOLE_COLUMNS if c != "type"]


def _lines_and_rows(
    entries: list[dict[str, Any]], page_url: str | None, stack: int, lines: list[str], *, shared_type: bool = False
) -> list[list[Any]]:
    """Each entry's text line (appended to ``lines``) and its row, as :func:`_console_fields` makes them.

    Why a loop of its own: a burst of 2000 ``console.log`` lines is the common big list, and
    such an entry (a type whose place the list does not show, not replayed, logged on the listed
    page and frame, no stack asked for) is ``#id [type] text`` and ``[id, type, text]``; those
    are made straight from the entry, without the fields dict and two calls each. Whether an
    entry's page and frame are the listed ones is asked once per distinct pair.
    """
    rows: list[list[Any]] = []
    add_line, add_row = lines.append, rows.append
    listed_place: dict[tuple[Any, Any], bool] = {}
    # The recorder gives every entry of a page the same URL objects: the previous entry's answer
    # is reused on identity, before any tuple is built or hashed.
    last_page: Any = _UNSET
    last_frame: Any = _UNSET
    last_plain = False
    for entry in entries:
        kind = entry["type"]
        plain = False
        if not stack and kind not in LOCATED_TYPES and not entry.get("replayed"):
            entry_page, frame = entry.get("pageUrl"), entry.get("frameUrl")
            if entry_page is last_page and frame is last_frame:
                plain = last_plain
            else:
                place = (entry_page, frame)
                known = listed_place.get(place)
                if known is None:
                    known = listed_place[place] = _on_listed_page(entry_page, frame, page_url)
                plain = known
                last_page, last_frame, last_plain = entry_page, frame, known
        if not plain:
            fields = _console_fields(entry, page_url, stack=stack)
            line = _console_line(fields)
            row = lean(_console_row(fields))  # as the envelope's lean pass would (entries are Keep)
            if shared_type:  # the header says the type once
                prefix = f"#{entry['id']}"
                line = prefix + line[len(prefix) + len(kind) + 3 :]
                del row[1]
            add_line(line)
            add_row(row)
            continue
        text = entry.get("text", "")
        if type(text) is not str or len(text) > TEXT_CHARS or "\n" in text:
            text = cut(text, TEXT_CHARS)
        entry_id = entry["id"]
        if shared_type:
            add_line(f"#{entry_id} {text}")
            add_row([entry_id, text])
        else:
            add_line(f"#{entry_id} [{kind}] {text}")
            add_row([entry_id, kind, text])
    return rows


_UNSET = object()


def _on_listed_page(entry_page: str | None, frame: str | None, page_url: str | None) -> bool:
    """Whether an entry's line names neither its page nor its frame (both are the listed page's)."""
    if entry_page and not same_doc(entry_page, page_url):
        return False
    return not (frame and not same_doc(frame, entry_page or page_url))


def console_record(entry: dict[str, Any], page_url: str | None, since: str | None) -> tuple[str, dict[str, Any]]:
    """(text, record) of one console entry in full: time, location, page, frame, arguments, stack."""
    rec: dict[str, Any] = {"id": entry["id"], "type": entry["type"], "text": entry.get("text", "")}
    t = ms_since(entry.get("timestamp"), since)
    rec["t"] = t
    if (entry.get("location") or {}).get("url"):
        rec["at"] = location(entry, page_url, column=True)
    if entry.get("pageUrl") and not same_doc(entry["pageUrl"], page_url):
        rec["page"] = entry["pageUrl"]
    if entry.get("frameUrl") and not same_doc(entry.get("frameUrl"), entry.get("pageUrl")):
        rec["frame"] = entry["frameUrl"]
    rec["source"] = entry.get("source")
    rec["logSource"] = entry.get("logSource")
    rec["replayed"] = entry.get("replayed")
    args = entry.get("argsPreview") or []
    if len(args) > 1:
        rec["args"] = args
    if entry.get("message") and entry["message"] not in rec["text"]:
        rec["message"] = entry["message"]
    if entry.get("description") and not entry.get("stack"):
        rec["description"] = entry["description"]
    rec["request"] = request_link(entry.get("linkedRequest"))
    if entry["type"] == "issue":
        for key in (*ISSUE_FIELDS, "nodeId"):
            if entry.get(key):
                rec[key] = entry[key]
    rec["stack"] = [frame_text(f, page_url, code=True) for f in entry.get("stack") or []]
    lines = [f"#{rec['id']} [{rec['type']}]" + (" [replayed]" if rec.get("replayed") else "") + f" {rec['text']}"]
    facts = []
    if t is not None:
        facts.append(when_text(t))
    fields = ("at", "page", "frame", "source", "logSource", "request", *(k for k in ISSUE_FIELDS if k != "request"))
    for key in (*fields, "nodeId"):
        if rec.get(key):
            value = rec[key]
            if isinstance(value, dict):
                value = " ".join(f"{k}={v}" for k, v in value.items())
            facts.append(f"{key} {value}")
    lines.append("; ".join(facts))
    if rec.get("args"):
        lines.append("args: " + " | ".join(rec["args"]))
    for key in ("message", "description"):
        if rec.get(key):
            lines.append(f"{key}: {rec[key]}")
    lines += [f"    at {frame}" for frame in rec["stack"]]
    if entry.get("capture"):  # a snapshot point's or an exception's locals (mcp_server/features/debugger/actions.py)
        from mcp_server.answers.debug_lines import capture_lines, capture_record

        rec["capture"] = capture_record(entry["capture"])
        lines += ["locals:", *capture_lines(entry["capture"], page_url)]
    return "\n".join(lines), rec
