"""A ``file:`` URL read the way Chrome reads it, before any policy looks at its path.

The second review opened ``/etc/passwd``, the audit log and the artifacts' state file with
``ALLOW_FILE_URLS=true`` through ``file:///root/..\\..\\etc\\passwd``: Python's ``urlsplit``
keeps the backslashes inside one path segment, so the path looked like a file under the
allowed root, while Chrome (the WHATWG URL parser) reads a backslash as ``/`` in a ``file:``
URL and walks up. So the path the browser will open is computed here as the browser computes
it: backslashes are slashes, the host is percent-decoded and lower-cased (``LOCALHOST`` and
``%6Cocalhost`` are ``localhost``), ``.``/``..`` segments are removed in their percent-encoded
spellings too (``%2e%2E``), then each segment is percent-decoded. What cannot be read as a plain
local path is refused rather than guessed: another host (``file://host/share``), a network
path (``file:////host/share``, ``\\\\host\\share``), a device path (``\\\\.\\``, ``\\\\?\\``), an
encoded separator or NUL (``%2F``, ``%5C``, ``%00``) inside a segment.
"""

from __future__ import annotations

import os
import re
import urllib.parse

__all__ = ["FileUrlRefused", "file_url_path"]

_SINGLE_DOT = {".", "%2e"}
_DOUBLE_DOT = {"..", ".%2e", "%2e.", "%2e%2e"}
_DRIVE = re.compile(r"^[A-Za-z][:|]$")


class FileUrlRefused(ValueError):
    """The URL names no plain local path (another host, a network or device path, an encoded separator)."""


def file_url_path(url: str) -> str:
    """The absolute local path Chrome opens for ``url`` (a ``file:`` URL, already stripped of controls).

    Raises :class:`FileUrlRefused` with the reason when the URL is not a plain local path.
    """
    rest = url.split(":", 1)[1]
    cut = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    rest = rest[:cut].replace("\\", "/")
    if rest.startswith("//"):
        host, slash, path = rest[2:].partition("/")
        host = urllib.parse.unquote(host).lower()
        if host not in ("", "localhost"):
            raise FileUrlRefused(f"it names the host {host!r} (a network share); only local file URLs are opened")
        path = "/" + path if slash else "/"
    else:
        path = rest if rest.startswith("/") else "/" + rest
    if path.startswith("//"):
        raise FileUrlRefused("it is a network or device path (//host/share, \\\\.\\, \\\\?\\)")
    segments: list[str] = []
    raw = path[1:].split("/")
    for i, segment in enumerate(raw):
        folded = segment.lower()
        last = i == len(raw) - 1
        if folded in _DOUBLE_DOT:
            if segments and not (len(segments) == 1 and _DRIVE.match(segments[0])):
                segments.pop()
            if last:
                segments.append("")
            continue
        if folded in _SINGLE_DOT:
            if last:
                segments.append("")
            continue
        decoded = urllib.parse.unquote(segment, errors="surrogateescape")
        if "/" in decoded or "\\" in decoded or "\x00" in decoded:
            raise FileUrlRefused("a path segment holds an encoded separator or NUL (%2F, %5C, %00)")
        segments.append(decoded)
    if os.name == "nt" and segments and _DRIVE.match(segments[0]):
        return segments[0][0] + ":\\" + "\\".join(segments[1:])
    return "/" + "/".join(segments)
