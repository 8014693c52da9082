"""Which MCP session a call comes from, and cleaning up after a session that ends.

Each stateful streamable-HTTP session (2025-11-25) is its own caller (:mod:`targets.callers`),
named by its session id; a stdio server's one session is the default caller. The 2026-07-28
revision has no sessions: every request stands alone, and nothing in it tells two clients apart.
There, state that spans calls travels in a tool argument, as that revision prescribes: a call
that gives ``session="<name>"`` (the condensed tools list it) acts in that name's own view, in
either era; without it a 2026 call acts in the default view. When a session's connection closes (the client's
DELETE, the transport's idle timeout), the SDK unwinds the connection's exit stack: the cleanup
registered there hands the session to ``leave``, run as a task of its own because the SDK bounds
the unwind to a few seconds and a leave may wait for a call in progress.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from targets.callers import DEFAULT_CALLER

__all__ = ["SESSION_ARG", "SESSION_PROPERTY", "caller_of", "named_caller", "on_session_end"]

#: the argument that names a caller's own view (2026-era clients, or any client that wants one)
SESSION_ARG = "session"
SESSION_PROPERTY = {
    "type": "string",
    "maxLength": 64,
    "description": "Your own tab/frame/marks when agents share this server: one name, same on every call",
}
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}")

log = logging.getLogger(__name__)

#: a key in the SDK's per-connection ``state``: the cleanup is registered once per connection
_REGISTERED = "mcp_browser_leave_registered"
#: cleanups in progress (a task nobody holds may be collected before it ends)
_leaving: set[asyncio.Task[None]] = set()


def _connection_of(ctx: Any) -> Any:
    session = getattr(ctx, "session", None)
    return getattr(session, "_connection", None) or getattr(ctx, "connection", None)


def caller_of(ctx: Any) -> str:
    """The caller key of the request ``ctx``: its HTTP session id, else the default caller."""
    session_id = getattr(_connection_of(ctx), "session_id", None)
    return session_id if isinstance(session_id, str) and session_id else DEFAULT_CALLER


def named_caller(arguments: dict[str, Any]) -> str | None:
    """The caller a call names with ``session=`` (taken out of ``arguments``), None when it names none.

    Raises ValueError for a value that is no name (the call then fails plainly, changing nothing).
    """
    if SESSION_ARG not in arguments:
        return None
    name = arguments.pop(SESSION_ARG)
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(
            f"session must be a name of 1-64 letters, digits, '_', '.', ':' or '-', not {str(name)[:80]!r}"
        )
    return f"name:{name}"


def on_session_end(ctx: Any, leave: Callable[[str], Awaitable[None]]) -> None:
    """Call ``leave(caller)`` once the session of ``ctx`` ends (nothing for the default caller)."""
    caller = caller_of(ctx)
    connection = _connection_of(ctx)
    state = getattr(connection, "state", None)
    stack = getattr(connection, "exit_stack", None)
    if caller == DEFAULT_CALLER or not isinstance(state, dict) or stack is None or state.get(_REGISTERED):
        return
    state[_REGISTERED] = True

    async def ended() -> None:
        task = asyncio.get_running_loop().create_task(_leave_quietly(leave, caller), name=f"session {caller} left")
        _leaving.add(task)
        task.add_done_callback(_leaving.discard)

    stack.push_async_callback(ended)


async def _leave_quietly(leave: Callable[[str], Awaitable[None]], caller: str) -> None:
    try:
        await leave(caller)
    except Exception:  # noqa: BLE001 - a cleanup must never take the server down
        log.exception("cleaning up after MCP session %s failed", caller)
