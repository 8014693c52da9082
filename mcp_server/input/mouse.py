"""Mouse events through ``Input.dispatchMouseEvent`` on the session that runs the element.

In a hidden tab ``mousePressed``/``mouseReleased`` are answered at once; a single
``mouseMoved`` is never answered, because Chrome holds pointer moves for the next animation
frame and a hidden tab has none. Two moves to the same point sent back to back are delivered
together (one ``mousemove``, hover applied) and both answered, so :func:`move` sends a pair;
in a visible tab the pair costs one frame. In an out-of-process iframe of a hidden tab even
the pair stays held: a press delivers held moves (so a click needs nothing more), and for a
hover :func:`move` turns on focus emulation for the moment it takes Chrome to draw one frame
(the page sees its ``visibilityState`` go to visible and back), then turns it off again.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from cdp_core import CDPException, CDPSession, SessionClosed
from mcp_server.input.actionability import Point
from mcp_server.input.wake import focus_emulated

__all__ = ["Button", "move", "press", "release", "click_at", "BUTTON_BITS"]

Button = Literal["left", "right", "middle"]
BUTTON_BITS = {"left": 1, "right": 2, "middle": 4}
#: How long a move pair may stay unanswered before we stop waiting for it.
MOVE_WAIT = 0.1
#: How long a held move may take to be delivered with focus emulation on.
FLUSH_WAIT = 1.0


async def move(session: CDPSession, point: Point, *, buttons: int = 0, deliver: bool = True) -> bool:
    """Move the pointer to ``point``; with ``deliver`` make sure the page got it (hover, drag).

    Returns whether Chrome confirmed the move. Without ``deliver`` a held move is left to the
    next press, which delivers it first (a click). See the module doc for the measurements.
    """
    params: dict[str, Any] = {"type": "mouseMoved", "x": point.x, "y": point.y, "buttons": buttons}
    if buttons:
        params["button"] = "left" if buttons & 1 else ("right" if buttons & 2 else "middle")
    sends = [asyncio.ensure_future(session.send("Input.dispatchMouseEvent", params, timeout=30)) for _ in range(2)]
    for task in sends:  # a held move must never end as an unretrieved error
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
    done, pending = await asyncio.wait(sends, timeout=MOVE_WAIT)
    if pending and deliver:
        async with focus_emulated(session):
            done, pending = await asyncio.wait(sends, timeout=FLUSH_WAIT)
    for task in done:
        exc = task.exception()
        if exc is not None and not isinstance(exc, CDPException):
            raise exc
    return not pending


async def press(session: CDPSession, point: Point, *, button: Button = "left", click_count: int = 1) -> None:
    await _button_event(session, "mousePressed", point, button, BUTTON_BITS[button], click_count)


async def release(session: CDPSession, point: Point, *, button: Button = "left", click_count: int = 1) -> None:
    await _button_event(session, "mouseReleased", point, button, 0, click_count)


async def _button_event(
    session: CDPSession, kind: str, point: Point, button: Button, buttons: int, click_count: int
) -> None:
    params = {"type": kind, "x": point.x, "y": point.y, "button": button, "buttons": buttons, "clickCount": click_count}
    await session.send("Input.dispatchMouseEvent", params, timeout=30)


async def click_at(session: CDPSession, point: Point, *, button: Button = "left", click_count: int = 1) -> bool:
    """Move there, then press and release ``click_count`` times (2 = double click).

    Returns True when the page went away during the release (its click handler closed it)."""
    await move(session, point, deliver=False)
    for count in range(1, click_count + 1):
        await press(session, point, button=button, click_count=count)
        try:
            await release(session, point, button=button, click_count=count)
        except SessionClosed:
            # The page went away while handling the release: its click handler closed the window
            # (a lookup popup's pick). The click happened; the follow-up says the page closed.
            return True
    return False
