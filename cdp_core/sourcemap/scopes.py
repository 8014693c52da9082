"""Original names of a minified script's variables, and the way back from an original line.

Pure logic over a parsed :class:`cdp_core.sourcemap.SourceMap` and the generated script's
text (the debugger, :mod:`cdp_core.recorders.debugger`, feeds it). A minifier renames
``totale`` to ``a`` and reuses ``a`` in the next function for something else, so one mapping
at a frame's line says nothing about a variable: a map's ``names`` give the original name of
each *occurrence* of a generated identifier. :class:`NameIndex` lists those occurrences per
generated token; a variable's original name is then read over the generated range of the
scope that binds it (V8 gives each scope's start and end), leaving out the inner scopes of the
same call chain, first occurrence first (a binding's declaration, a parameter or ``let a=``,
precedes its uses in its scope). That is a heuristic without a JavaScript parser: a sibling
function that reuses the token before the declaration can mislead it, so answers keep the
generated name next to the original one.

The other direction (an original file and line to a generated position) is what setting a
breakpoint "at line 14 of ordini.js" needs. Positions are 0-based, as in the format.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from . import SourceMap

__all__ = ["NameIndex", "generated_position", "source_index", "translate_identifiers", "split_top_level"]

_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_IDENT_CHAR = re.compile(r"[\w$]")

Pos = tuple[int, int]


def source_index(smap: SourceMap, wanted: str) -> list[int]:
    """Indexes of the map's sources whose URL ends with (or, failing that, contains) ``wanted``."""
    ends = [i for i, s in enumerate(smap.sources) if s.endswith(wanted)]
    return ends or [i for i, s in enumerate(smap.sources) if wanted in s]


def generated_position(smap: SourceMap, src: int, line: int) -> Pos | None:
    """Where original ``line`` of source ``src`` starts in the generated code (its first mapped column).

    The segment of the line with the smallest original column wins (the statement's start),
    then the earliest generated position; None when nothing of the line was kept.
    """
    m = smap.mappings
    best: tuple[int, int, int] | None = None
    best_pos: Pos | None = None
    for gen_line in range(len(m.line_start) - 1):
        for i in range(m.line_start[gen_line], m.line_start[gen_line + 1]):
            if m.src[i] != src or m.src_line[i] != line:
                continue
            key = (m.src_col[i], gen_line, m.gen_col[i])
            if best is None or key < best:
                best, best_pos = key, (gen_line, m.gen_col[i])
    return best_pos


@dataclass(frozen=True, slots=True)
class _Occurrence:
    pos: Pos
    name: str
    src: int


class NameIndex:
    """Every named mapping of a script: generated token -> its occurrences (sorted), and back."""

    def __init__(self, smap: SourceMap, text: str) -> None:
        lines = text.split("\n")
        m = smap.mappings
        by_token: dict[str, list[_Occurrence]] = {}
        by_name: dict[str, list[tuple[Pos, str, int]]] = {}
        for gen_line in range(min(len(lines), len(m.line_start) - 1)):
            code = lines[gen_line]
            for i in range(m.line_start[gen_line], m.line_start[gen_line + 1]):
                k = m.name[i]
                if not 0 <= k < len(smap.names):
                    continue
                col = m.gen_col[i]
                match = _IDENT.match(code, col)
                if match is None or (col > 0 and _IDENT_CHAR.match(code[col - 1])):
                    continue
                token, name = match.group(0), smap.names[k]
                by_token.setdefault(token, []).append(_Occurrence((gen_line, col), name, m.src[i]))
                by_name.setdefault(name, []).append(((gen_line, col), token, m.src[i]))
        for occ in by_token.values():
            occ.sort(key=lambda o: o.pos)
        self._by_token = by_token
        self._by_name = by_name

    def original_name(self, token: str, start: Pos, end: Pos, inner: tuple[Pos, Pos] | None = None) -> str | None:
        """The original name of ``token`` bound in the scope spanning [start, end), ``inner`` left out."""
        occ = self._by_token.get(token)
        if not occ:
            return None
        i = bisect_left([o.pos for o in occ], start)
        for o in occ[i:]:
            if o.pos >= end:
                break
            if inner is not None and inner[0] <= o.pos < inner[1]:
                continue
            return o.name
        return None

    def generated_name(self, name: str, at: Pos, src: int | None = None) -> str | None:
        """The generated token that stands for original ``name`` nearest to ``at`` (before it first).

        Used before anything pauses (a logpoint's expression is written with original names):
        the nearest occurrence before the point is almost always the same binding.
        """
        occ = [o for o in self._by_name.get(name, ()) if src is None or o[2] == src]
        if not occ:
            return None
        before = [o for o in occ if o[0] <= at]
        if before:
            return max(before, key=lambda o: o[0])[1]
        return min(occ, key=lambda o: o[0])[1]


def _code_spans(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, is_code) pieces of an expression: string literals are not code."""
    spans: list[tuple[int, int, bool]] = []
    i = start = 0
    while i < len(text):
        ch = text[i]
        if ch in "'\"`":
            spans.append((start, i, True))
            j = i + 1
            while j < len(text) and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            spans.append((i, min(j + 1, len(text)), False))
            i = start = min(j + 1, len(text))
            continue
        i += 1
    spans.append((start, len(text), True))
    return spans


def translate_identifiers(expression: str, renamed: dict[str, str]) -> str:
    """``expression`` with each free identifier in ``renamed`` replaced (not after ``.``, not in strings)."""
    out: list[str] = []
    for start, end, code in _code_spans(expression):
        piece = expression[start:end]
        if not code:
            out.append(piece)
            continue

        def swap(m: re.Match[str], piece: str = piece) -> str:
            before = piece[: m.start()].rstrip()
            if before.endswith(".") and not before.endswith(".."):
                return m.group(0)
            return renamed.get(m.group(0), m.group(0))

        out.append(_IDENT.sub(swap, piece))
    return "".join(out)


def split_top_level(expression: str) -> list[str]:
    """The comma-separated parts of ``expression`` at depth 0 (labels of a logpoint's values)."""
    parts: list[str] = []
    depth = 0
    current = ""
    for start, end, code in _code_spans(expression):
        piece = expression[start:end]
        if not code:
            current += piece
            continue
        for ch in piece:
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(current.strip())
                current = ""
            else:
                current += ch
    parts.append(current.strip())
    return [p for p in parts if p]
