"""The outputSchema of each tool: the envelope every answer has, and per action the keys it returns.

Clients validate answers with it (the model never reads it), so its cost is the client's:
the Python SDK checks it against the 2020-12 meta-schema once per session (about 0.2 ms per
subschema) and validates every answer with it. Hence the shapes below: rows without a
per-row schema, per-action rules reached through a tree, repeated subschemas said once.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from mcp_server.core.registry import ActionSpec

from .schema import _inline

__all__ = ["output_schema", "condensed_output_schema", "action_rules", "said_once", "resolved"]


class Adapter(BaseModel):
    """How a condensed call was routed (the legacy tool it stands for, if any)."""

    entryTool: str
    action: str
    legacyTool: str | None


class Envelope(BaseModel):
    """The keys the server adds to every structured answer; the action's own keys sit beside them."""

    model_config = ConfigDict(extra="allow")

    schemaVersion: str
    #: "waiting": a long wait cut at the call bound (MCP_MAX_CALL_SECONDS); the answer says how to continue
    status: Literal["ok", "waiting", "error"]
    message: str
    code: str | None = None
    hint: str | None = None
    adapter: Adapter | None = None


def _relax(node: Any) -> Any:
    """Drop from every ``required`` the keys the lean pass may remove (null/false/empty values)."""
    if isinstance(node, list):
        return [_relax(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _relax(value) for key, value in node.items()}
    props = out.get("properties")
    if isinstance(out.get("required"), list) and isinstance(props, dict):
        required = [name for name in out["required"] if not _droppable(props.get(name, {}))]
        if required:
            out["required"] = required
        else:
            out.pop("required")
    return out


def _per_row_free(node: Any) -> Any:
    """The schema without the checks a validator would run once per row of a long list.

    Clients on the Python SDK validate every answer with ``jsonschema``, which walks an
    ``items`` schema over every element: 4000 snapshot rows cost ~60 ms per answer and 2000
    console rows ~4 ms, more than the server took to build them. ``items: {}`` says nothing and
    goes; the shape of a row (an array of column values) is said by ``columns`` in the answer
    itself, so a list of rows is declared an array without a per-row schema.
    """
    if isinstance(node, list):
        return [_per_row_free(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _per_row_free(value) for key, value in node.items()}
    items = out.get("items")
    if items == {} or (isinstance(items, dict) and (items.get("type") == "array" or "prefixItems" in items)):
        out.pop("items")
    return out


def _output(model: type[BaseModel]) -> dict[str, Any]:
    raw = model.model_json_schema()
    schema = _per_row_free(_relax(_inline(raw, raw.get("$defs", {}), keep_null=True)))
    for name, prop in schema.get("properties", {}).items():
        # A key that is absent is not null on the wire: optional envelope keys are plain types.
        if name in ("code", "hint", "adapter"):
            if "anyOf" in prop:
                schema["properties"][name] = next(s for s in prop["anyOf"] if s != {"type": "null"})
            elif isinstance(prop.get("type"), list):
                schema["properties"][name] = {**prop, "type": prop["type"][0]}
    return schema


def output_schema(result: type[BaseModel] | None = None, *, adapter: bool = True) -> dict[str, Any]:
    """The envelope (from :class:`Envelope`), plus the action's own keys when it declares a result model.

    An error answer carries ``code`` instead of the result keys, so the result's required keys
    apply only when ``status`` is ``ok``. Legacy tools never answer with ``adapter``
    (``adapter=False`` leaves it out of their schema).
    """
    schema = _output(Envelope)
    if not adapter:
        schema["properties"].pop("adapter")
    schema["additionalProperties"] = True
    schema["if"] = {"properties": {"status": {"const": "error"}}}
    schema["then"] = {"required": ["code"]}
    if result is not None:
        extra = _output(result)
        props = extra.get("properties", {})
        schema["properties"] = {**props, **schema["properties"]}
        if extra.get("required"):
            schema["else"] = {"required": extra["required"]}
    return schema


_DROPPABLE_TYPES = {"null", "boolean", "array", "object"}


def _droppable(prop: dict[str, Any]) -> bool:
    """Whether :func:`mcp_server.render.lean.lean` may remove a value of this schema (null/false/empty)."""
    kinds = prop.get("type")
    if kinds is None:
        alternatives = prop.get("anyOf") or prop.get("oneOf")
        return alternatives is None or any(_droppable(alt) for alt in alternatives)
    kinds = {kinds} if isinstance(kinds, str) else set(kinds)
    return bool(kinds & _DROPPABLE_TYPES)


def _bare(schema: Any) -> Any:
    """A schema without its prose (``description``, ``title``): validation needs only the shapes."""
    if isinstance(schema, list):
        return [_bare(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in ("description", "title"):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _bare(prop) for name, prop in value.items()}
        else:
            out[key] = _bare(value)
    return out


def condensed_output_schema(specs: list[ActionSpec]) -> dict[str, Any]:
    """The envelope, plus per action (``adapter.action``) the keys its ok answers carry and require.

    Each action's keys apply to its own answers only: two actions may type one key differently
    (``cookies``: a count in export_state, a list in the cookies action), an action without a
    result model is held to the envelope alone, and errors carry their own details. Clients
    validate with it; the model never reads it, so its size costs no prompt tokens.

    The per-action rules are reached through a binary tree of ``if``/``then``/``else`` on
    ``adapter.action`` (:func:`_dispatch`), not a flat ``allOf`` of one ``if`` per action: the
    Python SDK's client validates every answer with ``jsonschema``, which evaluated all ~40
    ``if`` schemas of the flat list on each answer (0.7-1.5 ms per call, more than a form
    snapshot takes to build); the tree evaluates about six. The rules are the same.
    """
    schema = output_schema()
    rules: list[tuple[str, dict[str, Any]]] = []
    for spec in specs:
        if spec.result is None:
            continue
        extra = _output(spec.result)
        props = {k: _bare(v) for k, v in extra.get("properties", {}).items() if k not in schema["properties"]}
        then: dict[str, Any] = {"properties": props}
        if extra.get("required"):
            then["required"] = extra["required"]
        rules.append((spec.name, then))
    if rules:
        ok = {"required": ["adapter", "status"], "properties": {"status": {"const": "ok"}}}
        schema["allOf"] = [{"if": ok, "then": _dispatch(rules)}]
    return said_once(schema)


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
    Python SDK's ``jsonschema`` spends about 0.2 ms on each subschema: the 767 of the condensed
    ``browser_session`` schema cost 160 ms of the session's first call, more than the attach
    behind it. Actions share result shapes (a page entry, a list's paging keys), so a third of
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

    def swap(node: dict[str, Any]) -> dict[str, Any]:
        out = dict(node)
        for key, value in node.items():
            if key in _SUB_MAPS and isinstance(value, dict):
                out[key] = {name: ref(name, sub) for name, sub in value.items()}
            elif key in _SUB_ONE and isinstance(value, dict):
                out[key] = ref(key, value)
            elif key in _SUB_LISTS and isinstance(value, list):
                out[key] = [ref(key, sub) for sub in value]
        return out

    def ref(name: str, sub: Any) -> Any:
        if not isinstance(sub, dict):
            return sub
        key = json.dumps(sub, sort_keys=True)
        if key not in shared:
            return swap(sub)
        if key not in names:
            label, n = name, 2
            while label in defs:
                label, n = f"{name}{n}", n + 1
            names[key] = label
            defs[label] = {}  # the name is taken before the body (which may hold other shared parts) is made
            defs[label] = swap(sub)
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


def _on_action(names: list[str]) -> dict[str, Any]:
    """A condition: ``adapter.action`` is one of ``names``."""
    match = {"const": names[0]} if len(names) == 1 else {"enum": names}
    return {"properties": {"adapter": {"properties": {"action": match}}}}


def _dispatch(rules: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """``then`` of the rule whose action the answer names, found by halving the rules (see above).

    Down a ``then`` the action is known to be one of that half, so :func:`_known` picks among
    them without checking again; only the last ``else`` checks its own action, so an answer
    naming no known action gets no rule.
    """
    if len(rules) == 1:
        name, then = rules[0]
        return {"if": _on_action([name]), "then": then}
    half = len(rules) // 2
    return {
        "if": _on_action([name for name, _ in rules[:half]]),
        "then": _known(rules[:half]),
        "else": _dispatch(rules[half:]),
    }


def _known(rules: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """The rule of the answer's action, which is one of ``rules``."""
    if len(rules) == 1:
        return rules[0][1]
    half = len(rules) // 2
    return {
        "if": _on_action([name for name, _ in rules[:half]]),
        "then": _known(rules[:half]),
        "else": _known(rules[half:]),
    }


def action_rules(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each action's ``then`` in a condensed output schema, by action name (for tests and docs)."""
    found: dict[str, dict[str, Any]] = {}
    defs = schema.get("$defs", {})

    def walk(node: dict[str, Any], names: list[str]) -> None:
        node = resolved(node, defs)
        if "if" not in node:  # a rule (rules hold properties and required keys, never an ``if``)
            (name,) = names
            found[name] = node
            return
        match = node["if"]["properties"]["adapter"]["properties"]["action"]
        chosen = [match["const"]] if "const" in match else list(match["enum"])
        walk(node["then"], chosen)
        if "else" in node:
            walk(node["else"], [name for name in names if name not in chosen])

    for rule in schema.get("allOf", []):
        walk(rule["then"], _actions_named(resolved(rule["then"], defs)))
    return found


def _actions_named(node: dict[str, Any]) -> list[str]:
    """Every action the dispatch tree under ``node`` names (the leaves and the last ``else``)."""
    names: list[str] = []

    def walk(n: Any) -> None:
        if isinstance(n, dict):
            action = n.get("properties", {}).get("adapter", {}).get("properties", {}).get("action", {})
            names.extend(
                x for x in ([action["const"]] if "const" in action else action.get("enum", [])) if x not in names
            )
            for value in n.values():
                walk(value)
        elif isinstance(n, list):
            for value in n:
                walk(value)

    walk(node)
    return names
