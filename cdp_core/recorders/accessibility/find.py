"""``find``: a snapshot of only the lines that hold a text, with what holds them and what they hold.

Why: the pages of business apps are tables of hundreds of orders, each row with its "Edit" and
"Delete". The snapshot is cut at ``max_lines``, and order 4711 is on line 3,000: raising the cap
costs the model the whole table, and a CSS ``selector`` cannot say "the row that says 4711".
``find="4711"`` keeps the row whose text holds it, the controls in that row (the lines it holds)
and the lines that hold the row (a named table, a dialog, a frame), so one short answer gives
the uid to click.
"""

from __future__ import annotations

from .format import SnapshotLine

__all__ = ["find_lines"]


def _text_of(line: SnapshotLine) -> str:
    parts = [line.name, line.value or "", line.field or ""]
    parts += [str(opt.get("label", "")) for opt in line.options or ()]
    return " ".join(" ".join(parts).split()).casefold()


def find_lines(lines: list[SnapshotLine], text: str) -> tuple[list[SnapshotLine], int]:
    """(the lines kept, how many lines matched): each line whose name, value, field name or option
    labels hold ``text`` (case and runs of spaces aside), every line under it, every line above it,
    and the essential lines (alerts, errors, invalid fields), which a snapshot never leaves out."""
    needle = " ".join(text.split()).casefold()
    keep = [line.essential for line in lines]
    matched = 0
    holders: list[int] = []  # indices of the lines that hold the current one, outermost first
    i = 0
    while i < len(lines):
        line = lines[i]
        while holders and lines[holders[-1]].depth >= line.depth:
            holders.pop()
        if needle and needle in _text_of(line):
            matched += 1
            for index in holders:
                keep[index] = True
            keep[i] = True
            end = i + 1
            while end < len(lines) and lines[end].depth > line.depth:
                keep[end] = True
                end += 1
        holders.append(i)
        i += 1
    return [line for line, kept in zip(lines, keep, strict=True) if kept], matched
