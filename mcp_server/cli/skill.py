"""``mcp-browser skill path|install``: the agent skill that ships inside the package.

The prompt hook tells the agent to use the ``mcp-browser-automation`` skill, so the skill has
to be where the client looks, whatever way the package was installed (uvx, pipx, pip, a
checkout). ``path`` prints the skill's directory; ``install`` copies it (a copy, not a link:
a uvx environment is a cache that can disappear) into the client's skills directory:

- Claude Code: ``~/.claude/skills/`` (``$CLAUDE_CONFIG_DIR/skills`` when set), or
  ``<project>/.claude/skills/`` with ``--project``;
- Codex: ``~/.agents/skills/``, or ``<project>/.agents/skills/`` with ``--project``.

Re-running ``install`` updates a copy made before; a different skill of the same name is left
alone unless ``--force``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

__all__ = ["SKILL_NAME", "main", "skill_dir", "skills_root"]

SKILL_NAME = "mcp-browser-automation"
CLIENTS = ("claude", "codex")


def skill_dir() -> Path:
    """The skill shipped with this installation: inside the package (wheel), else the checkout's ``skills/``."""
    here = Path(__file__).resolve().parent.parent  # the mcp_server package (skills/ ships inside it)
    for candidate in (here / "skills" / SKILL_NAME, here.parent / "skills" / SKILL_NAME):
        if (candidate / "SKILL.md").is_file():
            return candidate
    raise FileNotFoundError(f"the {SKILL_NAME} skill is missing from this installation (looked in {here})")


def skills_root(client: str, project: Path | None = None) -> Path:
    """The directory ``client`` reads skills from: the user's, or the project's with ``project``."""
    sub = {"claude": Path(".claude") / "skills", "codex": Path(".agents") / "skills"}[client]
    if project is not None:
        return project / sub
    if client == "claude" and os.environ.get("CLAUDE_CONFIG_DIR"):
        return Path(os.environ["CLAUDE_CONFIG_DIR"]).expanduser() / "skills"
    return Path.home() / sub


def _is_our_skill(path: Path) -> bool:
    try:
        head = (path / "SKILL.md").read_text(encoding="utf-8")[:400]
    except OSError:
        return False
    return f"name: {SKILL_NAME}" in head


def install(client: str, *, project: Path | None = None, dest: Path | None = None, force: bool = False) -> Path:
    """Copy the skill into the client's skills directory and return where it went."""
    source = skill_dir()
    root = dest if dest is not None else skills_root(client, project)
    target = root / SKILL_NAME
    if target.resolve() == source.resolve():
        return target  # installing a checkout onto itself (a link made by hand): nothing to do
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        if not (_is_our_skill(target) or force):
            raise FileExistsError(f"{target} exists and is not the {SKILL_NAME} skill; use --force to replace it")
        shutil.rmtree(target)
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return target


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="mcp-browser skill",
        description=f"The {SKILL_NAME} agent skill shipped with this package.",
    )
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("path", help="print the directory of the skill shipped with this package")
    inst = sub.add_parser("install", help="copy the skill where Claude Code or Codex finds it")
    inst.add_argument(
        "--client", required=True, choices=CLIENTS, help="claude: ~/.claude/skills; codex: ~/.agents/skills"
    )
    inst.add_argument(
        "--project",
        nargs="?",
        const=".",
        metavar="DIR",
        help="install into a project (default: the current directory) instead of your home directory",
    )
    inst.add_argument("--dest", metavar="DIR", help="install into this skills directory instead")
    inst.add_argument("--force", action="store_true", help="replace a different skill of the same name")
    return p.parse_args(argv)


def _printable_anywhere() -> None:
    """Never fail on a path the console's code page cannot show.

    Why: with output redirected (a script, a client's log), Windows writes in the ANSI code page
    (cp1252...), and a home folder such as ``C:\\Users\\Łukasz`` raised UnicodeEncodeError after
    the skill was copied: exit 1 for a success. Unencodable characters are escaped instead.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass


def main(argv: list[str]) -> int:
    _printable_anywhere()
    ns = parse_args(argv)
    try:
        if ns.command == "path":
            print(skill_dir())
            return 0
        project = Path(ns.project).resolve() if ns.project is not None else None
        dest = Path(ns.dest).expanduser() if ns.dest else None
        target = install(ns.client, project=project, dest=dest, force=ns.force)
    except (OSError, ValueError) as exc:
        print(f"mcp-browser skill: {exc}", file=sys.stderr)
        return 1
    client = "Claude Code" if ns.client == "claude" else "Codex"
    print(f"installed the {SKILL_NAME} skill for {client}: {target}")
    print("Start a new session of the client to load it.")
    return 0
