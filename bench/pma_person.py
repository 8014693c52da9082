"""The person at phpMyAdmin, played over the harness's own CDP connection to the tab.

Before the server attaches, the person logs in through the page (types the user and password into
the login form with ``Input.insertText`` and presses Log in) and opens the page the task starts on.
At the task's CLICK step the person does the task's action: fills the Insert form with an existing
code and presses Go (duplicate key), or the database stops and the person clicks on to another tab
of the table (database stopped). Each action waits until the page has handled the answer, so the
next call finds what the person saw.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import anyio.to_thread

from cdp_core.browser import connect_target
from cdp_core.connection import Connection

from .phpmyadmin import DB, DUP_CODE, TABLE, USER, PhpMyAdmin
from .tabs import page_targets, reset_tabs

__all__ = ["INSERT_QUERY", "BROWSE_QUERY", "open_logged_in", "insert_duplicate", "stop_db_then_browse"]

#: The Insert form of the table, and its Browse page (the tabs the tasks start on).
INSERT_QUERY = f"route=/table/change&db={DB}&table={TABLE}"
BROWSE_QUERY = f"route=/sql&db={DB}&table={TABLE}&pos=0"
#: The table tab the person clicks on while the database is down.
NEXT_TAB = "Structure"
#: Seconds a page may take to load or handle an answer (2 shared cores).
WAIT = 60.0


async def _eval(conn: Connection, expr: str, *, gesture: bool = False) -> Any:
    reply = await conn.send(
        "Runtime.evaluate",
        {"expression": expr, "awaitPromise": True, "returnByValue": True, "userGesture": gesture},
    )
    if "exceptionDetails" in reply:
        raise RuntimeError(f"{expr[:80]!r} threw: {reply['exceptionDetails'].get('text')}")
    return reply.get("result", {}).get("value")


async def _until(conn: Connection, expr: str, what: str) -> None:
    """Poll ``expr`` until true (a navigation in between only fails one poll)."""
    with anyio.move_on_after(WAIT):
        while True:
            try:
                if await _eval(conn, expr):
                    return
            except Exception:  # noqa: BLE001 - the context was replaced by a navigation: poll again
                pass
            await anyio.sleep(0.1)
    try:
        state = await _eval(conn, "location.href + ' ' + document.title")
    except Exception as exc:  # noqa: BLE001 - only for the message
        state = repr(exc)
    raise TimeoutError(f"{what} within {WAIT:.0f} s (the tab: {state})")


_LOADED = "document.readyState === 'complete' && !!window.jQuery"


async def _connect(cdp_url: str, needle: str) -> Connection:
    targets = await anyio.to_thread.run_sync(page_targets, cdp_url)
    target = next(t for t in targets if needle in t.get("url", ""))
    return await connect_target(target["webSocketDebuggerUrl"])


async def _type(conn: Connection, element: str, text: str) -> None:
    """Focus ``element`` (a JS expression) and type ``text`` into it as keyboard input."""
    await _eval(conn, f"({element}).focus(), ({element}).select && ({element}).select(), true", gesture=True)
    await conn.send("Input.insertText", {"text": text})


async def open_logged_in(cdp_url: str, pma: PhpMyAdmin, around: list[str], query: str) -> str:
    """Fresh tabs (``around`` on both sides of phpMyAdmin's), the person's login, then ``query``'s page.

    Returns the URL of the task's tab once that page has loaded. Cookies are cleared first, so every
    task starts at the login form.
    """
    pma.reset_table()
    urls = [around[0], pma.url(), *around[1:]]
    await anyio.to_thread.run_sync(reset_tabs, cdp_url, urls)
    conn = await _connect(cdp_url, pma.base_url)
    try:
        await conn.send("Network.clearBrowserCookies")
        await conn.send("Page.navigate", {"url": pma.url()})
        await _until(conn, _LOADED + " && !!document.getElementById('input_go')", "the login form did not load")
        await _type(conn, "document.getElementById('input_username')", USER)
        await _type(conn, "document.getElementById('input_password')", pma.password)
        await _eval(conn, "document.getElementById('input_go').click(), true", gesture=True)
        await _until(conn, _LOADED + " && !!document.getElementById('topmenu')", "the login did not succeed")
        url = pma.url(query)
        await _eval(conn, f"location.href = {json.dumps(url)}, true", gesture=True)
        ready = "#buttonYes" if query == INSERT_QUERY else "table.table_results"
        await _until(
            conn,
            f"{_LOADED} && location.href === {json.dumps(url)} && !!document.querySelector({json.dumps(ready)})",
            f"{url} did not load",
        )
        await anyio.sleep(1.0)  # its after-load AJAX (navigation tree, settings) answered
    finally:
        await conn.close()
    return url


async def insert_duplicate(cdp_url: str, tab_url: str, pma: PhpMyAdmin) -> None:
    """Type the existing code into the Insert form's ``codice``, press Go, wait for the error on the page."""
    conn = await _connect(cdp_url, tab_url)
    try:
        field = (
            "(() => { const h = document.querySelector('#insertForm input[type=hidden]"
            '[name^="fields_name[multi_edit][0]"][value="codice"]\');'
            " return document.querySelector('#insertForm [name=\"fields' + h.name.slice(11) + '\"]'); })()"
        )
        await _type(conn, field, DUP_CODE)
        await _eval(conn, "document.getElementById('buttonYes').click(), true", gesture=True)
        await _until(
            conn,
            "[...document.querySelectorAll('.alert-danger')]"
            ".some(e => e.offsetParent && e.textContent.includes('#1062'))",
            "no #1062 alert appeared after Go",
        )
    finally:
        await conn.close()


async def stop_db_then_browse(cdp_url: str, tab_url: str, pma: PhpMyAdmin) -> None:
    """The database stops; the person clicks the table's next tab; wait until the login page is shown."""
    await anyio.to_thread.run_sync(pma.stop_database)
    conn = await _connect(cdp_url, tab_url)
    try:
        await _eval(
            conn,
            f"[...document.querySelectorAll('#topmenu a')]"
            f".find(a => a.textContent.trim() === {NEXT_TAB!r}).click(), true",
            gesture=True,
        )
        await _until(conn, _LOADED + " && !!document.getElementById('input_username')", "the login page did not come")
    finally:
        await conn.close()
