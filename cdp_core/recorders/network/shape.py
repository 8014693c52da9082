"""Building network records: an entry's summary (lists) and full record (get, HAR), redacted.

Entries hold raw headers, URLs and post data; every secret is redacted here, on the way out
(``Authorization``, cookies, API keys, password-like form fields, secret-named URL parameters such
as phpMyAdmin's ``token=``), so no caller can forget it. The raw URL stays on the entry for what
acts on it (filters, matching a console line to its request), never in a record.
"""

from __future__ import annotations

from typing import Any

from ..redact import HeaderRedactor, redact_secrets_in_text, redact_url
from .model import Entry, header, iso_time
from .payload_preview import payload_preview

__all__ = ["RecordShaper"]


class RecordShaper:
    """The brief, summary and full records of entries, every header through ``redactor``."""

    def __init__(self, redactor: HeaderRedactor, preview_bytes: int) -> None:
        self.redactor = redactor
        #: how much of a header dict, a payload or a WebSocket frame a preview keeps
        self.preview_bytes = preview_bytes

    def _request_headers(self, e: Entry) -> dict[str, str]:
        return self.redactor.headers(e.request_extra_headers or e.request_headers)

    def _response_headers(self, e: Entry) -> dict[str, str]:
        return self.redactor.headers(e.response_extra_headers or e.response_headers)

    def _preview_headers(self, headers: dict[str, str]) -> dict[str, str]:
        out: dict[str, str] = {}
        used = 0
        for k, v in headers.items():
            used += len(k) + len(v) + 4
            if used > self.preview_bytes:
                out["…"] = "truncated"
                break
            out[k] = v
        return out

    def _post_preview(self, e: Entry) -> str | None:
        if e.post_data is None:
            return "[post data not captured: use network_save_body body=request]" if e.has_post_data else None
        ctype = header(e.request_extra_headers or e.request_headers, "content-type")
        made = e.post_preview
        if made is None or made[0] is not e.post_data or made[1] != ctype:
            made = e.post_preview = (e.post_data, ctype, payload_preview(e.post_data, ctype, self.preview_bytes))
        return made[2]

    def _initiator(self, e: Entry) -> dict[str, Any] | None:
        """Who started the request; line/column numbers 1-based like the console entries."""
        ini = e.initiator
        if not ini:
            return None
        out: dict[str, Any] = {"type": ini.get("type")}
        if ini.get("url"):
            out["url"] = redact_url(str(ini["url"]))
        if ini.get("lineNumber") is not None:
            out["lineNumber"] = int(ini["lineNumber"]) + 1
        stack = ini.get("stack")
        while stack:
            frames = stack.get("callFrames") or []
            if frames:
                out["stack"] = [
                    {
                        "function": f.get("functionName") or "(anonymous)",
                        "url": redact_url(str(f.get("url") or "")) or f.get("url"),
                        "lineNumber": int(f.get("lineNumber", 0)) + 1,
                        "columnNumber": int(f.get("columnNumber", 0)) + 1,
                    }
                    for f in frames[:10]
                ]
                out["stackTop"] = out["stack"][0]
                break
            stack = stack.get("parent")
        return out

    def summary(self, e: Entry) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": e.id,
            "requestId": e.request_id,
            "timestamp": iso_time(e.wall_time),
            "method": e.method,
            "url": redact_url(e.url),
            "resourceType": e.resource_type,
            "status": e.status,
            "statusText": e.status_text,
            "failed": e.failed,
            "failureText": e.failure_text,
            "download": e.download,
            "durationMs": e.duration_ms,
            "encodedBytes": e.encoded_bytes,
            "mimeType": e.mime_type,
            "redirectedFrom": e.redirected_from,
            "bodyHeld": e.body_state == "held",
            "pageUrl": redact_url(e.page_url),
            "documentUrl": redact_url(e.document_url),
            "postDataPreview": self._post_preview(e) if e.has_post_data else None,
            "requestBodyFile": e.request_body_file,
            "responseBodyFile": e.response_body_file,
        }
        if e.frames is not None:
            d["framesSent"] = e.frames_sent
            d["framesReceived"] = e.frames_received
            d["closed"] = e.ws_closed
        return d

    def brief(self, e: Entry) -> dict[str, Any]:
        """The fields a list line shows (mcp_server/answers/network.py), as :meth:`summary`
        has them. Why not the summary: its timestamp, sizes and body state cost a long list
        more time than everything else it needs, and the list shows none of them."""
        d: dict[str, Any] = {
            "id": e.id,
            "method": e.method,
            "url": redact_url(e.url),
            "resourceType": e.resource_type,
            "status": e.status,
            "failed": e.failed,
            "failureText": e.failure_text,
            "download": e.download,
            "redirectedFrom": e.redirected_from,
            "pageUrl": redact_url(e.page_url),
            "postDataPreview": self._post_preview(e) if e.has_post_data else None,
        }
        if e.frames is not None:
            d["framesSent"] = e.frames_sent
            d["framesReceived"] = e.frames_received
            d["closed"] = e.ws_closed
        return d

    def full(self, e: Entry) -> dict[str, Any]:
        d = self.summary(e)
        d.update(
            {
                "frameKind": e.frame_kind,
                "requestHeadersPreview": self._preview_headers(self._request_headers(e)),
                "responseHeadersPreview": self._preview_headers(self._response_headers(e)),
                "requestHeaders": self._request_headers(e),
                "requestHeadersProvisional": e.sent_headers_pending,
                "responseHeaders": self._response_headers(e),
                "hasPostData": e.has_post_data,
                "initiator": self._initiator(e),
                "redirectedTo": e.redirected_to,
                "remoteAddress": e.remote_address,
                "protocol": e.protocol,
                "fromCache": e.from_cache,
                "finished": e.finished,
                "bodyState": e.body_state,
                "timing": e.timing,
                "startedDateTime": iso_time(e.wall_time),
                "responseOffsetMs": round((e.response_ts - e.start_ts) * 1000, 3) if e.response_ts else None,
            }
        )
        if e.frames is not None:
            d["lastFrames"] = [
                {
                    "direction": f.direction,
                    "timestamp": iso_time(f.epoch),
                    "epoch": f.epoch,
                    "opcode": f.opcode,
                    "length": f.length,
                    "preview": redact_secrets_in_text(f.preview) + ("…" if f.length > len(f.preview) else ""),
                }
                for f in e.frames
            ]
        return d
