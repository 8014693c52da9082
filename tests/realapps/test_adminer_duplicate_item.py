"""A real Adminer, the person's failed Save, and the agent's first bundle (issue 47).

Adminer (Debian's single ``adminer.php``, ``php -S`` on loopback, MariaDB on its own datadir:
``bench/adminer.py``) answers a failed insert with the whole page again: a full-page POST, a
``200 text/html`` document, holding ``<div class='error'>Duplicate entry … for key …</div>`` above
the form it shows again. No XHR, no JSON: the other way round from phpMyAdmin. The person logs in
by typing (the password wrong first), runs a mistyped query and the right one, opens the table's
"New item" form; the agent attaches, the person opens a tab in front
(the agent's tab is in the background) and saves a row whose SKU exists. The agent's first
``debug_bundle`` must quote MariaDB's error under both renderings, the detector must call no
answer of the whole session an error but the three the person saw, and the password, the session cookies' values and
the form's CSRF token must be in no answer and no file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
from background_tabs import open_in_front, visibility
from realapp_session import WholeSession, agent, bench, running_site

from cdp_core import ChromiumProcess

pytestmark = pytest.mark.slow

adminer = bench("adminer")
person = bench("cdp_person")
tabs = bench("tabs")

DUPLICATE = f"Duplicate entry '{adminer.DUP_SKU}' for key '{adminer.UNIQUE_KEY}'"
_SKU = 'input[name="fields[sku]"]'


@pytest.fixture(scope="module")
def site() -> Iterator[Any]:
    yield from running_site("Adminer", adminer, "Adminer")


_USERNAME = "document.querySelector('input[name=\"auth[username]\"]')"
_PASSWORD = "document.querySelector('input[name=\"auth[password]\"]')"
_LOGIN = "document.querySelector('input[type=submit]').click(), true"


async def _log_in_and_open_the_form(conn: Any, site: Any, session: WholeSession) -> str:
    """The person's login (typed, the password wrong first), a query with a typo and the right one,
    the table's rows, then its New item form; the form's URL."""
    await conn.send("Network.clearBrowserCookies")
    await conn.send("Page.navigate", {"url": site.url()})
    await person.until(conn, f"document.readyState === 'complete' && !!{_USERNAME}", "no login form")
    await person.type_into(conn, _USERNAME, adminer.USER)
    await person.type_into(conn, _PASSWORD, site.password[::-1])
    await person.eval_js(conn, _LOGIN, gesture=True)
    await person.until(conn, f"!!document.querySelector('.error') && !!{_PASSWORD}", "no login error")
    await session.quiet()  # each step's answers read before the person moves on
    await person.type_into(conn, _PASSWORD, site.password)
    await person.eval_js(conn, _LOGIN, gesture=True)
    await person.until(conn, "!!document.querySelector('#logout')", "the login did not succeed")
    user = f"username={adminer.USER}&db={adminer.DB}"
    await session.quiet()
    await _run_sql(conn, site.url(f"{user}&sql="), session)
    for query, ready in ((f"{user}&select={adminer.TABLE}", "table.checkable"), (f"{user}&edit={adminer.TABLE}", _SKU)):
        url = site.url(query)
        await person.go_to(conn, url, f"!!document.querySelector({json.dumps(ready)})")
        await session.quiet()
    return str(url)


#: A query with a typo in the table's name, then the right one
_MISTYPED = f"SELECT sku, giacenza FROM {adminer.TABLE[:-1]}o"
_RIGHT = f"SELECT sku, giacenza FROM {adminer.TABLE}"
MISSING_TABLE = f"Error in query (1146): Table '{adminer.DB}.{adminer.TABLE[:-1]}o' doesn't exist"


async def _run_sql(conn: Any, url: str, session: WholeSession) -> None:
    """The SQL command page: a query with a typo (Adminer's error block), then the right one (its rows)."""
    for query, shown in ((_MISTYPED, ".error"), (_RIGHT, "table.nowrap")):
        await person.go_to(conn, url, "!!document.querySelector('textarea[name=query]')")
        # Adminer's highlighting puts an editable <pre> over the textarea (hidden): the person types there
        box = "[...document.querySelectorAll('pre.jush, textarea[name=query]')].find(e => e.offsetParent)"
        await person.type_into(conn, box, query)
        await person.press_end(conn)
        await person.eval_js(
            conn, "document.querySelector('input[type=submit][value=Execute]').click(), true", gesture=True
        )
        await person.until(
            conn,
            f"document.readyState === 'complete' && !!document.querySelector({json.dumps(shown)})",
            f"{query!r} showed no {shown}",
        )
        await session.quiet()


async def _save_the_duplicate(conn: Any) -> None:
    """Type an existing SKU and a description, press Save, wait for the page that says why not."""
    await person.type_into(conn, f"document.querySelector({json.dumps(_SKU)})", adminer.DUP_SKU)
    await person.type_into(conn, "document.querySelector('[name=\"fields[descrizione]\"]')", "Bulloni M8 (bis)")
    await person.eval_js(conn, "document.querySelector('input[type=submit][value=Save]').click(), true", gesture=True)
    await person.until(
        conn,
        f"[...document.querySelectorAll('.error')].some(e => e.textContent.includes({json.dumps(DUPLICATE)}))",
        "no duplicate-entry error after Save",
    )


async def test_the_duplicate_entry_of_a_full_page_post_is_in_the_first_bundle(
    site: Any, persons_chrome: ChromiumProcess, tmp_path: Path
) -> None:
    cdp_url = persons_chrome.http_url
    notes = "data:text/html,<title>Ordini</title><p>ordini"
    site.reset_table()
    with anyio.fail_after(300):
        await anyio.to_thread.run_sync(tabs.reset_tabs, cdp_url, [notes, site.url(), notes + "2"])
        conn = await person.connect_tab(cdp_url, site.base_url)
        try:
            session = await WholeSession(conn).start()
            await conn.send("Page.bringToFront")  # the person works in this tab (key presses reach it)
            form_url = await _log_in_and_open_the_form(conn, site, session)
            token = await person.eval_js(conn, "document.querySelector('input[name=token]').value")
            agents_tab = next(t["id"] for t in tabs.page_targets(cdp_url) if t["url"] == form_url)
            async with agent(tmp_path) as bot:
                await bot.session("attach_cdp", cdp_url=cdp_url, url_contains=f"edit={adminer.TABLE}")
                front = await open_in_front(cdp_url)
                await _save_the_duplicate(conn)
                data, text = await bot.session("debug_bundle")
            cookies = (await conn.send("Network.getAllCookies"))["cookies"]
            flagged = await session.flagged()
        finally:
            await conn.close()

    # the error the person saw, said of the request that brought it, under both renderings
    assert f"app error: {DUPLICATE}" in text and "1 app error(s)" in text, text
    assert data["network"]["appErrorCount"] == 1, data["network"]
    assert DUPLICATE in json.dumps(data["network"]["appErrors"], ensure_ascii=False)
    assert await visibility(cdp_url, front) == "visible"
    assert await visibility(cdp_url, agents_tab) == "hidden"
    # the whole session (the failed login, the login, the two queries, the rows, the form, the Save):
    # the three errors only
    said = [(method, error) for method, _url, error in flagged]
    # (the failed login's POST is redirected: the page that says so is a GET answered 403)
    denied = f"Access denied for user '{adminer.USER}'@'localhost'"
    assert len(said) == 3 and said[0][0] == "GET" and said[0][1].startswith(denied), flagged
    assert said[1:] == [("POST", MISSING_TABLE), ("POST", DUPLICATE)], flagged
    session_cookies = [c["value"] for c in cookies if "adminer" in c["name"] and len(c["value"]) >= 8]
    assert session_cookies, [c["name"] for c in cookies]
    assert isinstance(token, str) and len(token) >= 8  # Adminer's CSRF token, in the Save's form data
    bot.assert_never_said([site.password, token, *session_cookies])
