"""Watch this process's sockets: every non-loopback connect and every name lookup, refused and recorded.

Shared by the loopback tests: a refused attach must not have tried the network at all, and the
positive controls show the watch does see an attempt.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

import pytest


def _is_ip(host: Any) -> bool:
    try:
        ipaddress.ip_address(str(host.decode() if isinstance(host, bytes) else host).strip("[]").split("%")[0])
    except ValueError:
        return False
    return True


def _loopback(host: Any) -> bool:
    try:
        return ipaddress.ip_address(str(host).strip("[]").split("%")[0]).is_loopback
    except ValueError:
        return str(host) in ("localhost",)


class NetWatch:
    """Records (and fails at once) every non-loopback connect or name lookup of this process.

    ``lookups`` also lists every name looked up at all (``localhost`` included): a loopback
    check that resolves names is what the watch is for.
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.attempts: list[tuple[str, Any]] = []
        self.lookups: list[str] = []
        real_connect, real_connect_ex, real_getaddrinfo = (
            socket.socket.connect,
            socket.socket.connect_ex,
            socket.getaddrinfo,
        )

        def connect(sock: socket.socket, address: Any) -> Any:
            if sock.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
                self.attempts.append(("connect", address))
                raise OSError(101, "network unreachable (test watch)")
            return real_connect(sock, address)

        def connect_ex(sock: socket.socket, address: Any) -> int:
            if sock.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
                self.attempts.append(("connect", address))
                return 101
            return real_connect_ex(sock, address)

        def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
            if host is not None and not _is_ip(host):
                self.lookups.append(str(host))
            if host is not None and not _loopback(host):
                self.attempts.append(("resolve", host))
                raise socket.gaierror(socket.EAI_NONAME, "lookup refused (test watch)")
            return real_getaddrinfo(host, *args, **kwargs)

        monkeypatch.setattr(socket.socket, "connect", connect)
        monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
