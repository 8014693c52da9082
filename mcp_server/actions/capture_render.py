"""Console and network entries as the model reads them: one text line and one row per entry.

Both renderings come from the same fields, so the text (clients that pass only ``content``) and
``JSON(structuredContent)`` (Claude Code, Codex) say the same things at about the same size
(mcp_server/lean.py): the page URL and ``capturedSince`` once per list, URLs on the page's
origin as paths, no timestamps in lists (``*_get`` has them, relative to ``capturedSince``),
an entry's page or frame only where it differs from the list's.
"""

from __future__ import annotations

from typing import Any

from cdp_core.recorders.listing import Selection

from ..lean import ms_since, short_url

__all__ = [
    "CONSOLE_COLUMNS",
    "NETWORK_COLUMNS",
    "console_listing",
    "network_listing",
    "console_record",
    "network_record",
    "console_row",
    "network_row",
    "console_line",
    "network_line",
    "frame_text",
]

#: List text and JSON cut long messages and URLs at the same length (the *_get actions do not).
TEXT_CHARS = 200
URL_CHARS = 200
PAYLOAD_CHARS = 200
#: Types whose source location matters in a list: what went wrong. Logs have theirs in console_get.
LOCATED_TYPES = frozenset({"error", "pageerror", "warning", "assert", "trace", "issue"})
#: What a DevTools issue (type ``issue``, cdp_core/recorders/audits.py) adds to its line.
ISSUE_FIELDS = ("kind", "reason", "severity", "element", "cookie", "request", "omitted")

CONSOLE_COLUMNS = ["id", "type", "text"]
NETWORK_COLUMNS = ["id", "method", "status", "type", "url"]


def _cut(text: str, limit: int) -> str:
    text = " ".join(str(text).split()) if "\n" in str(text) else str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _same_doc(a: str | None, b: str | None) -> bool:
    return (a or "").split("#", 1)[0] == (b or "").split("#", 1)[0]


def _where(url: Any, line: Any, col: Any, base: str | None) -> str:
    return f"{short_url(str(url or ''), base)}" + ("" if line is None else f":{line}") + (
        "" if col is None or line is None else f":{col}"
    )


def frame_text(frame: dict[str, Any], base: str | None, *, code: bool = False) -> str:
    """``fn (url:line:col)`` of a stack frame, URLs shortened against the page; source-mapped frames
    name the original first and keep the generated place: ``validateOrder (/src/orders.js:14:5)
    [generated o (/js/orders.min.js:1:139)]``, with ``code`` its line of source when the map has it."""
    fn = frame.get("function") or "(anonymous)"
    here = f"{fn} ({_where(frame.get('url'), frame.get('lineNumber'), frame.get('columnNumber'), base)})"
    original = frame.get("original")
    if not original:
        return here
    o_fn = original.get("function") or fn
    there = _where(original.get("url"), original.get("lineNumber"), original.get("columnNumber"), base)
    text = f"{o_fn} ({there}) [generated {here}]"
    if code and original.get("code"):
        text += f": {' '.join(str(original['code']).split())[:160]}"
    return text


def _location(entry: dict[str, Any], base: str | None, *, column: bool = False) -> str | None:
    loc = entry.get("location") or {}
    if not loc.get("url"):
        return None
    here = _where(loc["url"], loc.get("lineNumber"), loc.get("columnNumber") if column else None, base)
    original = loc.get("original")
    if not original:
        return here
    there = _where(original.get("url"), original.get("lineNumber"), original.get("columnNumber"), base)
    return f"{there} [generated {here}]"


# -- console ----------------------------------------------------------------------------------


def _console_fields(entry: dict[str, Any], page_url: str | None, *, stack: int = 0) -> dict[str, Any]:
    """The lean fields of a list entry (shared by its row and its line)."""
    out: dict[str, Any] = {"id": entry["id"], "type": entry["type"], "text": _cut(entry.get("text", ""), TEXT_CHARS)}
    if entry.get("replayed"):
        out["replayed"] = True
    if entry["type"] in LOCATED_TYPES or stack:
        at = _location(entry, page_url)
        if at:
            out["at"] = at
    entry_page = entry.get("pageUrl")
    if entry_page and not _same_doc(entry_page, page_url):
        out["page"] = short_url(entry_page, page_url)
    frame = entry.get("frameUrl")
    if frame and not _same_doc(frame, entry_page or page_url):
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
    for key, label in (("at", ""), ("page", "page "), ("frame", "frame ")):
        if key in f:
            line += f" ({label}{f[key]})"
    line += _issue_text(f)
    for frame in f.get("stack", []):
        line += f"\n    at {frame}"
    return line


def _paging(sel: Selection, since_id: int | None, what: str) -> tuple[list[str], str | None]:
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


def _header(count: int, noun: str, total: int, page_url: str | None, since: str | None, evicted: int) -> str:
    head = f"{count} {noun}" + (f" of {total}" if total != count else "")
    head += f" on {page_url or '(no page)'}, captured since {since or 'attach'}"
    if evicted:
        head += f"; {evicted} older evicted (store budget)"
    return head


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
    lines = [_header(n, noun, sel.total, page_url, since, evicted) + (":" if n else "")]
    fields = [_console_fields(e, page_url, stack=stack) for e in sel.entries]
    lines += [_console_line(f) for f in fields]
    notes, hint = _paging(sel, since_id, "console_list")
    lines += [f"[{note}]" for note in notes]
    data: dict[str, Any] = {
        "page": page_url,
        "capturedSince": since,
        "total": sel.total,
        "earlier": sel.earlier or None,
        "after": sel.after or None,
        "evicted": evicted or None,
        "columns": CONSOLE_COLUMNS if n else None,
        "entries": [_console_row(f) for f in fields],
        "hint": hint,
    }
    return "\n".join(lines), data


def console_record(entry: dict[str, Any], page_url: str | None, since: str | None) -> tuple[str, dict[str, Any]]:
    """(text, record) of one console entry in full: time, location, page, frame, arguments, stack."""
    rec: dict[str, Any] = {"id": entry["id"], "type": entry["type"], "text": entry.get("text", "")}
    t = ms_since(entry.get("timestamp"), since)
    rec["t"] = t
    if (entry.get("location") or {}).get("url"):
        rec["at"] = _location(entry, page_url, column=True)
    if entry.get("pageUrl") and not _same_doc(entry["pageUrl"], page_url):
        rec["page"] = entry["pageUrl"]
    if entry.get("frameUrl") and not _same_doc(entry.get("frameUrl"), entry.get("pageUrl")):
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
    rec["networkRequestId"] = entry.get("networkRequestId")
    if entry["type"] == "issue":
        for key in (*ISSUE_FIELDS, "nodeId"):
            if entry.get(key):
                rec[key] = entry[key]
    rec["stack"] = [frame_text(f, page_url, code=True) for f in entry.get("stack") or []]
    lines = [f"#{rec['id']} [{rec['type']}]" + (" [replayed]" if rec.get("replayed") else "") + f" {rec['text']}"]
    facts = []
    if t is not None:
        facts.append(f"t=+{t} ms after capture start")
    for key in ("at", "page", "frame", "source", "logSource", "networkRequestId", *ISSUE_FIELDS, "nodeId"):
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
    return "\n".join(lines), rec


# -- network ----------------------------------------------------------------------------------


def _outcome(entry: dict[str, Any]) -> Any:
    """The status cell: the HTTP status, else why there is none (``FAILED <reason>``, ``pending``)."""
    if entry.get("status") is not None:
        return entry["status"]
    if entry.get("failed"):
        return f"FAILED {entry.get('failureText') or ''}".strip()
    return "pending"


def _network_fields(entry: dict[str, Any], page_url: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": entry["id"],
        "method": entry["method"],
        "status": _outcome(entry),
        "type": entry.get("resourceType"),
        "url": _cut(short_url(entry["url"], page_url), URL_CHARS),
    }
    if entry.get("status") is not None and entry.get("failed"):
        out["failed"] = entry.get("failureText") or "failed"
    if entry.get("redirectedFrom"):
        out["redirectedFrom"] = entry["redirectedFrom"]
    if entry.get("postDataPreview"):
        out["postDataPreview"] = _cut(entry["postDataPreview"], PAYLOAD_CHARS)
    entry_page = entry.get("pageUrl")
    if entry_page and not _same_doc(entry_page, page_url):
        out["page"] = short_url(entry_page, page_url)  # made on an earlier page (a POST before a navigation)
    if "framesSent" in entry:
        out["ws"] = {"sent": entry["framesSent"], "received": entry["framesReceived"], "closed": entry.get("closed")}
    return out


def network_row(entry: dict[str, Any], page_url: str | None) -> list[Any]:
    return _network_row(_network_fields(entry, page_url))


_NETWORK_COLUMN_SET = frozenset(NETWORK_COLUMNS)


def _network_row(fields: dict[str, Any]) -> list[Any]:
    row: list[Any] = [fields[name] for name in NETWORK_COLUMNS]
    rest = {k: v for k, v in fields.items() if k not in _NETWORK_COLUMN_SET and v not in (None, False)}
    if "ws" in rest:
        rest["ws"] = {k: v for k, v in rest["ws"].items() if v}
    if rest:
        row.append(rest)
    return row


def network_line(entry: dict[str, Any], page_url: str | None) -> str:
    return _network_line(_network_fields(entry, page_url))


def _network_line(f: dict[str, Any]) -> str:
    line = f"#{f['id']} {f['method']} {f['status']} {f['type']} {f['url']}"
    if f.get("failed"):
        line += f" FAILED {f['failed']}"
    if f.get("redirectedFrom"):
        line += f" <- #{f['redirectedFrom']}"
    if f.get("postDataPreview"):
        line += f" payload: {f['postDataPreview']}"
    if f.get("page"):
        line += f" (page {f['page']})"
    if "ws" in f:
        ws = f["ws"]
        line += f" (ws: {ws['sent']} sent, {ws['received']} received{', closed' if ws.get('closed') else ''})"
    return line


def network_listing(
    sel: Selection,
    *,
    page_url: str | None,
    since: str | None,
    evicted: int,
    since_id: int | None,
    noun: str = "request",
) -> tuple[str, dict[str, Any]]:
    """(text, data) of a network list answer."""
    n = len(sel.entries)
    lines = [_header(n, noun + ("" if n == 1 else "s"), sel.total, page_url, since, evicted) + (":" if n else "")]
    fields = [_network_fields(e, page_url) for e in sel.entries]
    lines += [_network_line(f) for f in fields]
    notes, hint = _paging(sel, since_id, "network_list")
    lines += [f"[{note}]" for note in notes]
    data: dict[str, Any] = {
        "page": page_url,
        "capturedSince": since,
        "total": sel.total,
        "earlier": sel.earlier or None,
        "after": sel.after or None,
        "evicted": evicted or None,
        "columns": NETWORK_COLUMNS if n else None,
        "entries": [_network_row(f) for f in fields],
        "hint": hint,
    }
    return "\n".join(lines), data


_TIMING_PHASES = (
    ("dns", "dnsStart", "dnsEnd"),
    ("connect", "connectStart", "connectEnd"),
    ("ssl", "sslStart", "sslEnd"),
    ("send", "sendStart", "sendEnd"),
    ("wait", "sendEnd", "receiveHeadersEnd"),
)


def _timing(timing: dict[str, Any] | None) -> dict[str, float] | None:
    """The phases of Chrome's ResourceTiming that took time, in ms (the raw dict has ~18 fields)."""
    if not timing:
        return None
    out = {}
    for name, start, end in _TIMING_PHASES:
        a, b = timing.get(start), timing.get(end)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a >= 0 and b > a:
            out[name] = round(b - a, 1)
    return out or None


def network_record(entry: dict[str, Any], page_url: str | None, since: str | None) -> tuple[str, dict[str, Any]]:
    """(text, record) of one request in full: headers (redacted), payload, initiator, timing, frames."""
    rec: dict[str, Any] = {
        "id": entry["id"],
        "method": entry["method"],
        "url": entry["url"],
        "status": entry.get("status"),
        "statusText": entry.get("statusText") or None,
        "type": entry.get("resourceType"),
        "mimeType": entry.get("mimeType") or None,
        "failed": entry.get("failureText") if entry.get("failed") else None,
        "t": ms_since(entry.get("startedDateTime") or entry.get("timestamp"), since),
        "durationMs": entry.get("durationMs"),
        "encodedBytes": entry.get("encodedBytes"),
        "timing": _timing(entry.get("timing")),
        "remoteAddress": entry.get("remoteAddress"),
        "protocol": entry.get("protocol"),
        "fromCache": entry.get("fromCache"),
        "redirectedFrom": entry.get("redirectedFrom"),
        "redirectedTo": entry.get("redirectedTo"),
        "doc": _other_doc(entry.get("documentUrl"), entry["url"], page_url),
        "frameKind": entry.get("frameKind") if entry.get("frameKind") != "page" else None,
        "bodyState": entry.get("bodyState") if entry.get("resourceType") != "websocket" else None,
        "requestBodyFile": entry.get("requestBodyFile"),
        "responseBodyFile": entry.get("responseBodyFile"),
        "postDataPreview": entry.get("postDataPreview"),
        "requestHeaders": entry.get("requestHeaders") or None,
        "responseHeaders": entry.get("responseHeaders") or None,
    }
    ini = entry.get("initiator") or {}
    if ini:
        rec["initiator"] = {
            "type": ini.get("type"),
            "url": ini.get("url"),
            "lineNumber": ini.get("lineNumber"),
            "stack": [frame_text(f, page_url, code=True) for f in ini.get("stack") or []],
        }
    if "framesSent" in entry:
        rec["ws"] = {"sent": entry["framesSent"], "received": entry["framesReceived"], "closed": entry.get("closed")}
        frames = [
            [f["direction"], ms_since(f.get("epoch"), since), f["length"], f["preview"]]
            for f in entry.get("lastFrames") or []
        ]
        if frames:
            rec["frameColumns"] = ["direction", "t", "length", "preview"]
            rec["frames"] = frames
    lines = [network_line(_as_summary(entry), page_url)]
    facts = []
    for key in ("statusText", "mimeType", "failed", "durationMs", "encodedBytes", "remoteAddress", "protocol"):
        if rec.get(key) not in (None, ""):
            facts.append(f"{key} {rec[key]}")
    if rec.get("t") is not None:
        facts.append(f"t=+{rec['t']} ms after capture start")
    if rec.get("fromCache"):
        facts.append("from cache")
    if rec.get("timing"):
        facts.append("timing " + ", ".join(f"{k} {v} ms" for k, v in rec["timing"].items()))
    for key in ("redirectedTo", "doc", "frameKind", "bodyState", "requestBodyFile", "responseBodyFile"):
        if rec.get(key):
            facts.append(f"{key} {rec[key]}")
    lines.append("; ".join(facts))
    lines.append(f"url: {rec['url']}")
    if rec.get("postDataPreview"):
        lines.append(f"payload: {rec['postDataPreview']}")
    for key, label in (("requestHeaders", "request headers"), ("responseHeaders", "response headers")):
        if rec.get(key):
            lines.append(f"{label}:")
            lines += [f"  {k}: {v}" for k, v in rec[key].items()]
    if ini:
        where = f" {ini.get('url')}" + (f":{ini.get('lineNumber')}" if ini.get("lineNumber") is not None else "")
        lines.append(f"initiator: {ini.get('type')}{where if ini.get('url') else ''}")
        lines += [f"    at {frame}" for frame in rec["initiator"]["stack"]]
    if "ws" in rec:
        ws = rec["ws"]
        lines.append(f"websocket: {ws['sent']} sent, {ws['received']} received{', closed' if ws.get('closed') else ''}")
        lines += [f"  {d} t=+{t} ms {n} bytes: {p}" for d, t, n, p in rec.get("frames", [])]
    return "\n".join(lines), rec


def _other_doc(doc: str | None, url: str, page_url: str | None) -> str | None:
    """The document that made the request, when it is neither the request itself nor the current page."""
    if not doc or _same_doc(doc, url) or _same_doc(doc, page_url):
        return None
    return doc


def _as_summary(entry: dict[str, Any]) -> dict[str, Any]:
    """A full record seen as a list entry (its first text line), without repeating the payload."""
    return {k: v for k, v in entry.items() if k not in ("postDataPreview", "documentUrl")}
