"""JSON schemas for tools/list: small, flat, and true to the pydantic models that validate the calls.

Agents pay for every byte of ``tools/list`` on every turn, so the generated schemas are
condensed: no ``title`` keys, ``anyOf [X, null]`` collapsed to ``X`` (omitting a field means
null), ``$defs`` inlined, ``default: null`` dropped. Validation still runs against the real
model of the chosen action, so the schema can stay a terse description.
"""

from __future__ import annotations

from typing import Any

from mcp_server.server.mcp_features.sessions import SESSION_ARG, SESSION_PROPERTY
from mcp_server.server.registry import ActionArgs, ActionSpec

__all__ = ["args_schema", "condensed_schema", "SCHEMA_VERSION", "ENVELOPE_KEYS"]

SCHEMA_VERSION = "1"
#: keys the server adds to every structuredContent; action data must not use them.
ENVELOPE_KEYS = ("schemaVersion", "status", "message", "adapter", "code", "hint")


def _inline(node: Any, defs: dict[str, Any], *, keep_null: bool = False) -> Any:
    """Resolve ``$ref`` into ``defs`` and drop noise, recursively.

    Input schemas collapse ``anyOf [X, null]`` (omitting a field means null); output schemas
    (``keep_null``) keep null allowed, since answers do carry nulls.
    """
    if isinstance(node, list):
        return [_inline(item, defs, keep_null=keep_null) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return _inline(merged, defs, keep_null=keep_null)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("title", "$defs", "description") and keep_null:
            continue
        if key in ("title", "$defs") or (key == "default" and (value is None or keep_null)):
            continue
        if key == "properties" and isinstance(value, dict):
            # property names are data, not schema keywords: a field named "title" must survive
            out[key] = {name: _inline(sub, defs, keep_null=keep_null) for name, sub in value.items()}
            continue
        out[key] = _inline(value, defs, keep_null=keep_null)
    any_of = out.get("anyOf")
    if isinstance(any_of, list) and keep_null and len(any_of) == 2 and {"type": "null"} in any_of:
        other = next(s for s in any_of if s != {"type": "null"})
        # ``additionalProperties: true`` is the default: {"type": "object"} says the same
        other = {k: v for k, v in other.items() if not (k == "additionalProperties" and v is True)}
        if set(other) == {"type"} and isinstance(other["type"], str):
            # {"anyOf": [{"type": "string"}, {"type": "null"}]} says the same as {"type": ["string", "null"]}
            out.pop("anyOf")
            out["type"] = [other["type"], "null"]
    if isinstance(any_of, list) and not keep_null:
        rest = [s for s in any_of if s != {"type": "null"}]
        if len(rest) < len(any_of):
            if len(rest) == 1:
                out.pop("anyOf")
                out = {**rest[0], **out}
            else:
                out["anyOf"] = rest
    return out


def args_schema(model: type[ActionArgs]) -> dict[str, Any]:
    """The condensed JSON schema of one action's arguments."""
    raw = model.model_json_schema()
    schema: dict[str, Any] = _inline(raw, raw.get("$defs", {}))
    schema.pop("description", None)  # the model docstring belongs to the code, not to tools/list
    schema["type"] = "object"
    schema.setdefault("properties", {})
    schema["additionalProperties"] = False
    if not schema.get("required"):
        schema.pop("required", None)
    return schema


_BOUNDS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
)
_PER_ACTION = ("default", *_BOUNDS)
#: The bounds the condensed schema shows: the numeric ones an agent can get wrong (timeouts, limits);
#: lengths and item counts stay in each action's model (its error names them) to keep tools/list short.
_SHOWN_BOUNDS = ("minimum", "maximum")


def _shape(prop: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in prop.items() if k != "description"}


def _merge_bounds(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The loosest bounds two actions' versions of one field share: what the union schema admits.

    ``timeout_ms`` is 0..300000 for navigate and 0..120000 for click: the condensed field says
    0..300000, each action's own model then applies its own bound (and says it in its error).
    """
    out: dict[str, Any] = {}
    for key in ("minimum", "minLength"):
        if key in a and key in b:
            out[key] = min(a[key], b[key])
    for key in ("maximum", "maxLength"):
        if key in a and key in b:
            out[key] = max(a[key], b[key])
    return out


def _terse(prop: dict[str, Any]) -> dict[str, Any]:
    """Leave out what costs tokens and says nothing: a boolean's ``default: false``."""
    if prop.get("type") == "boolean" and prop.get("default") is False:
        return {k: v for k, v in prop.items() if k != "default"}
    return prop


def condensed_schema(specs: list[ActionSpec]) -> dict[str, Any]:
    """``action`` (enum) plus the union of the actions' fields; only ``action`` is required.

    A field used by several actions appears once (the contract says same name, same type);
    its description names the actions that require it, so the agent knows without a per-action
    schema. Bounds (``minimum``/``maximum``, lengths) stay: where actions differ the field shows
    the loosest, and the chosen action's own model applies its own.
    """
    properties: dict[str, Any] = {}
    bounds: dict[str, dict[str, Any]] = {}
    required_by: dict[str, list[str]] = {}
    for spec in specs:
        schema = args_schema(spec.args)
        for name, prop in schema["properties"].items():
            own = {k: v for k, v in prop.items() if k in _SHOWN_BOUNDS}
            if name not in properties:
                properties[name] = {k: v for k, v in prop.items() if k not in _BOUNDS}
                bounds[name] = own
                continue
            bounds[name] = _merge_bounds(bounds[name], own)
            if _shape({k: v for k, v in properties[name].items() if k != "default"}) != _shape(
                {k: v for k, v in prop.items() if k not in _PER_ACTION}
            ) or properties[name].get("default") != prop.get("default"):
                # Same field, different defaults per action (timeout_ms): show only what they share;
                # each action's own model still applies its default.
                properties[name] = {k: v for k, v in properties[name].items() if k != "default"}
        for name in schema.get("required", []):
            required_by.setdefault(name, []).append(spec.name)
    for name, actions in required_by.items():
        prop = dict(properties[name])
        note = "required by " + ",".join(actions) if len(actions) < len(specs) else "required"
        prop["description"] = f"{prop['description']} ({note})" if prop.get("description") else note
        properties[name] = prop
    for name, prop in properties.items():
        properties[name] = _terse({**prop, **bounds.get(name, {})})
    action = {"type": "string", "enum": [spec.name for spec in specs]}
    return {
        "type": "object",
        "properties": {"action": action, **properties, SESSION_ARG: SESSION_PROPERTY},
        "required": ["action"],
        "additionalProperties": False,
    }
