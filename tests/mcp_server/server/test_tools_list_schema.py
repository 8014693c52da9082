"""The real tools/list: size budget, field consistency across actions, descriptions, toolsets.

Built from every action module present (whatever helpers have landed), so a new action that
blows the budget or reuses a field name with another type fails here.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import jsonschema
from mcp.client import Client
from paths import ROOT

from mcp_server.server import registry
from mcp_server.server.app import BrowserMCP
from mcp_server.server.registry import CONDENSED_TOOLS
from mcp_server.server.schema import args_schema
from mcp_server.server.schema_output import action_rules, result_keys
from mcp_server.server.settings import Settings

#: 3000 until the seven debug actions (~200 tokens; it stood at 3001 before them); 3250 until issue 43's
#: verify-the-fix actions: capture_mark with debug_bundle's since_mark (16 tokens, 8 saved elsewhere in the
#: bundle's descriptions) and network_replay with its confirm (~33)
TOKEN_BUDGET = 3300
#: What the model reads of a tool (client-facts.md): outputSchema and annotations are for the client.
MODEL_VISIBLE = ("name", "title", "description", "inputSchema")
#: o200k tokens per character of this JSON are ~1/3.8; without the tokenizer, count 1 per 3.5 (an overestimate).
CHARS_PER_TOKEN = 3.5
PEERS = ROOT / "bench" / "peers"


def bpe_tokens(texts: list[str], peers: Path) -> list[int] | None:
    """bench/tokens.py's o200k count (``tests/bench`` shadows the top-level ``bench`` package here)."""
    spec = importlib.util.spec_from_file_location("bench_tokens", ROOT / "bench" / "tokens.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.bpe_tokens(texts, peers)


def _app(toolset: str) -> BrowserMCP:
    return BrowserMCP(Settings(), manager=None, toolset=toolset)


def model_visible(tools: list) -> str:
    """The part of ``tools/list`` a model reads, as JSON."""
    dumped = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]
    return json.dumps({"tools": [{k: v for k, v in d.items() if k in MODEL_VISIBLE} for d in dumped]})


async def test_condensed_tools_list_fits_the_token_budget(capsys):
    app = _app("condensed")
    async with Client(app.build()) as client:
        listed = await client.list_tools()
    visible = model_visible(listed.tools)
    counted = bpe_tokens([visible], PEERS)
    tokens = counted[0] if counted else len(visible) / CHARS_PER_TOKEN
    how = "o200k" if counted else f"chars/{CHARS_PER_TOKEN} (tokenizer not installed)"
    full = json.dumps({"tools": [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed.tools]})
    actions = sum(len(app.routes[t.name].actions) for t in listed.tools)
    with capsys.disabled():
        print(
            f"\ncondensed tools/list, what the model reads: {len(visible)} chars = {tokens:.0f} tokens ({how}), "
            f"{actions} actions; with outputSchema and annotations: {len(full)} chars"
        )
    assert {t.name for t in listed.tools} == set(CONDENSED_TOOLS)
    assert all(t.title for t in listed.tools)
    assert tokens < TOKEN_BUDGET


def test_shared_fields_have_one_type_per_tool():
    # The condensed schema is a union: one field name must mean one type within a tool.
    for tool in CONDENSED_TOOLS:
        seen: dict[str, tuple[str, object]] = {}
        _app("condensed")  # loads the action modules
        for spec in registry.actions_for(tool):
            for name, prop in args_schema(spec.args)["properties"].items():
                kind = {k: v for k, v in prop.items() if k in ("type", "items", "anyOf", "enum")}
                if name in seen:
                    other, other_kind = seen[name]
                    assert kind == other_kind or "enum" in kind or "enum" in other_kind, (
                        f"{tool}: field {name!r} is {kind} in {spec.name} but {other_kind} in {other}"
                    )
                else:
                    seen[name] = (spec.name, kind)


def test_every_field_is_described_and_schemas_are_valid():
    app = _app("all")
    for route in app.routes.values():
        schema = route.tool.input_schema
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.Draft202012Validator.check_schema(route.tool.output_schema)
        assert "$ref" not in json.dumps(schema) and '"title"' not in json.dumps(schema).replace('"title": {', "")
        for name, prop in schema["properties"].items():
            assert name == "action" or prop.get("description"), f"{route.tool.name}.{name} has no description"
            assert not any(s == {"type": "null"} for s in prop.get("anyOf", [])), f"{route.tool.name}.{name}"


def test_toolsets():
    legacy = {spec.legacy for spec in registry.ACTIONS.values() if spec.legacy} if _app("all") else set()
    assert set(_app("legacy").routes) == legacy
    assert set(_app("condensed").routes) == set(CONDENSED_TOOLS)
    assert set(_app("all").routes) == legacy | set(CONDENSED_TOOLS)


def test_legacy_tools_declare_their_answer_models():
    app = _app("legacy")
    with_results = [r for r in app.routes.values() if r.spec is not None and r.spec.result is not None]
    assert len(with_results) >= 19
    navigate = app.routes["browser_navigate"].tool.output_schema
    ok = {"schemaVersion": "1", "status": "ok", "message": "m", "url": "http://127.0.0.1/", "target": "launch"}
    ok["stable_page_id"] = "p1"
    jsonschema.validate(ok, navigate)
    missing_url = {k: v for k, v in ok.items() if k != "url"}
    error = {"schemaVersion": "1", "status": "error", "message": "m", "code": "TIMEOUT"}
    jsonschema.validate(error, navigate)  # errors carry code, not the result keys
    for bad in (
        missing_url,
        {**ok, "httpStatus": "200"},
        {**error, "code": None},
        {k: error[k] for k in error if k != "code"},
    ):
        try:
            jsonschema.validate(bad, navigate)
        except jsonschema.ValidationError:
            continue
        raise AssertionError(f"accepted {bad}")


def test_long_lists_are_validated_without_a_check_per_row():
    """Python clients validate every answer: a schema per row would cost them ~60 ms per 4000-line snapshot."""
    schema = _app("condensed").routes["browser_session"].tool.output_schema
    keys = result_keys(schema)
    assert keys["lines"] == {"type": "array"}
    assert "items" not in keys["entries"]  # rows in console_list/network_list, a count in network_export_har
    assert keys["columns"] == {"items": {"type": "string"}, "type": "array"}  # short lists keep theirs
    answer = {"schemaVersion": "1", "status": "ok", "message": "m", "adapter": {"entryTool": "x", "action": "snapshot"}}
    answer |= {"columns": ["uid", "role", "name"], "lines": [[i, "button", f"B {i}"] for i in range(4000)]}
    validator = jsonschema.validators.validator_for(schema)(schema)
    assert not list(validator.iter_errors(answer))
    assert list(validator.iter_errors({**answer, "lines": "not rows"}))


def _own(spec) -> dict:
    """An action's own result schema, as its legacy twin declares it."""
    from mcp_server.server.schema_output import _output

    return _output(spec.result)


def test_each_action_is_held_to_its_own_required_keys_and_no_other():
    """One map types every result key of a tool; per action (``adapter.action``) its ok answers must
    carry its required keys, and no other action's."""
    app = _app("condensed")
    for tool, route in app.routes.items():
        schema = route.tool.output_schema
        rules = action_rules(schema)
        required = {name: _own(spec).get("required", []) for name, spec in route.actions.items() if spec.result}
        assert set(rules) == {name for name, keys in required.items() if keys}, tool
        validator = jsonschema.validators.validator_for(schema)(schema)
        mapped = result_keys(schema)
        for name, keys in required.items():
            envelope = {
                "schemaVersion": "1",
                "status": "ok",
                "message": "m",
                "adapter": {"entryTool": tool, "action": name},
            }
            if keys:
                assert rules[name]["required"] == keys, (tool, name)
                assert list(validator.iter_errors(envelope)), (tool, name, "accepted without its required keys")
                missing_one = {**envelope, **{k: _sample(mapped[k]) for k in keys[1:]}}
                assert list(validator.iter_errors(missing_one)), (tool, name, f"accepted without {keys[0]}")
                assert list(validator.iter_errors({**envelope, "status": "error"})), (tool, name, "error without code")
            answer = {**envelope, **{k: _sample(mapped[k]) for k in keys}}
            assert not list(validator.iter_errors(answer)), (tool, name)
            # another action's required keys are not this one's: they may be absent ...
            others = {k for other, r in required.items() if other != name for k in r} - set(keys)
            assert others and not list(validator.iter_errors(answer)), (tool, name)
            # ... or present (typed by the one map)
            with_others = {**answer, **{k: _sample(mapped[k]) for k in others}}
            assert not list(validator.iter_errors(with_others)), (tool, name)


def test_the_map_admits_what_each_action_declares():
    """The union in the map must admit every shape an action's model declares (a value of each type)."""
    app = _app("condensed")
    for tool, route in app.routes.items():
        schema = route.tool.output_schema
        validator = jsonschema.validators.validator_for(schema)(schema)
        for name, spec in route.actions.items():
            if spec.result is None:
                continue
            own = _own(spec)
            for key, prop in own.get("properties", {}).items():
                if key in ("code", "hint", "message", "status", "schemaVersion", "adapter"):
                    continue
                adapter = {"entryTool": tool, "action": name}
                answer = {"schemaVersion": "1", "status": "ok", "message": "m", "adapter": adapter}
                answer |= {k: _sample(result_keys(schema)[k]) for k in own.get("required", [])}
                for value in _samples(prop):
                    answer = {**answer, key: value}
                    if jsonschema.validators.validator_for(prop)(prop).is_valid(value):
                        errors = list(validator.iter_errors(answer))
                        assert not errors, (tool, name, key, value, errors[0].message)


def _samples(prop: dict) -> list:
    """One value per type a property schema names (its ``anyOf`` alternatives too)."""
    kinds = prop.get("type", [])
    kinds = [kinds] if isinstance(kinds, str) else list(kinds)
    for alt in prop.get("anyOf", []):
        kinds += [alt["type"]] if isinstance(alt.get("type"), str) else alt.get("type", [])
    table = {"string": "s", "integer": 1, "number": 1.5, "boolean": True, "array": [], "object": {}, "null": None}
    return [table[k] for k in dict.fromkeys(kinds)]


def _sample(prop: dict) -> object:
    """A value of a (bare) property schema, for the rule test above."""
    kind = prop.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind is None and prop.get("anyOf"):
        return _sample(prop["anyOf"][0])
    return {"string": "s", "integer": 1, "number": 1.0, "boolean": True, "array": [], "object": {}}.get(kind, "s")


def test_output_schemas_say_each_repeated_shape_once():
    """A client checks each outputSchema against the 2020-12 meta-schema at its first call (the
    Python SDK: ~0.2 ms a subschema): shapes several actions return (a page entry, a list's
    paging keys) sit once in ``$defs``, and every rule still reads the same once resolved."""
    from mcp_server.server.schema_defs import resolved, said_once

    app = _app("condensed")
    for tool, route in app.routes.items():
        schema = route.tool.output_schema
        jsonschema.Draft202012Validator.check_schema(schema)
        assert said_once(schema) is schema or said_once(schema) == schema, tool  # nothing left to share
        shapes: list[str] = []
        for body in (schema, *schema.get("$defs", {}).values()):
            _collect(body, shapes)
        repeated = {s for s in shapes if shapes.count(s) > 1}
        assert not repeated, (tool, sorted(repeated)[:2])
        defs = schema.get("$defs", {})
        assert all(ref.startswith("#/$defs/") and ref[8:] in defs for ref in _refs(schema)), tool
        rules = action_rules(schema)
        assert "$ref" not in json.dumps(rules)  # rules read resolved, as a validator sees them
        assert all(set(rule) == {"required"} for rule in rules.values()), tool  # shapes live in the one map
        assert "$ref" not in json.dumps(resolved(schema, defs)["properties"])
    session = app.routes["browser_session"].tool.output_schema
    # 24,059 before shapes were shared, 15,815 as a per-action tree; one map of keys: ~8,100, ~9,030 with
    # the fields of waves 3 and 4 (the last: otherSessions, issue 46)
    assert len(json.dumps(session, separators=(",", ":"))) < 9_200


def _collect(node: dict, shapes: list[str]) -> None:
    """Every subschema of 3+ subschemas under ``node``, as canonical JSON."""
    from mcp_server.server.schema_defs import _size, _subschemas

    for _, sub in _subschemas(node):
        if _size(sub) >= 3:
            shapes.append(json.dumps(sub, sort_keys=True))
        _collect(sub, shapes)


def _refs(node: object) -> list[str]:
    if isinstance(node, dict):
        return ([node["$ref"]] if "$ref" in node else []) + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def test_the_map_holds_ok_answers_of_actions_with_a_model_only():
    """Actions without a result model, and errors, keep their own keys (debug_clear's ``removed`` is
    a count where another action's is a list): the map applies to ok answers of modeled actions."""
    schema = _app("condensed").routes["browser_session"].tool.output_schema
    validator = jsonschema.validators.validator_for(schema)(schema)
    answer = {"schemaVersion": "1", "status": "ok", "message": "m"}
    pages = {**answer, "adapter": {"entryTool": "browser_session", "action": "list_pages"}}
    assert not list(validator.iter_errors({**pages, "pages": []}))
    assert list(validator.iter_errors({**pages, "pages": "p1"}))
    cleared = {**answer, "adapter": {"entryTool": "browser_session", "action": "debug_clear"}, "removed": 0}
    assert result_keys(schema)["removed"]["type"] == "array"
    assert not list(validator.iter_errors(cleared))
    assert not list(validator.iter_errors({**pages, "status": "error", "code": "X", "pages": "p1"}))


async def test_server_and_every_tool_carry_a_small_inline_icon():
    """SEP-973 icons: inline SVG data URIs (no fetch anywhere), none in what the model reads."""
    import base64

    app = _app("all")
    async with Client(app.build()) as client:
        listed = await client.list_tools()
        server_icons = client.server_info.icons if client.server_info else None
    for icons in [server_icons, *(t.icons for t in listed.tools)]:
        assert icons and icons[0].mime_type == "image/svg+xml"
        head, data = icons[0].src.split(",", 1)
        assert head == "data:image/svg+xml;base64"
        svg = base64.b64decode(data).decode()
        assert svg.startswith("<svg") and len(svg) < 400
    assert "icons" not in model_visible(listed.tools)
