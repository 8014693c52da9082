"""Reading a trace file as a stream: one chunk and one event at a time (collect, step 0).

A 100 MB trace never sits in memory as a parsed JSON tree. Both layouts Chrome writes are
accepted: the object form ``{"traceEvents": [...], "metadata": {...}}`` (``Tracing`` stream,
DevTools' "Save trace") and the bare array form (with or without its closing bracket, as
the Trace Event format allows).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["TraceReader", "iter_trace_events", "TraceSummaryError"]

_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


class TraceSummaryError(ValueError):
    """The file is not a trace we can read (not JSON, or not the Trace Event format)."""


# -- streaming reader ----------------------------------------------------------------------


class _Stream:
    """A cursor over a text file, refilled chunk by chunk, for ``raw_decode``."""

    def __init__(self, fh: IO[str], chunk_size: int) -> None:
        self.fh = fh
        self.chunk_size = chunk_size
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.truncated = False

    def fill(self) -> bool:
        """Append the next chunk (dropping what was consumed); False at end of file."""
        if self.eof:
            return False
        data = self.fh.read(self.chunk_size)
        if not data:
            self.eof = True
            return False
        self.buf = self.buf[self.pos :] + data
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next non-blank character ('' at end of file), without consuming it."""
        while True:
            buf, pos, n = self.buf, self.pos, len(self.buf)
            while pos < n and buf[pos] in _WS:
                pos += 1
            self.pos = pos
            if pos < n:
                return buf[pos]
            if not self.fill():
                return ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            got = self.buf[self.pos : self.pos + 20]
            raise TraceSummaryError(f"not a trace file: expected {char!r}, found {got!r}")
        self.pos += 1

    def value(self) -> Any:
        """Decode one JSON value at the cursor, reading more of the file as needed."""
        self.peek()
        while True:
            try:
                obj, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if self.fill():
                    continue
                raise TraceSummaryError(f"not a trace file: {exc.msg} at offset {exc.pos}") from None
            # A value that ends exactly at the buffer's end may be a cut number: read on.
            if end == len(self.buf) and not self.eof and self.fill():
                continue
            self.pos = end
            return obj

    def array_items(self) -> Iterator[Any]:
        """The elements of the array whose ``[`` was just consumed."""
        while True:
            c = self.peek()
            if c == "]":
                self.pos += 1
                return
            if c == ",":
                self.pos += 1
                continue
            if c == "":
                self.truncated = True  # the array form may end without "]"
                return
            try:
                yield self.value()
            except TraceSummaryError:
                if self.eof:  # a last event cut short (browser crashed while writing)
                    self.truncated = True
                    return
                raise


class TraceReader:
    """Iterate over the events of a trace file, one chunk of the file in memory at a time.

    After iteration, ``truncated`` tells whether the file ended early (the array form may
    lack its closing bracket; a crash may cut the last event), and ``metadata`` holds the
    other top-level keys of the object form (``metadata``, ``displayTimeUnit``...).
    """

    def __init__(self, path: str | os.PathLike[str], *, chunk_size: int = 1024 * 1024) -> None:
        self.path = path
        self.chunk_size = chunk_size
        self.truncated = False
        self.metadata: dict[str, Any] = {}

    def __iter__(self) -> Iterator[dict[str, Any]]:
        with open(self.path, encoding="utf-8", errors="replace") as fh:
            s = _Stream(fh, self.chunk_size)
            try:
                yield from self._events(s)
            finally:
                self.truncated = s.truncated

    def _events(self, s: _Stream) -> Iterator[dict[str, Any]]:
        first = s.peek()
        if first == "[":
            s.pos += 1
            yield from (e for e in s.array_items() if isinstance(e, dict))
            return
        if first != "{":
            raise TraceSummaryError("not a trace file: it is neither a JSON object nor a JSON array")
        s.pos += 1
        seen_events = False
        while True:
            c = s.peek()
            if c == "}":
                break
            if c == "":
                s.truncated = True
                break
            if c == ",":
                s.pos += 1
                continue
            key = s.value()
            s.expect(":")
            if key == "traceEvents":
                seen_events = True
                s.expect("[")
                yield from (e for e in s.array_items() if isinstance(e, dict))
            else:
                self.metadata[str(key)] = s.value()
        if not seen_events:
            raise TraceSummaryError("not a trace file: the JSON object has no traceEvents")


def iter_trace_events(path: str | os.PathLike[str], *, chunk_size: int = 1024 * 1024) -> Iterator[dict[str, Any]]:
    """Yield the trace events of a trace file one by one, reading it in chunks."""
    return iter(TraceReader(path, chunk_size=chunk_size))
