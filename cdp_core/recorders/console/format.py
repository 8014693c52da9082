"""Console values as text: a ``RemoteObject`` previewed as DevTools prints it, stacks, printf formats.

Built from the event's own previews (nothing is fetched back from the page), redacting
secret-named fields, so the console recorder's handlers stay synchronous and cheap.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..redact import REDACTED, is_secret_pair

__all__ = [
    "format_remote_object",
    "stack_frames",
    "frames_from_description",
    "message_text",
    "MAX_STACK_FRAMES",
    "ARG_PREVIEW_CHARS",
]

MAX_STACK_FRAMES = 30
ARG_PREVIEW_CHARS = 300


def _js_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _format_preview(preview: dict[str, Any]) -> str:
    """DevTools-like one-liner from an ``ObjectPreview``: ``{id: 123, name: 'x'}``, ``Array(3) [1, 2, 3]``."""
    props = preview.get("properties") or []
    is_array = preview.get("subtype") == "array"
    parts = []
    for prop in props:
        value = prop.get("value")
        # a string, number or boolean is judged with its value (``key: 'Enter'``); an object is hidden
        judged = value if prop.get("type") in ("string", "number", "boolean") else prop
        if not is_array and is_secret_pair(str(prop.get("name", "")), judged):
            value = REDACTED
        elif value is None and prop.get("valuePreview"):
            value = _format_preview(prop["valuePreview"])
        elif prop.get("type") == "string":
            value = repr(value)
        elif value is None:
            value = prop.get("type", "?")
        parts.append(str(value) if is_array else f"{prop.get('name')}: {value}")
    if preview.get("overflow"):
        parts.append("…")
    if is_array:
        return f"[{', '.join(parts)}]"
    body = f"{{{', '.join(parts)}}}"
    desc = preview.get("description")
    return body if not desc or desc == "Object" else f"{desc} {body}"


def format_remote_object(obj: dict[str, Any]) -> str:
    """A short readable text of a ``Runtime.RemoteObject``; never raises."""
    try:
        kind = obj.get("type")
        if "unserializableValue" in obj:
            return str(obj["unserializableValue"])
        if kind in ("string", "number", "boolean") or (kind == "object" and obj.get("subtype") == "null"):
            return _js_value(obj.get("value"))
        if kind == "undefined":
            return "undefined"
        if kind == "object" and obj.get("preview") and obj.get("subtype") not in ("error", "node", "regexp", "date"):
            return _format_preview(obj["preview"])
        if "value" in obj:
            return _js_value(obj["value"])
        return str(obj.get("description") or obj.get("className") or kind or "?")
    except Exception:  # a preview must never fail: fall back to something
        return str(obj.get("description") or obj.get("type") or "?") if isinstance(obj, dict) else "?"


def stack_frames(stack: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Call frames of a StackTrace and its async parents, 1-based lines, bounded."""
    out: list[dict[str, Any]] = []
    while stack and len(out) < MAX_STACK_FRAMES:
        for f in stack.get("callFrames") or []:
            if len(out) >= MAX_STACK_FRAMES:
                break
            out.append(
                {
                    "function": f.get("functionName") or "(anonymous)",
                    "url": f.get("url") or "",
                    "lineNumber": int(f.get("lineNumber", 0)) + 1,
                    "columnNumber": int(f.get("columnNumber", 0)) + 1,
                    **({"async": stack["description"]} if stack.get("description") else {}),
                }
            )
        stack = stack.get("parent")
    return out


# One frame of a V8 ``error.stack``: "    at fn (url:line:col)" or "    at url:line:col" (1-based already).
_STACK_LINE = re.compile(r"^\s*at (?:(?P<fn>.+?) \()?(?P<url>\S+?):(?P<line>\d+):(?P<col>\d+)\)?\s*$")


def frames_from_description(description: str) -> list[dict[str, Any]]:
    """Frames read from the exception's ``error.stack`` text.

    An uncaught error thrown before anyone attached is replayed by ``Runtime.enable``
    without ``stackTrace`` (V8 records structured stacks only while an inspector listens),
    but its description still carries the JS stack: the agent's first look after attach
    (the two-prompt workflow) then still names the throwing functions.
    """
    out: list[dict[str, Any]] = []
    for line in description.splitlines()[1:]:
        match = _STACK_LINE.match(line)
        if match is None:
            continue
        out.append(
            {
                "function": (match["fn"] or "(anonymous)").removeprefix("async "),
                "url": match["url"],
                "lineNumber": int(match["line"]),
                "columnNumber": int(match["col"]),
            }
        )
        if len(out) >= MAX_STACK_FRAMES:
            break
    return out


_FORMAT_SPEC = re.compile(r"%[sdifoOc%]")


def message_text(args: list[Any], previews: list[str]) -> str:
    """The message as DevTools prints it: ``%s``/``%d``/``%o``... in a first string filled, ``%c`` dropped."""
    first = args[0] if args and isinstance(args[0], dict) else None
    if not previews or first is None or first.get("type") != "string" or "%" not in previews[0]:
        return " ".join(previews)
    rest = iter(range(1, len(previews)))
    consumed = 0

    def fill(m: re.Match[str]) -> str:
        nonlocal consumed
        spec = m.group(0)
        if spec == "%%":
            return "%"
        index = next(rest, None)
        if index is None:
            return spec
        consumed = index
        if spec == "%c":
            return ""  # CSS for the console's styling, not text
        value = previews[index]
        if spec in ("%d", "%i"):
            try:
                return str(int(float(value)))
            except ValueError:
                return "NaN"
        return value

    head = _FORMAT_SPEC.sub(fill, previews[0])
    return " ".join([head, *previews[consumed + 1 :]])
