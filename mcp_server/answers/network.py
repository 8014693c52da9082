"""Network entries as the model reads them: one text line and one row per request, one record in full."""

from __future__ import annotations

from typing import Any

from cdp_core.recorders.listing import Selection
from mcp_server.answers.lean import lean, ms_since, short_url, when_text
from mcp_server.answers.listing import (
    NETWORK_COLUMNS,
    PAYLOAD_CHARS,
    URL_CHARS,
    cut,
    frame_text,
    header,
    listing_data,
    paging,
    same_doc,
    shared_values,
)

__all__ = ["network_row", "network_line", "network_listing", "network_record"]


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
        "url": cut(short_url(entry["url"], page_url), URL_CHARS),
    }
    if entry.get("download"):
        # Chrome took the response as a download and ended the request itself (net::ERR_ABORTED):
        # the file is the outcome, not a failure.
        out["download"] = entry["download"]
    elif entry.get("status") is not None and entry.get("failed"):
        out["failed"] = entry.get("failureText") or "failed"
    if entry.get("redirectedFrom"):
        out["redirectedFrom"] = entry["redirectedFrom"]
    if entry.get("postDataPreview"):
        out["postDataPreview"] = cut(entry["postDataPreview"], PAYLOAD_CHARS)
    if entry.get("appError"):  # set by network_list: the app's own error text in the answer's body
        out["appError"] = cut(entry["appError"], PAYLOAD_CHARS)
    entry_page = entry.get("pageUrl")
    if entry_page and not same_doc(entry_page, page_url):
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
    if f.get("download"):
        line += f" download: {f['download']}"
    if f.get("redirectedFrom"):
        line += f" <- #{f['redirectedFrom']}"
    if f.get("postDataPreview"):
        line += f" payload: {f['postDataPreview']}"
    if f.get("appError"):
        line += f" app error: {f['appError']}"
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
    found = shared_values(sel.entries, _SHAREABLE)
    shared = {_COLUMN_OF[name]: value for name, value in found.items()}
    said = " ".join(str(shared[name]) for name in _CELLS if name in shared)
    lines = [header(n, noun + ("" if n == 1 else "s"), sel.total, page_url, since, evicted, said) + (":" if n else "")]
    rows = _lines_and_rows(sel.entries, page_url, lines, shared)
    columns = [name for name in NETWORK_COLUMNS if name not in shared]
    notes, hint = paging(sel, since_id, "network_list")
    lines += [f"[{note}]" for note in notes]
    data = listing_data(sel, page_url, since, evicted, shared, columns, rows, hint)
    return "\n".join(lines), data


#: Entry fields a list may say once for all its rows (never the id or the URL, which tell rows apart)
_SHAREABLE = ("method", "status", "resourceType")
_COLUMN_OF = {"method": "method", "status": "status", "resourceType": "type"}
_CELLS = ("method", "status", "type")  # the row positions 1-3, in order


def _without_shared(line: str, row: list[Any], shared: dict[str, Any]) -> tuple[str, list[Any]]:
    """A full line and row with the shared cells taken out (the rare entries not built plain)."""
    cells = row[1:4]
    kept = [value for name, value in zip(_CELLS, cells, strict=True) if name not in shared]
    old = f"#{row[0]} " + " ".join(str(v) for v in cells) + " "
    if line.startswith(old):
        line = f"#{row[0]} " + "".join(f"{v} " for v in kept) + line[len(old) :]
    return line, [row[0], *kept, *row[4:]]


def _lines_and_rows(
    entries: list[dict[str, Any]], page_url: str | None, lines: list[str], shared: dict[str, Any]
) -> list[list[Any]]:
    """Each entry's text line (appended to ``lines``) and its row, as :func:`_network_fields` makes them.

    Why a loop of its own: a list holds hundreds of requests and most are plain (answered, no
    redirect, payload or WebSocket, made on the listed page); those get their line and row
    straight from the entry, without the fields dict and two calls each. Whether an entry's page
    is the listed one is asked once per distinct page URL.
    """
    rows: list[list[Any]] = []
    listed_page: dict[str, bool] = {}
    keep = [i for i, name in enumerate(_CELLS) if name not in shared]  # positions of the cells still in rows
    for entry in entries:
        entry_page = entry.get("pageUrl")
        on_page = True
        if entry_page:
            known = listed_page.get(entry_page)
            if known is None:
                known = listed_page[entry_page] = same_doc(entry_page, page_url)
            on_page = known
        status = entry.get("status")
        plain = (
            on_page
            and status is not None
            and not entry.get("failed")
            and not entry.get("redirectedFrom")
            and not entry.get("postDataPreview")
            and not entry.get("appError")
            and "framesSent" not in entry
        )
        if not plain:
            fields = _network_fields(entry, page_url)
            line, row = _network_line(fields), lean(_network_row(fields))  # lean: as the envelope's pass would
            if shared:
                line, row = _without_shared(line, row, shared)
            lines.append(line)
            rows.append(row)
            continue
        url = short_url(entry["url"], page_url)
        if len(url) > URL_CHARS or "\n" in url:
            url = cut(url, URL_CHARS)
        kind = entry.get("resourceType")
        if not shared:
            lines.append(f"#{entry['id']} {entry['method']} {status} {kind} {url}")
            rows.append([entry["id"], entry["method"], status, kind, url])
        elif len(keep) == 1:  # the common shared list: method and status shared, or method and type
            cell = (entry["method"], status, kind)[keep[0]]
            lines.append(f"#{entry['id']} {cell} {url}")
            rows.append([entry["id"], cell, url])
        elif not keep:
            lines.append(f"#{entry['id']} {url}")
            rows.append([entry["id"], url])
        else:
            cells = (entry["method"], status, kind)
            a, b = cells[keep[0]], cells[keep[1]]
            lines.append(f"#{entry['id']} {a} {b} {url}")
            rows.append([entry["id"], a, b, url])
    return rows


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
        "failed": entry.get("failureText") if entry.get("failed") and not entry.get("download") else None,
        "download": entry.get("download"),
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
        "requestHeadersProvisional": entry.get("requestHeadersProvisional") or None,
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
        facts.append(when_text(rec["t"]))
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
            if key == "requestHeaders" and rec.get("requestHeadersProvisional"):
                label += f" ({PROVISIONAL})"
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


#: said of request headers Chrome has not yet reported as sent (cdp_core Entry.sent_headers_pending)
PROVISIONAL = "provisional: Chrome has not yet reported the headers as sent, the Cookie among them; read again"


def _other_doc(doc: str | None, url: str, page_url: str | None) -> str | None:
    """The document that made the request, when it is neither the request itself nor the current page."""
    if not doc or same_doc(doc, url) or same_doc(doc, page_url):
        return None
    return doc


def _as_summary(entry: dict[str, Any]) -> dict[str, Any]:
    """A full record seen as a list entry (its first text line), without repeating the payload."""
    return {k: v for k, v in entry.items() if k not in ("postDataPreview", "documentUrl")}
