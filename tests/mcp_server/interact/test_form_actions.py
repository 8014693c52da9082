"""fill_form, select_option, type_text, drag and upload_file as an agent uses them, on a background tab.

Through the real MCP client on real Chromium: the user's Chrome with the order form's tab
behind another tab (no animation frames), an out-of-process iframe, and the internal
browser. Each test checks what the user would: the values the server received in the POST,
the page's own event log (keys, drop, file contents), the tab left in the background, typed
secrets absent from answers and audit log, and paths outside uploads/ refused.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from background_tabs import CALL, activate, front_tab, interact_err, open_in_front, uid_of, visibility
from faults_util import UserTabs, serving
from httpserver import Reply, Request
from lean_util import assert_lean, records

from targets.errors import ErrorCode

SECRET_PIN = "pin-4417-planted"


def _route_order(http_server: Any) -> list[dict[str, list[str]]]:
    posts: list[dict[str, list[str]]] = []

    def save(req: Request) -> Reply:
        posts.append(urllib.parse.parse_qs(req.body.decode()))
        return Reply(302, "", headers={"Location": "/bg/done.html?saved=1"})

    http_server.route("/bg/order", save)
    return posts


async def interact(agent: Any, action: str, **args: Any) -> dict[str, Any]:
    """``browser_interact`` that must succeed, with an answer as lean as its text (the answer-size rule)."""
    result = await agent.call("browser_interact", CALL, action=action, **args)
    assert not result.is_error, result.content[0].text
    return assert_lean(result)


def _answer(sc: dict[str, Any]) -> str:
    return json.dumps(sc)


async def out(agent: Any) -> str:
    return await agent.js("document.getElementById('out').textContent")


async def test_order_form_in_a_background_tab_of_the_users_chrome(users_chrome, http_server, tmp_path: Path):
    posts = _route_order(http_server)
    artifacts = tmp_path / "artifacts"
    (artifacts / "uploads").mkdir(parents=True)
    (artifacts / "uploads" / "invoice.txt").write_text("total 12")
    (tmp_path / "private.txt").write_text("do not send")
    os.symlink(tmp_path / "private.txt", artifacts / "uploads" / "escape.txt")

    user = UserTabs(users_chrome.http_url)
    order_tab = await user.open(http_server.url("/bg/order.html"))
    front = await user.open(http_server.url("/faults/tab.html?name=front"))
    await activate(users_chrome.http_url, front)

    async with serving(artifacts) as agent:
        await agent.s("attach_cdp", cdp_url=users_chrome.http_url)
        await agent.s("select_page_by_title", title_contains="New order")
        assert await agent.js("document.visibilityState") == "hidden"
        snap = await agent.s("snapshot", interactive_only=True)

        # fill_form: text, password, select by label, checkbox, radio; the PIN is never echoed
        filled = await interact(
            agent,
            "fill_form",
            fields=[
                {"uid": uid_of(snap, "textbox", "Customer"), "value": "Grace Hopper"},
                {"uid": uid_of(snap, "textbox", "PIN"), "value": SECRET_PIN},
                {"uid": uid_of(snap, "combobox", "Country"), "value": "France"},
                {"uid": uid_of(snap, "checkbox", "Express"), "value": "true"},
                {"uid": uid_of(snap, "radio", "Card"), "value": "true"},
            ],
        )
        assert [row[1] for row in filled["fields"]["entries"]] == [
            "filled (12 chars)",
            f"filled ({len(SECRET_PIN)} chars)",
            "selected 'fr'",
            "checked",
            "checked",
        ], filled
        assert SECRET_PIN not in _answer(filled) and "Grace" not in _answer(filled)

        # select_option on a multiple select: one by value, one by label
        picked = await interact(
            agent, "select_option", uid=uid_of(snap, "listbox", "Extras"), values=["gift", "Insurance"]
        )
        assert picked["values"] == ["gift", "ins"] and picked["labels"] == ["Gift wrap", "Insurance"]
        assert "'Insurance' (ins)" in agent.last_text

        # HTML5 drag and drop (the lane is a region: in the full snapshot)
        full = await agent.s("snapshot")
        dragged = await interact(
            agent, "drag", from_uid=uid_of(full, "button", "Order card"), to_uid=uid_of(full, "region", "Done lane")
        )
        assert dragged["html5"] is True and (await out(agent)).endswith("dropped:order-42;")

        # upload_file from uploads/; outside paths and a symlink escaping uploads/ refused
        invoice = uid_of(snap, "button", "Invoice")
        uploaded = await interact(agent, "upload_file", uid=invoice, paths=["invoice.txt"])
        assert uploaded["files"] == [["uploads/invoice.txt", 8]]
        await agent.s("wait_for", text="file:invoice.txt:total 12")
        for bad in ("/etc/passwd", "../audit.jsonl", "escape.txt", str(tmp_path / "private.txt")):
            refused = await interact_err(
                agent, "upload_file", ErrorCode.PATH_OUTSIDE_ARTIFACTS, uid=invoice, paths=[bad]
            )
            assert "outside the upload folders" in refused["message"] and "uploads" in refused["hint"], refused
        missing = await interact_err(agent, "upload_file", ErrorCode.FILE_NOT_FOUND, uid=invoice, paths=["nope.pdf"])
        assert "invoice.txt" in missing["hint"]
        assert (await out(agent)).count("file:") == 1  # nothing refused reached the page
        # a styled button that opens a hidden input's file chooser takes the files too
        attach = uid_of(snap, "button", "Attach receipts")
        (artifacts / "uploads" / "r2.txt").write_text("second")
        await interact(agent, "upload_file", uid=attach, paths=["invoice.txt", "r2.txt"])
        await agent.s("wait_for", text="receipts:invoice.txt,r2.txt")
        no_chooser = await interact_err(
            agent,
            "upload_file",
            ErrorCode.INVALID_ARGUMENT,
            uid=uid_of(full, "button", "Order card"),
            paths=["r2.txt"],
            timeout_ms=1000,
        )
        assert "opened no file chooser" in no_chooser["message"]

        # type_text into the reference field (key by key), Enter submits: the POST leads the answer
        typed = await agent.call(
            "browser_interact",
            CALL,
            action="type_text",
            uid=uid_of(snap, "textbox", "Reference"),
            text="PO-77",
            submit_key="Enter",
        )
        assert not typed.is_error, typed.content[0].text
        sent = assert_lean(typed)
        first = records(sent["followed"], "requests")[0]
        assert (first["method"], first["status"]) == ("POST", 302) and first["url"].endswith("/bg/order"), sent
        then = typed.content[0].text.split("\n")[1]
        assert "POST /bg/order -> 302 (document) payload: customer=Grace+Hopper&pin=[redacted]" in then, then
        assert SECRET_PIN not in typed.content[0].text
        assert posts, "the form was not submitted"
        post = posts[-1]
        assert post["customer"] == ["Grace Hopper"] and post["pin"] == [SECRET_PIN] and post["country"] == ["fr"]
        assert post["express"] == ["on"] and post["pay"] == ["card"] and post["extras"] == ["gift", "ins"]
        assert post["ref"] == ["PO-77"]

    assert await visibility(users_chrome.http_url, front) == "visible"
    assert await visibility(users_chrome.http_url, order_tab) == "hidden"


async def test_type_text_keys_and_refusals(fresh_chromium, http_server, tmp_path: Path):
    user = UserTabs(fresh_chromium.http_url)
    await user.open(http_server.url("/bg/order.html"))
    front = await user.open(http_server.url("/faults/tab.html?name=front"))
    await activate(fresh_chromium.http_url, front)
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="New order")
        snap = await agent.s("snapshot", interactive_only=True)
        ref = uid_of(snap, "textbox", "Reference")
        # nothing focused yet: a clear refusal, not keys sent nowhere
        nothing = await interact_err(agent, "type_text", ErrorCode.ELEMENT_NOT_INTERACTABLE, text="x")
        assert "pass uid" in nothing["hint"]
        # every character is a key the page sees; typing goes at the end of what is there
        await interact(agent, "fill_form", fields=[{"uid": ref, "value": "AB"}])
        typed = await interact(agent, "type_text", uid=ref, text="c-D é")
        assert typed["chars"] == 5 and "typed 5 chars into" in agent.last_text
        assert await agent.js("document.getElementById('ref').value") == "ABc-D é"
        assert (await out(agent)).startswith("key:c;key:-;key:Shift;key:D;key: ;")  # as a user types D
        # without uid: into the focused element
        await interact(agent, "type_text", text="!")
        assert await agent.js("document.getElementById('ref').value") == "ABc-D é!"
        # refusals leave the page as it was
        await interact_err(agent, "type_text", ErrorCode.INVALID_ARGUMENT, uid=ref, text="x", submit_key="Hyper+q")
        stale = await interact_err(
            agent, "fill_form", ErrorCode.STALE_UID, fields=[{"uid": ref, "value": "x"}, {"uid": 9999, "value": "y"}]
        )
        assert "9999" in stale["message"]
        assert await agent.js("document.getElementById('ref').value") == "ABc-D é!"  # nothing filled
        # a field whose change handler opens an alert: the answer says so, the later fields stay untouched
        await agent.js("document.getElementById('country').onchange = () => alert('Country changed'); 1")
        customer = uid_of(snap, "textbox", "Customer")
        stopped = await interact(
            agent,
            "fill_form",
            fields=[{"uid": uid_of(snap, "combobox", "Country"), "value": "de"}, {"uid": customer, "value": "Zed"}],
        )
        assert agent.last_text.startswith("filled 0 of 2 fields"), stopped
        assert stopped["followed"]["dialog"]["message"] == "Country changed", stopped
        assert stopped["fields"]["entries"][1] == [customer, "not filled (a dialog is open)"]
        await agent.s("handle_dialog", dialog_action="accept")
        assert await agent.js("document.getElementById('customer').value") == "Ada "
        wrong = await interact_err(
            agent, "select_option", ErrorCode.INVALID_ARGUMENT, uid=uid_of(snap, "combobox", "Country"), values=["Mars"]
        )
        assert "Italy" in wrong["hint"]
        two = await interact_err(
            agent,
            "select_option",
            ErrorCode.INVALID_ARGUMENT,
            uid=uid_of(snap, "combobox", "Country"),
            values=["it", "fr"],
        )
        assert "not a multiple select" in two["message"]


async def test_fill_form_and_select_option_in_an_out_of_process_iframe(fresh_chromium, http_server, tmp_path: Path):
    user = UserTabs(fresh_chromium.http_url)
    await user.open(http_server.url("/bg/trip_parent.html"))
    front = await user.open(http_server.url("/faults/tab.html?name=front"))
    await activate(fresh_chromium.http_url, front)
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="Trip host")
        snap = await agent.s("snapshot")
        frames = [line["name"] for line in records(snap, "lines") if line["role"] == "frame"]  # frame headers
        assert any("http://localhost:" in name for name in frames), snap["lines"]
        await interact(agent, "fill_form", fields=[{"uid": uid_of(snap, "textbox", "City"), "value": "Turin"}])
        await interact(agent, "select_option", uid=uid_of(snap, "combobox", "Slot"), values=["Night"])
        await interact(agent, "type_text", uid=uid_of(snap, "textbox", "City"), text="!")
        await interact(agent, "click_uid", uid=uid_of(snap, "button", "OK"))
        after = await agent.s("snapshot")
        assert any(line.get("name") == "ok clicked: Turin! (night)" for line in records(after, "lines")), after
    assert await visibility(fresh_chromium.http_url, front) == "visible"


async def test_internal_browser_background_tab(http_server, tmp_path: Path):
    posts = _route_order(http_server)
    artifacts = tmp_path / "artifacts"
    (artifacts / "uploads").mkdir(parents=True)
    (artifacts / "uploads" / "invoice.txt").write_text("total 9")
    async with serving(artifacts) as agent:
        await agent.s("navigate", url=http_server.url("/bg/order.html"))
        cdp_url = agent.manager.launch.cdp_url
        other = await open_in_front(cdp_url)
        await agent.s("select_page_by_title", title_contains="New order")
        snap = await agent.s("snapshot", interactive_only=True)
        await interact(
            agent,
            "fill_form",
            fields=[
                {"uid": uid_of(snap, "textbox", "Customer"), "value": "Linus"},
                {"uid": uid_of(snap, "combobox", "Country"), "value": "de"},
            ],
        )
        await interact(agent, "select_option", uid=uid_of(snap, "listbox", "Extras"), values=["SMS updates"])
        full = await agent.s("snapshot")
        await interact(
            agent, "drag", from_uid=uid_of(full, "button", "Order card"), to_uid=uid_of(full, "region", "Done lane")
        )
        await interact(
            agent,
            "upload_file",
            uid=uid_of(snap, "button", "Invoice"),
            paths=[str(artifacts / "uploads" / "invoice.txt")],
        )
        await agent.s("wait_for", text="file:invoice.txt:total 9")
        assert "dropped:order-42;" in await out(agent)
        sent = await interact(
            agent, "type_text", uid=uid_of(snap, "textbox", "Reference"), text="R1", submit_key="Enter"
        )
        assert records(sent["followed"], "requests")[0]["method"] == "POST"
        assert posts[-1]["customer"] == ["Linus"] and posts[-1]["country"] == ["de"] and posts[-1]["extras"] == ["sms"]
        assert await front_tab(cdp_url) == other


async def test_upload_roots_from_the_configuration(http_server, tmp_path: Path):
    shared = tmp_path / "fixtures"
    shared.mkdir()
    (shared / "data.csv").write_text("a,b\n1,2\n")
    async with serving(tmp_path / "artifacts", upload_roots=[str(shared)]) as agent:
        await agent.s("navigate", url=http_server.url("/bg/order.html"))
        snap = await agent.s("snapshot", interactive_only=True)
        invoice = uid_of(snap, "button", "Invoice")
        done = await interact(agent, "upload_file", uid=invoice, paths=[str(shared / "data.csv")])
        assert done["files"] == [[str(shared / "data.csv"), 8]]
        await agent.s("wait_for", text="file:data.csv:a,b")
        refused = await interact_err(
            agent, "upload_file", ErrorCode.PATH_OUTSIDE_ARTIFACTS, uid=invoice, paths=[str(shared / ".." / "x")]
        )
        assert str(shared) in refused["message"]
        two = await interact_err(
            agent, "upload_file", ErrorCode.INVALID_ARGUMENT, uid=invoice, paths=[str(shared / "data.csv")] * 2
        )
        assert "takes one file" in two["message"]


@pytest.mark.parametrize("engine", ["page", "ax"])
async def test_plain_div_cards_and_lanes_can_be_dragged(http_server, tmp_path: Path, engine: str):
    """A legacy board: a ``<div draggable=true>`` card and a lane with ``ondrop``, no roles; in a background tab."""
    async with serving(tmp_path / "artifacts", snapshot_engine=engine) as agent:
        await agent.s("navigate", url=http_server.url("/bg/board.html"))
        cdp_url = agent.manager.launch.cdp_url
        await open_in_front(cdp_url)
        await agent.s("select_page_by_title", title_contains="Board")
        result = await agent.call("browser_session", action="snapshot")
        full = assert_lean(result)
        card = next(ln for ln in records(full, "lines") if ln.get("name") == "Fix invoice 17")
        assert card["role"] == "clickable" and "draggable" in card.get("states", []), card
        assert 'clickable "Fix invoice 17" draggable' in result.content[0].text
        card_uid, lane_uid = uid_of(full, "clickable", "Fix invoice 17"), uid_of(full, "clickable", "Done")
        await interact(agent, "drag", from_uid=card_uid, to_uid=lane_uid)
        assert await out(agent) == "dropped:c17;"
