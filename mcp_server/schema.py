"""JSON schemas for tools/list: small, flat, and true to the pydantic models that validate the calls.

Agents pay for every byte of ``tools/list`` on every turn, so the generated schemas are
condensed: no ``title`` keys, ``anyOf [X, null]`` collapsed to ``X`` (omitting a field means
null), ``$defs`` inlined, ``default: null`` dropped. Validation still runs against the real
model of the chosen action, so the schema can stay a terse description.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from .registry import ActionArgs, ActionSpec

__all__ = [
    "action_rules",
    "args_schema",
    "condensed_schema",
    "output_schema",
    "condensed_output_schema",
    "SCHEMA_VERSION",
    "ENVELOPE_KEYS",
]

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
    schema = _inline(raw, raw.get("$defs", {}))
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
    out = {}
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
        "properties": {"action": action, **properties},
        "required": ["action"],
        "additionalProperties": False,
    }


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
    """Whether :func:`mcp_server.lean.lean` may remove a value of this schema (null/false/empty)."""
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
    return schema


def _on_action(names: list[str]) -> dict[str, Any]:
    """A condition: ``adapter.action`` is one of ``names``."""
    match = {"const": names[0]} if len(names) == 1 else {"enum": names}
    return {"properties": {"adapter": {"properties": {"action": match}}}}


def _dispatch(rules: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """``then`` of the rule whose action the answer names, found by halving the rules (see above).

    A leaf still checks its own action, so an answer naming no known action gets no rule.
    """
    if len(rules) == 1:
        name, then = rules[0]
        return {"if": _on_action([name]), "then": then}
    half = len(rules) // 2
    return {
        "if": _on_action([name for name, _ in rules[:half]]),
        "then": _dispatch(rules[:half]),
        "else": _dispatch(rules[half:]),
    }


def action_rules(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each action's ``then`` in a condensed output schema, by action name (for tests and docs)."""
    found: dict[str, dict[str, Any]] = {}

    def walk(node: dict[str, Any]) -> None:
        if "else" in node:
            walk(node["then"])
            walk(node["else"])
            return
        found[node["if"]["properties"]["adapter"]["properties"]["action"]["const"]] = node["then"]

    for rule in schema.get("allOf", []):
        walk(rule["then"])
    return found
