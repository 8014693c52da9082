"""The person's hands on a real app's tab, over the harness's own CDP connection (not the server's).

Why raw CDP: the person's typing must be keyboard input the page sees (``Input.insertText`` into
a focused field), before and beside the agent's server, without any of the server's own code. The
app scripts (``pma_person``, tests/realapps) build on these.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import anyio.to_thread

from cdp_core.browser import connect_target
from cdp_core.connection import Connection

from .tabs import page_targets

__all__ = ["WAIT", "eval_js", "until", "go_to", "connect_tab", "type_into", "press_end"]

#: Seconds a page may take to load or handle an answer (2 shared cores).
WAIT = 60.0


async def eval_js(conn: Connection, expr: str, *, gesture: bool = False) -> Any:
    """``expr``'s value (promises awaited); a thrown exception raises."""
    reply = await conn.send(
        "Runtime.evaluate",
        {"expression": expr, "awaitPromise": True, "returnByValue": True, "userGesture": gesture},
    )
    if "exceptionDetails" in reply:
        raise RuntimeError(f"{expr[:80]!r} threw: {reply['exceptionDetails'].get('text')}")
    return reply.get("result", {}).get("value")


async def until(conn: Connection, expr: str, what: str) -> None:
    """Poll ``expr`` until true (a navigation in between only fails one poll)."""
    with anyio.move_on_after(WAIT):
        while True:
            try:
                if await eval_js(conn, expr):
                    return
            except Exception:  # noqa: BLE001 - the context was replaced by a navigation: poll again
                pass
            await anyio.sleep(0.1)
    try:
        state = await eval_js(conn, "location.href + ' ' + document.title")
    except Exception as exc:  # noqa: BLE001 - only for the message
        state = repr(exc)
    raise TimeoutError(f"{what} within {WAIT:.0f} s (the tab: {state})")


async def go_to(conn: Connection, url: str, ready: str) -> None:
    """Go to ``url`` as a click on a link does; wait for the new document, loaded, with ``ready`` true.

    Why a mark on the page it leaves: that page may be the same URL with the same form (Adminer's
    SQL box after a query), and a wait on it alone was met before the navigation began.
    """
    await eval_js(conn, f"window.__leaving = true, location.href = {json.dumps(url)}, true", gesture=True)
    await until(
        conn,
        f"!window.__leaving && document.readyState === 'complete' && location.href === {json.dumps(url)} && ({ready})",
        f"{url} did not load",
    )


async def connect_tab(cdp_url: str, needle: str) -> Connection:
    """A connection of our own to the first tab whose URL holds ``needle``."""
    targets = await anyio.to_thread.run_sync(page_targets, cdp_url)
    target = next(t for t in targets if needle in t.get("url", ""))
    return await connect_target(target["webSocketDebuggerUrl"])


async def type_into(conn: Connection, element: str, text: str) -> None:
    """Focus ``element`` (a JS expression) and type ``text`` into it as keyboard input."""
    await eval_js(conn, f"({element}).focus(), ({element}).select && ({element}).select(), true", gesture=True)
    await conn.send("Input.insertText", {"text": text})


async def press_end(conn: Connection) -> None:
    """Press and release End: editors that sync on key events (Adminer's highlighted SQL box
    copies its text into the form's textarea on keyup) see the typed text as a person's."""
    for kind in ("keyDown", "keyUp"):
        key = {"type": kind, "key": "End", "code": "End", "windowsVirtualKeyCode": 35}
        await conn.send("Input.dispatchKeyEvent", key)
