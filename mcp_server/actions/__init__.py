"""The action modules. Each owner adds its module's name to MODULES; the server imports them all.

A listed module whose file is not there yet is skipped (parts land at different times), but
a module that exists and fails to import is an error: a broken action must not vanish quietly.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading

__all__ = ["MODULES", "load_actions"]

MODULES: list[str] = [
    "tabs.session",
    "flat.page_tools",
    "flat.browser_tools",
    "tabs.state",
    "page.selectors",
    "evidence.capture",
    "evidence.bundle",
    "page.snapshot",
    "page.wait",
    "tabs.dialog",
    "page.interact",
    "page.forms",
    "evidence.trace",
    "tabs.pages",
    "tabs.emulate",
    "evidence.storage",
    "evidence.memory",
    "page.looking",
    "evidence.debug",
]


#: one load at a time: a quick start's first calls (the loop) and the SDK server's build (a thread) may
#: both ask; the second finds the table whole and in order, never half reordered
_LOADING = threading.Lock()


def load_actions() -> list[str]:
    """Import every present action module (registering its actions); return the names loaded."""
    with _LOADING:
        loaded = []
        for name in MODULES:
            qualified = f"{__name__}.{name}"
            if importlib.util.find_spec(qualified) is None:
                continue
            importlib.import_module(qualified)
            loaded.append(name)
        _in_module_order()
        return loaded


def _in_module_order() -> None:
    """Put the action table in MODULES order, whatever imported a module first.

    A test that imports one action module before the server loads them all (to unit-test a
    helper of it) must not reorder tools/list and the generated docs/tools.md.
    """
    from mcp_server.core import registry

    rank = {f"{__name__}.{name}": i for i, name in enumerate(MODULES)}
    ordered = sorted(registry.ACTIONS.items(), key=lambda kv: rank.get(kv[1].handler.__module__, len(rank)))
    if [key for key, _ in ordered] == list(registry.ACTIONS):
        return  # in order already (every load after the first): no moment where the table is empty
    registry.ACTIONS.clear()
    registry.ACTIONS.update(ordered)
