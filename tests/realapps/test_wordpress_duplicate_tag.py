"""A real WordPress, the person's tag that already exists, and the agent's first bundle (issue 47).

WordPress (Debian's package, ``php -S`` on loopback, its own ``wp-config.php`` and MariaDB:
``bench/wordpress.py``) adds a tag on Posts > Tags through ``admin-ajax.php`` (``action=add-tag``)
and answers a name it has with ``200 text/xml``: a ``<wp_ajax>`` response whose
``<wp_error code='term_exists'>`` holds the message the page then shows in a red notice. Neither
JSON nor an HTML page: a third shape. The person logs in through wp-login.php by typing, opens
Tags and adds a new tag (its XML answer holds the new row, no error); the agent attaches, the
person opens a tab in front and adds the tag that exists. The agent's first
``debug_bundle`` must quote WordPress's message under both renderings; the detector must call no
other answer of the whole session (dashboard, heartbeat, the tags screen) an error; the password,
the session cookies' values and the form's nonce must be in no answer and no file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
import wp_person
from background_tabs import open_in_front, visibility
from realapp_session import WholeSession, agent, bench, running_site

from cdp_core import ChromiumProcess

pytestmark = pytest.mark.slow

wordpress = bench("wordpress")
person = bench("cdp_person")
tabs = bench("tabs")

TAGS = "wp-admin/edit-tags.php?taxonomy=post_tag"
#: What the detector quotes of the add-tag answer: WordPress's message and its wp_error code
TAG_ERROR = f"{wordpress.TAG_EXISTS} (term_exists)"


@pytest.fixture(scope="module")
def site() -> Iterator[Any]:
    yield from running_site("WordPress", wordpress, "WordPress")


async def _log_in_and_open_tags(conn: Any, site: Any) -> str:
    """The person's login (typed on wp-login.php), the dashboard, Posts, then Posts > Tags; its URL."""
    await wp_person.log_in(conn, site)
    await wp_person.load(conn, site.url("wp-admin/edit.php"), "#posts-filter")
    await wp_person.load(conn, site.url(TAGS), "#tag-name")
    return str(site.url(TAGS))


async def _add_tag(conn: Any, name: str) -> None:
    """Type a new tag's name, press Add New Tag, wait for its row in the list."""
    await person.type_into(conn, "document.getElementById('tag-name')", name)
    await person.eval_js(conn, "document.getElementById('submit').click(), true", gesture=True)
    await person.until(
        conn,
        f"[...document.querySelectorAll('#the-list .row-title')].some(a => a.textContent === {json.dumps(name)})"
        " && document.getElementById('tag-name').value === ''",
        f"the tag {name!r} was not added",
    )


async def _add_the_existing_tag(conn: Any) -> None:
    """Type the tag's name, press Add New Tag, wait for the red notice above the form."""
    await person.type_into(conn, "document.getElementById('tag-name')", wordpress.TAG)
    await person.eval_js(conn, "document.getElementById('submit').click(), true", gesture=True)
    await person.until(
        conn,
        f"document.getElementById('ajax-response').textContent.includes({json.dumps(wordpress.TAG_EXISTS)})",
        "no 'already exists' notice after Add New Tag",
    )


async def test_the_tag_that_exists_is_in_the_first_bundle(
    site: Any, persons_chrome: ChromiumProcess, tmp_path: Path
) -> None:
    cdp_url = persons_chrome.http_url
    notes = "data:text/html,<title>Scaletta</title><p>scaletta"
    with anyio.fail_after(300):
        await anyio.to_thread.run_sync(tabs.reset_tabs, cdp_url, [notes, site.url("wp-login.php"), notes + "2"])
        site.sql("DELETE FROM wordpress.wp_terms WHERE name = 'preventivo';")
        conn = await person.connect_tab(cdp_url, site.base_url)
        try:
            session = await WholeSession(conn).start()
            tags_url = await _log_in_and_open_tags(conn, site)
            await _add_tag(conn, "preventivo")  # answered 200 text/xml too, with the new row: no error
            nonce = await person.eval_js(conn, "document.getElementById('_wpnonce_add-tag').value")
            agents_tab = next(t["id"] for t in tabs.page_targets(cdp_url) if t["url"] == tags_url)
            async with agent(tmp_path) as bot:
                await bot.session("attach_cdp", cdp_url=cdp_url, url_contains="edit-tags.php")
                front = await open_in_front(cdp_url)
                await _add_the_existing_tag(conn)
                data, text = await bot.session("debug_bundle")
            cookies = (await conn.send("Network.getAllCookies"))["cookies"]
            flagged = await session.flagged()
        finally:
            await conn.close()

    # the message the person saw, said of the admin-ajax call that brought it, under both renderings
    assert f"app error: {TAG_ERROR}" in text and "1 app error(s)" in text, text
    assert data["network"]["appErrorCount"] == 1, data["network"]
    assert TAG_ERROR in json.dumps(data["network"]["appErrors"], ensure_ascii=False)
    assert wordpress.TAG_EXISTS in json.dumps(data["onScreen"], ensure_ascii=False)
    assert await visibility(cdp_url, front) == "visible"
    assert await visibility(cdp_url, agents_tab) == "hidden"
    # the whole session (login, dashboard, posts, tags, the add): the add's answer is the error, once;
    # the only other one the dashboard may get (if it answered before the person moved on) is true too:
    # its events widget asks api.wordpress.org, which this site blocks (WP_HTTP_BLOCK_EXTERNAL)
    errors = [(method, url.split("?")[0].rsplit("/", 1)[-1], error) for method, url, error in flagged]
    assert errors.count(("POST", "admin-ajax.php", TAG_ERROR)) == 1, flagged
    assert set(errors) <= {
        ("POST", "admin-ajax.php", TAG_ERROR),
        ("POST", "admin-ajax.php", "User has blocked requests through HTTP."),
    }, flagged
    session_cookies = [c["value"] for c in cookies if c["name"].startswith("wordpress_")]
    assert session_cookies, [c["name"] for c in cookies]
    assert isinstance(nonce, str) and len(nonce) >= 10
    bot.assert_never_said([site.password, nonce, *session_cookies])
