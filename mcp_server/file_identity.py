"""Is this the same file, or inside this folder? By file identity, not by spelling.

Why: on case-insensitive disks (macOS by default, Windows always) ``AUDIT.jsonl`` *is*
``audit.jsonl`` and ``.MCP-Browser-Artifacts/state`` *is* ``.mcp-browser-artifacts/state``,
and a hard link is the same file under any name. Comparing ``Path`` objects compared spellings,
so a guard that refuses a name let a differently spelled name of the same file through. Here
two existing paths are the same when the system says so (``os.path.samefile``: device and
inode, the file index on Windows); a path that does not exist yet is compared by its
case-folded spelling, which refuses more than needed on a case-sensitive disk, never less.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["folded", "is_within", "same_path"]


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
