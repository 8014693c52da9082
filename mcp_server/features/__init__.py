"""The features, one folder each: ``MODULES`` registers every module that declares actions.

A feature folder holds its actions (``@action``, :mod:`mcp_server.server.registry`), both of its
renderings and the facts only it needs; features never import each other (what two share lives
in ``mcp_server.page``, ``mcp_server.evidence`` or ``mcp_server.answers``;
tests/project/test_architecture.py keeps the rule). Adding an action means its feature folder and, for a
new module, one line here. The order of ``MODULES`` is the order of ``tools/list`` and of each
condensed tool's ``action`` list.

A module that fails to import is an error: a broken action must not vanish quietly.
"""

from __future__ import annotations

import importlib
import threading

__all__ = ["MODULES", "load_actions"]

MODULES: list[str] = [
    "session.actions",
    "tabs.selecting",
    "navigation.navigate",
    "scripts.dom",
    "screenshot.actions",
    "scripts.evaluate",
    "network.legacy",
    "console.legacy",
    "tabs.switching",
    "tabs.frames",
    "downloads.actions",
    "storage.state",
    "interact.selectors",
    "console.actions",
    "network.actions",
    "network.replay",
    "bundle.actions",
    "bundle.marks",
    "snapshot.actions",
    "navigation.wait",
    "dialogs.actions",
    "interact.uids",
    "interact.forms",
    "trace.actions",
    "navigation.history",
    "tabs.opening",
    "emulation.actions",
    "storage.actions",
    "memory.actions",
    "inspect.actions",
    "debugger.actions",
]


#: one load at a time: a program that embeds the server may ask from more than one thread; the second
#: finds the table whole and in order, never half reordered
_LOADING = threading.Lock()


def load_actions() -> list[str]:
    """Import every action module (registering its actions); return the names loaded."""
    with _LOADING:
        for name in MODULES:
            importlib.import_module(f"{__name__}.{name}")
        _in_module_order()
        return list(MODULES)


def _in_module_order() -> None:
    """Put the action table in MODULES order, whatever imported a module first.

    A test that imports one action module before the server loads them all (to unit-test a
    helper of it) must not reorder tools/list and the generated docs/tools.md.
    """
    from mcp_server.server import registry

    rank = {f"{__name__}.{name}": i for i, name in enumerate(MODULES)}
    ordered = sorted(registry.ACTIONS.items(), key=lambda kv: rank.get(kv[1].handler.__module__, len(rank)))
    if [key for key, _ in ordered] == list(registry.ACTIONS):
        return  # in order already (every load after the first): no moment where the table is empty
    registry.ACTIONS.clear()
    registry.ACTIONS.update(ordered)
