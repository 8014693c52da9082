"""Snapshot, uid actions, wait_for and dialogs through the SDK's real client on the CLI's server.

The internal browser (launched by the server on the first navigate) loads the pages of
``tests/pages/snapshot``; every answer is read the way an agent would: text lines with
uids, then ``structuredContent``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from httpserver import Reply
from lean_util import answer_text, records
from mcp.client import Client

from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings

UID = r"\[uid=(\d+)\]"


@pytest.fixture
def save_api(http_server):
    http_server.route("/snapshot/api/save", Reply(422, '{"error": "Provincia obbligatoria"}', "application/json"))
    return http_server


async def session(client: Client, action: str, **args):
    result = await client.call_tool("browser_session", {"action": action, **args})
    return result, result.structured_content or {}


async def interact(client: Client, action: str, **args):
    result = await client.call_tool("browser_interact", {"action": action, **args})
    return result, result.structured_content or {}


def uid_of(text: str, pattern: str) -> int:
    match = re.search(UID + " " + pattern, text)
    assert match, f"no line {pattern!r} in:\n{text}"
    return int(match.group(1))


async def snap(client: Client, **args) -> tuple[str, dict]:
    result, sc = await session(client, "snapshot", **args)
    assert not result.is_error, sc
    return answer_text(result), sc


async def test_seed_form_fill_select_and_click_save(client, save_api):
    result, sc = await session(client, "navigate", url=save_api.url("/snapshot/form.html"))
    assert not result.is_error, sc
    text, sc = await snap(client)
    assert text.splitlines()[0] == "Page: Modifica cliente"
    ragione = uid_of(text, r'textbox "Ragione sociale" value="ACME SRL"')
    provincia = uid_of(text, r'combobox "Provincia" value=""')
    salva = uid_of(text, r'button "Salva"')
    uid_of(text, r'alert "Provincia obbligatoria"')
    lines = {line["uid"]: line for line in records(sc, "lines") if line.get("uid")}
    assert lines[provincia]["role"] == "combobox" and lines[provincia]["value"] == ""
    assert len(lines) == 4 and sc["columns"] == ["role", "name", "uid"]

    result, sc = await interact(client, "fill_uid", uid=provincia, value="MI")
    assert not result.is_error, sc
    text, _ = await snap(client)
    assert uid_of(text, r'combobox "Provincia" value="MI"') == provincia  # same node, same uid
    assert uid_of(text, r'textbox "Ragione sociale"') == ragione

    result, sc = await interact(client, "fill_uid", uid=ragione, value="ACME SPA")
    assert not result.is_error, sc
    result, sc = await interact(client, "click_uid", uid=salva)
    assert not result.is_error, sc
    posted = [r for r in records(sc["followed"], "requests") if r["url"].endswith("/snapshot/api/save")]
    assert posted and posted[0]["method"] == "POST" and posted[0]["status"] == 422, sc
    assert "POST" in answer_text(result) and "/snapshot/api/save" in answer_text(result)
    # the network store has it too, with the filled values in the body
    result, sc = await session(client, "network_list", url_contains="/snapshot/api/save")
    assert len(records(sc)) == 1 and records(sc)[0]["status"] == 422
    body = next(r for r in save_api.requests if r.path == "/snapshot/api/save").body.decode()
    assert "provincia=MI" in body and "ACME+SPA" in body

    # diff: what the click did
    result, sc = await session(client, "snapshot", diff=True)
    assert not result.is_error, sc
    assert any("Errore 422" in after for _before, after in sc["changed"]), sc


async def test_hover_reveals_tooltip_and_enter_submits(client, http_server):
    await session(client, "navigate", url=http_server.url("/snapshot/actions.html"))
    text, _ = await snap(client)
    assert "tooltip" not in text
    aiuto = uid_of(text, r'button "Aiuto"')
    result, sc = await interact(client, "hover_uid", uid=aiuto)
    assert not result.is_error, sc
    text, _ = await snap(client)
    assert re.search(UID + r' tooltip "Compila tutti i campi obbligatori"', text), text

    cerca = uid_of(text, r'textbox "Cerca"')
    await interact(client, "fill_uid", uid=cerca, value="viti")
    result, sc = await interact(client, "press_uid", uid=cerca, key="Enter")
    assert not result.is_error, sc
    assert "navigation" in sc["followed"] and "done.html?q=viti" in sc["followed"]["navigation"]["to"], sc
    result, sc = await session(client, "wait_for", url_matches=r"done\.html\?q=viti", text="Risultati della ricerca")
    assert not result.is_error, sc
    text, _ = await snap(client)
    assert text.splitlines()[0] == "Page: Risultati"

    # the uid from before the navigation is refused, never applied to another element
    result, sc = await interact(client, "click_uid", uid=aiuto)
    assert result.is_error and sc["code"] == "STALE_UID", sc
    assert "snapshot" in sc["hint"]
    result, sc = await interact(client, "click_uid", uid=10**9)
    assert result.is_error and sc["code"] == "STALE_UID"


async def test_actionability_checks_apply_and_leave_no_trace(client, http_server):
    await session(client, "navigate", url=http_server.url("/snapshot/actions.html"))
    text, _ = await snap(client)
    bloccato = uid_of(text, r'button "Bloccato" disabled')
    result, sc = await interact(client, "click_uid", uid=bloccato, timeout_ms=300)
    assert result.is_error and sc["code"] == "ELEMENT_NOT_INTERACTABLE", sc
    text, _ = await snap(client)
    assert "non doveva" not in text
    expression = "'tagged:' + document.querySelectorAll('[data-mcp-uid]').length"
    result, sc = await session(client, "evaluate_js", expression=expression)
    assert "tagged:0" in answer_text(result), sc
    assert uid_of(text, r'button "Bloccato" disabled') == bloccato  # the failed call changed nothing


async def test_iframe_inputs_are_fillable(client, http_server):
    await session(client, "navigate", url=http_server.url("/snapshot/mixed.html"))
    text, sc = await snap(client)
    via = uid_of(text, r'textbox "Via" value=""')
    rows = records(sc, "lines")
    at = next(i for i, line in enumerate(rows) if line.get("uid") == via)
    frame = next(line for line in reversed(rows[:at]) if line["role"] == "frame")  # the header above it
    assert "f1" in frame["name"], frame
    result, sc = await interact(client, "fill_uid", uid=via, value="Via Roma 1")
    assert not result.is_error, sc
    text, _ = await snap(client, frame="f1")
    assert uid_of(text, r'textbox "Via" value="Via Roma 1"') == via
    attach = uid_of(text, r'button "Conferma"')
    result, sc = await interact(client, "click_uid", uid=attach)
    assert not result.is_error, sc
    # no temporary attribute is left behind
    result, sc = await session(
        client,
        "evaluate_js",
        expression="document.querySelector('iframe').contentDocument.querySelectorAll('[data-mcp-uid]').length",
    )
    assert not result.is_error and "0" in answer_text(result), sc


async def test_alert_and_confirm_are_handled(client, http_server):
    await session(client, "navigate", url=http_server.url("/snapshot/actions.html"))
    text, _ = await snap(client)
    result, sc = await session(client, "handle_dialog")
    assert result.is_error and sc["code"] == "NO_DIALOG"
    avvisa = uid_of(text, r'button "Avvisa"')
    result, sc = await interact(client, "click_uid", uid=avvisa)
    assert not result.is_error, sc
    assert sc["followed"]["dialog"] == {
        "type": "alert",
        "message": "Salvato!",
        "defaultPrompt": "",
        "url": http_server.url("/snapshot/actions.html"),
    }
    result, sc = await session(client, "snapshot")
    assert result.is_error and sc["code"] == "DIALOG_OPEN", sc
    result, sc = await session(client, "handle_dialog", dialog_action="accept")
    assert not result.is_error, sc
    assert sc["dialog"]["message"] == "Salvato!"
    text, _ = await snap(client)
    assert 'text "dopo alert"' in text

    elimina = uid_of(text, r'button "Elimina"')
    result, sc = await interact(client, "click_uid", uid=elimina)
    assert sc["followed"]["dialog"]["type"] == "confirm"
    result, sc = await session(client, "handle_dialog", dialog_action="dismiss")
    assert not result.is_error, sc
    text, _ = await snap(client)
    assert 'text "annullato"' in text
    result, sc = await session(client, "handle_dialog")
    assert result.is_error and sc["code"] == "NO_DIALOG"


async def test_wait_for_conditions(client, http_server):
    await session(client, "navigate", url=http_server.url("/snapshot/actions.html"))
    text, _ = await snap(client)
    result, sc = await session(client, "wait_for")
    assert result.is_error and sc["code"] == "INVALID_ARGUMENT"
    result, sc = await session(client, "wait_for", text="pronto", timeout_ms=300)
    assert result.is_error and sc["code"] == "TIMEOUT"
    await interact(client, "click_uid", uid=uid_of(text, r'button "Tardi"'))
    result, sc = await session(client, "wait_for", text="pronto", timeout_ms=5000)
    assert not result.is_error, sc
    result, sc = await session(client, "wait_for", text_gone="pronto", timeout_ms=200)
    assert result.is_error and sc["code"] == "TIMEOUT"
    result, sc = await session(client, "wait_for", network_idle=True, idle_ms=200)
    assert not result.is_error, sc
    result, sc = await session(client, "wait_for", predicate="document.title === 'Azioni'")
    assert not result.is_error, sc


async def test_wait_for_predicate_honours_evaluate_disabled(artifacts_dir: Path, http_server):
    manager, server = build_app(Settings(artifact_dir=str(artifacts_dir), evaluate_enabled=False))
    try:
        async with Client(server) as client:
            await session(client, "navigate", url=http_server.url("/snapshot/actions.html"))
            result, sc = await session(client, "wait_for", predicate="true")
            assert result.is_error and sc["code"] == "EVALUATE_DISABLED"
            result, sc = await session(client, "wait_for", text="Azioni")
            assert not result.is_error, sc
    finally:
        await manager.close()


async def test_uid_actions_on_the_users_chrome(client, chromium, save_api):
    """The cdp target: the tab was opened by the user; attach never navigates, uids still work."""
    import cdp_core

    url = save_api.url("/snapshot/form.html") + "?cdp=1"
    browser = await cdp_core.connect(chromium.http_url)
    tab = await browser.new_page(url)
    try:
        result, sc = await session(client, "attach_cdp", cdp_url=chromium.http_url)
        assert not result.is_error, sc
        result, sc = await session(client, "select_page_by_url", url_contains="?cdp=1")
        assert not result.is_error, sc
        text, _ = await snap(client)
        provincia = uid_of(text, r'combobox "Provincia" value=""')
        result, sc = await interact(client, "fill_uid", uid=provincia, value="RM")
        assert not result.is_error, sc
        text, _ = await snap(client)
        assert uid_of(text, r'combobox "Provincia" value="RM"') == provincia
        result, sc = await interact(client, "click_uid", uid=uid_of(text, r'button "Salva"'))
        assert not result.is_error, sc
        assert any(r["url"].endswith("/snapshot/api/save") for r in records(sc["followed"], "requests")), sc
        value = await tab.send("Runtime.evaluate", {"expression": "document.getElementById('prov').value"})
        assert value["result"]["value"] == "RM"  # the user's tab itself changed, nothing else
    finally:
        await session(client, "detach_cdp")
        await browser.close_target(tab.target_info.get("targetId", ""))
        await browser.close()
