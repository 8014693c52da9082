"""Whose process listens on a loopback port: a port file names a port, not who is behind it.

Why: a ``DevToolsActivePort`` left behind when Chrome exits still names its port, and any local
account may listen there next; a fake CDP server then passes for "the user's Chrome" (third
attack review: its injected tab title was listed as the user's tab). On Linux the kernel says
which uid owns each listening socket (``/proc/net/tcp`` and ``tcp6``), so a listener that is
not this user's is passed over. Elsewhere no such check is made here, and the answer says so.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ListenerCheck", "check_listener"]

_TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
#: the state column's value for a listening socket
_LISTEN = "0A"
#: loopback local addresses as the tables print them (127.0.0.1, ::1, ::ffff:127.0.0.1)
_LOOPBACK = ("0100007F", "00000000000000000000000001000000", "0000000000000000FFFF00000100007F")
#: the tables grow with the machine's sockets; a bounded read keeps a huge one from stalling the call
_MAX_TABLE_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ListenerCheck:
    """What is known of the listener on a port: its owner's uid (None: not known) and how it was read."""

    uid: int | None
    how: str

    @property
    def someone_elses(self) -> bool:
        return self.uid is not None and hasattr(os, "geteuid") and self.uid != os.geteuid()


def check_listener(port: int) -> ListenerCheck:
    """The owner of the socket listening on 127.0.0.1/::1 ``port``, from the kernel's tables (Linux)."""
    if not sys.platform.startswith("linux"):
        return ListenerCheck(None, "not checked (no socket table on this system)")
    want = f"{port:04X}"
    for table in _TABLES:
        try:
            with table.open("rb") as handle:
                text = handle.read(_MAX_TABLE_BYTES).decode("ascii", "replace")
        except OSError:
            continue
        for row in text.splitlines()[1:]:
            cols = row.split()
            if len(cols) < 8 or cols[3] != _LISTEN or ":" not in cols[1]:
                continue
            address, _, hex_port = cols[1].partition(":")
            if hex_port == want and address in _LOOPBACK and cols[7].isdigit():
                return ListenerCheck(int(cols[7]), "socket owner")
    return ListenerCheck(None, "not checked (the port is in no socket table)")
