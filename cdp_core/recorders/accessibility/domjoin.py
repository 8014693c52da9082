"""The DOM facts the accessibility tree leaves out, from one ``DOMSnapshot.captureSnapshot`` per renderer.

Used by the accessibility-tree snapshot (:mod:`~cdp_core.recorders.accessibility.axtree`): the
value of a ``<select>`` (the AX value is the option's text), ``required`` on a select, classes
of legacy error containers (``.alert``, ``.error``, ``.invalid-feedback``, ``.is-invalid``),
CSS ``display`` (to glue inline text back into one line) and click listeners (``<div onclick>``
buttons of legacy apps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["DomNode", "parse_dom_snapshot", "is_error_container", "ERROR_CLASS_EXACT"]

ERROR_CLASS_EXACT = frozenset({"alert", "invalid-feedback", "text-danger", "has-error"})


@dataclass
class DomNode:
    name: str  # nodeName, upper case for elements
    attrs: dict[str, str]
    input_value: str | None = None
    option_selected: bool = False
    clickable: bool = False
    display: str = ""
    parent_backend: int | None = None  # for "#text": the element holding the text

    @property
    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()


def parse_dom_snapshot(snap: dict[str, Any]) -> dict[int, DomNode]:
    """backendNodeId -> element facts, for every element of every document in the snapshot.

    Text nodes map to their parent element's facts under the text node's own id with
    ``name == "#text"`` (so a ``<span class=error>`` that the AX tree skips is still seen).
    """
    strings: list[str] = snap.get("strings", [])

    def s(i: int) -> str:
        return strings[i] if 0 <= i < len(strings) else ""

    out: dict[int, DomNode] = {}
    for doc in snap.get("documents", []):
        nodes = doc.get("nodes", {})
        backend = nodes.get("backendNodeId", [])
        names = nodes.get("nodeName", [])
        types = nodes.get("nodeType", [])
        attributes = nodes.get("attributes", [])
        by_index: dict[int, DomNode] = {}
        parents = nodes.get("parentIndex", [])
        texts: list[tuple[int, int]] = []
        for i, bid in enumerate(backend):
            if i < len(types) and types[i] != 1:
                if i < len(types) and types[i] == 3 and i < len(parents):
                    texts.append((bid, parents[i]))
                continue
            flat = attributes[i] if i < len(attributes) else []
            attrs = {s(flat[k]): s(flat[k + 1]) for k in range(0, len(flat) - 1, 2)}
            node = DomNode(s(names[i]) if i < len(names) else "", attrs)
            out[bid] = node
            by_index[i] = node
        for bid, parent in texts:
            owner = by_index.get(parent)
            if owner is not None:
                out[bid] = DomNode("#text", owner.attrs, parent_backend=backend[parent])
        iv = nodes.get("inputValue", {})
        for idx, val in zip(iv.get("index", []), iv.get("value", []), strict=False):
            if idx in by_index:
                by_index[idx].input_value = s(val)
        for idx in nodes.get("optionSelected", {}).get("index", []):
            if idx in by_index:
                by_index[idx].option_selected = True
        for idx in nodes.get("isClickable", {}).get("index", []):
            if idx in by_index:
                by_index[idx].clickable = True
        layout = doc.get("layout", {})
        for idx, styles in zip(layout.get("nodeIndex", []), layout.get("styles", []), strict=False):
            if idx in by_index and styles:
                by_index[idx].display = s(styles[0])
    return out


def is_error_container(dom: DomNode | None) -> bool:
    if dom is None:
        return False
    for cls in dom.classes:
        low = cls.lower()
        if low in ERROR_CLASS_EXACT or "error" in low:
            return True
    return False
