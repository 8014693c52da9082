"""Repeated subschemas said once in ``$defs``: what a client compiles is the document's size in subschemas.

Split from :mod:`.schema_output` (which builds the output schemas) because it knows nothing of
tools or actions: it walks any JSON Schema.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["said_once", "resolved", "SHARED_MIN_NODES"]


#: where a schema holds subschemas: by name, one, or a list of them
_SUB_MAPS = ("properties", "patternProperties", "dependentSchemas")
_SUB_ONE = ("items", "additionalProperties", "if", "then", "else", "not", "contains", "propertyNames")
_SUB_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
#: a subschema this big (object subschemas, itself included) that occurs twice goes into ``$defs``
SHARED_MIN_NODES = 3


def _subschemas(node: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``(name, subschema)`` of each object subschema directly under ``node``; name: its property or keyword."""
    found: list[tuple[str, dict[str, Any]]] = []
    for key, value in node.items():
        if key in _SUB_MAPS and isinstance(value, dict):
            found += [(name, sub) for name, sub in value.items() if isinstance(sub, dict)]
        elif key in _SUB_ONE and isinstance(value, dict):
            found.append((key, value))
        elif key in _SUB_LISTS and isinstance(value, list):
            found += [(key, sub) for sub in value if isinstance(sub, dict)]
    return found


def _size(node: dict[str, Any]) -> int:
    return 1 + sum(_size(sub) for _, sub in _subschemas(node))


def said_once(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with each repeated subschema (``SHARED_MIN_NODES`` or more) said once, in ``$defs``.

    Why: a client checks the schema against the 2020-12 meta-schema once per session, and the
    Python SDK's ``jsonschema`` spends time on each subschema: the hundreds of the condensed
    ``browser_session`` schema slowed the session's first call more than the attach behind it.
    Actions share result shapes (a page entry, a list's paging keys), so a third of
    the text was repeats. The rules are the same; ``$ref`` points inside the document.
    """
    seen: dict[str, int] = {}

    def count(node: dict[str, Any]) -> None:
        for _, sub in _subschemas(node):
            if _size(sub) >= SHARED_MIN_NODES:
                key = json.dumps(sub, sort_keys=True)
                seen[key] = seen.get(key, 0) + 1
            count(sub)

    count(schema)
    shared = {key for key, n in seen.items() if n > 1}
    if not shared:
        return schema
    defs: dict[str, Any] = {}
    names: dict[str, str] = {}

    def swap(node: dict[str, Any], owner: str = "root") -> dict[str, Any]:
        # a shared part is named after the property that holds it (``page``, ``frames``), not the keyword
        out = dict(node)
        for key, value in node.items():
            if key in _SUB_MAPS and isinstance(value, dict):
                out[key] = {name: ref(name, sub) for name, sub in value.items()}
            elif key in _SUB_ONE and isinstance(value, dict):
                out[key] = ref(owner, value)
            elif key in _SUB_LISTS and isinstance(value, list):
                out[key] = [ref(owner, sub) for sub in value]
        return out

    def ref(name: str, sub: Any) -> Any:
        if not isinstance(sub, dict):
            return sub
        key = json.dumps(sub, sort_keys=True)
        if key not in shared:
            return swap(sub, name)
        if key not in names:
            label, n = name, 2
            while label in defs:
                label, n = f"{name}{n}", n + 1
            names[key] = label
            defs[label] = {}  # the name is taken before the body (which may hold other shared parts) is made
            defs[label] = swap(sub, name)
        return {"$ref": f"#/$defs/{names[key]}"}

    out = swap(schema)
    out["$defs"] = defs
    return out


def resolved(node: Any, defs: dict[str, Any]) -> Any:
    """``node`` with every ``#/$defs/...`` reference replaced by what it points to (for tests and docs)."""
    if isinstance(node, list):
        return [resolved(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if set(node) == {"$ref"} and node["$ref"].startswith("#/$defs/"):
        return resolved(defs[node["$ref"].removeprefix("#/$defs/")], defs)
    return {key: resolved(value, defs) if key != "$defs" else value for key, value in node.items()}
