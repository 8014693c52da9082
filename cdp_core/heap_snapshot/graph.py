"""Build: the dominator tree of a parsed heap snapshot and the retained sizes it gives.

The middle step of the snapshot's path (parse in :mod:`cdp_core.heap_snapshot.parse` -> build
here -> summarize in :mod:`cdp_core.heap_snapshot`). Apart because the graph algorithms are the
bulk of the work and have one job: from the synthetic root without weak edges, Cooper, Harvey and
Kennedy's iterative algorithm on a reverse postorder, then retained sizes per node and per class
(a class's objects not dominated by another object of the same class), all on flat arrays.
"""

from __future__ import annotations

from array import array

from .parse import HeapSnapshot, HeapSnapshotError

__all__ = ["dominators", "retained_by_class"]


def dominators(snap: HeapSnapshot) -> tuple[array[int], array[int], array[float]]:
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


def retained_by_class(
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
