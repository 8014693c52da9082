"""The small error hierarchy of :mod:`cdp_core`.

Every error raised by the client derives from :class:`CDPException`, so callers can
catch one type at the boundary and still tell the cases apart:

- :class:`DiscoveryError`: the HTTP endpoint did not answer, or answered nonsense.
- :class:`CDPError`: the browser answered a command with a protocol error.
- :class:`ConnectionClosed`: the websocket (or the flattened session) is gone; every
  command still waiting fails with it at once instead of hanging.
- :class:`CDPTimeout`: no reply in time; the pending entry is removed.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CDPException",
    "DiscoveryError",
    "CDPError",
    "ConnectionClosed",
    "SessionClosed",
    "CDPTimeout",
    "HandshakeRejected",
]


class CDPException(Exception):
    """Base class of every error raised by cdp_core."""


class DiscoveryError(CDPException):
    """The debugging endpoint could not be reached or gave an unusable answer."""

    def __init__(self, message: str, *, endpoint: str | None = None) -> None:
        super().__init__(message)
        self.endpoint = endpoint


class CDPError(CDPException):
    """A command was answered with a protocol error (``{"error": {...}}``)."""

    def __init__(self, method: str, code: int, message: str, data: Any = None) -> None:
        detail = f"{method}: {message} (code {code})"
        if data:
            detail += f": {data}"
        super().__init__(detail)
        self.method = method
        self.code = code
        self.message = message
        self.data = data


class ConnectionClosed(CDPException):
    """The websocket closed; pending commands and event streams fail with this."""

    def __init__(self, reason: str = "connection closed", *, code: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


class SessionClosed(ConnectionClosed):
    """A flattened session was detached (the tab closed, or it was detached on purpose)."""


class CDPTimeout(CDPException, TimeoutError):
    """A command got no reply within its timeout."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(f"{method}: no reply within {timeout:g} s")
        self.method = method
        self.timeout = timeout


class HandshakeRejected(ConnectionClosed):
    """The browser answered the websocket handshake with an HTTP error instead of opening it.

    Chrome's remote-debugging toggle asks the person ("Allow remote debugging?") for every new
    connection; Cancel answers ``403`` "Connection rejected". ``status`` is the HTTP status.
    """

    def __init__(self, reason: str, *, status: int) -> None:
        super().__init__(reason)
        self.status = status
