"""The one artifacts root: screenshots, bodies, traces, bundles and downloads live under it.

Large or sensitive output goes to files here instead of into tool answers. Every path an
agent passes in is resolved with :meth:`Artifacts.resolve_inside`, so no call can read or
write outside the root (``..``, absolute paths elsewhere, symlinks pointing out), outside the
action's own subdirectory when it names one (``read_downloaded_file`` cannot read an exported
state file with cookie values), or at the audit log and its rotated files (the user's record
of what the agent did must not be readable, overwritable or deletable through a tool).
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import re
import time
from collections.abc import Iterator
from pathlib import Path

from mcp_server.safety.owner_only import restrict_to_owner
from targets.errors import ErrorCode, ToolFailure
from targets.policies.file_identity import is_within, same_path

__all__ = ["Artifacts", "AUDIT_FILE_NAME", "PRIVATE_KINDS", "recording_use"]

#: The audit log's default name under the root (``MCP_AUDIT_LOG`` may put it elsewhere).
AUDIT_FILE_NAME = "audit.jsonl"

#: Folders only their own actions may name (``state/``: exported cookies, HttpOnly values included):
#: a trace summary, a heap reader or an upload given a path there is refused.
PRIVATE_KINDS = ("state",)

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
_IGNORE_HEAD = "# written by mcp-browser: captured data, never commit it"


def _owner_only(path: Path) -> None:
    # chmod 0700 on POSIX; on Windows (where chmod only sets read-only) a DACL for this user alone.
    restrict_to_owner(path)


_counter = itertools.count(1)

#: the folders and paths the running call asked for (None outside a recorded call)
_USED: contextvars.ContextVar[list[Path] | None] = contextvars.ContextVar("mcp_artifacts_used", default=None)


@contextlib.contextmanager
def recording_use() -> Iterator[list[Path]]:
    """Collect the folders and paths the calls inside ask :class:`Artifacts` for (the call's writes)."""
    used: list[Path] = []
    token = _USED.set(used)
    try:
        yield used
    finally:
        _USED.reset(token)


def _used(path: Path) -> None:
    used = _USED.get()
    if used is not None and path not in used:
        used.append(path)


class Artifacts:
    """Paths under the artifacts root (created lazily, with a ``.gitignore`` that ignores everything)."""

    def __init__(self, root: str | Path, *, protected: tuple[str | Path, ...] = ()) -> None:
        self.root = Path(root).expanduser().resolve()
        #: Files no agent path may resolve to (the audit log, default and configured; rotations too).
        self.protected: list[Path] = []
        for path in (self.root / AUDIT_FILE_NAME, *protected):
            self.protect(path)

    def protect(self, path: str | Path) -> None:
        """Refuse ``path`` and its rotated/temporary siblings (``<name>.1``, ``<name>.part``) in resolve_inside."""
        resolved = Path(path).expanduser().resolve()
        if resolved not in self.protected:
            self.protected.append(resolved)

    def is_protected(self, resolved: Path) -> bool:
        """By identity and case-folded name: ``AUDIT.jsonl`` on a case-insensitive disk, a hard link."""
        name = resolved.name.casefold()
        for path in self.protected:
            guarded = path.name.casefold()
            if (name == guarded or name.startswith(guarded + ".")) and same_path(resolved.parent, path.parent):
                return True
            if same_path(resolved, path):
                return True
        return False

    def ensure_root(self) -> Path:
        """Create the root owner-only (``0700``) with its ``.gitignore``.

        Captured bodies, HAR files, screenshots and traces hold what the user's pages showed and
        sent: no other account on the machine may read them. A root that existed before is made
        owner-only only when it is ours (it has our ``.gitignore``), never a folder of the user's.
        """
        created = not self.root.exists()
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        ignore = self.root / ".gitignore"
        if created or (ignore.exists() and ignore.read_text(errors="replace").startswith(_IGNORE_HEAD)):
            _owner_only(self.root)
        if not ignore.exists():
            # The root usually sits inside the user's project: keep captured data out of git.
            ignore.write_text(f"{_IGNORE_HEAD}\n*\n")
        return self.root

    def dir(self, kind: str) -> Path:
        """``<root>/<kind>/``, created on first use, owner-only (the call's folder, for its resource links)."""
        path = self._folder(kind)
        _used(path)
        return path

    def _folder(self, kind: str) -> Path:
        safe = _SAFE.sub("-", kind).strip(".-") or "misc"
        path = self.ensure_root() / safe
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        _owner_only(path)
        return path

    def new_path(self, kind: str, stem: str, suffix: str) -> Path:
        """A fresh, unique, timestamped file path in ``<root>/<kind>/`` (the file is not created)."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        clean = re.sub(r"\.{2,}", ".", _SAFE.sub("-", stem)).strip(".-")[:60] or "artifact"
        suffix = suffix if not suffix or suffix.startswith(".") else "." + suffix
        directory = self._folder(kind)
        while True:
            path = directory / f"{stamp}-{next(_counter):04d}-{clean}{suffix}"
            if not path.exists():
                _used(path)
                return path

    def resolve_inside(self, path: str | Path, *, kind: str | None = None) -> Path:
        """Resolve an agent-supplied path (relative to the root, or to ``<root>/<kind>`` when given).

        A relative path that starts with the kind's folder (``traces/x.json``) is the one answers
        show (relative to the root), so it is taken as given, not nested as ``traces/traces/x.json``.

        Refuses anything that ends up, once ``..`` and symlinks are resolved, outside the root,
        outside ``<root>/<kind>`` when ``kind`` is given (each action stays in its own folder),
        or on a protected file (the audit log and its rotations).
        """
        base = self.root / kind if kind else self.root
        try:
            raw = Path(path).expanduser()
            if raw.is_absolute():
                candidate = raw
            elif kind and raw.parts[:1] == (kind,):
                candidate = self.root / raw  # "traces/x.json" names <root>/traces/x.json, as answers show it
            else:
                candidate = base / raw
            resolved = candidate.resolve()
            if len(str(resolved)) > 4000 or any(len(part.encode()) > 255 for part in resolved.parts):
                raise ValueError("name too long")  # else the OS refuses it later, at stat/open
        except (ValueError, OSError, RuntimeError) as exc:  # NUL bytes, symlink loops, unknown ~user
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                f"{str(path)[:200]!r} is not a usable file path: {exc}",
                hint="pass a plain relative file name such as report.json",
                path=str(path)[:200],
            ) from None
        fence = base.resolve()
        inside = all(resolved == d or d in resolved.parents for d in (self.root, fence))
        if not inside:
            where = (
                f"the {kind}/ folder of the artifacts directory {self.root}"
                if kind
                else f"the artifacts directory {self.root}"
            )
            raise ToolFailure(
                ErrorCode.PATH_OUTSIDE_ARTIFACTS,
                f"{str(path)!r} is outside {where}",
                hint=f"pass a path relative to {kind + '/' if kind else 'the artifacts directory'}, without '..'",
                path=str(path),
            )
        if resolved == fence or resolved == self.root:
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                f"{str(path)!r} names the folder itself, not a file in it",
                hint="give a file name such as report.json",
                path=str(path),
            )
        private = next((k for k in PRIVATE_KINDS if k != kind and is_within(resolved, self.root / k)), None)
        if private is not None:
            raise ToolFailure(
                ErrorCode.PATH_OUTSIDE_ARTIFACTS,
                f"{str(path)[:200]!r} is in {private}/, which holds cookie values: only load_state reads it",
                hint=f"pick a file outside {private}/ (traces/, network/, downloads/...)",
                path=str(path)[:200],
            )
        if self.is_protected(resolved):
            raise ToolFailure(
                ErrorCode.PATH_OUTSIDE_ARTIFACTS,
                f"{str(path)!r} is the audit log, which no tool may read or write",
                hint="pick another file name; the audit log is for the user to review",
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
