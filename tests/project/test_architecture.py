"""The house keeps its floors: imports run only downwards, rooms stay small, the map stays true.

docs/architecture.md draws the rooms of ``mcp_server`` and their arrows; these tests read the
imports of every module (``ast``, no import executed) and fail on one that runs back up, on a
folder of any of the three packages that outgrows ~15 modules (the generated ``cdp_core/protocol``
aside), and on a module name in the map that no longer resolves.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from paths import ROOT

PACKAGES = ("cdp_core", "targets", "mcp_server")

#: Which rooms of mcp_server each room may import (its own always). Each feature folder is a room of its
#: own (``features.network``...) that may import the shared rooms below it, never another feature; the
#: ``features`` package itself is the action table's loader, which the server and the features name.
#: ``shims`` are the modules at the package root (the pytest plugin and ``mcp_server.testing``).
SHARED = {"page", "evidence", "input", "answers", "safety"}
ALLOWED: dict[str, set[str]] = {
    "shims": {"fixtures"},
    "cli": {"server", "evidence", "answers", "safety"},
    "server": {"features", "answers", "safety"},
    "features": {"server"},
    "features.*": {"features", "server"} | SHARED,
    "page": {"server", "evidence", "input", "answers", "safety"},
    "evidence": {"server", "input", "answers", "safety"},
    "input": {"answers", "safety"},
    "answers": {"server", "safety"},
    "safety": set(),
    "fixtures": set(),
}
#: The three floors: a package may import the ones after it, never those before.
FLOORS = ("mcp_server", "targets", "cdp_core")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def room_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "mcp_server" or len(parts) == 1:
        return parts[0]
    if len(parts) == 2 and not (ROOT / "mcp_server" / parts[1]).is_dir():
        return "shims"
    if parts[1] == "features" and len(parts) > 2:
        return f"features.{parts[2]}"
    return parts[1]


def rule_of(room: str) -> set[str]:
    return ALLOWED.get("features.*" if room.startswith("features.") else room, set())


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) for every import that runs, relative ones resolved."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: list[tuple[int, str]] = []
    tree = ast.parse(path.read_text(), str(path))
    typing_only = {  # ``if TYPE_CHECKING:`` imports name a type, they run nothing: not an arrow
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", "")) == "TYPE_CHECKING"
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                is_module = (ROOT / (candidate.replace(".", "/") + ".py")).exists() or (
                    ROOT / candidate.replace(".", "/")
                ).is_dir()
                out.append((node.lineno, candidate if is_module else target))
    return out


def all_modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py") if "skills" not in p.parts)


def test_every_room_has_its_rule() -> None:
    rooms = {p.name for p in (ROOT / "mcp_server").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert rooms - {"features"} <= set(ALLOWED), f"a room without an import rule: {sorted(rooms - set(ALLOWED))}"


def test_imports_run_only_downwards() -> None:
    wrong: list[str] = []
    for path in all_modules():
        here = module_name(path)
        floor = FLOORS.index(here.split(".")[0])
        for line, target in imports_of(path):
            top = target.split(".")[0]
            if top not in FLOORS:
                continue
            where = f"{path.relative_to(ROOT)}:{line} imports {target}"
            if FLOORS.index(top) < floor:
                wrong.append(f"{where} (a lower floor importing a higher one)")
            elif top == here.split(".")[0] == "mcp_server":
                mine, theirs = room_of(here), room_of(target)
                if mine != theirs and theirs not in rule_of(mine) and theirs != "mcp_server":
                    wrong.append(f"{where} ({mine} may not import {theirs})")
    assert not wrong, "imports that run back up:\n" + "\n".join(wrong)


#: Folders the ~15-modules rule leaves alone: generated code (one module per CDP domain, made by
#: scripts/gen_cdp_protocol.py), the skill's files, data that is no Python.
EXEMPT_FOLDERS = ("cdp_core/protocol",)
EXEMPT_NAMES = {"skills", "__pycache__", "snapshot_js"}


@pytest.mark.parametrize("package", PACKAGES)
def test_no_folder_outgrows_fifteen_modules(package: str) -> None:
    crowded = {}
    for folder in [ROOT / package, *(p for p in (ROOT / package).rglob("*") if p.is_dir())]:
        where = folder.relative_to(ROOT)
        if EXEMPT_NAMES & set(where.parts) or any(where.is_relative_to(f) for f in EXEMPT_FOLDERS):
            continue
        modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
        if len(modules) > 16:
            crowded[str(folder.relative_to(ROOT))] = len(modules)
    assert not crowded, f"folders past ~15 modules (group them by concern): {crowded}"


def test_every_room_says_what_lives_there_and_what_it_may_import() -> None:
    for room in (p for p in (ROOT / "mcp_server").rglob("__init__.py") if "skills" not in p.parts):
        doc = ast.get_docstring(ast.parse(room.read_text())) or ""
        assert len(doc) > 80, f"{room.relative_to(ROOT)}: the room's docstring says too little"


def test_the_architecture_map_names_modules_that_exist() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    dotted = set(re.findall(r"`((?:mcp_server|targets|cdp_core)(?:\.\w+)+)`", text))
    paths = set(re.findall(r"`((?:mcp_server|targets|cdp_core|tests)/[\w/]+\.py)`", text))
    assert dotted or paths, "docs/architecture.md names no module"
    missing = [d for d in dotted if not _resolves(d)] + [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"docs/architecture.md names modules that do not exist: {sorted(missing)}"


def _resolves(dotted: str) -> bool:
    """A module, or a module and one of its top-level names (``mcp_server.server.app.build_server``)."""
    parts = dotted.split(".")
    base = ROOT / "/".join(parts)
    if base.with_suffix(".py").exists() or (base / "__init__.py").exists():
        return True
    module = ROOT / "/".join(parts[:-1])
    source = module.with_suffix(".py") if module.with_suffix(".py").exists() else module / "__init__.py"
    if not source.exists():
        return False
    name = re.escape(parts[-1])
    return re.search(rf"^(?:async def|def|class) {name}\b|^{name}\b\s*[:=]", source.read_text(), re.M) is not None


def test_mcp_server_has_no_import_circle() -> None:
    """No module of mcp_server reaches itself through its imports (a function's own imports included).

    A circle is where a newcomer cannot say which module comes first, and where an import's order
    decides whether the server starts.
    """
    modules = {module_name(p): p for p in all_modules() if module_name(p).startswith("mcp_server")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = {t for _, t in imports_of(path)}
        graph[name] = {t for t in targets if t in modules and t != name}
    circles = [c for c in _strongly_connected(graph) if len(c) > 1]
    assert not circles, "import circles in mcp_server:\n" + "\n".join(" -> ".join(sorted(c)) for c in circles)


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative (the graph has a few hundred modules)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                found.append(component)
    return found
