"""How a ``tools/call`` finds its action: by tool name, then by ``action``, without any listed schema.

Why a module of its own: the server (server.py) routes every call through these, and a quick
start's first call (quick_front.py) routes through the recorded index (:func:`action_modules`)
before the other action modules are imported (:func:`early_route`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from mcp_server.core import registry
from mcp_server.core.registry import CONDENSED_TOOLS, ActionSpec

__all__ = ["CallRoute", "call_routes", "action_modules", "early_route"]


@dataclass
class CallRoute:
    """How a call to one listed tool finds its action: a :class:`Route` without the listed ``Tool``."""

    #: legacy tool: its one action; condensed tool: None (actions picked by name)
    spec: ActionSpec | None = None
    actions: dict[str, ActionSpec] = field(default_factory=dict)


def action_modules(calls: dict[str, CallRoute]) -> dict[str, str]:
    """The quick start's index: ``tool:action`` of each condensed tool, and each legacy tool's name, to
    the module that defines it; for the tools of one toolset (``calls``)."""
    index: dict[str, str] = {}
    for tool, route in calls.items():
        if route.spec is not None:
            index[tool] = route.spec.handler.__module__
        for action, spec in route.actions.items():
            index[f"{tool}:{action}"] = spec.handler.__module__
    return index


def call_routes(specs: list[ActionSpec], toolset: str) -> dict[str, CallRoute]:
    """The tools of ``toolset`` as :func:`build_routes` lists them, for routing calls (no schemas built).

    tests/test_mcp_schema.py checks that both name the same tools with the same actions.
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


def early_route(index: dict[str, str], name: str, args: dict[str, Any]) -> CallRoute | None:
    """The route of one call from its action's module alone, or None (then everything is loaded first).

    Only for a tool and action the recorded ``index`` names (:func:`action_modules`, taken from
    the registry that recorded the handshake, for this toolset); anything else, such as an
    unknown action, whose answer lists all of them, waits for every module.
    """
    condensed = name in CONDENSED_TOOLS
    action = args.get("action") if condensed else None
    if condensed and not isinstance(action, str):
        return None
    module = index.get(f"{name}:{action}" if condensed else name)
    if module is None:
        return None
    importlib.import_module(module)
    # The SDK server's build loads the whole table in its thread (quick_front.run): read it in single
    # steps (a get, a copy), and a miss while its first load reorders it only means the call waits for it.
    if condensed:
        spec = registry.ACTIONS.get((name, str(action)))
        return CallRoute(actions={spec.name: spec}) if spec is not None else None
    found = [s for s in list(registry.ACTIONS.values()) if s.legacy == name]
    return CallRoute(spec=found[0]) if len(found) == 1 else None
