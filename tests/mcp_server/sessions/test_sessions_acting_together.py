"""Two agents acting on the same tab: one call at a time (the page lock), and uids that never click the wrong thing.

Each agent is a real SDK client with its own session on one ``mcp-browser --http`` server and
its internal browser. The test server's request log says which button a click pressed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from faults_util import wait_until
from http_sessions import http_server_running, session
from lean_util import records
from test_sessions_internal_browser import _two_tabs

from targets.errors import ErrorCode


async def test_two_sessions_on_one_tab_take_turns(tmp_path: Path, apps):
    with http_server_running(tmp_path / "artifacts") as server:
        async with session(server) as a, session(server) as b:
            await _two_tabs(a, b, apps)
            await a.s("select_page", url_contains="ordini")
            await b.s("select_page", url_contains="ordini")
            slow = (
                "(async () => { window.order = ['a-start']; fetch('/started');"
                " await new Promise(r => setTimeout(r, 1500)); window.order.push('a-end'); return 'a'; })()"
            )
            first = asyncio.ensure_future(a.js(slow))
            await wait_until(lambda: apps.started, timeout=30, what="A's script running")
            # B's call on the same tab waits for A's to finish: it never runs in the middle of it
            assert await b.js("window.order.push('b'), window.order.join(' ')") == "a-start a-end b"
            assert await first == "a"


async def test_a_stale_uid_after_another_sessions_navigation_is_refused(tmp_path: Path, apps):
    with http_server_running(tmp_path / "artifacts") as server:
        async with session(server) as a, session(server) as b:
            await _two_tabs(a, b, apps)
            await a.s("select_page", url_contains="ordini")
            await b.s("select_page", url_contains="ordini")
            snap = await a.s("snapshot", interactive_only=True)
            salva = next(int(ln["uid"]) for ln in records(snap, "lines") if ln.get("name") == "Salva")

            await b.s("navigate", url=apps.url("/fatture"))  # B takes the tab elsewhere
            clicked = await a.call("browser_interact", action="click_uid", uid=salva)
            assert clicked.is_error, a.last_text
            assert clicked.structured_content["code"] == ErrorCode.STALE_UID, a.last_text
            await a.s("wait_for", text="fatture")
            assert apps.saved == [], apps.saved  # nothing was pressed on the page that is there now


async def test_another_sessions_snapshot_keeps_my_uids_pointing_at_the_same_element(tmp_path: Path, apps):
    with http_server_running(tmp_path / "artifacts") as server:
        async with session(server) as a, session(server) as b:
            await _two_tabs(a, b, apps)
            await a.s("select_page", url_contains="ordini")
            await b.s("select_page", url_contains="ordini")
            snap = await a.s("snapshot", interactive_only=True)
            salva = next(int(ln["uid"]) for ln in records(snap, "lines") if ln.get("name") == "Salva")
            # B adds a button before it and takes its own snapshot
            await b.js(
                "document.body.insertAdjacentHTML('afterbegin',"
                " `<button onclick=\"fetch('/salvato?from=elimina')\">Elimina</button>`)"
            )
            await b.s("snapshot", interactive_only=True)
            clicked = await a.call("browser_interact", action="click_uid", uid=salva)
            assert not clicked.is_error, a.last_text
            await wait_until(lambda: apps.saved, timeout=20, what="the click's request")
            assert apps.saved == ["ordini"], apps.saved
