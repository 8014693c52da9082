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

import anyio
import anyio.to_thread

from cdp_core.connection import Connection

from .cdp_person import connect_tab, eval_js, go_to, type_into, until
from .phpmyadmin import DB, DUP_CODE, TABLE, USER, PhpMyAdmin
from .tabs import reset_tabs

__all__ = [
    "INSERT_QUERY",
    "BROWSE_QUERY",
    "log_in",
    "insert_code",
    "open_logged_in",
    "insert_duplicate",
    "stop_db_then_browse",
]

#: The Insert form of the table, and its Browse page (the tabs the tasks start on).
INSERT_QUERY = f"route=/table/change&db={DB}&table={TABLE}"
BROWSE_QUERY = f"route=/sql&db={DB}&table={TABLE}&pos=0"
#: The table tab the person clicks on while the database is down.
NEXT_TAB = "Structure"
_LOADED = "document.readyState === 'complete' && !!window.jQuery"


async def log_in(conn: Connection, pma: PhpMyAdmin) -> None:
    """No cookies, the login form, the person's typed user and password, Log in: the home page."""
    await conn.send("Network.clearBrowserCookies")
    await conn.send("Page.navigate", {"url": pma.url()})
    await until(conn, _LOADED + " && !!document.getElementById('input_go')", "the login form did not load")
    await type_into(conn, "document.getElementById('input_username')", USER)
    await type_into(conn, "document.getElementById('input_password')", pma.password)
    await eval_js(conn, "document.getElementById('input_go').click(), true", gesture=True)
    await until(conn, _LOADED + " && !!document.getElementById('topmenu')", "the login did not succeed")


async def insert_code(conn: Connection, code: str, alert: str, text: str) -> None:
    """Type ``code`` into the Insert form's ``codice``, press Go, wait for an ``alert`` holding ``text``."""
    field = (
        "(() => { const h = document.querySelector('#insertForm input[type=hidden]"
        '[name^="fields_name[multi_edit][0]"][value="codice"]\');'
        " return document.querySelector('#insertForm [name=\"fields' + h.name.slice(11) + '\"]'); })()"
    )
    await type_into(conn, field, code)
    await eval_js(conn, "document.getElementById('buttonYes').click(), true", gesture=True)
    await until(
        conn,
        f"[...document.querySelectorAll({json.dumps(alert)})]"
        f".some(e => e.offsetParent && e.textContent.includes({json.dumps(text)}))",
        f"no {alert} with {text!r} appeared after Go",
    )


async def open_logged_in(cdp_url: str, pma: PhpMyAdmin, around: list[str], query: str) -> str:
    """Fresh tabs (``around`` on both sides of phpMyAdmin's), the person's login, then ``query``'s page.

    Returns the URL of the task's tab once that page has loaded. Cookies are cleared first, so every
    task starts at the login form.
    """
    pma.reset_table()
    urls = [around[0], pma.url(), *around[1:]]
    await anyio.to_thread.run_sync(reset_tabs, cdp_url, urls)
    conn = await connect_tab(cdp_url, pma.base_url)
    try:
        await log_in(conn, pma)
        url = pma.url(query)
        ready = "#buttonYes" if query == INSERT_QUERY else "table.table_results"
        await go_to(conn, url, f"{_LOADED} && !!document.querySelector({json.dumps(ready)})")
        await anyio.sleep(1.0)  # its after-load AJAX (navigation tree, settings) answered
    finally:
        await conn.close()
    return url


async def insert_duplicate(cdp_url: str, tab_url: str, pma: PhpMyAdmin) -> None:
    """Type the existing code into the Insert form's ``codice``, press Go, wait for the error on the page."""
    conn = await connect_tab(cdp_url, tab_url)
    try:
        await insert_code(conn, DUP_CODE, ".alert-danger", "#1062")
    finally:
        await conn.close()


async def stop_db_then_browse(cdp_url: str, tab_url: str, pma: PhpMyAdmin) -> None:
    """The database stops; the person clicks the table's next tab; wait until the login page is shown."""
    await anyio.to_thread.run_sync(pma.stop_database)
    conn = await connect_tab(cdp_url, tab_url)
    try:
        await eval_js(
            conn,
            f"[...document.querySelectorAll('#topmenu a')]"
            f".find(a => a.textContent.trim() === {NEXT_TAB!r}).click(), true",
            gesture=True,
        )
        await until(conn, _LOADED + " && !!document.getElementById('input_username')", "the login page did not come")
    finally:
        await conn.close()
