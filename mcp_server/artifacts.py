"""The one artifacts root: screenshots, bodies, traces, bundles and downloads live under it.

Large or sensitive output goes to files here instead of into tool answers. Every path an
agent passes in is resolved with :meth:`Artifacts.resolve_inside`, so no call can read or
write outside the root (``..``, absolute paths elsewhere, symlinks pointing out).
"""

from __future__ import annotations

import itertools
import re
import time
from pathlib import Path

from targets.errors import ErrorCode, ToolFailure

__all__ = ["Artifacts"]

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
_counter = itertools.count(1)


class Artifacts:
    """Paths under the artifacts root (created lazily, with a ``.gitignore`` that ignores everything)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).expanduser().resolve()

    def ensure_root(self) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        ignore = self.root / ".gitignore"
        if not ignore.exists():
            # The root usually sits inside the user's project: keep captured data out of git.
            ignore.write_text("# written by mcp-browser: captured data, never commit it\n*\n")
        return self.root

    def dir(self, kind: str) -> Path:
        """``<root>/<kind>/``, created on first use."""
        safe = _SAFE.sub("-", kind).strip(".-") or "misc"
        path = self.ensure_root() / safe
        path.mkdir(parents=True, exist_ok=True)
        return path

    def new_path(self, kind: str, stem: str, suffix: str) -> Path:
        """A fresh, unique, timestamped file path in ``<root>/<kind>/`` (the file is not created)."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        clean = re.sub(r"\.{2,}", ".", _SAFE.sub("-", stem)).strip(".-")[:60] or "artifact"
        suffix = suffix if not suffix or suffix.startswith(".") else "." + suffix
        directory = self.dir(kind)
        while True:
            path = directory / f"{stamp}-{next(_counter):04d}-{clean}{suffix}"
            if not path.exists():
                return path

    def resolve_inside(self, path: str | Path, *, kind: str | None = None) -> Path:
        """Resolve an agent-supplied path (relative to the root, or to ``<root>/<kind>`` when given).

        Refuses anything that ends up outside the root once ``..`` and symlinks are resolved.
        """
        raw = Path(path).expanduser()
        base = self.root / kind if kind else self.root
        candidate = raw if raw.is_absolute() else base / raw
        resolved = candidate.resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise ToolFailure(
                ErrorCode.PATH_OUTSIDE_ARTIFACTS,
                f"{str(path)!r} is outside the artifacts directory {self.root}",
                hint="pass a path relative to the artifacts directory, without '..'",
                path=str(path),
            )
        return resolved

    def relative(self, path: str | Path) -> str:
        """How a path is shown to agents: relative to the root when inside it."""
        p = Path(path).resolve()
        try:
            return str(p.relative_to(self.root))
        except ValueError:
            return str(p)
