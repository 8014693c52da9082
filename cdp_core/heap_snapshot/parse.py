"""Parse: read a V8 ``.heapsnapshot`` from disk into compact arrays (:class:`HeapSnapshot`).

The first step of the snapshot's path (parse here -> build the dominator tree in
:mod:`cdp_core.heap_snapshot.graph` -> summarize in :mod:`cdp_core.heap_snapshot`, which
re-exports these names). Apart because the streaming reader is a job of its own: the file is
read in chunks, the ``nodes`` and ``edges`` arrays go straight into ``array('i')`` and only
the string table becomes Python strings (the module doc of :mod:`cdp_core.heap_snapshot` says why).
"""

from __future__ import annotations

import json
import os
from array import array
from dataclasses import dataclass, field
from typing import IO, Any

__all__ = ["HeapSnapshot", "HeapSnapshotError", "read_heap_snapshot"]

_CHUNK = 1024 * 1024


class HeapSnapshotError(ValueError):
    """The file is not a heap snapshot we can read."""


@dataclass
class HeapSnapshot:
    meta: dict[str, Any]
    nodes: array[int]
    edges: array[int]
    strings: list[str]
    node_fields: list[str] = field(default_factory=list)
    edge_fields: list[str] = field(default_factory=list)
    node_types: list[str] = field(default_factory=list)
    edge_types: list[str] = field(default_factory=list)

    @property
    def node_count(self) -> int:
        return len(self.nodes) // max(1, len(self.node_fields))


# -- reading -------------------------------------------------------------------------------


class _Chunks:
    """A text cursor over a file read a chunk at a time."""

    def __init__(self, fh: IO[str]) -> None:
        self.fh = fh
        self.buf = ""
        self.pos = 0
        self.eof = False

    def more(self) -> bool:
        if self.eof:
            return False
        data = self.fh.read(_CHUNK)
        if not data:
            self.eof = True
            return False
        self.buf = self.buf[self.pos :] + data
        self.pos = 0
        return True

    def seek_after(self, marker: str) -> bool:
        """Move past the next ``marker`` (possibly chunks away); False at end of file."""
        while True:
            i = self.buf.find(marker, self.pos)
            if i >= 0:
                self.pos = i + len(marker)
                return True
            # keep a tail that may hold the start of the marker
            self.pos = max(self.pos, len(self.buf) - len(marker))
            if not self.more():
                return False

    def ints(self, out: array[int]) -> array[int]:
        """The integers of the array whose ``[`` was just passed, up to its ``]``."""
        while True:
            end = self.buf.find("]", self.pos)
            if end >= 0:
                text = self.buf[self.pos : end]
                self.pos = end + 1
                out = _extend(out, text)
                return out
            cut = self.buf.rfind(",", self.pos)
            if cut >= 0:
                out = _extend(out, self.buf[self.pos : cut])
                self.pos = cut + 1
            if not self.more():
                raise HeapSnapshotError("the file ends inside an integer array")

    def strings(self) -> list[str]:
        """The elements of the string array whose ``[`` was just passed."""
        decoder = json.JSONDecoder()
        out: list[str] = []
        while True:
            buf, pos = self.buf, self.pos
            while pos < len(buf) and buf[pos] in " \t\r\n,":
                pos += 1
            self.pos = pos
            if pos >= len(buf):
                if not self.more():
                    raise HeapSnapshotError("the file ends inside the string table")
                continue
            if buf[pos] == "]":
                self.pos = pos + 1
                return out
            try:
                value, end = decoder.raw_decode(buf, pos)
            except json.JSONDecodeError:
                if self.more():
                    continue
                raise HeapSnapshotError("a string of the string table is cut short") from None
            out.append(value if isinstance(value, str) else str(value))
            self.pos = end


def _extend(out: array[int], text: str) -> array[int]:
    text = text.strip().strip(",")
    if not text:
        return out
    values = [int(v) for v in text.split(",")]
    before = len(out)
    try:
        out.extend(values)
    except OverflowError:  # an id or size beyond 32 bits: widen once, keep going
        del out[before:]
        out = array("q", out)
        out.extend(values)
    return out


def read_heap_snapshot(path: str | os.PathLike[str]) -> HeapSnapshot:
    """Read the meta, node and edge arrays and the string table of a ``.heapsnapshot``."""
    try:
        fh = open(path, encoding="utf-8", errors="replace")
    except OSError as exc:
        raise HeapSnapshotError(f"cannot read {path}: {exc}") from None
    with fh:
        c = _Chunks(fh)
        if not c.seek_after('"snapshot":'):
            raise HeapSnapshotError('not a heap snapshot: no "snapshot" object')
        decoder = json.JSONDecoder()
        while True:
            while c.pos < len(c.buf) and c.buf[c.pos] in " \t\r\n":
                c.pos += 1
            try:
                info, c.pos = decoder.raw_decode(c.buf, c.pos)
                break
            except json.JSONDecodeError:
                if not c.more():
                    raise HeapSnapshotError("not a heap snapshot: its meta data cannot be read") from None
        meta = info.get("meta") if isinstance(info, dict) else None
        if not isinstance(meta, dict) or "node_fields" not in meta:
            raise HeapSnapshotError("not a heap snapshot: no meta.node_fields")
        if not c.seek_after('"nodes":['):
            raise HeapSnapshotError("not a heap snapshot: no nodes")
        nodes = c.ints(array("i"))
        if not c.seek_after('"edges":['):
            raise HeapSnapshotError("not a heap snapshot: no edges")
        edges = c.ints(array("i"))
        if not c.seek_after('"strings":['):
            raise HeapSnapshotError("not a heap snapshot: no strings")
        strings = c.strings()
    snap = HeapSnapshot(
        meta=info,
        nodes=nodes,
        edges=edges,
        strings=strings,
        node_fields=list(meta["node_fields"]),
        edge_fields=list(meta.get("edge_fields") or []),
        node_types=list((meta.get("node_types") or [[]])[0]),
        edge_types=list((meta.get("edge_types") or [[]])[0]),
    )
    if len(snap.nodes) % max(1, len(snap.node_fields)):
        raise HeapSnapshotError("the nodes array does not fit meta.node_fields")
    return snap
