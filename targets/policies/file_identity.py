"""Is this the same file, or inside this folder? By file identity, not by spelling.

Why: on case-insensitive disks (macOS by default, Windows always) ``AUDIT.jsonl`` *is*
``audit.jsonl`` and ``.MCP-Browser-Artifacts/state`` *is* ``.mcp-browser-artifacts/state``,
and a hard link is the same file under any name. Comparing ``Path`` objects compared spellings,
so a guard that refuses a name let a differently spelled name of the same file through. Here
two existing paths are the same when the system says so (``os.path.samefile``: device and
inode, the file index on Windows); a path that does not exist yet is compared by its
case-folded spelling, which refuses more than needed on a case-sensitive disk, never less.

That folding is right for a check that refuses (``state/``, the audit log, the server's files)
and wrong for one that grants (``ALLOWED_FILE_ROOTS``): on Linux ``/srv/SITE`` is another folder
than the allowed ``/srv/site``. :func:`is_within_granted` is the granting twin: identity first,
then the spelling as this system compares names (folded on Windows and macOS only).

The one home of these rules: ``targets.policies.policy`` (``file:`` URLs), ``mcp_server.safety.artifacts`` and
``mcp_server.safety.uploads`` import them from here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["folded", "is_within", "is_within_granted", "same_path"]


def folded(path: str | Path) -> str:
    """A spelling for comparisons: normalised separators and case folded (also on Linux, on purpose)."""
    return os.path.normcase(os.path.normpath(str(path))).casefold()


def same_path(a: str | Path, b: str | Path) -> bool:
    """The same file or folder: by identity when both exist, else by case-folded spelling."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return folded(a) == folded(b)


def is_within(path: str | Path, folder: str | Path) -> bool:
    """``path`` is ``folder`` or lies under it (each ancestor compared by :func:`same_path`)."""
    candidate = Path(path)
    target_folded = folded(folder)
    for ancestor in (candidate, *candidate.parents):
        if folded(ancestor) == target_folded or same_path(ancestor, folder):
            return True
    return False


def _system_spelling(path: str | Path) -> str:
    """A spelling compared as this system's default disks compare names (case-insensitive on Windows, macOS)."""
    text = os.path.normcase(os.path.normpath(str(path)))
    return text.casefold() if sys.platform in ("win32", "darwin") else text


def is_within_granted(path: str | Path, folder: str | Path) -> bool:
    """``path`` is ``folder`` or under it, for granting access: never wider than the file system's own rule.

    An ancestor is ``folder`` when both exist and are the same folder (a symlinked or differently
    cased name of it), or when their spellings agree as this system compares names.
    """
    candidate = Path(path)
    target = _system_spelling(folder)
    for ancestor in (candidate, *candidate.parents):
        if _system_spelling(ancestor) == target:
            return True
        try:
            if os.path.samefile(ancestor, folder):
                return True
        except (OSError, ValueError):
            continue
    return False
