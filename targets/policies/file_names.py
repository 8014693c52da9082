"""A file name from a web page that is safe to create on every system.

Why: a download's suggested name comes from the page (``Content-Disposition``). Besides
separators and control characters, Windows refuses, or silently redirects to a device, the
names ``CON``, ``PRN``, ``AUX``, ``NUL``, ``COM1``-``COM9``, ``LPT1``-``LPT9`` with any
extension and in any case (``nul.txt`` is the null device), and drops trailing dots and
spaces. Such a name is given a leading ``_`` on every system, so a download saved on Linux
is saved under the same name on Windows.
"""

from __future__ import annotations

import re

__all__ = ["WINDOWS_RESERVED", "safe_file_name"]

WINDOWS_RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL"} | {f"COM{i}" for i in range(1, 10)} | {f"LPT{i}" for i in range(1, 10)}
)

_UNSAFE = re.compile(r"[^A-Za-z0-9._ -]")


def safe_file_name(suggested: str | None, default: str = "download", limit: int = 180) -> str:
    """``suggested`` reduced to letters, digits, ``._ -``; never a reserved device name, never empty."""
    name = _UNSAFE.sub("_", suggested or default).strip(" .") or default
    stem = name.split(".", 1)[0].rstrip(" ")
    if stem.upper() in WINDOWS_RESERVED:
        name = "_" + name
    if len(name) > limit:
        head, dot, ext = name.rpartition(".")
        name = (head[: limit - len(ext) - 1] + dot + ext) if dot and len(ext) <= 16 else name[:limit]
    return name
