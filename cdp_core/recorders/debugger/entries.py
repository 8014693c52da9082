"""Console entries of debug points: a logpoint's values, a snapshot's capture, notices, a pageerror's locals.

Entries go into the page's console timeline (:class:`.console.ConsoleRecorder`) with the
fields every entry has, so console_list and console_get read them like any other; the
capture itself (frames, scopes) rides along in ``capture`` and console_get renders it.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from ..network import iso_time
from .capture import redacted_value
from .names import capture_summary

if TYPE_CHECKING:
    from ...connection import CDPSession
    from ..console import ConsoleRecorder
    from . import Point

__all__ = ["base_entry", "logpoint_entry", "capped_entry", "notice_entry", "snapshot_entry", "onto_pageerror"]


def base_entry(page_url: str, kind: str, point: Point | None, session: CDPSession) -> dict[str, Any]:
    """The fields every console entry has, at the point's place (original and generated)."""
    loc: dict[str, Any] = (
        {"url": point.url, "lineNumber": point.line + 1, "columnNumber": point.column + 1} if point else {}
    )
    if point is not None and point.original:
        loc["original"] = {"url": point.original["source"], "lineNumber": point.original["lineNumber"]}
    return {
        "timestamp": iso_time(),
        "type": kind,
        "location": loc,
        "argsPreview": [],
        "stack": [],
        "pageUrl": page_url,
        "frameUrl": str(session.target_info.get("url", "")) if session.session_id else page_url,
        "source": "debugger",
        "replayed": False,
    }


def logpoint_entry(page_url: str, point: Point, session: CDPSession, n: int, values: Any) -> dict[str, Any]:
    """One hit: ``label=value`` per logged value, redacted by the original label and by the value."""
    entry = base_entry(page_url, "logpoint", point, session)
    if isinstance(values, dict):  # the expression threw: said as the value
        previews = [f"(error: {values.get('e')})"]
    else:
        labels = point.labels if len(point.labels) == len(values or ()) else [point.expression or ""]
        previews = [redacted_value(label, str(v)) for label, v in zip(labels, values or (), strict=False)]
        if len(labels) > 1:
            previews = [f"{label}={v}" for label, v in zip(labels, previews, strict=True)]
    entry["argsPreview"] = previews
    entry["text"] = f"{point.expression} = {', '.join(previews)}" if len(previews) == 1 else ", ".join(previews)
    entry["point"] = point.id
    entry["hit"] = n
    return entry


def capped_entry(page_url: str, point: Point, session: CDPSession) -> dict[str, Any]:
    entry = base_entry(page_url, point.kind, point, session)
    entry["text"] = f"point {point.id} reached max_hits={point.max_hits}: it stopped recording (debug_list shows it)"
    entry["point"] = point.id
    entry["capped"] = True
    return entry


def notice_entry(page_url: str, session: CDPSession, text: str) -> dict[str, Any]:
    entry = base_entry(page_url, "snapshot", None, session)
    entry["text"] = text
    entry["capped"] = True
    return entry


def snapshot_entry(page_url: str, point: Point | None, session: CDPSession, capture: dict[str, Any]) -> dict[str, Any]:
    """A snapshot point's hit, or an exception's capture that has no pageerror entry (mode ``all``)."""
    entry = base_entry(page_url, "snapshot", point, session)
    stack = capture.get("frames") or []
    if point is None and stack:
        top = stack[0]
        entry["location"] = {k: top.get(k) for k in ("url", "lineNumber", "columnNumber", "original") if top.get(k)}
    entry["stack"] = [{k: v for k, v in f.items() if k not in ("scopes", "returnValue")} for f in stack]
    entry["capture"] = capture
    what = f"point {point.id} hit {point.hits}" if point else f"exception: {capture.get('exception', '')[:200]}"
    entry["text"] = f"{what}: {capture_summary(capture)}"
    if point is not None:
        entry["point"] = point.id
        entry["hit"] = point.hits
    return entry


async def onto_pageerror(console: ConsoleRecorder, capture: dict[str, Any], before: int, wait_s: float) -> bool:
    """Put an uncaught exception's capture on its pageerror entry (it arrives after the resume)."""
    first = str(capture.get("exception") or "").split("\n", 1)[0]
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        for entry in reversed(console._entries.values()):
            if entry["id"] <= before:
                break
            if entry.get("type") == "pageerror" and "capture" not in entry and first[:80] in str(entry.get("text", "")):
                entry["capture"] = capture
                return True
        await asyncio.sleep(0.05)
    return False
