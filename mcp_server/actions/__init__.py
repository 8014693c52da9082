"""The action modules. Each owner adds its module's name to MODULES; the server imports them all.

A listed module whose file is not there yet is skipped (parts land at different times), but
a module that exists and fails to import is an error: a broken action must not vanish quietly.
"""

from __future__ import annotations

import importlib
import importlib.util

__all__ = ["MODULES", "load_actions"]

MODULES: list[str] = [
    "session",
    "legacy",
    "state",
    "selectors",
    "capture",
    "snapshot",
    "interact",
    "trace",
    "pages",
    "emulate",
    "storage",
]


def load_actions() -> list[str]:
    """Import every present action module (registering its actions); return the names loaded."""
    loaded = []
    for name in MODULES:
        qualified = f"{__name__}.{name}"
        if importlib.util.find_spec(qualified) is None:
            continue
        importlib.import_module(qualified)
        loaded.append(name)
    return loaded
