"""The outputSchema of each tool: the envelope every answer has, and per action the keys it returns.

Clients validate answers with it (the model never reads it), so its cost is the client's:
the Python SDK checks it against the 2020-12 meta-schema once per session (a cost per
subschema) and validates every answer with it; the TypeScript SDK has ajv compile it at every
``tools/list``. Hence the shapes below: rows without a per-row schema, one map of a tool's result
keys, per-action required keys reached through a tree, repeated subschemas said once
(:mod:`.schema_defs`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from mcp_server.server.registry import ActionSpec
from mcp_server.server.schema import _inline
from mcp_server.server.schema_defs import resolved, said_once

__all__ = [
    "output_schema",
    "condensed_output_schema",
    "action_rules",
    "result_keys",
]


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
    ``items`` schema over every element: for thousands of snapshot or console rows that took
    longer than the server took to build them. ``items: {}`` says nothing and
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


def _defaults_unsaid(node: Any) -> Any:
    """The schema without what 2020-12 assumes anyway: ``additionalProperties: true``, and
    ``type: string`` beside an ``enum``/``const`` of strings (every byte is parsed by each client);
    and without what ajv and ``jsonschema`` read differently (``items`` beside ``prefixItems``)."""
    if isinstance(node, list):
        return [_defaults_unsaid(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "additionalProperties" and value is True:
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _defaults_unsaid(sub) for name, sub in value.items()}
        else:
            out[key] = _defaults_unsaid(value)
    if "prefixItems" in out:
        # ajv, as the TypeScript SDK sets it up, reads draft-07: there ``items`` holds for every
        # element, not those after ``prefixItems``, so a row [id, "button", "OK"] failed ``items:
        # {type: object}`` (the trailing object of sparse fields) and the SDK threw on click_by_id.
        # Without it both readings agree; ``maxItems`` still bounds the row.
        out.pop("items", None)
    values = out.get("enum", [out["const"]] if "const" in out else None)
    if out.get("type") == "string" and values and all(isinstance(v, str) for v in values):
        out.pop("type")
    return out


def _output(model: type[BaseModel]) -> dict[str, Any]:
    raw = model.model_json_schema()
    schema: dict[str, Any] = _defaults_unsaid(_per_row_free(_relax(_inline(raw, raw.get("$defs", {}), keep_null=True))))
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
    """Whether :func:`mcp_server.answers.lean.lean` may remove a value of this schema (null/false/empty)."""
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
    """The envelope; for ok answers of actions with a result model, every result key of the tool's
    actions in one ``properties`` map, and per action (``adapter.action``) the keys it requires.

    One map, because a key means one thing in a tool (``selector``: a string, null when absent);
    where actions type a key differently (``entries``: rows in console_list, a count in
    network_export_har) the map holds the union of their types. Actions with the same required
    keys share a rule. Actions without a result model, and errors, are held to the envelope alone
    (their keys are theirs: debug_clear's ``removed`` is a count, source_get's a list).

    Why this shape: clients compile it once per session (the Python SDK checks it against the
    2020-12 meta-schema, a cost per subschema; the TypeScript SDK has ajv generate code for it on
    every ``tools/list``) and validate every answer with it. The earlier per-action tree of
    ``if``/``then``/``else`` repeated every key in each action's branch, about twice the size
    of this for browser_session. Per answer, ``jsonschema`` walks the map for the
    keys the answer has and about four ``if`` of the rules' tree (:func:`_dispatch`), what the old
    tree cost (tests/bench/schema_compile_bench.py measures both).
    """
    schema = output_schema()
    envelope = set(schema["properties"])
    shapes: dict[str, list[dict[str, Any]]] = {}
    groups: dict[tuple[str, ...], list[str]] = {}
    bare = [spec.name for spec in specs if spec.result is None]
    for spec in specs:
        if spec.result is None:
            continue
        extra = _output(spec.result)
        props = {k: _bare(v) for k, v in extra.get("properties", {}).items() if k not in envelope}
        for key, shape in props.items():
            if shape not in shapes.setdefault(key, []):
                shapes[key].append(shape)
        if extra.get("required"):
            groups.setdefault(tuple(extra["required"]), []).append(spec.name)
    if not shapes:
        return schema
    ok: dict[str, Any] = {"required": ["adapter", "status"], "properties": {"status": {"const": "ok"}}}
    if bare:
        ok["properties"]["adapter"] = {"properties": {"action": {"not": {"enum": bare}}}}
    then: dict[str, Any] = {"properties": {key: _union(alts) for key, alts in shapes.items()}}
    if groups:
        then |= _dispatch([(names, {"required": list(required)}) for required, names in groups.items()])
    schema["allOf"] = [{"if": ok, "then": then}]
    return said_once(schema)


def result_keys(schema: dict[str, Any]) -> dict[str, Any]:
    """The map of result keys of a condensed output schema, resolved (for tests and docs)."""
    defs = schema.get("$defs", {})
    return {k: v for gate in schema.get("allOf", []) for k, v in resolved(gate["then"], defs)["properties"].items()}


def _union(alternatives: list[dict[str, Any]]) -> dict[str, Any]:
    """One schema admitting exactly what any of ``alternatives`` admits, said short.

    Plain types merge into one ``type`` list; a detailed shape of a type the list already admits
    in full adds nothing to the union and goes: where one action details a key (list_frames'
    ``followed`` summary, click_by_id's ``dialog``) and another types it loosely (press_key's,
    handle_dialog's), the map says the loose type; the detailing action's legacy twin, where it has
    one, keeps the detail. Holding it per action in the rules ("split") made tools/list longer
    and its compile slower (tests/bench/schema_compile_bench.py compares them).
    """
    flat: list[dict[str, Any]] = []
    for alt in alternatives:
        flat += alt["anyOf"] if set(alt) == {"anyOf"} else [alt]
    kinds: list[str] = []
    detailed: list[dict[str, Any]] = []
    for alt in flat:
        if set(alt) == {"type"}:
            kinds += [k for k in ([alt["type"]] if isinstance(alt["type"], str) else alt["type"]) if k not in kinds]
        elif alt not in detailed:
            detailed.append(alt)
    detailed = [alt for alt in detailed if not (isinstance(alt.get("type"), str) and alt["type"] in kinds)]
    out = ([{"type": kinds[0] if len(kinds) == 1 else kinds}] if kinds else []) + detailed
    return out[0] if len(out) == 1 else {"anyOf": out}


def _on_action(names: list[str]) -> dict[str, Any]:
    """A condition: ``adapter.action`` is one of ``names``."""
    match = {"const": names[0]} if len(names) == 1 else {"enum": names}
    return {"properties": {"adapter": {"properties": {"action": match}}}}


def _dispatch(rules: list[tuple[list[str], dict[str, Any]]]) -> dict[str, Any]:
    """``then`` of the rule whose actions include the answer's, found by halving the rules.

    Not a flat ``allOf`` of one ``if`` per rule: ``jsonschema`` evaluates every ``if`` of such a
    list on each answer, a tree about log2 of them. Down a
    ``then`` the action is known to be one of that half, so :func:`_known` picks among them without
    checking again; only the last ``else`` checks its own actions, so an answer naming no known
    action gets no rule.
    """
    if len(rules) == 1:
        names, then = rules[0]
        return {"if": _on_action(names), "then": then}
    half = len(rules) // 2
    return {
        "if": _on_action([n for names, _ in rules[:half] for n in names]),
        "then": _known(rules[:half]),
        "else": _dispatch(rules[half:]),
    }


def _known(rules: list[tuple[list[str], dict[str, Any]]]) -> dict[str, Any]:
    """The rule of the answer's action, which is one of ``rules``'."""
    if len(rules) == 1:
        return rules[0][1]
    half = len(rules) // 2
    return {
        "if": _on_action([n for names, _ in rules[:half] for n in names]),
        "then": _known(rules[:half]),
        "else": _known(rules[half:]),
    }


def action_rules(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """What a condensed output schema holds each action's ok answers to, by action name: the keys it
    requires (``required``). Only actions that require keys are named (for tests and docs)."""
    defs = schema.get("$defs", {})
    found: dict[str, dict[str, Any]] = {}

    def walk(node: dict[str, Any], names: list[str]) -> None:
        node = resolved(node, defs)
        if "if" not in node:  # a rule: the required keys of the actions still in ``names``
            found.update({name: node for name in names})
            return
        match = node["if"]["properties"]["adapter"]["properties"]["action"]
        chosen = [match["const"]] if "const" in match else list(match["enum"])
        walk(node["then"], chosen)
        if "else" in node:
            walk(node["else"], [name for name in names if name not in chosen])

    for gate in schema.get("allOf", []):
        walk(gate["then"], _actions_named(resolved(gate["then"], defs)))
    return found


def _actions_named(node: Any) -> list[str]:
    """Every action a dispatch tree names."""
    if isinstance(node, list):
        return [n for item in node for n in _actions_named(item)]
    if not isinstance(node, dict):
        return []
    names = []
    if "if" in node:
        match = node["if"]["properties"]["adapter"]["properties"]["action"]
        names = [match["const"]] if "const" in match else list(match["enum"])
    found = names + [n for key in ("then", "else") if key in node for n in _actions_named(node[key])]
    return list(dict.fromkeys(found))
