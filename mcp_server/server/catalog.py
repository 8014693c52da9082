"""The tools a server lists: names, titles, descriptions, hints and schemas, from the action table.

What a client sees in ``tools/list`` and how a call finds its action (:class:`Route`); the
server (:mod:`mcp_server.server.app`) runs the calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mcp_types as types

from mcp_server.server.mcp_features.icons import SERVER_ICON, TOOL_ICONS, icons_of
from mcp_server.server.registry import CONDENSED_TOOLS, ActionSpec
from mcp_server.server.schema import args_schema, condensed_schema
from mcp_server.server.schema_output import condensed_output_schema, output_schema

__all__ = ["Route", "build_routes", "TOOL_DESCRIPTIONS", "TOOL_TITLES"]

TOOL_DESCRIPTIONS = {
    "browser_session": (
        "Debug web apps in Chrome (internal, or the user's over CDP; attach never navigates). "
        "Set `action`, send only its fields; big output goes to files."
    ),
    "browser_interact": "Act on the selected page by snapshot uid (from snapshot) or CSS selector.",
}

TOOL_TITLES = {
    "browser_session": "Browser session",
    "browser_interact": "Browser input",
}


def _legacy_title(spec: ActionSpec) -> str:
    """``browser_get_dom`` -> "Get dom (legacy)": a readable name for clients' tool pickers."""
    return spec.name.replace("_", " ").capitalize() + " (legacy)"


def _hints(read_only: bool, destructive: bool) -> types.ToolAnnotations:
    """Read-only and destructive said always (clients ask before calling on them); the hints MCP
    assumes when absent left out: ``openWorldHint`` true (every tool talks to a browser and the
    web), ``idempotentHint`` false. Read-only tools are idempotent."""
    return types.ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=None if read_only else destructive,
        idempotent_hint=True if read_only else None,
    )


def _condensed_hints(specs: list[ActionSpec]) -> types.ToolAnnotations:
    """One set of hints for a tool whose actions differ: what the tool can do at worst.

    Hints are per tool, so a condensed tool with any action that changes state is not
    read-only, and one with any destructive action (navigate replaces the page, load_state
    overwrites cookies, a click can submit a form) is destructive; its description says which
    actions only read, so a client can still tell them apart.
    """
    return _hints(all(s.read_only for s in specs), any(s.destructive for s in specs))


@dataclass
class Route:
    """A listed tool and how its calls find their action."""

    tool: types.Tool
    #: legacy tool: its one action; condensed tool: None (actions picked by name)
    spec: ActionSpec | None = None
    actions: dict[str, ActionSpec] = field(default_factory=dict)


def build_routes(specs: list[ActionSpec], toolset: str) -> dict[str, Route]:
    """The listed tools of ``toolset`` (condensed, legacy or all), each with its actions."""
    routes: dict[str, Route] = {}
    if toolset in ("condensed", "all"):
        for tool in CONDENSED_TOOLS:
            own = [s for s in specs if s.tool == tool]
            if not own:
                continue
            routes[tool] = Route(
                tool=types.Tool(
                    name=tool,
                    title=TOOL_TITLES[tool],
                    description=TOOL_DESCRIPTIONS[tool],
                    input_schema=condensed_schema(own),
                    output_schema=condensed_output_schema(own),
                    annotations=_condensed_hints(own),
                    icons=icons_of(TOOL_ICONS[tool]),
                ),
                actions={s.name: s for s in own},
            )
    if toolset in ("legacy", "all"):
        for spec in specs:
            if not spec.legacy:
                continue
            routes[spec.legacy] = Route(
                tool=types.Tool(
                    name=spec.legacy,
                    title=_legacy_title(spec),
                    description=f"{spec.description or spec.name} (= {spec.tool} action={spec.name})",
                    input_schema=args_schema(spec.args),
                    output_schema=output_schema(spec.result, adapter=False),
                    annotations=_hints(spec.read_only, spec.destructive),
                    icons=icons_of(TOOL_ICONS.get(spec.tool, SERVER_ICON)),
                ),
                spec=spec,
            )
    return routes
