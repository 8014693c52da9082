"""A click that only changes the URL (history.pushState, a hash) says so: the document and its uids stay.

A single-page app's tab button calls ``history.pushState``; the answer used to say "navigated",
and an agent then took a new snapshot for uids that were still valid. A real link still says
navigated.
"""

from __future__ import annotations

from pathlib import Path

from background_tabs import interact, uid_of
from faults_util import serving
from httpserver import Reply

SPA = """<!doctype html><title>Clienti</title>
<button onclick="history.pushState({tab: 2}, '', '/spa/clienti/42'); out.textContent = 'scheda 42'">Scheda</button>
<button onclick="location.hash = 'note'; out.textContent = 'note'">Note</button>
<a href="/spa/other.html">Altro</a>
<p id=out></p>"""


async def test_a_same_document_url_change_says_so_and_uids_stay_valid(http_server, tmp_path: Path) -> None:
    http_server.route("/spa/clienti", Reply(200, SPA))
    http_server.route("/spa/other.html", Reply(200, "<!doctype html><title>Altro</title><p>altro</p>"))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/spa/clienti"))
        snap = await agent.s("snapshot", interactive_only=True)
        tab, note, link = (
            uid_of(snap, role, name) for role, name in (("button", "Scheda"), ("button", "Note"), ("link", "Altro"))
        )

        pushed = await interact(agent, "click_uid", uid=tab)
        moved = pushed["followed"]["navigation"]
        assert moved["to"].endswith("/spa/clienti/42") and moved["sameDocument"] == "history", pushed
        text = agent.last_text
        assert "in the same document (history.pushState/replaceState: no load, uids still valid)" in text, text
        assert "navigated" not in text

        # the uids of the snapshot before are still good: the next click needs no new snapshot
        hashed = await interact(agent, "click_uid", uid=note)
        assert hashed["followed"]["navigation"]["sameDocument"] == "hash", hashed
        assert hashed["followed"]["navigation"]["to"].endswith("/spa/clienti/42#note")
        assert "(a hash change: no load, uids still valid)" in agent.last_text
        assert await agent.js("out.textContent") == "note"

        # a link loads another document: that is a navigation
        left = await interact(agent, "click_uid", uid=link)
        assert left["followed"]["navigation"]["to"].endswith("/spa/other.html"), left
        assert "sameDocument" not in left["followed"]["navigation"]
        assert "navigated to" in agent.last_text
