"""Waking input routing in a tab whose page loaded while hidden, without bringing it to front.

In a headful Chromium under Xvfb: a page that loaded in a background tab (opened
with Ctrl+click or ``background: true``, or a page loaded after a submit in a hidden tab) has
never produced a compositor frame, and ``Input.dispatchMouseEvent`` / ``dispatchKeyEvent`` are
acknowledged but reach nothing: no ``mousedown``, no ``click``, no ``keydown``, and the lost
events are not delivered later either. Headless Chromium does not show it. Tried on such a page
(a click then read back): ``Page.setWebLifecycleState active``, ``Emulation.setAutoDarkModeOverride``,
a device-metrics override and clear, waiting for ``requestAnimationFrame``: still lost. A
``Page.captureScreenshot`` first: delivered, but it was slow and the next capture hung.
``Emulation.setFocusEmulationEnabled`` on then off: delivered, and it stays so for that document
after the emulation is off again, but only when Chrome drew a frame in between (on and off at
once lost an occasional click; on, two animation frames, off lost none). The page is
hidden again afterwards (it sees ``visibilitychange`` to visible and back once). So :func:`wake`
does that once per document, only when the document is hidden; the tab the user looks at does
not change.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import AsyncIterator
from typing import Any

from cdp_core import CDPException

__all__ = ["wake", "forget", "focus_emulated"]

_STATE_JS = "[document.visibilityState, performance.timeOrigin]"
#: two animation frames while the tab is drawn as if shown (bounded: a page may block its frames)
_TWO_FRAMES_JS = (
    "new Promise(r => { requestAnimationFrame(() => requestAnimationFrame(() => r(true)));"
    " setTimeout(() => r(false), 1000); })"
)
#: session -> documents (their ``performance.timeOrigin``) already woken
_woken: weakref.WeakKeyDictionary[Any, set[float]] = weakref.WeakKeyDictionary()


async def wake(session: Any, context_id: int | None = None) -> bool:
    """Make sure input sent to ``session`` reaches its document; returns whether it had to wake it.

    One ``Runtime.evaluate`` when the document is visible or was woken already; focus emulation
    on for two animation frames, then off, the first time a hidden document gets input.
    ``context_id`` (an isolated world of ours) keeps the page's own globals (a replaced
    ``requestAnimationFrame``) out of it.
    """
    where = {"contextId": context_id} if context_id is not None else {}
    try:
        reply = await session.send(
            "Runtime.evaluate", {"expression": _STATE_JS, "returnByValue": True, **where}, timeout=10
        )
        state, origin = reply["result"]["value"]
    except (CDPException, KeyError, TypeError, ValueError):
        return False  # no answer from the page: the input and its delivery check say what happens
    if state != "hidden":
        return False
    seen = _woken.setdefault(session, set())
    if origin in seen:
        return False
    with contextlib.suppress(CDPException):  # the delivery check says whether the input arrived
        async with focus_emulated(session):
            await session.send(
                "Runtime.evaluate",
                {"expression": _TWO_FRAMES_JS, "awaitPromise": True, "returnByValue": True, **where},
                timeout=5,
            )
    seen.add(origin)
    return True


@contextlib.asynccontextmanager
async def focus_emulated(session: Any) -> AsyncIterator[None]:
    """Focus emulation on while the block runs (Chrome draws a hidden tab as if shown), then off whatever happened."""
    try:
        await session.send("Emulation.setFocusEmulationEnabled", {"enabled": True}, timeout=10)
        yield
    finally:
        with contextlib.suppress(CDPException):
            await session.send("Emulation.setFocusEmulationEnabled", {"enabled": False}, timeout=10)


def forget(session: Any) -> None:
    """Wake the session's documents again before their next input (input was lost after a wake)."""
    _woken.pop(session, None)
