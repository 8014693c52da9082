"""The error the person saw, whole: alerts, status, toasts and invalid fields in ``snapshot`` and ``find``.

Issue 47 on phpMyAdmin: after a failed Insert the page shows ``<div class="alert alert-danger"
role="alert">`` with a heading, the SQL statement, its buttons and then ``#1062 - Duplicate
entry 'CLI-00042' for key 'uk_codice'``. The snapshot cut that line at 120 characters, before
the words that matter, and ``find="1062"`` printed the cut line. The page here is modelled on
it (tests/pages/onscreen/insert.html), beside a toast, a role=status message, a form whose
fields say what is wrong, and alerts that are hidden, empty or for screen readers only. The
agent works in a background tab of the user's Chrome.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from background_tabs import CALL, agent_in_hidden_tab, interact, uid_of
from lean_util import assert_lean, records

from cdp_core.recorders.accessibility.find import find_lines
from cdp_core.recorders.accessibility.format import MAX_MESSAGE_CHARS, SnapshotLine, clip_message, render_line

PAGE = "/onscreen/insert.html"
DUPLICATE = "#1062 - Duplicate entry 'CLI-00042' for key 'uk_codice'"
HIDDEN = ("Old hidden alert", "Hidden by aria-hidden", "A closed toast")


def _line(snapshot: dict[str, Any], role: str) -> dict[str, Any]:
    found = [line for line in records(snapshot, "lines") if line["role"] == role]
    assert len(found) == 1, [(line["role"], line["name"]) for line in records(snapshot, "lines")]
    return found[0]


def _text_line(text: str, start: str) -> str:
    found = [line for line in text.splitlines() if line.strip().startswith(start) or f"] {start}" in line]
    assert found, text
    return found[0]


async def test_the_alert_toast_status_and_field_errors_are_whole_in_the_snapshot(
    users_chrome, http_server, tmp_path: Path
):
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, PAGE, "Insert failed") as agent:
        answer = await agent.call("browser_session", CALL, action="snapshot")
        assert not answer.is_error, answer.content[0].text
        text, data = answer.content[0].text, answer.structured_content
        assert_lean(answer)

        alert = _line(data, "alert")
        assert alert["name"].startswith("Error SQL query: Copy Edit INSERT INTO `clienti`"), alert
        assert alert["name"].endswith(f"MySQL said: Documentation {DUPLICATE} Retry"), alert
        assert DUPLICATE in _text_line(text, "alert"), text  # the same whole line in the text
        assert "[uid=" in _text_line(text, 'heading "Error"'), text  # its controls stay under it

        assert _line(data, "toast")["name"] == "Import Import finished with 3 warnings: check column widths"
        statuses = [line["name"] for line in records(data, "lines") if line["role"] == "status"]
        assert "Row 41 saved at 10:31 (inserted id 41, 1 row affected)" in statuses, statuses

        vat = next(line for line in records(data, "lines") if line["name"] == "VAT number")
        assert vat["error"] == "VAT number already registered to Ferramenta Bianchi", vat  # setCustomValidity
        assert "invalid" in vat["states"], vat
        province = next(line for line in records(data, "lines") if line["name"] == "Province")
        assert province["error"] == "Province must be a two-letter code such as RE or MO", province
        assert 'error="VAT number already registered to Ferramenta Bianchi"' in text, text
        email = next(line for line in records(data, "lines") if line["name"] == "Email")
        assert "invalid" not in email["states"] and "error" not in email, email  # not yet submitted

        for hidden in HIDDEN:
            assert hidden not in text and hidden not in str(data), hidden
        assert not [line for line in records(data, "lines") if line["role"] == "alert" and not line["name"]], text

        # the person presses Save: the empty required field now says what the browser says
        await interact(agent, "click_uid", uid=uid_of(data, "button", "Save"))
        after = await agent.s("snapshot")
        email = next(line for line in records(after, "lines") if line["name"] == "Email")
        assert "invalid" in email["states"] and email["error"], email
        said = await agent.js("document.getElementById('email').validationMessage")
        assert email["error"] == said, (email, said)


async def test_a_message_longer_than_the_cap_says_it_was_cut(users_chrome, http_server, tmp_path: Path):
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, PAGE, "Insert failed") as agent:
        long = "Import failed: " + " ".join(f"row {i} has a bad date;" for i in range(36))
        await agent.js(
            "(() => { const d = document.createElement('div'); d.setAttribute('role', 'alert');"
            f" d.id = 'long'; d.textContent = {long!r}; document.body.prepend(d); return true; }})()"
        )
        answer = await agent.call("browser_session", CALL, action="snapshot")
        line = next(line for line in records(answer.structured_content, "lines") if line["name"].startswith("Import"))
        assert 700 < len(long) < 2000 and line["name"] == clip_message(long), line
        assert line["name"].endswith(f"…[cut at {MAX_MESSAGE_CHARS} of {len(long)} chars]"), line
        assert line["name"] in answer.content[0].text


async def test_find_prints_the_matched_text_and_what_holds_it(users_chrome, http_server, tmp_path: Path):
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, PAGE, "Insert failed") as agent:
        found = await agent.call("browser_session", CALL, action="snapshot", find="1062")
        assert not found.is_error, found.content[0].text
        text, data = found.content[0].text, found.structured_content
        assert DUPLICATE in text, text
        assert "find '1062': 1 line(s) hold it" in text, text
        rows = [(line["role"], line["name"][:24], line.get("depth", 0)) for line in records(data, "lines")]
        assert rows[:3] == [  # what holds the alert, indented as on the page
            ("main", "Insert into clienti", 0),
            ("region", "Query results", 1),
            ("alert", "Error SQL query: Copy Ed", 2),
        ], rows
        assert_lean(found)

        # a toolbar button matched; the alert is kept from elsewhere (a snapshot never leaves it out):
        # nothing shown holds it, so it is not indented under the button
        reset = await agent.s("snapshot", find="Reset")
        shown = [(line["role"], line["name"][:10], line.get("depth", 0)) for line in records(reset, "lines")]
        assert shown[:2] == [("button", "Reset", 0), ("alert", "Error SQL ", 0)], shown
        assert all(depth == 0 for _, _, depth in shown), shown


def _line_at(role: str, name: str, depth: int, **more: Any) -> SnapshotLine:
    return SnapshotLine(role=role, name=name, depth=depth, **more)


def test_find_indents_by_the_kept_lines_that_hold_a_line() -> None:
    """The issue's case: a row's button matched, then an alert from elsewhere (deeper in its own region)."""
    lines = [
        _line_at("main", "Orders", 0),
        _line_at("row", "4711 | ACME", 1, uid=1),
        _line_at("button", "Delete", 2, uid=2),
        _line_at("region", "Messages", 1),
        _line_at("group", "Today", 2),
        _line_at("alert", "Payment gateway unreachable", 3, uid=3),
    ]
    kept, matched = find_lines(lines, "4711")
    assert matched == 1
    assert [render_line(line) for line in kept] == [
        'main "Orders"',
        '  [uid=1] row "4711 | ACME"',
        '    [uid=2] button "Delete"',
        '  [uid=3] alert "Payment gateway unreachable"',  # in "Orders", not under the button
    ]
    kept, _ = find_lines(lines, "gateway")
    assert [(line.name, line.depth) for line in kept] == [
        ("Orders", 0),
        ("Messages", 1),
        ("Today", 2),
        ("Payment gateway unreachable", 3),
    ]
    assert lines[5].depth == 3 and lines[5].match is None  # the snapshot's own lines are not changed


def test_find_quotes_a_match_the_cut_line_would_hide() -> None:
    boiler = "Error SQL query: INSERT INTO `clienti` VALUES " + "('x', 'y'), " * 60
    lines = [
        _line_at("textbox", "Notes", 0, uid=1, value="a" * 200 + " the word lotus here"),
        _line_at("text", "short text with lotus", 0),
    ]
    kept, matched = find_lines(lines, "LOTUS")
    assert matched == 2
    assert kept[0].match == "…" + "a" * 70 + " the word lotus here", kept[0].match  # the value is cut at 120
    assert kept[1].match is None  # the line shows it already
    assert 'match="…aaaa' in render_line(kept[0])
    long = [_line_at("button", boiler + " #1062 - Duplicate entry", 0, uid=2)]
    kept, _ = find_lines(long, "#1062")
    assert kept[0].match is not None and kept[0].match.endswith("#1062 - Duplicate entry"), kept[0].match
