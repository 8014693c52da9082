"""MCP logging: the server's own warnings as ``notifications/message`` to the client.

Why: a client that shows the server's log (or an agent that reads it) learns of what the
answers cannot say, such as a body fetch that failed in the background or a session that
could not be attached. Records of the server's loggers (``mcp_server``, ``cdp_core``,
``targets``) at or above the level the client chose with ``logging/setLevel`` (``warning``
until it chooses) go to the client; stderr keeps getting them too.

A record emitted while a call runs goes on that call's session (on 2026-07-28+ connections
that is the only place it may go, and only if the request opted in through its ``_meta``); one
emitted outside a call goes on the session that last set the level (handshake-era clients).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import warnings
from typing import Any

__all__ = ["ClientLog", "LEVELS", "CALL_SESSION", "client_log"]

#: MCP's levels (RFC 5424 names), lowest first.
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_FROM_PYTHON = {logging.DEBUG: "debug", logging.INFO: "info", logging.WARNING: "warning", logging.ERROR: "error"}
#: The loggers whose records are the server's own (not the SDK's: sending a message logs itself).
SOURCES = ("mcp_server", "cdp_core", "targets")

#: The session of the tool call running in this context (set by the server around each call).
CALL_SESSION: contextvars.ContextVar[Any] = contextvars.ContextVar("mcp_call_session", default=None)


def _mcp_level(levelno: int) -> str:
    if levelno >= logging.CRITICAL:
        return "critical"
    for threshold in (logging.ERROR, logging.WARNING, logging.INFO):
        if levelno >= threshold:
            return _FROM_PYTHON[threshold]
    return "debug"


class ClientLog(logging.Handler):
    """Forwards the server's log records to the MCP client (never raises, never blocks)."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.min_level = "warning"
        self.session: Any = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def set_level(self, level: str, session: Any) -> None:
        """``logging/setLevel``: the threshold, and the session for records outside a call."""
        self.min_level = level if level in LEVELS else "warning"
        self.session = session
        try:
            self.loop = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None
        wanted = logging.DEBUG if LEVELS.index(self.min_level) <= 1 else logging.WARNING
        for name in SOURCES:
            logger = logging.getLogger(name)
            if logger.getEffectiveLevel() > wanted:
                logger.setLevel(wanted)

    def install(self) -> ClientLog:
        for name in SOURCES:
            logger = logging.getLogger(name)
            if self not in logger.handlers:
                logger.addHandler(self)
        return self

    def remove(self) -> None:
        for name in SOURCES:
            logging.getLogger(name).removeHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        level = _mcp_level(record.levelno)
        if LEVELS.index(level) < LEVELS.index(self.min_level):
            return
        session = CALL_SESSION.get() or self.session
        if session is None:
            return
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string must not break logging
            message = str(record.msg)
        data = {"message": message}
        if record.exc_info and record.exc_info[1] is not None:
            data["error"] = f"{type(record.exc_info[1]).__name__}: {record.exc_info[1]}"
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            self._spawn(loop, session, level, data, record.name)
        elif self.loop is not None and not self.loop.is_closed():
            # A worker thread (trace summary): hand the message to the server's loop.
            self.loop.call_soon_threadsafe(self._spawn, self.loop, session, level, data, record.name)

    def _spawn(self, loop: asyncio.AbstractEventLoop, session: Any, level: str, data: Any, logger: str) -> None:
        task = loop.create_task(self._send(session, level, data, logger))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _send(session: Any, level: str, data: Any, logger: str) -> None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the SDK marks logging deprecated (SEP-2577); clients still use it
                await session.send_log_message(level, data, logger=logger)
        except Exception:  # noqa: BLE001 - a closed session or transport: the record is on stderr anyway
            pass


_HANDLER: ClientLog | None = None


def client_log() -> ClientLog:
    """The one handler of the process (every server of an HTTP process shares the loggers)."""
    global _HANDLER
    if _HANDLER is None:
        _HANDLER = ClientLog().install()
    return _HANDLER
