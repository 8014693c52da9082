"""The base of the generated domain classes of :mod:`cdp_core.protocol`.

A domain object is a thin, typed face of one :class:`~cdp_core.CDPSession`: each generated
method sends its command through :meth:`CDPSession.send` and returns the same dict, with a
TypedDict type. Nothing is converted or copied, so the typed path costs what the raw one does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from .connection import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from .connection import CDPSession

__all__ = ["DomainClient"]


class DomainClient:
    """Commands of one protocol domain, sent through one session."""

    __slots__ = ("_session", "_timeout")

    def __init__(self, session: CDPSession, timeout: float | None = DEFAULT_TIMEOUT) -> None:
        self._session = session
        self._timeout = timeout

    @property
    def session(self) -> CDPSession:
        """The session the commands go to."""
        return self._session

    async def _send(self, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        # ``params`` is the fresh dict built from the method's keyword arguments.
        return await self._session.send(method, cast("dict[str, Any] | None", params), timeout=self._timeout)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._session!r}>"
