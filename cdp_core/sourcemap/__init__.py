"""Source Map v3: decode a map and look up where a generated position came from.

Pure logic, no I/O (fetching scripts and maps through a page is
:mod:`cdp_core.recorders.source_maps`). Written from the Source Map v3 specification
(ECMA-426): ``mappings`` is one group per generated line separated by ``;``, segments by
``,``, each segment 1, 4 or 5 base64 VLQ fields (generated column, source index, source line,
source column, name index), every field but the generated column relative to its previous
occurrence in the whole map, the generated column relative within its line. Index maps
(``sections``) with embedded maps are supported; sections given by ``url`` are not fetched
(:class:`SourceMapError` says so when a lookup lands in one).

Memory: the mappings string is decoded lazily on the first lookup into flat ``array('i')``
columns (five 4-byte integers a segment plus one offset a line), about 24 bytes a segment
against ~300 for a list of tuples; :attr:`SourceMap.cost` estimates the bytes held so a
cache can stay within a budget. All positions here are 0-based, as in the format; callers
convert to the 1-based lines editors show.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import urllib.parse
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

__all__ = [
    "SourceMap",
    "SourceMapError",
    "OriginalPosition",
    "decode_vlq_segment",
    "parse_source_map",
    "source_mapping_url",
    "decode_data_url",
    "resolve_url",
    "printable_url",
    "printable_name",
    "function_declaration",
]

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_VALUE = {c: i for i, c in enumerate(_B64)}
_XSSI_PREFIX = ")]}'"
NO_NAME = -1


class SourceMapError(ValueError):
    """The map cannot be read (not JSON, not version 3, corrupt mappings...)."""


def decode_vlq_segment(text: str, start: int = 0, end: int | None = None) -> list[int]:
    """The signed integers of one segment's base64 VLQ text (``text[start:end]``).

    Each base64 digit carries 5 value bits, least significant group first, and a
    continuation bit (32); the lowest bit of the assembled number is the sign.
    """
    end = len(text) if end is None else end
    values: list[int] = []
    shift = 0
    acc = 0
    for i in range(start, end):
        digit = _B64_VALUE.get(text[i])
        if digit is None:
            raise SourceMapError(f"invalid base64 VLQ character {text[i]!r} in mappings")
        acc += (digit & 31) << shift
        if digit & 32:
            shift += 5
            if shift > 60:
                raise SourceMapError("base64 VLQ value too long in mappings")
            continue
        values.append(-(acc >> 1) if acc & 1 else acc >> 1)
        acc = 0
        shift = 0
    if shift:
        raise SourceMapError("base64 VLQ value cut short in mappings")
    return values


@dataclass(frozen=True, slots=True)
class OriginalPosition:
    """Where a generated position came from (0-based line/column, as in the map)."""

    source: str  # resolved URL (sourceRoot and the map's URL applied)
    line: int
    column: int
    name: str | None = None
    source_index: int = 0


class _Mappings:
    """Decoded segments in compact columns; ``line_start[i]`` is line i's first segment."""

    __slots__ = ("line_start", "gen_col", "src", "src_line", "src_col", "name")

    def __init__(self, mappings: str) -> None:
        self.line_start = array("i", [0])
        self.gen_col = array("i")
        self.src = array("i")
        self.src_line = array("i")
        self.src_col = array("i")
        self.name = array("i")
        src = src_line = src_col = name = 0
        n = len(mappings)
        pos = 0
        gen_col = 0
        while pos <= n:
            # One generated line: segments up to the next ';'.
            line_end = mappings.find(";", pos)
            if line_end < 0:
                line_end = n
            gen_col = 0
            seg_start = pos
            while seg_start < line_end:
                seg_end = mappings.find(",", seg_start, line_end)
                if seg_end < 0:
                    seg_end = line_end
                if seg_end > seg_start:
                    fields = decode_vlq_segment(mappings, seg_start, seg_end)
                    count = len(fields)
                    if count not in (1, 4, 5):
                        raise SourceMapError(f"a mappings segment has {count} fields (1, 4 or 5 allowed)")
                    gen_col += fields[0]
                    self.gen_col.append(gen_col)
                    if count >= 4:
                        src += fields[1]
                        src_line += fields[2]
                        src_col += fields[3]
                        self.src.append(src)
                        self.src_line.append(src_line)
                        self.src_col.append(src_col)
                        if count == 5:
                            name += fields[4]
                            self.name.append(name)
                        else:
                            self.name.append(NO_NAME)
                    else:  # a generated range that maps to nothing
                        self.src.append(-1)
                        self.src_line.append(0)
                        self.src_col.append(0)
                        self.name.append(NO_NAME)
                seg_start = seg_end + 1
            self.line_start.append(len(self.gen_col))
            pos = line_end + 1

    @property
    def cost(self) -> int:
        return sum(
            a.itemsize * len(a)
            for a in (self.line_start, self.gen_col, self.src, self.src_line, self.src_col, self.name)
        )

    def segment_at(self, line: int, column: int, *, exact: bool = False) -> int | None:
        """Index of the segment covering (line, column): the last one starting at or before it."""
        if line < 0 or line + 1 >= len(self.line_start):
            return None
        lo, hi = self.line_start[line], self.line_start[line + 1]
        if lo == hi:
            return None
        # Segments of a line are sorted by generated column (the spec's encoding makes them so).
        i = bisect_right(self.gen_col, column, lo, hi) - 1
        if i < lo:
            return None
        if exact and self.gen_col[i] != column:
            return None
        return i


class SourceMap:
    """One parsed map (or index map); ``lookup`` maps generated 0-based positions back."""

    def __init__(self, data: dict[str, Any], map_url: str = "") -> None:
        if not isinstance(data, dict):
            raise SourceMapError("a source map is a JSON object")
        if data.get("version") != 3:
            raise SourceMapError(f"unsupported source map version {data.get('version')!r} (3 expected)")
        self.map_url = map_url
        self.file = data.get("file") if isinstance(data.get("file"), str) else None
        self._sections: list[tuple[int, int, SourceMap | None, str | None]] = []
        self._mappings_text = ""
        self._mappings: _Mappings | None = None
        self.sources: list[str] = []
        self.sources_content: list[str | None] = []
        self.names: list[str] = []
        self.ignore_list: frozenset[int] = frozenset()
        sections = data.get("sections")
        if sections is not None:
            if not isinstance(sections, list):
                raise SourceMapError("'sections' of an index map must be a list")
            for section in sections:
                offset = section.get("offset") if isinstance(section, dict) else None
                if not isinstance(offset, dict):
                    raise SourceMapError("an index map section has no offset")
                line, col = int(offset.get("line", 0)), int(offset.get("column", 0))
                if isinstance(section.get("map"), dict):
                    self._sections.append((line, col, SourceMap(section["map"], map_url), None))
                else:
                    self._sections.append((line, col, None, str(section.get("url") or "")))
            self._sections.sort(key=lambda s: (s[0], s[1]))
            return
        mappings = data.get("mappings")
        sources = data.get("sources")
        if not isinstance(mappings, str) or not isinstance(sources, list):
            raise SourceMapError("a source map needs 'mappings' (a string) and 'sources' (a list)")
        root_value = data.get("sourceRoot")
        root = root_value if isinstance(root_value, str) else ""
        self.sources = [printable_url(resolve_url(map_url, _with_root(root, str(s or "")))) for s in sources]
        content = data.get("sourcesContent")
        self.sources_content = [c if isinstance(c, str) else None for c in content] if isinstance(content, list) else []
        self.names = [printable_name(str(n)) for n in data.get("names") or [] if n is not None]
        ignore = data.get("ignoreList", data.get("x_google_ignoreList"))
        if isinstance(ignore, list):
            self.ignore_list = frozenset(i for i in ignore if isinstance(i, int))
        self._mappings_text = mappings

    @property
    def mappings(self) -> _Mappings:
        """The decoded mappings (decoded on first use; raises :class:`SourceMapError`)."""
        if self._mappings is None:
            self._mappings = _Mappings(self._mappings_text)
            self._mappings_text = ""  # the compact arrays replace the text
        return self._mappings

    @property
    def cost(self) -> int:
        """Rough bytes held: decoded arrays (or the mappings text still to decode) and sources."""
        own = self._mappings.cost if self._mappings is not None else len(self._mappings_text)
        own += sum(len(c) for c in self.sources_content if c) + sum(len(s) for s in self.sources)
        return own + sum(s[2].cost for s in self._sections if s[2] is not None)

    def lookup(self, line: int, column: int) -> OriginalPosition | None:
        """The original position of generated (line, column), both 0-based; None when unmapped."""
        if self._sections:
            return self._lookup_section(line, column)
        m = self.mappings
        i = m.segment_at(line, column)
        if i is None or m.src[i] < 0 or m.src[i] >= len(self.sources):
            return None
        name_index = m.name[i]
        name = self.names[name_index] if 0 <= name_index < len(self.names) else None
        return OriginalPosition(self.sources[m.src[i]], m.src_line[i], m.src_col[i], name, m.src[i])

    def name_at(self, line: int, column: int) -> str | None:
        """The original name of the token that starts exactly at generated (line, column)."""
        if self._sections:
            found = self._section_for(line, column)
            if found is None or found[2] is None:
                return None
            return found[2].name_at(line - found[0], column - found[1] if line == found[0] else column)
        m = self.mappings
        i = m.segment_at(line, column, exact=True)
        if i is None or not 0 <= m.name[i] < len(self.names):
            return None
        return self.names[m.name[i]]

    def source_line(self, pos: OriginalPosition, limit: int = 160) -> str | None:
        """The original source's text of ``pos.line`` when the map embeds it (``sourcesContent``)."""
        owner = self._owner_of(pos)
        if owner is None or pos.source_index >= len(owner.sources_content):
            return None
        content = owner.sources_content[pos.source_index]
        if content is None:
            return None
        lines = content.splitlines()
        if not 0 <= pos.line < len(lines):
            return None
        text = lines[pos.line].strip()
        return text if len(text) <= limit else text[: limit - 1] + "…"

    def is_ignored(self, pos: OriginalPosition) -> bool:
        """True when the map lists the source in ``ignoreList`` (third-party/library code)."""
        owner = self._owner_of(pos)
        return owner is not None and pos.source_index in owner.ignore_list

    def _owner_of(self, pos: OriginalPosition) -> SourceMap | None:
        if not self._sections:
            return self
        for _, _, sub, _ in self._sections:
            if sub is not None and pos.source_index < len(sub.sources) and sub.sources[pos.source_index] == pos.source:
                return sub._owner_of(pos)
        return None

    def _section_for(self, line: int, column: int) -> tuple[int, int, SourceMap | None, str | None] | None:
        found = None
        for section in self._sections:
            if (section[0], section[1]) <= (line, column):
                found = section
            else:
                break
        return found

    def _lookup_section(self, line: int, column: int) -> OriginalPosition | None:
        found = self._section_for(line, column)
        if found is None:
            return None
        s_line, s_col, sub, url = found
        if sub is None:
            raise SourceMapError(f"the index map's section at line {s_line + 1} is a separate map ({url}), not fetched")
        return sub.lookup(line - s_line, column - s_col if line == s_line else column)


def _with_root(root: str, source: str) -> str:
    if not root or urllib.parse.urlsplit(source).scheme:
        return source
    return root if not source else (root.rstrip("/") + "/" + source if not root.endswith("/") else root + source)


#: Characters a page's name must not carry into an answer: controls (a newline starts a line of
#: its own), line/paragraph separators and the invisible format characters (bidi overrides)
_UNPRINTABLE = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]"
)
#: A source name longer than this is cut (a map can name a source with megabytes)
NAME_CHARS = 500


def _cut(text: str) -> str:
    return text if len(text) <= NAME_CHARS else text[: NAME_CHARS - 1] + "…"


def printable_url(url: str) -> str:
    """``url`` with the characters that would shape an answer percent-encoded, as a URL carries them.

    Source names are the page's text: a newline in one would start a line of its own in an
    answer, a bidi override would reorder what the person reads.
    """
    return _cut(_UNPRINTABLE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8")), url))


def printable_name(name: str) -> str:
    """A function name from a map, its unprintable characters written as ``\\uXXXX``."""
    return _cut(_UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", name))


def resolve_url(base: str, ref: str) -> str:
    """``ref`` resolved against ``base`` (a map's URL, a script's URL); data: bases are left alone."""
    if not base or base.startswith("data:") or urllib.parse.urlsplit(ref).scheme:
        return ref
    return urllib.parse.urljoin(base, ref)


def parse_source_map(text: str, map_url: str = "") -> SourceMap:
    """Parse the JSON of a map (an XSSI guard line ``)]}'`` first is skipped, as the spec says)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if text.startswith(_XSSI_PREFIX):
        text = text.split("\n", 1)[1] if "\n" in text else ""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise SourceMapError(f"not JSON: {exc}") from None
    return SourceMap(data, map_url)


# The last sourceMappingURL annotation of a script: "//# sourceMappingURL=x" (or the older "//@").
_ANNOTATION = re.compile(r"(?://[#@]|/\*[#@])[ \t]*sourceMappingURL[ \t]*=[ \t]*([^\s'\"*]+)")


def source_mapping_url(script: str) -> str | None:
    """The URL of a script's ``sourceMappingURL`` comment (the last one wins), or None.

    Only the tail is searched (annotations sit at the end; a bundle of megabytes need not be
    scanned whole), but far enough back to hold a large inline ``data:`` map.
    """
    tail = script[-4_000_000:]
    found = None
    for match in _ANNOTATION.finditer(tail):
        found = match.group(1)
    return found


def decode_data_url(url: str) -> str:
    """The text of a ``data:`` URL (base64 or percent-encoded); raises :class:`SourceMapError`."""
    head, sep, payload = url.partition(",")
    if not sep:
        raise SourceMapError("a data: URL without a comma")
    if head.endswith(";base64"):
        try:
            raw = base64.b64decode(payload + "=" * (-len(payload) % 4))
        except (binascii.Error, ValueError) as exc:
            raise SourceMapError(f"bad base64 in the inline map: {exc}") from None
        return raw.decode("utf-8", "replace")
    return urllib.parse.unquote(payload)


_IDENT_CHAR = re.compile(r"[\w$]")


def function_declaration(script: str, line: int, column: int, minified_name: str) -> tuple[int, int] | None:
    """Where (0-based line, column) the function ``minified_name`` enclosing a position is named.

    V8 names a stack frame's function by its name in the generated code (``o``), and a
    minifier's map gives the original name at that name token (``validateOrder``). The
    declaration is the nearest occurrence before the position of ``function NAME``,
    ``NAME = function``/``NAME = (...) =>``, ``NAME: function`` or a method ``NAME(...) {``.
    Returns None when none is found: the caller then keeps the generated name.
    """
    if not minified_name or not re.fullmatch(r"[\w$]+", minified_name):
        return None
    lines = script.split("\n")
    if not 0 <= line < len(lines):
        return None
    name = re.escape(minified_name)
    pattern = re.compile(
        rf"(?:function\*?\s*(?P<a>{name})\s*\()"
        rf"|(?:(?<![\w$.])(?P<b>{name})\s*[=:]\s*(?:async\s*)?(?:function\b|\([^()]*\)\s*=>|[\w$]+\s*=>))"
        rf"|(?:(?<![\w$.])(?P<c>{name})\s*\([^()]*\)\s*\{{)"
    )
    for ln in range(line, max(-1, line - 5000), -1):
        text = lines[ln] if ln != line else lines[ln][: column + 1]
        best = None
        for match in pattern.finditer(text):
            group = match.group("a") and "a" or match.group("b") and "b" or "c"
            start = match.start(group)
            if start > 0 and _IDENT_CHAR.match(text[start - 1]):
                continue
            best = start
        if best is not None:
            return ln, best
    return None
