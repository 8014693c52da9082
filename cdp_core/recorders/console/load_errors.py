"""Chrome's own "Failed to load resource" lines: what each one says happened to its request.

Why parse them: the line is the browser's word on one request (``Log.entryAdded`` with source
``network`` and the request's ``networkRequestId``). Its status or net error is a fact of that
request at that moment; reading it back from the newest request with the same URL would give
another call's answer (an endpoint called twice, first 500 then 200). Pure functions: the
recorder keeps what :func:`parse_load_error` finds on the entry, the answers print it.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["LOAD_ERROR", "parse_load_error", "load_error_text"]

#: how Chrome begins the line (``blink::ResourceLoadObserverForFrame``)
LOAD_ERROR = "Failed to load resource"

_STATUS = re.compile(r"status of (\d{3})\s*(?:\(([^)]*)\))?")
_NET_ERROR = re.compile(r"\bnet::(ERR_[A-Z0-9_]+)")


def parse_load_error(text: str) -> dict[str, Any] | None:
    """``{"status": 500, "statusText": "Internal Server Error"}`` or ``{"netError": "net::ERR_…"}``.

    None for any other line (a CSP refusal, a deprecation), and for a load error whose text
    names neither (then nothing is claimed about its outcome).
    """
    if not text.startswith(LOAD_ERROR):
        return None
    rest = text[len(LOAD_ERROR) :]
    status = _STATUS.search(rest)
    if status:
        out: dict[str, Any] = {"status": int(status.group(1))}
        if status.group(2):
            out["statusText"] = status.group(2).strip()
        return out
    net = _NET_ERROR.search(rest)
    if net:
        return {"netError": f"net::{net.group(1)}"}
    return None


def load_error_text(parsed: dict[str, Any]) -> str:
    """``Failed to load resource: 500 (Internal Server Error)`` / ``…: net::ERR_CONNECTION_REFUSED``.

    The line's own outcome without Chrome's filler words ("the server responded with a status of").
    """
    if "status" in parsed:
        said = str(parsed["status"])
        if parsed.get("statusText"):
            said += f" ({parsed['statusText']})"
    else:
        said = str(parsed.get("netError") or "")
    return f"{LOAD_ERROR}: {said}"
