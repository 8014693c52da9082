"""A raw pause capture made readable: variables under their original names, redacted, summarized.

Runs after the page was resumed (:mod:`.debugger`). Each scope's variables are renamed with
the map's ``names`` over that scope's generated range (:class:`cdp_core.sourcemap.scopes.NameIndex`),
the closure scopes leaving out the inner scope of the same frame; only then is a value
redacted, because the name that says "secret" is the original one (``password``, minified ``i``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...sourcemap.scopes import NameIndex
from .capture import redacted_value

__all__ = ["name_capture", "capture_summary"]

IndexFor = Callable[[str], NameIndex | None]


def name_capture(capture: dict[str, Any], index_for: IndexFor | None) -> dict[str, Any]:
    """``capture`` with each scope's ``vars`` as {original name: redacted preview}; ``renamed`` says from what."""
    for frame in capture.get("frames") or ():
        scopes = frame.get("scopes")
        if not scopes:
            continue
        index = index_for(str(frame.get("url") or "")) if index_for is not None else None
        inner: tuple[tuple[int, int], tuple[int, int]] | None = None
        for scope in scopes:
            raw = scope.pop("vars", [])
            if not isinstance(raw, list):  # named already
                scope["vars"] = raw
                continue
            start, end = scope.pop("start", None), scope.pop("end", None)
            named: dict[str, str] = {}
            renamed: dict[str, str] = {}
            for generated, preview in raw:
                original = None
                if index is not None and start is not None and end is not None:
                    skip = inner if scope.get("type") == "closure" else None
                    original = index.original_name(generated, tuple(start), tuple(end), skip)
                name = original or generated
                if name in named:  # two bindings mapped to one name: keep both visible
                    name = f"{name} ({generated})"
                named[name] = redacted_value(name, preview)
                if original and original != generated:
                    renamed[name] = generated
            scope["vars"] = named
            if renamed:
                scope["renamed"] = renamed
            if start is not None and end is not None:
                inner = ((int(start[0]), int(start[1])), (int(end[0]), int(end[1])))
        if frame.get("returnValue"):
            frame["returnValue"] = redacted_value("", frame["returnValue"])
    return capture


def frame_name(frame: dict[str, Any]) -> str:
    original = frame.get("original") or {}
    return str(original.get("function") or frame.get("function") or "(anonymous)")


def capture_summary(capture: dict[str, Any], limit: int = 300) -> str:
    """One line: the top frame's function and its own variables, then the call chain."""
    frames = capture.get("frames") or []
    if not frames:
        return str(capture.get("error") or "no frames")
    top = frames[0]
    own = (top.get("scopes") or [{}])[0].get("vars") or {}
    values = ", ".join(f"{k}={v}" for k, v in own.items())
    if len(values) > limit:
        values = values[: limit - 1] + "…"
    chain = " ← ".join(frame_name(f) for f in frames[:4])
    return f"{frame_name(top)}({values}) via {chain}" if len(frames) > 1 else f"{frame_name(top)}({values})"
