"""The app-error detector on a whole real WordPress session: nothing but true errors (issue 47).

The person's everyday admin: the login, the dashboard, Settings > General saved, Users, a new
post in the block editor (its REST calls: types, settings, the draft saved, the autosaves),
Posts and Media (admin-ajax's ``query-attachments``). Every document, XHR and fetch answer is
read by the server's ``app_error_in`` on the harness's own connection to the tab
(``WholeSession``). None is an error but the one WordPress itself reports because this test
site blocks calls out (the dashboard's events widget: ``User has blocked requests through HTTP.``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import anyio.to_thread
import pytest
import wp_person
from realapp_session import WholeSession, bench, running_site

from cdp_core import ChromiumProcess

pytestmark = pytest.mark.slow

wordpress = bench("wordpress")
person = bench("cdp_person")
tabs = bench("tabs")

#: The one true error of this site: the dashboard's events widget asks api.wordpress.org
BLOCKED = "User has blocked requests through HTTP."
_TITLE = ".editor-post-title__input"


@pytest.fixture(scope="module")
def site() -> Iterator[Any]:
    yield from running_site("WordPress", wordpress, "WordPress")


async def _save_the_settings(conn: Any, site: Any) -> None:
    await wp_person.load(conn, site.url("wp-admin/options-general.php"), "#blogdescription")
    await person.type_into(conn, "document.getElementById('blogdescription')", "Notizie dal territorio")
    await person.eval_js(conn, "document.getElementById('submit').click(), true", gesture=True)
    await person.until(conn, "!!document.getElementById('setting-error-settings_updated')", "no 'Settings saved.'")


async def _write_a_draft(conn: Any, site: Any) -> None:
    """The block editor: close its welcome guide, type a title, Save draft, wait for 'Saved'."""
    await wp_person.load(conn, site.url("wp-admin/post-new.php"), _TITLE)
    await anyio.sleep(2.0)  # the editor's own start-up calls answered, its welcome guide shown
    await person.eval_js(
        conn,
        "(document.querySelector('.components-modal__frame button[aria-label=\"Close\"]') || {click() {}}).click(),"
        " true",
        gesture=True,
    )
    await person.type_into(conn, f"document.querySelector('{_TITLE}')", "Bozza: orari della biblioteca")
    await person.until(
        conn, "!!document.querySelector('.editor-post-save-draft:not([aria-disabled=true])')", "no Save draft"
    )
    await person.eval_js(conn, "document.querySelector('.editor-post-save-draft').click(), true", gesture=True)
    await person.until(conn, "!!document.querySelector('.editor-post-saved-state.is-saved')", "the draft not saved")


async def test_a_whole_session_has_no_false_app_error(site: Any, persons_chrome: ChromiumProcess) -> None:
    cdp_url = persons_chrome.http_url
    with anyio.fail_after(400):
        await anyio.to_thread.run_sync(tabs.reset_tabs, cdp_url, ["data:text/html,<title>Note</title>", site.url()])
        conn = await person.connect_tab(cdp_url, site.base_url)
        try:
            session = await WholeSession(conn).start()
            await wp_person.log_in(conn, site)
            await anyio.sleep(1.0)  # the dashboard's widgets answered
            await _save_the_settings(conn, site)
            await wp_person.load(conn, site.url("wp-admin/users.php"), "#the-list")
            await _write_a_draft(conn, site)
            await wp_person.load(conn, site.url("wp-admin/edit.php"), "#the-list")
            await wp_person.load(conn, site.url("wp-admin/upload.php"), ".media-frame, #the-list")
            await anyio.sleep(1.5)  # the media grid's query-attachments answered
            answers = await session.settled()
            flagged = await session.flagged()
        finally:
            await conn.close()

    kinds = {a.kind for a in answers}
    assert len(answers) >= 20 and {"document", "xhr", "fetch"} <= kinds, [(a.kind, a.url) for a in answers]
    assert {error for _method, _url, error in flagged} <= {BLOCKED}, flagged
