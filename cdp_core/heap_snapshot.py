"""Read a V8 ``.heapsnapshot`` from disk into compact arrays and summarize it.

The file (what ``HeapProfiler.takeHeapSnapshot`` streams, and what DevTools' Memory panel
saves and opens) is one JSON object: ``snapshot.meta`` describes the flat integer arrays
``nodes`` (``node_fields`` per node: type, name, id, self_size, edge_count, detachedness) and
``edges`` (``edge_fields`` per edge: type, name_or_index, to_node, the last an offset into
``nodes``); a node's edges follow those of the node before it. ``strings`` holds every name.

Memory: ``json.load`` of a 100 MB snapshot builds hundreds of millions of bytes of Python
ints and lists. We read the file in chunks and put the two integer arrays straight into
``array('i')`` (4 bytes an integer), skip the sections we do not use, and keep only the
string table as Python strings (see tests/bench/memory_bench.py for the peak RSS).

The summary: total self size and node count, constructors by count, self size and
retained size, detached DOM nodes by tag, and (:func:`compare`) growth by constructor
between two summaries. Retained sizes come from the dominator tree over the graph from the
synthetic root without weak edges (Cooper, Harvey and Kennedy's iterative algorithm on a
reverse postorder); a constructor's retained size counts each of its objects not dominated
by another object of the same constructor, so nested objects are not counted twice.
"""

from __future__ import annotations

import json
import os
from array import array
from dataclasses import dataclass, field
from typing import IO, Any

__all__ = ["HeapSnapshot", "HeapSnapshotError", "read_heap_snapshot", "summarize_heap", "compare", "class_name"]

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


# -- analysis ------------------------------------------------------------------------------

_TYPE_CLASS = {
    "hidden": "(system)",
    "array": "(array)",
    "string": "(string)",
    "concatenated string": "(string)",
    "sliced string": "(string)",
    "code": "(compiled code)",
    "closure": "(closure)",
    "regexp": "(regexp)",
    "number": "(number)",
    "symbol": "(symbol)",
    "bigint": "(bigint)",
    "object shape": "(object shape)",
}


def class_name(node_type: str, name: str) -> str:
    """The constructor a node is grouped under, as DevTools' Summary groups them."""
    if node_type in ("object", "native", "synthetic"):
        return name or "(anonymous)"
    return _TYPE_CLASS.get(node_type, f"({node_type})")


def _dominators(snap: HeapSnapshot) -> tuple[array[int], array[int], array[float]]:
    """(postorder of reachable node ordinals, idom by ordinal (-1 unreachable), retained sizes)."""
    nf = len(snap.node_fields)
    ef = len(snap.edge_fields)
    n = snap.node_count
    nodes, edges = snap.nodes, snap.edges
    f_edges = snap.node_fields.index("edge_count")
    f_size = snap.node_fields.index("self_size")
    e_type = snap.edge_fields.index("type")
    e_to = snap.edge_fields.index("to_node")
    weak = snap.edge_types.index("weak") if "weak" in snap.edge_types else -1

    first_edge = array("i", [0]) * (n + 1)
    total = 0
    for i in range(n):
        first_edge[i] = total
        total += nodes[i * nf + f_edges] * ef
    first_edge[n] = total
    if total > len(edges):
        raise HeapSnapshotError("the edges array is shorter than the nodes' edge counts")

    # Iterative DFS from the root (node 0): postorder numbers.
    post_of = array("i", [-1]) * n
    order = array("i")
    visited = bytearray(n)
    stack_node = array("i", [0])
    stack_edge = array("i", [first_edge[0]])
    visited[0] = 1
    while stack_node:
        v = stack_node[-1]
        e = stack_edge[-1]
        end = first_edge[v + 1]
        pushed = False
        while e < end:
            to = edges[e + e_to] // nf
            etype = edges[e + e_type]
            e += ef
            if etype == weak or visited[to]:
                continue
            visited[to] = 1
            stack_edge[-1] = e
            stack_node.append(to)
            stack_edge.append(first_edge[to])
            pushed = True
            break
        if not pushed:
            stack_node.pop()
            stack_edge.pop()
            post_of[v] = len(order)
            order.append(v)

    # Predecessors (reachable ones, non-weak edges) in CSR form, by postorder number.
    m = len(order)
    pred_count = array("i", [0]) * (m + 1)
    for v in order:
        for e in range(first_edge[v], first_edge[v + 1], ef):
            if edges[e + e_type] == weak:
                continue
            to = edges[e + e_to] // nf
            pred_count[post_of[to]] += 1
    pred_start = array("i", [0]) * (m + 1)
    acc = 0
    for i in range(m):
        pred_start[i] = acc
        acc += pred_count[i]
    pred_start[m] = acc
    preds = array("i", [0]) * acc
    fill = array("i", pred_start)
    for v in order:
        pv = post_of[v]
        for e in range(first_edge[v], first_edge[v + 1], ef):
            if edges[e + e_type] == weak:
                continue
            to = post_of[edges[e + e_to] // nf]
            preds[fill[to]] = pv
            fill[to] += 1

    # Cooper-Harvey-Kennedy on postorder numbers (the root has the highest).
    root = m - 1
    idom = array("i", [-1]) * m
    idom[root] = root
    changed = True
    while changed:
        changed = False
        for b in range(root - 1, -1, -1):
            new = -1
            for k in range(pred_start[b], pred_start[b + 1]):
                p = preds[k]
                if idom[p] < 0:
                    continue
                if new < 0:
                    new = p
                    continue
                x, y = p, new
                while x != y:
                    while x < y:
                        x = idom[x]
                    while y < x:
                        y = idom[y]
                new = x
            if new >= 0 and idom[b] != new:
                idom[b] = new
                changed = True

    retained = array("d", [0.0]) * m
    for b in range(m):
        retained[b] = nodes[order[b] * nf + f_size]
    for b in range(m - 1):  # postorder: every node before its dominator
        d = idom[b]
        if d >= 0 and d != b:
            retained[d] += retained[b]
    return order, idom, retained


def summarize_heap(snap: HeapSnapshot, *, top: int = 10) -> dict[str, Any]:
    """Counts and sizes by constructor, retained sizes, detached DOM nodes (see the module doc)."""
    nf = len(snap.node_fields)
    f_type = snap.node_fields.index("type")
    f_name = snap.node_fields.index("name")
    f_size = snap.node_fields.index("self_size")
    f_det = snap.node_fields.index("detachedness") if "detachedness" in snap.node_fields else -1
    nodes, strings, types = snap.nodes, snap.strings, snap.node_types
    n = snap.node_count

    class_of = array("i", [0]) * n
    class_ids: dict[str, int] = {}
    class_names: list[str] = []
    counts: list[int] = []
    self_sizes: list[int] = []
    detached: dict[str, list[int]] = {}
    total = 0
    native = types.index("native") if "native" in types else -1
    for i in range(n):
        base = i * nf
        t = nodes[base + f_type]
        name = strings[nodes[base + f_name]] if 0 <= nodes[base + f_name] < len(strings) else ""
        cname = class_name(types[t] if 0 <= t < len(types) else "?", name)
        cid = class_ids.get(cname)
        if cid is None:
            cid = class_ids[cname] = len(class_names)
            class_names.append(cname)
            counts.append(0)
            self_sizes.append(0)
        size = nodes[base + f_size]
        class_of[i] = cid
        counts[cid] += 1
        self_sizes[cid] += size
        total += size
        is_detached = (f_det >= 0 and nodes[base + f_det] == 2) or name.startswith("Detached ")
        if is_detached and t == native:
            tag = name.removeprefix("Detached ")
            slot = detached.setdefault(tag, [0, 0])
            slot[0] += 1
            slot[1] += size

    order, idom, retained = _dominators(snap)
    class_retained = _class_retained(order, idom, retained, class_of, len(class_names))
    reachable_size = sum(nodes[v * nf + f_size] for v in order)

    by_class: list[dict[str, Any]] = [
        {"name": class_names[c], "count": counts[c], "selfSize": self_sizes[c], "retainedSize": int(class_retained[c])}
        for c in range(len(class_names))
    ]
    return {
        "nodeCount": n,
        "edgeCount": len(snap.edges) // max(1, len(snap.edge_fields)),
        "totalSize": total,
        "reachableSize": reachable_size,
        "unreachableCount": n - len(order),
        "topBySelfSize": sorted(by_class, key=lambda c: c["selfSize"], reverse=True)[:top],
        "topByRetainedSize": sorted(
            (c for c in by_class if not c["name"].startswith("(") or c["name"] in ("(closure)", "(array)")),
            key=lambda c: c["retainedSize"],
            reverse=True,
        )[:top],
        "detachedNodes": {
            "count": sum(v[0] for v in detached.values()),
            "selfSize": sum(v[1] for v in detached.values()),
            "byTag": [
                {"tag": tag, "count": v[0], "selfSize": v[1]}
                for tag, v in sorted(detached.items(), key=lambda kv: kv[1][0], reverse=True)[:top]
            ],
        },
        "classes": {c["name"]: [c["count"], c["selfSize"]] for c in by_class},
    }


def _class_retained(
    order: array[int], idom: array[int], retained: array[float], class_of: array[int], classes: int
) -> array[float]:
    """Per class, the retained size of its objects not dominated by an object of the same class."""
    m = len(order)
    out = array("d", [0.0]) * classes
    if m == 0:
        return out
    root = m - 1
    child_count = array("i", [0]) * (m + 1)
    for b in range(m - 1):
        if idom[b] >= 0:
            child_count[idom[b]] += 1
    start = array("i", [0]) * (m + 1)
    acc = 0
    for b in range(m):
        start[b] = acc
        acc += child_count[b]
    start[m] = acc
    children = array("i", [0]) * acc
    fill = array("i", start)
    for b in range(m - 1):
        d = idom[b]
        if d >= 0:
            children[fill[d]] = b
            fill[d] += 1
    open_count = array("i", [0]) * classes
    # Iterative DFS over the dominator tree: (node, next child index); a class counts while open.
    stack_node = array("i", [root])
    stack_next = array("i", [start[root]])
    c = class_of[order[root]]
    if open_count[c] == 0:
        out[c] += retained[root]
    open_count[c] += 1
    while stack_node:
        b = stack_node[-1]
        k = stack_next[-1]
        if k < start[b + 1]:
            stack_next[-1] = k + 1
            child = children[k]
            cc = class_of[order[child]]
            if open_count[cc] == 0:
                out[cc] += retained[child]
            open_count[cc] += 1
            stack_node.append(child)
            stack_next.append(start[child])
        else:
            stack_node.pop()
            stack_next.pop()
            open_count[class_of[order[b]]] -= 1
    return out


def compare(before: dict[str, Any], after: dict[str, Any], *, top: int = 10) -> list[dict[str, Any]]:
    """Growth by constructor between two summaries (``classes``), largest self-size growth first."""
    old = before.get("classes") or {}
    new = after.get("classes") or {}
    rows = []
    for name in set(old) | set(new):
        c0, s0 = old.get(name, [0, 0])
        c1, s1 = new.get(name, [0, 0])
        if c1 != c0 or s1 != s0:
            rows.append({"name": name, "countDelta": c1 - c0, "sizeDelta": s1 - s0, "count": c1})
    rows.sort(key=lambda r: (r["sizeDelta"], r["countDelta"]), reverse=True)
    return rows[:top]
