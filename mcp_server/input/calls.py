"""Awaiting an input coroutine of this room with CDP failures turned into the codes an agent acts on.

A tab closed under the click, a renderer that stopped answering or a refused CDP command each
get their own ``ToolFailure`` code, whichever feature sent the input.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from cdp_core.errors import CDPError, CDPTimeout
from targets.errors import ErrorCode, ToolFailure

__all__ = ["input_call"]

T = TypeVar("T")


async def input_call(call: Awaitable[T], *, what: str) -> T:
    """Await an input coroutine of :mod:`mcp_server.input`, mapping CDP failures to stable codes."""
    from cdp_core.errors import ConnectionClosed, SessionClosed

    try:
        return await call
    except (SessionClosed, ConnectionClosed) as exc:
        raise ToolFailure(
            ErrorCode.PAGE_CLOSED, f"{what}: the page or frame went away ({exc})", hint="call list_pages"
        ) from None
    except CDPTimeout as exc:
        raise ToolFailure(
            ErrorCode.TIMEOUT, f"{what}: the page did not answer ({exc})", hint="take a snapshot; retry"
        ) from None
    except CDPError as exc:
        raise ToolFailure(ErrorCode.ELEMENT_NOT_INTERACTABLE, f"{what}: {exc.message}") from None
