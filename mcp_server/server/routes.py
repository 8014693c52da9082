"""How a ``tools/call`` finds its action: by tool name, then by ``action``, without any listed schema.

Why apart from the catalog: a call needs only the routes; the listed schemas are built at the
first ``tools/list`` (tool_catalog.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mcp_server.server.registry import CONDENSED_TOOLS, ActionSpec

__all__ = ["CallRoute", "call_routes"]


@dataclass
class CallRoute:
    """How a call to one listed tool finds its action: a :class:`Route` without the listed ``Tool``."""

    #: legacy tool: its one action; condensed tool: None (actions picked by name)
    spec: ActionSpec | None = None
    actions: dict[str, ActionSpec] = field(default_factory=dict)


def call_routes(specs: list[ActionSpec], toolset: str) -> dict[str, CallRoute]:
    """The tools of ``toolset`` as :func:`build_routes` lists them, for routing calls (no schemas built).

    tests/mcp_server/server/test_tools_list_schema.py checks that both name the same tools with the same actions.
    """
    calls: dict[str, CallRoute] = {}
    if toolset in ("condensed", "all"):
        for tool in CONDENSED_TOOLS:
            own = {s.name: s for s in specs if s.tool == tool}
            if own:
                calls[tool] = CallRoute(actions=own)
    if toolset in ("legacy", "all"):
        for spec in specs:
            if spec.legacy:
                calls[spec.legacy] = CallRoute(spec=spec)
    return calls
