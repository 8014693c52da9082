"""HAR 1.2 export of a NetworkRecorder, in the shape Chrome DevTools imports.

Why our own writer: the HAR must carry what we captured (redirect hops, failed requests,
bodies we held) and must never carry secrets, so it is built from the recorder's
already-redacted entries: redacted headers, cookie lists emptied for redacted cookie
headers, password-looking form fields masked in post data, secret-named URL parameters masked
in ``url``, ``queryString`` (parsed from the masked URL) and in the URLs inside text bodies.
"""

from __future__ import annotations

import bisect
import json
import urllib.parse
from pathlib import Path
from typing import Any

from ..redact import REDACTED, redact_form_fields, redact_secrets_in_text, redact_url, redact_url_params
from . import NetworkRecorder, is_text_mime, iso_time

__all__ = ["build_har", "write_har"]

CREATOR = {"name": "mcp-browser-debug", "version": "0.1.0"}
MAX_INLINE_BODY = 1024 * 1024


def _http_version(protocol: str | None) -> str:
    p = (protocol or "").lower()
    if p in ("h2", "http/2", "http/2.0"):
        return "HTTP/2.0"
    if p in ("h3", "http/3"):
        return "HTTP/3.0"
    if p.startswith("http/"):
        return p.upper()
    return "HTTP/1.1" if p == "" else p


def _headers(headers: dict[str, str]) -> list[dict[str, str]]:
    items: list[dict[str, str]] = []
    for name, value in headers.items():
        for line in str(value).split("\n"):
            items.append({"name": name, "value": line})
    return items


def _cookies(headers: dict[str, str], name: str) -> list[dict[str, Any]]:
    """Cookie names only when the header is not redacted; values never leave the recorder redacted."""
    for k, v in headers.items():
        if k.lower() == name:
            if v == REDACTED:
                return []
            out = []
            for part in v.split(";" if name == "cookie" else "\n"):
                cname, _, cval = part.strip().partition("=")
                if cname:
                    out.append({"name": cname, "value": cval.split(";")[0]})
            return out
    return []


def _timings(entry: dict[str, Any]) -> tuple[float, dict[str, float]]:
    total = float(entry.get("durationMs") or 0.0)
    t = entry.get("timing") or {}

    def span(a: str, b: str) -> float:
        start, end = t.get(a, -1), t.get(b, -1)
        return round(end - start, 3) if start is not None and end is not None and start >= 0 and end >= start else -1

    dns, connect, ssl = span("dnsStart", "dnsEnd"), span("connectStart", "connectEnd"), span("sslStart", "sslEnd")
    send = max(span("sendStart", "sendEnd"), 0.0)
    send_end = t.get("sendEnd", -1)
    headers_end = t.get("receiveHeadersEnd", -1)
    wait = round(headers_end - send_end, 3) if t and send_end >= 0 and headers_end >= send_end else 0.0
    first = [t[k] for k in ("dnsStart", "connectStart", "sendStart") if t.get(k, -1) >= 0]
    blocked = round(first[0], 3) if first else -1
    used = max(blocked, 0) + max(dns, 0) + max(connect, 0) + send + wait
    receive = round(max(total - used, 0.0), 3)
    total = max(total, used + receive)
    return round(total, 3), {
        "blocked": blocked,
        "dns": dns,
        "connect": connect,
        "ssl": ssl,
        "send": send,
        "wait": wait,
        "receive": receive,
    }


def build_har(
    recorder: NetworkRecorder,
    *,
    page_title: str = "",
    page_url: str = "",
    include_bodies: bool = True,
    raw_bodies: bool = False,
) -> dict[str, Any]:
    """The HAR 1.2 document of everything stored in ``recorder`` (oldest first).

    One HAR page per main-frame navigation (its document request, redirects included, opens it;
    the requests after it belong to it), with its DOMContentLoaded and load times when the page
    reported them; requests captured before the first navigation seen belong to the page that
    was shown at attach (its load happened before capture: -1, as HAR says for unknown timings).
    Response bodies are masked by the same name and value rules as every answer (a JWT, a Bearer
    value, a secret-named field or URL parameter); ``raw_bodies`` keeps them as Chrome gave them,
    for the person who asks for exactly that (headers, URLs and request bodies stay redacted).
    """
    started = recorder.captured_since or iso_time()
    pages, page_of = _pages(recorder, started, page_title or redact_url(page_url))
    entries: list[dict[str, Any]] = []
    for full, post_data, body in recorder.har_inputs():
        if full.get("resourceType") == "websocket" and full.get("status") is None:
            continue
        req_headers = full.get("requestHeaders") or {}
        resp_headers = full.get("responseHeaders") or {}
        url = full["url"]
        query = [{"name": k, "value": v} for k, v in urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query, True)]
        request: dict[str, Any] = {
            "method": full["method"],
            "url": url,
            "httpVersion": _http_version(full.get("protocol")),
            "cookies": _cookies(req_headers, "cookie"),
            "headers": _headers(req_headers),
            "queryString": query,
            "headersSize": -1,
            "bodySize": len(post_data.encode()) if post_data is not None else 0,
        }
        if post_data is not None:
            ctype = next((v for k, v in req_headers.items() if k.lower() == "content-type"), "")
            request["postData"] = {"mimeType": ctype, "text": redact_form_fields(post_data, ctype)}
        status = full.get("status")
        mime = full.get("mimeType") or "x-unknown"
        content: dict[str, Any] = {"size": 0, "mimeType": mime}
        if body is not None:
            content["size"] = len(body)
            if include_bodies and len(body) <= MAX_INLINE_BODY and is_text_mime(mime):
                # A page's links and scripts carry secrets (phpMyAdmin's ``&amp;token=``, ``token: "..."``)
                text = body.decode("utf-8", "replace")
                content["text"] = text if raw_bodies else redact_url_params(redact_secrets_in_text(text))
        location = next((v for k, v in resp_headers.items() if k.lower() == "location"), "")
        response = {
            "status": int(status or 0),
            "statusText": full.get("statusText") or (full.get("failureText") or "" if status is None else ""),
            "httpVersion": _http_version(full.get("protocol")) if status is not None else "",
            "cookies": _cookies(resp_headers, "set-cookie"),
            "headers": _headers(resp_headers),
            "content": content,
            "redirectURL": location,
            "headersSize": -1,
            "bodySize": int(full.get("encodedBytes") or -1) if status is not None else 0,
            "_transferSize": int(full.get("encodedBytes") or 0),
        }
        if full.get("failed"):
            response["_error"] = full.get("failureText") or "failed"
        total, timings = _timings(full)
        entry: dict[str, Any] = {
            "pageref": page_of(int(full["id"])),
            "startedDateTime": full["startedDateTime"],
            "time": total,
            "request": request,
            "response": response,
            "cache": {},
            "timings": timings,
            "_resourceType": full.get("resourceType") or "other",
            "_mcpEntryId": full["id"],
        }
        if full.get("resourceType") == "websocket":
            # DevTools shows these in its Messages tab (previews only, already redacted).
            entry["_webSocketMessages"] = [
                {
                    "type": {"sent": "send", "received": "receive"}.get(f["direction"], f["direction"]),
                    "time": f["epoch"],
                    "opcode": f["opcode"],
                    "data": f["preview"],
                }
                for f in full.get("lastFrames") or []
            ]
        if full.get("remoteAddress"):
            entry["serverIPAddress"] = str(full["remoteAddress"]).rsplit(":", 1)[0].strip("[]")
        entries.append(entry)
    return {
        "log": {
            "version": "1.2",
            "creator": CREATOR,
            "pages": pages,
            "entries": entries,
            "comment": f"captured since {started}; "
            + (
                "headers, URLs and request bodies redacted, response bodies as received"
                if raw_bodies
                else "secrets redacted"
            ),
        }
    }


def _pages(recorder: NetworkRecorder, started: str, shown: str) -> tuple[list[dict[str, Any]], Any]:
    """The HAR pages (one per navigation) and a function: entry id -> its page id."""
    navs = recorder.main_documents()
    marks = list(recorder.page_marks)
    pages: list[dict[str, Any]] = []
    first_ids: list[int] = []
    first = recorder.first_entry()
    if not navs or (first is not None and first[0] < navs[0]["id"]):
        # Requests before the first navigation we saw: the page that was shown at attach.
        before = first[1] if first is not None and navs else shown
        pages.append(
            {
                "startedDateTime": started,
                "id": "page_1",
                "title": before or "page at attach",
                "pageTimings": {"onContentLoad": -1, "onLoad": -1},
                "comment": "loaded before capture started",
            }
        )
        first_ids.append(0)
    for index, nav in enumerate(navs):
        until = navs[index + 1]["ts"] if index + 1 < len(navs) else float("inf")

        def since_start(kind: str, nav: dict[str, Any] = nav, until: float = until) -> float:
            at = next((ts for k, ts in marks if k == kind and nav["ts"] <= ts < until), None)
            return round((at - nav["ts"]) * 1000, 3) if at is not None else -1

        pages.append(
            {
                "startedDateTime": nav["started"],
                "id": f"page_{len(pages) + 1}",
                "title": nav["url"],
                "pageTimings": {"onContentLoad": since_start("dcl"), "onLoad": since_start("load")},
            }
        )
        first_ids.append(nav["id"])

    def page_of(entry_id: int) -> str:
        return str(pages[max(0, bisect.bisect_right(first_ids, entry_id) - 1)]["id"])

    return pages, page_of


def write_har(path: str | Path, har: dict[str, Any]) -> Path:
    """Write the HAR as UTF-8 JSON and return the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(har, ensure_ascii=False, indent=1), encoding="utf-8")
    return target
