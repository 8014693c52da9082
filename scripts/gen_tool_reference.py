"""Write docs/tools.md from the server's real ``tools/list``, so the reference cannot drift from the code.

The server is built exactly as it is served (every action module loaded, toolset ``all``) and
asked for its tools through the SDK's in-memory client, the path a real client takes. The
condensed tools' schemas are a union of their actions' fields, so the per-action breakdown
comes from the same action table and schema function the server builds ``tools/list`` from;
the script checks that both agree before writing anything.

    .venv/bin/python scripts/gen_tool_reference.py            # rewrite docs/tools.md
    .venv/bin/python scripts/gen_tool_reference.py --check    # exit 1 when docs/tools.md is stale

``tests/docs/test_tools_reference_is_current.py`` runs the same generation in memory and fails when the file is stale.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mcp.client import Client  # noqa: E402

from mcp_server.server import registry  # noqa: E402
from mcp_server.server.app import build_server  # noqa: E402
from mcp_server.server.mcp_features.sessions import SESSION_ARG  # noqa: E402
from mcp_server.server.schema import args_schema  # noqa: E402
from mcp_server.server.settings import Settings  # noqa: E402

DEFAULT_OUTPUT = ROOT / "docs" / "tools.md"
REGENERATE = ".venv/bin/python scripts/gen_tool_reference.py"


class _NoBrowser:
    """Stands in for the BrowserManager: ``tools/list`` never touches the browser, and must not."""

    lock = None

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"generating the tool reference must not use the browser ({name})")


async def list_tools(specs: list[registry.ActionSpec] | None = None) -> list[dict[str, Any]]:
    """The tools of a fully loaded server (or of ``specs``), as a client sees them (wire names, camelCase)."""
    server = build_server(Settings(), _NoBrowser(), specs=specs, toolset="all")
    async with Client(server) as client:
        result = await client.list_tools()
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in result.tools]


# -- rendering ----------------------------------------------------------------------------------


def _type_of(schema: dict[str, Any]) -> str:
    """A short human type for one JSON-schema node: ``string``, ``"a" | "b"``, ``list of integer``."""
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(_type_of(s) for s in schema["anyOf"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        items = schema.get("items")
        return f"list of {_type_of(items)}" if isinstance(items, dict) and items else "list"
    if kind == "object" or (kind is None and "properties" in schema):
        return "object"
    return kind or "any"


def _limits(schema: dict[str, Any]) -> str:
    parts = []
    for key, label in (
        ("minimum", ">="),
        ("exclusiveMinimum", ">"),
        ("maximum", "<="),
        ("exclusiveMaximum", "<"),
        ("minLength", "min length"),
        ("maxLength", "max length"),
        ("minItems", "min items"),
        ("maxItems", "max items"),
    ):
        if key in schema:
            parts.append(f"{label} {schema[key]}")
    return ", ".join(parts)


def _cell(text: Any) -> str:
    """Table-safe text: one line, pipes escaped, ``<tag>`` outside code spans kept visible (not read as HTML)."""
    parts = " ".join(str(text).split()).split("`")
    for i in range(0, len(parts), 2):  # even parts are outside backticks
        parts[i] = re.sub(r"<(?=[A-Za-z/!?])", "&lt;", parts[i])
    return "`".join(parts).replace("|", "\\|")


def _fields_table(schema: dict[str, Any]) -> list[str]:
    props: dict[str, Any] = schema.get("properties", {})
    if not props:
        return ["No arguments.", ""]
    required = set(schema.get("required", []))
    lines = ["| field | type | required | default | description |", "| --- | --- | --- | --- | --- |"]
    for name, prop in props.items():
        kind = _type_of(prop)
        limits = _limits(prop)
        if limits:
            kind = f"{kind} ({limits})"
        default = f"`{json.dumps(prop['default'])}`" if "default" in prop else ""
        lines.append(
            f"| `{name}` | {_cell(kind)} | {'yes' if name in required else ''} | {_cell(default)} "
            f"| {_cell(prop.get('description', ''))} |"
        )
    lines.append("")
    return lines


def _flags(spec: registry.ActionSpec) -> str:
    flags = []
    if spec.read_only:
        flags.append("read-only")
    if spec.destructive:
        flags.append("destructive")
    if spec.experimental:
        flags.append("experimental")
    return ", ".join(flags)


def _annotations(tool: dict[str, Any]) -> str:
    notes = tool.get("annotations") or {}
    shown = [f"`{key}: {json.dumps(value)}`" for key, value in notes.items() if key.endswith("Hint")]
    unsaid = " (absent hints are MCP's defaults: `openWorldHint: true`, `idempotentHint: false`)"
    return "Annotations: " + ", ".join(shown) + unsaid + "." if shown else ""


def _check_agreement(tool: dict[str, Any], specs: list[registry.ActionSpec]) -> None:
    """The condensed schema from tools/list must be exactly the union of its actions' own schemas."""
    enum = tool["inputSchema"]["properties"]["action"]["enum"]
    if enum != [s.name for s in specs]:
        raise SystemExit(f"{tool['name']}: tools/list actions {enum} differ from the action table")
    union = {"action", SESSION_ARG} | {f for s in specs for f in args_schema(s.args).get("properties", {})}
    listed = set(tool["inputSchema"]["properties"])
    if union != listed:
        raise SystemExit(f"{tool['name']}: tools/list fields {sorted(listed ^ union)} differ from the actions'")


_LOCKS = {
    "read": "never waits",
    "page": "waits for another call on the page",
    "poll": "takes the page per poll",
    "state": "waits for the page calls in progress",
}
#: Actions whose hold differs from their mode's usual one (said as they do it).
_LOCK_NOTES = {
    "attach_cdp": "the state lock only to choose the Chrome and to attach, never while Chrome waits for the user",
}


def _durations(specs: list[registry.ActionSpec]) -> list[str]:
    """How long each action may take, what its progress says, and whom it waits for (issue 17)."""
    out = [
        "## How long calls take",
        "",
        "Every call answers within the call bound, `MCP_MAX_CALL_SECONDS` (50 s by default, under the 60 s "
        "request timeout of the TypeScript SDK's clients and of Codex). A wait whose `timeout_ms` goes past it "
        'answers `status: "waiting"` with `continueWith` (the arguments of the call that keeps waiting), or '
        "an error whose hint says to call again. A call sent with a progress token gets `notifications/progress` "
        "every half second once it has run that long: the value is the seconds elapsed, `total` the seconds it "
        "may take when known, the message says what it is doing (below). `notifications/cancelled` stops a call "
        "at once and frees the page. Reads never wait behind another call; see docs/reliability.md.",
        "",
        "| action | may take | progress says | locking |",
        "| --- | --- | --- | --- |",
    ]
    for spec in specs:
        if spec.takes:
            takes, _, says = spec.takes.partition("; progress: ")
        elif spec.lock == "read":
            takes, says = "milliseconds (reads what the server holds)", ""
        else:
            takes, says = "usually under a second", "heartbeats if it runs past half a second"
        hold = _LOCK_NOTES.get(spec.name, _LOCKS[spec.lock])
        out.append(f"| `{spec.name}` | {_cell(takes)} | {_cell(says)} | `{spec.lock}`: {hold} |")
    out.append("")
    return out


def render(tools: list[dict[str, Any]], specs: list[registry.ActionSpec]) -> str:
    """The whole reference as Markdown; deterministic for a given server."""
    by_tool: dict[str, list[registry.ActionSpec]] = {}
    for spec in specs:
        by_tool.setdefault(spec.tool, []).append(spec)
    condensed = [t for t in tools if t["name"] in registry.CONDENSED_TOOLS]
    legacy = [t for t in tools if t["name"] not in registry.CONDENSED_TOOLS]
    legacy_of = {spec.legacy: spec for spec in specs if spec.legacy}

    out = [
        "# Tool reference",
        "",
        f"<!-- Generated from the server's tools/list by scripts/gen_tool_reference.py. Do not edit by hand: "
        f"run `{REGENERATE}`. tests/docs/test_tools_reference_is_current.py fails when this file is stale. -->",
        "",
        "The server exposes two condensed tools, each with a required `action` and the union of its actions' "
        "fields, and the flat legacy tools, which run the same code as their condensed twin. "
        "`--toolset condensed|legacy|all` (env `BROWSER_TOOLSET`, default `all`) picks what `tools/list` shows; "
        "this page lists everything (`all`).",
        "",
        "Send only the fields of the action you call: unknown fields are refused with `INVALID_ARGUMENT`. "
        f"Both condensed tools also take `{SESSION_ARG}`: a name of the caller's own view (tab, frame, marks, "
        "clears, debug points) when several agents share one HTTP server; 2025-11-25 HTTP sessions get their "
        "own view without it. "
        "Every answer has a short text `content` and a `structuredContent` object with the action's data next to "
        "the envelope (see [Output envelope](#output-envelope)).",
        "",
        "| tool | actions | description |",
        "| --- | --- | --- |",
    ]
    for tool in condensed:
        out.append(
            f"| [`{tool['name']}`](#{tool['name']}) | {len(by_tool.get(tool['name'], []))} "
            f"| {_cell(tool.get('description', ''))} |"
        )
    out.append(f"| [legacy tools](#legacy-tools) | {len(legacy)} tools | One flat tool per legacy action. |")
    out.append("")

    for tool in condensed:
        specs_of = by_tool.get(tool["name"], [])
        _check_agreement(tool, specs_of)
        out += [f"## {tool['name']}", "", _cell(tool.get("description", "")), ""]
        annotations = _annotations(tool)
        if annotations:
            out += [annotations, ""]
        out += ["| action | what it does | flags | legacy tool |", "| --- | --- | --- | --- |"]
        for spec in specs_of:
            anchor = f"{tool['name']}-{spec.name}".replace("_", "-")
            legacy_name = f"`{spec.legacy}`" if spec.legacy else ""
            out.append(f"| [`{spec.name}`](#{anchor}) | {_cell(spec.description)} | {_flags(spec)} | {legacy_name} |")
        out.append("")
        for spec in specs_of:
            anchor = f"{tool['name']}-{spec.name}".replace("_", "-")
            out += [f'<a id="{anchor}"></a>', "", f"### {tool['name']} action={spec.name}", ""]
            if spec.description:
                out += [_cell(spec.description), ""]
            extras = [f for f in (_flags(spec),) if f]
            if spec.legacy:
                extras.append(f"same code as the legacy tool `{spec.legacy}`")
            if extras:
                out += ["*" + "; ".join(extras) + "*", ""]
            out += _fields_table(args_schema(spec.args))

    out += _durations(specs)
    out += [
        "## Legacy tools",
        "",
        "Flat tools kept for existing clients. Each runs the same handler as its condensed twin; called directly "
        "it answers with the same text (the condensed call adds `adapter` to `structuredContent`).",
        "",
        "| legacy tool | same as | arguments |",
        "| --- | --- | --- |",
    ]
    for tool in legacy:
        spec = legacy_of.get(tool["name"])
        twin = f"`{spec.tool} action={spec.name}`" if spec else ""
        fields = ", ".join(f"`{name}`" for name in tool["inputSchema"].get("properties", {})) or "none"
        out.append(f"| `{tool['name']}` | {twin} | {fields} |")
    out.append("")

    from mcp_server.server.schema_output import output_schema

    envelope = output_schema()
    out += [
        "## Reading answers",
        "",
        "Every answer has a short text `content` and a `structuredContent` that says the same things at about",
        "the same size (its compact JSON is at most 1.3x the text + 400 characters), because Claude Code and",
        "Codex hand the model only `JSON(structuredContent)` and other clients only the text:",
        "",
        "- keys whose value would be null, false or empty are left out (absent = null / false / empty);",
        "  page data such as an `evaluate_js` result is passed as is;",
        "- lists that grow are rows: `columns` names the positions once, each row holds those values and",
        "  ends with an object of its other fields when it has any, e.g. console_list",
        '  `{"columns": ["id","type","text"], "entries": [[3,"error","boom",{"at":"/app.js:12"}]]}`;',
        "- what repeats is said once at list level (`page`, `capturedSince`); URLs on the page's origin are",
        "  paths; an entry keeps `page` or `frame` only when it differs; a column every listed row shares",
        "  (console `type`; network `method`, `status`, `type`) is said once in `shared` and left out of",
        '  `columns`, e.g. `{"shared": {"type": "log"}, "columns": ["id","text"]}`, text `(all [log]):`;',
        "- console_list and network_list say `total`, `earlier` (before this window) and `after` (how many",
        "  come after it: call again with `since_id` = the last id shown); nothing is dropped until the",
        "  store's byte budget (configuration.md) is spent, and `evicted` says how many were;",
        "- `*_get` actions give one entry in full (headers, timing, stack, initiator); bodies, traces and",
        "  bundles are saved to files.",
        "",
        "## Debugging with values",
        "",
        "`source_list` shows the page's scripts and the original files their source maps name; `source_get`",
        'shows numbered lines of either. `debug_logpoint source=ordini.js line=14 expression="totale, riga.prezzo"`',
        "logs the values each time that original line runs, without pausing: the expression uses the original",
        "names (the answer says which minified names they stand for), and past `max_hits` the page stops",
        "logging at once, even inside a synchronous loop. `debug_snapshot` pauses for the few milliseconds it",
        "takes to read the call stack and the top frames' locals and closure variables, then resumes;",
        "`debug_exceptions mode=uncaught|all` does the same where an exception is thrown and puts the locals on",
        "its `pageerror` entry. Hits are console entries of type `logpoint` and `snapshot`",
        '(`console_list types=["snapshot"]`; `console_get` shows the whole capture: functions, files and',
        "lines, variables under their original names, secrets redacted). The Debugger is on only while a point",
        "or an exception mode exists; while it is, a `debugger;` statement is resumed at once (left alone while",
        "a DevTools window is open) and a stop at the user's own DevTools breakpoint is left to it; `debug_list`",
        "lists both. `debug_clear` (one `id`, or all) and `detach_cdp` leave the page as it was.",
        "",
        "## Output envelope",
        "",
        "Every `structuredContent` has these envelope fields beside the action's own keys; errors also set",
        "`isError: true` and carry a stable `code` (for example `INVALID_ARGUMENT`, `NO_ACTIVE_PAGE`,",
        "`AMBIGUOUS_MATCH`). The condensed tools' `outputSchema` adds, for ok answers, one map of every result",
        "key the tool's actions declare (a key two actions type differently admits both types) and, per action",
        "(`adapter.action`), the keys it requires; shapes said more than once sit once in `$defs`. A legacy",
        "tool's lists its action's keys, from the same answer model as its condensed twin.",
        "",
        "```json",
        json.dumps(envelope, indent=2, sort_keys=False),
        "```",
        "",
        *_size_reasons(condensed, legacy),
    ]
    return "\n".join(out)


def _chars(node: Any) -> int:
    return len(json.dumps(node, separators=(",", ":"), ensure_ascii=False))


def _size_reasons(condensed: list[dict[str, Any]], legacy: list[dict[str, Any]]) -> list[str]:
    """What the default tools/list spends its characters on, block by block, and why each stays."""
    total = _chars({"tools": condensed + legacy})
    out_legacy = sum(_chars(t.get("outputSchema", {})) for t in legacy)
    from mcp_server.server.schema_output import output_schema

    envelope = _chars(output_schema(adapter=False))
    rows = (
        [
            (
                f"`{t['name']}` inputSchema",
                _chars(t["inputSchema"]),
                "what the model reads to call each action: every "
                "field once, in the o200k budget of tests/mcp_server/server/test_tools_list_schema.py",
            )
            for t in condensed
        ]
        + [
            (
                f"`{t['name']}` outputSchema",
                _chars(t.get("outputSchema", {})),
                "for clients, never the model: one map "
                "of the result keys, each action's required keys, shared shapes in `$defs`",
            )
            for t in condensed
        ]
        + [
            (
                f"{len(legacy)} legacy inputSchemas",
                sum(_chars(t["inputSchema"]) for t in legacy),
                "older clients call these tools; the fields of the condensed twin, without `action`",
            ),
            (
                f"{len(legacy)} legacy outputSchemas",
                out_legacy,
                "each tool's schema is its own document (no `$ref` reaches another tool's), so each states "
                f"the envelope again ({envelope} chars) beside its action's keys",
            ),
            (
                "names, titles, descriptions, annotations",
                total - sum(_chars(t["inputSchema"]) + _chars(t.get("outputSchema", {})) for t in condensed + legacy),
                "what clients show and the model reads first",
            ),
        ]
    )
    return [
        "## What tools/list spends",
        "",
        f"The default `tools/list` (toolset `all`) is {total:,} characters of compact JSON; the condensed toolset",
        "alone is about half. chrome-devtools-mcp 1.11.0 lists 28,685 and playwright-mcp 0.0.86 21,266",
        "(`make bench-peers`). Each block, and why it stays:",
        "",
        "| block | chars | why |",
        "| --- | --- | --- |",
        *(f"| {name} | {size:,} | {why} |" for name, size, why in rows),
        "",
    ]


def generate(specs: list[registry.ActionSpec] | None = None) -> str:
    """Build the server (all action modules loaded unless ``specs``), list its tools, render the reference."""
    tools = asyncio.run(list_tools(specs))
    return render(tools, list(registry.ACTIONS.values()) if specs is None else specs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="where to write (default docs/tools.md)")
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when the file is stale")
    args = parser.parse_args(argv)
    text = generate()
    current = args.output.read_text(encoding="utf-8") if args.output.exists() else None
    if args.check:
        if current != text:
            print(f"{args.output} is stale: run {REGENERATE}", file=sys.stderr)
            return 1
        print(f"{args.output} is up to date")
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output} ({len(text)} chars)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
