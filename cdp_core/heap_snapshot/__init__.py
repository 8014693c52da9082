"""Read a V8 ``.heapsnapshot`` from disk into compact arrays and summarize it (the public names).

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

Along the data's path: parse (:mod:`cdp_core.heap_snapshot.parse`) -> build the dominator tree
(:mod:`cdp_core.heap_snapshot.graph`) -> summarize (here); every public name is importable from here.
"""

from __future__ import annotations

from array import array
from typing import Any

from .graph import dominators, retained_by_class
from .parse import HeapSnapshot, HeapSnapshotError, read_heap_snapshot

__all__ = ["HeapSnapshot", "HeapSnapshotError", "read_heap_snapshot", "summarize_heap", "compare", "class_name"]


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

    order, idom, retained = dominators(snap)
    class_retained = retained_by_class(order, idom, retained, class_of, len(class_names))
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
