"""Reading a small file from a place this process does not own, without trusting what lies there.

Why: ``DevToolsActivePort`` sits in a profile directory that ``attach_cdp user_data_dir=…`` can
name freely, and the HTTP token file in any folder the settings give. Read naively, a FIFO in its
place blocks the reader forever, a link to ``/dev/zero`` reads until memory runs out, and a file
another account planted or can rewrite steers the server to a listener of that account's
choosing. So the file is opened without following a final link and without blocking, checked on
the opened descriptor (a regular file, owned by this user, writable by no one else, no larger
than the cap), and only then read, at most ``max_bytes``.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

__all__ = ["UnsafeFile", "read_private_file", "others_can_write"]


class UnsafeFile(OSError):
    """The file is not one this process may trust: a link, not a regular file, someone else's, too big."""


def read_private_file(path: str | Path, max_bytes: int, *, others_may_read: bool = True) -> bytes:
    """The bytes of ``path`` after the checks above; ``others_may_read=False`` also refuses a file
    group or others can read (a secret). Raises :class:`UnsafeFile` on a failed check and
    :class:`OSError` when the file cannot be opened (missing, unreadable).
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if os.path.islink(path):
            raise UnsafeFile(f"{path} is a symbolic link; the real file is expected there") from exc
        raise
    try:
        info = os.fstat(fd)
        _check(path, info, max_bytes, others_may_read)
        chunks: list[bytes] = []
        left = max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 65536))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:  # it grew between fstat and read
        raise UnsafeFile(f"{path} holds more than {max_bytes} bytes")
    return data


def others_can_write(info: os.stat_result) -> bool:
    """Whether another account may write the file or folder ``info`` describes (False where no uids are).

    Group write is the user's own where the group is the user's (umask 002 with one group per
    user, as many distributions set it: Chrome's file comes out 664 there).
    """
    if sys.platform == "win32" or not hasattr(os, "getegid"):
        return False
    writers = 0o002 if info.st_gid == os.getegid() else 0o022
    return bool(stat.S_IMODE(info.st_mode) & writers)


def _check(path: str | Path, info: os.stat_result, max_bytes: int, others_may_read: bool) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeFile(f"{path} is not a regular file")
    if info.st_size > max_bytes:
        raise UnsafeFile(f"{path} holds {info.st_size} bytes (at most {max_bytes} expected)")
    if sys.platform == "win32" or not hasattr(os, "geteuid"):
        return  # ownership and modes are what the folder's ACLs say there, not st_mode
    if info.st_uid != os.geteuid():
        raise UnsafeFile(f"{path} belongs to uid {info.st_uid}, not to this user (uid {os.geteuid()})")
    mode = stat.S_IMODE(info.st_mode)
    if others_can_write(info):
        raise UnsafeFile(f"{path} can be rewritten by other users (mode {mode:o})")
    if not others_may_read and mode & 0o077:
        raise UnsafeFile(f"{path} can be read by other users (mode {mode:o}); chmod 600 it")
