"""Answers of the debug actions and of a snapshot capture, lean in both renderings (text and JSON)."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mcp_server.answers.lean import short_url

if TYPE_CHECKING:
    from cdp_core.recorders.debugger import DebugPoints, Point
    from cdp_core.sourcemap import SourceMap

__all__ = [
    "map_source",
    "script_row",
    "source_listing",
    "source_lines",
    "point_added",
    "point_listing",
    "capture_lines",
]

#: controls but the tab, and the line separators: escaped in a source line shown
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
SCRIPTS_MAX = 60
SOURCES_PER_SCRIPT = 40
LINE_CHARS = 240


#: said once in source_list and source_get: names and text a map gives are the page's, not files here
FROM_MAP = "named by the page's source map, not files on this machine"


def map_source(source: str, map_url: str) -> str:
    """A source a map names, as a URL relative to the map (``./src/app.ts``, ``../lib/x.js``).

    The names are the page's text: shown from the site's root (``/etc/passwd``) they would read
    like a path on this machine. A source on another origin or scheme (``webpack://``,
    ``file://``) keeps its full URL, which says where it claims to be.
    """
    try:
        u, m = urlsplit(source), urlsplit(map_url)
    except ValueError:
        return source
    if u.scheme not in ("http", "https") or (u.scheme, u.netloc) != (m.scheme, m.netloc):
        return source
    folder = posixpath.dirname(m.path) or "/"
    relative = posixpath.relpath(u.path or "/", folder)
    if not relative.startswith("../"):
        relative = "./" + relative
    return relative + (f"?{u.query}" if u.query else "")


def script_row(url: str, smap: SourceMap | None, error: str | None) -> dict[str, Any]:
    row: dict[str, Any] = {"url": url}
    if smap is not None:
        embedded = set(i for i, c in enumerate(smap.sources_content) if c is not None)
        row["sources"] = [map_source(s, smap.map_url or url) for s in smap.sources[:SOURCES_PER_SCRIPT]]
        if len(smap.sources) > SOURCES_PER_SCRIPT:
            row["moreSources"] = len(smap.sources) - SOURCES_PER_SCRIPT
        if len(embedded) < len(smap.sources):
            row["notEmbedded"] = len(smap.sources) - len(embedded)
    if error:
        row["mapError"] = error
    return row


def source_listing(scripts: list[dict[str, Any]], page_url: str) -> tuple[str, dict[str, Any]]:
    mapped = any(row.get("sources") for row in scripts)
    lines = [
        f"{len(scripts)} script(s)" + (f"; sources after -> are {FROM_MAP}, relative to the map" if mapped else "")
    ]
    for row in scripts:
        head = short_url(row["url"], page_url)
        if row.get("mapError"):
            lines.append(f"{head} (map unreadable: {row['mapError']})")
        elif row.get("sources"):
            more = f" +{row['moreSources']} more" if row.get("moreSources") else ""
            srcs = ", ".join(row["sources"])
            lines.append(f"{head} -> {srcs}{more}")
        else:
            lines.append(f"{head} (no source map)")
    rows = [{**r, "url": short_url(r["url"], page_url)} for r in scripts]
    data: dict[str, Any] = {"scripts": rows}
    if mapped:
        data["sources"] = FROM_MAP + " (relative to the map)"
    return "\n".join(lines), data


def source_lines(
    name: str, text: str, line: int | None, around: int, page_url: str, *, map_url: str | None = None
) -> tuple[str, dict[str, Any]]:
    """Numbered lines of a script, or of an original source embedded in ``map_url`` (said as the page's)."""
    all_lines = text.split("\n")
    if line is None:
        first, last = 1, min(len(all_lines), 2 * around + 1)
    else:
        first, last = max(1, line - around), min(len(all_lines), line + around)
    shown = []
    for n in range(first, last + 1):
        code = all_lines[n - 1]
        code = _CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", code)  # a \r or U+2028 shapes no answer
        shown.append(code if len(code) <= LINE_CHARS else code[: LINE_CHARS - 1] + "…")
    width = len(str(last))
    shown_name = map_source(name, map_url) if map_url is not None else short_url(name, page_url)
    head = f"{shown_name} lines {first}-{last} of {len(all_lines)}"
    if map_url is not None:
        head += f", as embedded in {short_url(map_url, page_url)} ({FROM_MAP})"
    body = [
        f"{n:>{width}}{'>' if n == line else ' '} {code}" for n, code in zip(range(first, last + 1), shown, strict=True)
    ]
    data: dict[str, Any] = {"source": shown_name, "firstLine": first, "totalLines": len(all_lines), "lines": shown}
    if map_url is not None:
        data["embeddedIn"] = short_url(map_url, page_url)
    return "\n".join([head, *body]), data


def _where(point: Point, page_url: str) -> dict[str, str]:
    out = {"generated": f"{short_url(point.url, page_url)}:{point.line + 1}:{point.column + 1}"}
    if point.original:
        out["at"] = f"{short_url(point.original['source'], page_url)}:{point.original['lineNumber']}"
    return out


def _point_row(point: Point, page_url: str) -> dict[str, Any]:
    row: dict[str, Any] = {"id": point.id, "kind": point.kind, **_where(point, page_url), "hits": point.hits}
    row["maxHits"] = point.max_hits
    if point.expression:
        row["expression"] = point.expression
    if point.condition:
        row["condition"] = point.condition
    if point.capped:
        row["capped"] = True
    if not point.bound:
        row["bound"] = False
    return row


def _point_line(row: dict[str, Any]) -> str:
    at = row.get("at") or row["generated"]
    gen = f" [generated {row['generated']}]" if row.get("at") else ""
    what = f" {row['expression']!r}" if row.get("expression") else ""
    cond = f" if {row['condition']!r}" if row.get("condition") else ""
    state = " capped" if row.get("capped") else ""
    state += " not bound yet (script not loaded)" if row.get("bound") is False else ""
    return f"#{row['id']} {row['kind']} {at}{gen}{what}{cond} hits {row['hits']}/{row['maxHits']}{state}"


def point_added(point: Point, renamed: dict[str, str], page_url: str) -> tuple[str, dict[str, Any]]:
    row = _point_row(point, page_url)
    data: dict[str, Any] = {"point": row}
    text = f"Set {_point_line(row)}"
    if renamed:
        data["renamed"] = renamed
        text += "\nnames in the bundle: " + ", ".join(f"{k}→{v}" for k, v in renamed.items())
    data["hint"] = f"hits arrive as console entries: console_list types=['{point.kind}']"
    return text + "\n" + data["hint"], data


def exceptions_set(mode: str, points: DebugPoints) -> tuple[str, dict[str, Any]]:
    data = {"mode": mode, "debuggerOn": points.active}
    if mode == "off":
        text = "Exceptions are no longer captured" + ("" if points.active else "; the Debugger is off")
    else:
        data["hint"] = "console_get on a pageerror entry shows its locals"
        text = (
            f"Capturing stack and locals at {'uncaught' if mode == 'uncaught' else 'every'} exception\n{data['hint']}"
        )
    return text, data


def _others(points: DebugPoints | None, owner: str) -> int:
    """How many points other sessions have on the page (they still act on it)."""
    return 0 if points is None else len(points.points) - len(points.owned_by(owner))


def point_listing(points: DebugPoints | None, page_url: str, owner: str = "") -> tuple[str, dict[str, Any]]:
    """``owner``'s points; the others' only counted (``otherSessionPoints``), as they keep the Debugger on."""
    if points is None or not points.active:
        foreign = points.foreign_count if points is not None else 0
        data: dict[str, Any] = {"points": [], "debuggerOn": False}
        if foreign:
            data["foreignPausesResumed"] = foreign
        return "No debug points (the Debugger is off)", data
    rows = [_point_row(p, page_url) for p in points.owned_by(owner)]
    data = {"points": rows, "exceptions": "off" if points.exceptions == "none" else points.exceptions}
    data["debuggerOn"] = True
    lines = [_point_line(r) for r in rows] or ["no points"]
    lines.append(f"exceptions: {data['exceptions']}")
    if others := _others(points, owner):
        data["otherSessionPoints"] = others
        lines.append(f"{others} point(s) of other sessions on this page")
    if points.foreign:
        data["foreignPauses"] = [
            f"{f['reason']} at {short_url(str(f.get('url') or ''), page_url)}:{f['lineNumber']}"
            + (" (left to the user's debugger)" if f.get("left") else " (resumed)")
            for f in points.foreign[-3:]
        ]
        lines.append(f"{points.foreign_count} pause(s) not ours, the last: " + "; ".join(data["foreignPauses"]))
        data["foreignPauseCount"] = points.foreign_count
    return "\n".join(lines), data


def points_removed(removed: int, points: DebugPoints | None, owner: str) -> tuple[str, dict[str, Any]]:
    """What debug_clear did, and why the Debugger may still be on (other sessions' points)."""
    data: dict[str, Any] = {"removed": removed, "debuggerOn": bool(points is not None and points.active)}
    text = f"Removed {removed} debug point(s); the Debugger is {'still on' if data['debuggerOn'] else 'off'}"
    if others := _others(points, owner):
        data["otherSessionPoints"] = others
        text += f" ({others} point(s) of other sessions)"
    return text, data


def _new_scopes(frame: dict[str, Any], seen: set[str]) -> list[dict[str, Any]]:
    """The frame's scopes not shown for a frame above it (frames of one module share its closure)."""
    out = []
    for scope in frame.get("scopes") or ():
        key = repr((scope.get("type"), scope.get("vars")))
        if key not in seen:
            seen.add(key)
            out.append(scope)
    return out


def capture_lines(capture: dict[str, Any], page_url: str | None) -> list[str]:
    """The text of a capture in console_get: each frame with its variables, scope by scope."""
    from mcp_server.answers.listing import frame_text

    lines = []
    if capture.get("error"):
        lines.append(str(capture["error"]))
    seen: set[str] = set()
    for frame in capture.get("frames") or ():
        if "scopes" not in frame:
            continue
        lines.append(f"  {frame_text(frame, page_url)}")
        for scope in _new_scopes(frame, seen):
            values = ", ".join(f"{k}={v}" for k, v in (scope.get("vars") or {}).items())
            more = f" (+{scope['omitted']} more)" if scope.get("omitted") else ""
            lines.append(f"    {scope.get('type')}: {values}{more}")
            if scope.get("renamed"):
                lines.append("      renamed from: " + ", ".join(f"{k}←{v}" for k, v in scope["renamed"].items()))
        if frame.get("returnValue"):
            lines.append(f"    return: {frame['returnValue']}")
    return lines


def capture_record(capture: dict[str, Any]) -> dict[str, Any]:
    """The JSON of a capture in console_get: the top frames with their scopes (the stack is the entry's)."""
    frames = []
    seen: set[str] = set()
    for frame in capture.get("frames") or ():
        if "scopes" not in frame:
            continue
        original = frame.get("original") or {}
        row: dict[str, Any] = {"function": original.get("function") or frame.get("function")}
        row["scopes"] = [
            {k: v for k, v in s.items() if k in ("type", "vars", "renamed", "omitted") and v}
            for s in _new_scopes(frame, seen)
        ]
        if frame.get("returnValue"):
            row["returnValue"] = frame["returnValue"]
        frames.append(row)
    out: dict[str, Any] = {"frames": frames}
    for key in ("exception", "error"):
        if capture.get(key):
            out[key] = capture[key]
    return out
