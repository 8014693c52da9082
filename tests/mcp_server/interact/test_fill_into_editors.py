"""A fill into an editor says what was typed and which editor took it, not "0 chars".

CodeMirror 5 types into a hidden textarea and empties it after every input, moving the text into
its own lines: a fill into it answered ``filled (0 chars)`` for 57 typed characters, as if
nothing went in. A page that behaves the same way (its textarea's input handler moves the text
into a sibling and empties itself), a contenteditable note and, when Debian's libjs-codemirror
is installed, the real CodeMirror 5 served from disk (it empties its textarea once the fill leaves
the field, which a page listening for ``change`` makes the fill do).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from background_tabs import interact, uid_of
from faults_util import serving
from httpserver import Reply

SQL = "SELECT * FROM clienti WHERE codice = 'CLI-00042' LIMIT 1;"

EDITORS = """<!doctype html><title>Editors</title>
<div class="SqlEditor"><div style="overflow:hidden;height:20px"><textarea id=query aria-label="Query"></textarea></div>
<div id=lines></div></div>
<div id=note contenteditable role=textbox aria-label="Note">old note</div>
<script>
query.addEventListener('input', () => { lines.textContent += query.value; query.value = '' });
</script>"""

CODEMIRROR = Path("/usr/share/javascript/codemirror")
CODEMIRROR_PAGE = """<!doctype html><title>Real CodeMirror</title>
<link rel=stylesheet href="/cm/codemirror.css"><script src="/cm/codemirror.js"></script>
<div id=host></div><script>window.cm = CodeMirror(host, {lineNumbers: true});
document.addEventListener("change", () => {});  // as phpMyAdmin's delegated handlers: the fill leaves the field
</script>"""


async def test_a_fill_into_an_editor_that_empties_its_field_says_what_was_typed(http_server, tmp_path: Path) -> None:
    http_server.route("/editors/page.html", Reply(200, EDITORS))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/editors/page.html"))
        snap = await agent.s("snapshot", interactive_only=True)

        filled = await interact(agent, "fill_uid", uid=uid_of(snap, "textbox", "Query"), value=SQL)
        assert (
            filled["did"]
            == f"filled ({len(SQL)} chars typed, taken by the editor div.SqlEditor (the field itself empties))"
        )
        assert "0 chars" not in agent.last_text and "taken by the editor div.SqlEditor" in agent.last_text
        assert await agent.js("[lines.textContent, query.value]") == [SQL, ""]  # the editor has it, the field not

        by_selector = await interact(agent, "fill", selector="#query", value="LIMIT 2")
        assert by_selector["chars"] == len("LIMIT 2") and by_selector["editor"] == "div.SqlEditor", by_selector
        assert "(7 chars typed, taken by the editor div.SqlEditor" in agent.last_text

        # a contenteditable keeps what was typed: its content replaced, its length said, no editor named
        noted = await interact(agent, "fill_uid", uid=uid_of(snap, "textbox", "Note"), value="Chiamare il cliente")
        assert noted["did"] == "filled (19 chars)", noted
        assert await agent.js("note.innerText") == "Chiamare il cliente"


@pytest.mark.skipif(not (CODEMIRROR / "lib" / "codemirror.js").exists(), reason="libjs-codemirror is not installed")
async def test_a_fill_into_the_real_codemirror_5(http_server, tmp_path: Path) -> None:
    http_server.route("/cm/page.html", Reply(200, CODEMIRROR_PAGE))
    http_server.route(
        "/cm/codemirror.js", Reply(200, (CODEMIRROR / "lib/codemirror.js").read_bytes(), "text/javascript")
    )
    http_server.route("/cm/codemirror.css", Reply(200, (CODEMIRROR / "lib/codemirror.css").read_bytes(), "text/css"))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/cm/page.html"))
        filled = await interact(agent, "fill", selector=".CodeMirror textarea", value=SQL)
        assert filled["chars"] == len(SQL) and filled.get("editor") == "div.CodeMirror", filled
        assert f"({len(SQL)} chars typed, taken by the editor div.CodeMirror" in agent.last_text
        assert await agent.js("cm.getValue()") == SQL
