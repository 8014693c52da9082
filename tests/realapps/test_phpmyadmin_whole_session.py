"""The app-error detector on a whole real phpMyAdmin session: only what the person saw go wrong (issue 47).

Precision matters as much as recall: a false "error" sends the agent down a wrong path. The
person's whole session (a mistyped password, the login, the table's Browse, Structure, SQL,
Search and Insert tabs loaded by phpMyAdmin's AJAX, a row inserted, then the duplicate) is read
answer by answer, on the harness's own connection to the tab (``WholeSession``), by the same
``app_error_in`` the server uses. Exactly two answers carry an error: the failed login's page and
the duplicate's JSON; the dozens of others (navigation tree, settings, lint, the inserted row's
``success:true`` with its SQL) carry none.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import anyio.to_thread
import pytest
from realapp_session import WholeSession, bench, running_site

from cdp_core import ChromiumProcess

pytestmark = pytest.mark.slow

phpmyadmin = bench("phpmyadmin")
pma_person = bench("pma_person")
person = bench("cdp_person")
tabs = bench("tabs")

_LOADED = "document.readyState === 'complete' && !!window.jQuery"
#: The table's tabs the person clicks through, and what each shows once loaded
_TABS = (
    ("Structure", "#fieldsForm"),
    ("SQL", "#sqlqueryform"),
    ("Search", "#tbl_search_form"),
    ("Insert", "#buttonYes"),
)


@pytest.fixture(scope="module")
def pma() -> Iterator[Any]:
    yield from running_site("phpMyAdmin", phpmyadmin, "PhpMyAdmin")


async def _mistype_the_password(conn: Any, pma: Any) -> None:
    await conn.send("Network.clearBrowserCookies")
    await conn.send("Page.navigate", {"url": pma.url()})
    await person.until(conn, _LOADED + " && !!document.getElementById('input_go')", "no login form")
    await person.type_into(conn, "document.getElementById('input_username')", phpmyadmin.USER)
    await person.type_into(conn, "document.getElementById('input_password')", pma.password[::-1])
    await person.eval_js(conn, "document.getElementById('input_go').click(), true", gesture=True)
    await person.until(
        conn,
        _LOADED + " && !!document.querySelector('.alert-danger') && !!document.getElementById('input_go')",
        "no login error",
    )


async def _click_tab(conn: Any, name: str, ready: str) -> None:
    await person.eval_js(
        conn,
        f"[...document.querySelectorAll('#topmenu a')].find(a => a.textContent.trim() === {json.dumps(name)}).click(),"
        " true",
        gesture=True,
    )
    await person.until(
        conn, f"{_LOADED} && !!document.querySelector({json.dumps('#page_content ' + ready)})", f"{name} did not load"
    )
    await anyio.sleep(0.5)  # its after-load AJAX answered


async def test_a_whole_session_has_only_the_errors_the_person_saw(pma: Any, persons_chrome: ChromiumProcess) -> None:
    cdp_url = persons_chrome.http_url
    pma.reset_table()
    with anyio.fail_after(300):
        await anyio.to_thread.run_sync(tabs.reset_tabs, cdp_url, ["data:text/html,<title>Note</title>", pma.url()])
        conn = await person.connect_tab(cdp_url, pma.base_url)
        try:
            session = await WholeSession(conn).start()
            await _mistype_the_password(conn, pma)
            await session.quiet()  # each step's answers read before the person moves on
            await pma_person.log_in(conn, pma)
            await session.quiet()
            browse = pma.url(pma_person.BROWSE_QUERY)
            await person.go_to(conn, browse, _LOADED + " && !!document.querySelector('table.table_results')")
            for name, ready in _TABS:
                await session.quiet()
                await _click_tab(conn, name, ready)
            await pma_person.insert_code(conn, "CLI-00099", ".alert-success", "1 row inserted")
            await session.quiet()
            await _click_tab(conn, "Insert", "#buttonYes")
            await pma_person.insert_code(conn, phpmyadmin.DUP_CODE, ".alert-danger", "#1062")
            answers = await session.settled()
            flagged = await session.flagged()
        finally:
            await conn.close()

    assert len(answers) >= 15, [a.url for a in answers]  # a whole session, not a page or two
    said = [(method, error) for method, _url, error in flagged]
    assert len(said) == 2, flagged
    assert said[0][0] == "POST" and said[0][1].startswith("Cannot log in to the MySQL server"), flagged
    duplicate = f"#1062 - Duplicate entry '{phpmyadmin.DUP_CODE}' for key '{phpmyadmin.UNIQUE_KEY}'"
    assert said[1] == ("POST", duplicate), flagged
