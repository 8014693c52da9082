"""What one agent clears or sets is its own: clears hide entries from that session only, debug points
belong to the session that set them and leave with it (issue 46).

Two real SDK client sessions on one ``mcp-browser --http`` server and its internal browser,
both on the same tab: the capture is one store, what each session sees of it is its own.
"""

from __future__ import annotations

from pathlib import Path

from http_sessions import http_server_running, session
from lean_util import records
from test_sessions_internal_browser import _two_tabs

ORDER = "{cliente: 'Bianchi', limite: 1000, righe: [{prezzo: 2, quantita: 3}, {prezzo: 5, quantita: 1}]}"


def _texts(answer: dict) -> list[str]:
    return [str(e.get("text", "")) for e in records(answer)]


async def test_a_clear_hides_entries_from_that_session_only(tmp_path: Path, apps):
    with http_server_running(tmp_path / "artifacts") as server:
        async with session(server) as a, session(server) as b:
            await _two_tabs(a, b, apps)
            await a.s("select_page", url_contains="fatture")
            await b.s("select_page", url_contains="fatture")
            clicked = await a.call("browser_interact", action="click", selector="#salva")
            assert not clicked.is_error, a.last_text
            await a.s("wait_for", network_idle=True)

            await a.s("console_clear")
            await a.s("network_clear")
            assert not any("clicked-fatture" in t for t in _texts(await a.s("console_list"))), a.last_text
            await a.s("network_list")
            assert "/salvato" not in a.last_text, a.last_text
            # B still sees what was captured
            assert any("clicked-fatture" in t for t in _texts(await b.s("console_list"))), b.last_text
            await b.s("network_list")
            assert "/salvato" in b.last_text, b.last_text

            # what comes after the clear, A sees again
            clicked = await b.call("browser_interact", action="click", selector="#salva")
            assert not clicked.is_error, b.last_text
            await b.s("wait_for", network_idle=True)
            assert [t for t in _texts(await a.s("console_list")) if "clicked-fatture" in t] != [], a.last_text
            assert len([t for t in _texts(await b.s("console_list")) if "clicked-fatture" in t]) == 2, b.last_text


async def test_debug_points_are_the_sessions_own_and_leave_with_it(tmp_path: Path, apps):
    with http_server_running(tmp_path / "artifacts") as server:
        async with session(server) as a:
            async with session(server) as b:
                await a.s("navigate", url=apps.url("/debug/index.html"))
                await b.s("use_launch_browser")
                await b.s("select_page", title_contains="Ordini debug")
                point = await b.s("debug_logpoint", source="ordini.js", line=14, expression="totale")
                assert not (await a.s("debug_list")).get("points"), a.last_text
                listed = await b.s("debug_list")
                assert [p["id"] for p in listed["points"]] == [point["point"]["id"]], b.last_text
                await a.s("debug_clear")  # A clears its own points: none
                assert [p["id"] for p in (await b.s("debug_list"))["points"]] == [point["point"]["id"]]
                assert await b.js(f"ordini.inviaOrdine({ORDER}).esito") == 11
                logged = [t for t in _texts(await b.s("console_list", types=["logpoint"])) if t.startswith("totale")]
                assert logged == ["totale = 0", "totale = 6"], b.last_text
            # B's session ended: its logpoint is gone from the page. A's own point, later on the same
            # run (line 20 comes after line 14), proves the run happened and B's logged nothing.
            await a.s("debug_logpoint", source="ordini.js", line=20, expression="'fine', totale")
            assert await a.js(f"ordini.inviaOrdine({ORDER}).esito") == 11
            texts = _texts(await a.s("console_list", types=["logpoint"], limit=500))
            assert [t for t in texts if "fine" in t] != [], a.last_text
            assert [t for t in texts if t.startswith("totale")] == ["totale = 0", "totale = 6"], a.last_text
