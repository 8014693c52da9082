"""Files an answer wrote, as ``resource_link`` content the client can open, and ``resources/read`` for them.

Answers give the paths of the bodies, HAR files, screenshots, traces, heap snapshots and
bundles they write, inside their text; a client that can show or attach a file gets nothing
it can open from a path. So each answer that wrote files also carries one ``resource_link``
per file (URI, name, MIME type, size), and ``resources/read`` serves them.

What counts as written by a call: the paths it took from :meth:`Artifacts.new_path` and the
files modified since it started in the folders it took from :meth:`Artifacts.dir`
(:func:`~mcp_server.safety.artifacts.recording_use`). The fence of ``resources/read`` is
narrower than the artifacts root: only a URI this server announced in an answer is served,
only while it is still a regular file of ours inside the root, never a private folder's file
(exported cookies) nor the audit log, and at most :data:`READ_MAX_BYTES`.
"""

from __future__ import annotations

import base64
import mimetypes
import os
import stat
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_server.safety.artifacts import PRIVATE_KINDS, Artifacts
from targets.policies.file_identity import is_within

__all__ = ["LinkBlock", "ArtifactLinks", "LINKS_PER_ANSWER", "READ_MAX_BYTES"]

#: links one answer carries at most (a bundle folder holds a dozen files)
LINKS_PER_ANSWER = 20
#: what resources/read serves at most of one file (a trace or heap snapshot can be bigger: say so)
READ_MAX_BYTES = 32 * 1024 * 1024
#: announced URIs remembered (the oldest are forgotten first)
REMEMBERED = 2000
#: text kinds served as text (everything else as a base64 blob)
_TEXT = ("text/", "application/json", "application/xml", "application/javascript")


@dataclass(slots=True)
class LinkBlock:
    """A ``resource_link`` content block (the SDK's ``ResourceLink``)."""

    uri: str
    name: str
    mime_type: str
    size: int
    type: str = "resource_link"

    def wire(self) -> dict[str, Any]:
        return {
            "type": "resource_link",
            "uri": self.uri,
            "name": self.name,
            "mimeType": self.mime_type,
            "size": self.size,
        }


def _mime(path: Path) -> str:
    if path.suffix in (".har", ".heapsnapshot"):
        return "application/json"
    return mimetypes.guess_type(path.name)[0] or "application/octet-stream"


class ArtifactLinks:
    """The links of this server's answers, and the reads of them."""

    def __init__(self, artifacts: Artifacts) -> None:
        self.artifacts = artifacts
        self._announced: OrderedDict[str, Path] = OrderedDict()

    # -- what a call wrote ---------------------------------------------------------------------

    def written(self, used: list[Path], since_ns: int) -> list[Path]:
        """The files a call wrote: its own new paths, and files modified since it began in its folders."""
        found: list[Path] = []
        for path in used:
            if path.is_dir():
                found += self._modified_in(path, since_ns, deep=not self._is_kind_folder(path))
            elif path.is_file():
                found.append(path)
            if len(found) >= LINKS_PER_ANSWER:
                break
        return [p for p in dict.fromkeys(found) if self._linkable(p)][:LINKS_PER_ANSWER]

    def _is_kind_folder(self, path: Path) -> bool:
        return path.parent == self.artifacts.root

    @staticmethod
    def _modified_in(folder: Path, since_ns: int, *, deep: bool) -> list[Path]:
        out: list[Path] = []
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            return out
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and (deep or info.st_mtime_ns >= since_ns):
                out.append(Path(entry.path))
            elif deep and stat.S_ISDIR(info.st_mode):
                out += ArtifactLinks._modified_in(Path(entry.path), since_ns, deep=True)
        return out

    def _linkable(self, path: Path) -> bool:
        root = self.artifacts.root
        try:
            resolved = path.resolve()
            info = os.lstat(path)
        except OSError:
            return False
        if not stat.S_ISREG(info.st_mode) or not is_within(resolved, root) or self.artifacts.is_protected(resolved):
            return False
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            return False
        return not any(is_within(resolved, root / kind) for kind in PRIVATE_KINDS)

    def blocks(self, paths: list[Path]) -> list[LinkBlock]:
        """One link per file, remembered so ``resources/read`` may serve it."""
        out = []
        for path in paths:
            try:
                size = path.stat().st_size
            except OSError:
                continue
            uri = path.resolve().as_uri()
            self._announced[uri] = path.resolve()
            self._announced.move_to_end(uri)
            out.append(LinkBlock(uri=uri, name=self.artifacts.relative(path), mime_type=_mime(path), size=size))
        while len(self._announced) > REMEMBERED:
            self._announced.popitem(last=False)
        return out

    # -- resources/list and resources/read ------------------------------------------------------

    def listed(self) -> list[LinkBlock]:
        """The announced files still there, newest first (at most 100)."""
        out: list[LinkBlock] = []
        for uri, path in reversed(self._announced.items()):
            if len(out) >= 100:
                break
            if self._linkable(path):
                out.append(
                    LinkBlock(
                        uri=uri, name=self.artifacts.relative(path), mime_type=_mime(path), size=path.stat().st_size
                    )
                )
        return out

    def read(self, uri: str) -> tuple[str, str | None, str | None]:
        """(MIME type, text, base64 blob) of an announced file; raises ``LookupError`` with the reason."""
        path = self._announced.get(uri)
        if path is None:
            raise LookupError("not a file this server announced in an answer (only those are served)")
        if not self._linkable(path):
            raise LookupError("the file is gone or no longer a regular file of ours inside the artifacts root")
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(path, flags)
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise LookupError("not a regular file")
            if info.st_size > READ_MAX_BYTES:
                raise LookupError(
                    f"{info.st_size} bytes, over the {READ_MAX_BYTES // (1024 * 1024)} MiB that resources/read serves:"
                    f" open {path} on disk"
                )
            data = handle.read(READ_MAX_BYTES + 1)
        mime = _mime(path)
        if mime.startswith(_TEXT):
            try:
                return mime, data.decode("utf-8"), None
            except UnicodeDecodeError:
                pass
        return mime, None, base64.b64encode(data).decode("ascii")
