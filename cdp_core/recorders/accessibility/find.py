"""``find``: a snapshot of only the lines that hold a text, with what holds them and what they hold.

Why: the pages of business apps are tables of hundreds of orders, each row with its "Edit" and
"Delete". The snapshot is cut at ``max_lines``, and order 4711 is on line 3,000: raising the cap
costs the model the whole table, and a CSS ``selector`` cannot say "the row that says 4711".
``find="4711"`` keeps the row whose text holds it, the controls in that row (the lines it holds)
and the lines that hold the row (a named table, a dialog, a frame), so one short answer gives
the uid to click.

Two things keep the answer true to the page: a line whose shown name is cut before the match
(an alert's "#1062 - Duplicate entry …" after its SQL statement) carries the matched text with
its context (``match``), and the kept lines are indented by the kept lines that hold them, so an
alert kept from elsewhere on the page is not drawn inside the button printed above it.
"""

from __future__ import annotations

from dataclasses import replace

from .format import SnapshotLine, clip, shown_name

__all__ = ["find_lines", "excerpt"]

#: Characters of context shown on each side of a match.
CONTEXT_CHARS = 80


def _norm(text: str) -> str:
    return " ".join(text.split())


def _parts(line: SnapshotLine) -> list[str]:
    parts = [line.name, line.value or "", line.field or "", line.error or ""]
    parts += [str(opt.get("label", "")) for opt in line.options or ()]
    return [_norm(part) for part in parts]


def _text_of(line: SnapshotLine) -> str:
    return " ".join(_parts(line)).casefold()


def excerpt(text: str, needle: str, context: int = CONTEXT_CHARS) -> str | None:
    """The first match of ``needle`` (casefolded, spaces normalised) in ``text`` with ``context``
    characters each side, ``…`` where the text goes on; None when ``text`` does not hold it."""
    text = _norm(text)
    at = text.casefold().find(needle)
    if at < 0 or not needle:
        return None
    start, end = max(0, at - context), min(len(text), at + len(needle) + context)
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


def _shown(line: SnapshotLine, needle: str) -> str | None:
    """The matched text in context when the line as printed does not show the match, else None."""
    if needle in shown_name(line).casefold():
        return None
    if line.value and needle in clip(line.value, 120).casefold():
        return None
    for part in _parts(line):
        found = excerpt(part, needle)
        if found is not None:
            return found
    return excerpt(" ".join(_parts(line)), needle)  # across two parts (name and value)


def find_lines(lines: list[SnapshotLine], text: str) -> tuple[list[SnapshotLine], int]:
    """(the lines kept, how many lines matched): each line whose name, value, field name, error or
    option labels hold ``text`` (case and runs of spaces aside), every line under it, every line
    above it, and the essential lines (alerts, errors, invalid fields), which a snapshot never
    leaves out. A kept line's depth counts the kept lines that hold it."""
    needle = _norm(text).casefold()
    keep = [line.essential for line in lines]
    matches: dict[int, str] = {}
    matched = 0
    holders: list[int] = []  # indices of the lines that hold the current one, outermost first
    i = 0
    while i < len(lines):
        line = lines[i]
        while holders and lines[holders[-1]].depth >= line.depth:
            holders.pop()
        if needle and needle in _text_of(line):
            matched += 1
            shown = _shown(line, needle)
            if shown is not None:
                matches[i] = shown
            for index in holders:
                keep[index] = True
            keep[i] = True
            end = i + 1
            while end < len(lines) and lines[end].depth > line.depth:
                keep[end] = True
                end += 1
        holders.append(i)
        i += 1
    out: list[SnapshotLine] = []
    kept_holders: list[int] = []  # original depths of the kept lines that hold the current one
    for index, (line, kept) in enumerate(zip(lines, keep, strict=True)):
        while kept_holders and kept_holders[-1] >= line.depth:
            kept_holders.pop()
        if not kept:
            continue
        out.append(replace(line, depth=len(kept_holders), match=matches.get(index)))
        kept_holders.append(line.depth)
    return out, matched
