"""A table of 1,500 orders, each row with its Edit link: finding order 4711 and acting on its row.

The snapshot is cut at 400 lines and order 4711 is near line 2,100. ``find="4711"`` answers with
that row and its controls; ``interactive_only`` keeps each row beside its controls, so 1,500
"Edit" links still say which order each edits. In a hidden tab of the user's Chrome.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from background_tabs import CALL, agent_in_hidden_tab, interact
from httpserver import Reply
from lean_util import assert_lean, records

from cdp_core.recorders.accessibility.find import find_lines
from cdp_core.recorders.accessibility.format import SnapshotLine

ROWS = "".join(
    f"<tr><td>{4000 + i}</td><td>Customer {i}</td><td>{'Open' if i % 3 else 'Closed'}</td>"
    f"<td><a href='/orders/edit?id={4000 + i}'>Edit</a> <button>Delete</button></td></tr>"
    for i in range(1500)
)
ORDERS = f"""<!doctype html><title>Orders list</title><h1>Orders</h1>
<div role=alert>3 orders could not be invoiced</div>
<table><thead><tr><th>No</th><th>Customer</th><th>State</th><th></th></tr></thead><tbody>{ROWS}</tbody></table>"""


def _rows(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    return records(snapshot, "lines")


async def test_the_row_of_one_order_is_found_in_a_long_table_and_its_edit_link_clicked(
    fresh_chromium, http_server, tmp_path: Path
):
    http_server.route("/orders/list.html", Reply(200, ORDERS))
    http_server.route("/orders/edit", lambda req: Reply(200, f"<title>Order {req.query['id'][0]}</title>"))
    async with agent_in_hidden_tab(fresh_chromium, http_server, tmp_path, "/orders/list.html", "Orders list") as agent:
        whole = await agent.call("browser_session", CALL, action="snapshot")
        assert "4711" not in whole.content[0].text and "narrow with find" in whole.content[0].text

        found = await agent.call("browser_session", CALL, action="snapshot", find="4711")
        assert not found.is_error, found.content[0].text
        lines = _rows(found.structured_content)
        assert [(line["role"], line["name"]) for line in lines] == [
            ("alert", "3 orders could not be invoiced"),  # what went wrong is never left out
            ("row", "4711 | Customer 711 | Closed | Edit Delete"),
            ("link", "Edit"),
            ("button", "Delete"),
        ], found.content[0].text
        assert "find '4711': 1 line(s) hold it" in found.content[0].text, found.content[0].text
        assert len(found.content[0].text) < 700, found.content[0].text
        assert_lean(found)

        edit = lines[2]["uid"]
        clicked = await interact(agent, "click_uid", uid=edit)
        assert clicked["followed"]["navigation"]["to"].endswith("/orders/edit?id=4711"), clicked

        await agent.s("go_back")
        nothing = await agent.s("snapshot", find="order 99999")
        assert [line["role"] for line in _rows(nothing)] == ["alert"], nothing
        assert "no line holds it" in " ".join(nothing["notes"]), nothing


async def test_interactive_only_keeps_each_row_beside_its_controls(fresh_chromium, http_server, tmp_path: Path):
    http_server.route("/orders/list.html", Reply(200, ORDERS))
    async with agent_in_hidden_tab(fresh_chromium, http_server, tmp_path, "/orders/list.html", "Orders list") as agent:
        snap = await agent.s("snapshot", interactive_only=True, max_lines=10)
        lines = [(line["role"], line["name"], line.get("depth", 0)) for line in _rows(snap)]
        assert lines[:5] == [
            ("heading", "Orders", 0),
            ("alert", "3 orders could not be invoiced", 0),
            ("row", "4000 | Customer 0 | Closed | Edit Delete", 0),  # the header row holds no control: gone
            ("link", "Edit", 1),
            ("button", "Delete", 1),
        ], lines


def _line(role: str, name: str, depth: int, **more: Any) -> SnapshotLine:
    return SnapshotLine(role=role, name=name, depth=depth, **more)


def test_find_keeps_what_holds_a_match_and_what_it_holds() -> None:
    lines = [
        _line("heading", "Customers", 0),
        _line("dialog", "Edit customer", 0),
        _line("textbox", "Name", 1, value="ACME  Ltd"),
        _line("combobox", "Country", 1, options=[{"label": "Italy"}, {"label": "Germany"}]),
        _line("group", "Address", 1),
        _line("textbox", "Street", 2),
        _line("text", "Unrelated", 0),
    ]
    kept, matched = find_lines(lines, "acme ltd")  # case and runs of spaces aside, values searched
    assert matched == 1 and [line.name for line in kept] == ["Edit customer", "Name"]
    kept, matched = find_lines(lines, "germany")  # option labels searched
    assert [line.name for line in kept] == ["Edit customer", "Country"]
    kept, matched = find_lines(lines, "address")  # a match's own lines come with it
    assert [line.name for line in kept] == ["Edit customer", "Address", "Street"]
    kept, matched = find_lines(lines, "nowhere")
    assert (kept, matched) == ([], 0)
