"""Snapshots from cdp_core directly, against the real Chromium: lines, frames, uids, budgets."""

from __future__ import annotations

import re

import pytest
from httpserver import Reply
from snapshot_helpers import big_page, load, open_tab

from cdp_core.recorders.accessibility import (
    SelectorNotFound,
    SnapshotOptions,
    resolve_uid,
    take_snapshot,
)
from cdp_core.recorders.accessibility.format import diff_snapshots
from cdp_core.recorders.uids import StaleUid, UidRegistry

UID = r"\[uid=(\d+)\]"


def uid_of(text: str, pattern: str) -> int:
    match = re.search(UID + " " + pattern, text)
    assert match, f"no line {pattern!r} in:\n{text}"
    return int(match.group(1))


async def test_seed_form_reads_like_the_example(chromium, http_server):
    async with open_tab(chromium) as (_, page):
        await load(page, http_server.url("/snapshot/form.html"))
        snap = await take_snapshot(page, UidRegistry())
    text = snap.text()
    lines = text.splitlines()
    assert lines[0] == "Page: Modifica cliente"
    assert lines[1] == "URL: " + http_server.url("/snapshot/form.html")
    body = [line for line in lines[2:] if not line.startswith("  options:")]
    expected = [
        r'textbox "Ragione sociale" value="ACME SRL"',
        r'combobox "Provincia" value=""',
        r'button "Salva"',
        r'alert "Provincia obbligatoria"',
    ]
    assert len(body) == len(expected), text
    for line, pattern in zip(body, expected, strict=True):
        assert re.fullmatch(UID + " " + pattern, line), (line, pattern)
    uids = [int(re.match(UID, line).group(1)) for line in body]
    assert len(set(uids)) == 4
    # the combobox lists its options (bounded) and the structured lines carry the same facts
    assert '"MI"' in text and '"RM"' in text
    combo = next(line for line in snap.lines if line.role == "combobox")
    assert combo.value == "" and combo.options_total == 4 and [o["value"] for o in combo.options][1] == "MI"
    assert snap.stats()["uids"] == 4 and snap.stats()["interactive"] == 3


async def test_states_text_errors_and_frames(chromium, http_server):
    async with open_tab(chromium) as (_, page):
        await load(page, http_server.url("/snapshot/mixed.html"))
        registry = UidRegistry()
        snap = await take_snapshot(page, registry, SnapshotOptions(include_urls=True))
        text = snap.text()
        assert re.search(UID + r' checkbox "Attivo" checked', text)
        assert re.search(UID + r' textbox "Email" value="" required invalid', text)
        assert re.search(UID + r' textbox "Codice" value="X1" disabled', text)
        assert re.search(UID + r' error "Email non valida"', text)
        assert re.search(UID + r' error "Campo errato"', text)  # <span class=error>, not in the AX tree
        assert re.search(UID + r' clickable "Apri scheda"', text)  # <div onclick>
        assert re.search(UID + r' textbox "Password" value="•+"', text) and "hunter2" not in text
        assert re.search(UID + r' date "Consegna" value="2024-01-02"\n', text)  # no shadow-DOM spinbuttons
        assert re.search(UID + r' disclosure "Altro"', text) and "dentro" not in text
        assert re.search(UID + r' link "Dettagli" href="http://127\.0\.0\.1:\d+/a\.html"', text)
        assert 'text "Benvenuto Mario, hai 3 ordini."' in text  # inline runs glued back together
        assert "Nascosto" not in text  # display:none alert stays out
        assert re.search(UID + r' row "Viti \| 3 \| Modifica"', text)
        # the iframe is an indented section whose inputs have uids of their own
        frame_line = next(line for line in text.splitlines() if line.startswith("Frame f1"))
        assert "inner.html" in frame_line
        via = uid_of(text, r'textbox "Via" value=""')
        assert re.search(r"\n  \[uid=\d+\] textbox \"Via\"", text)
        line = next(line for line in snap.lines if line.uid == via)
        assert line.frame == "f1"
        resolved = await resolve_uid(registry, via)
        try:
            assert await resolved.call("function() { return this.id + '@' + document.title; }") == "via@Indirizzo"
        finally:
            await resolved.release()
        # frame option: only that frame
        only = await take_snapshot(page, registry, SnapshotOptions(frame="f1"))
        assert {line.frame for line in only.lines} == {"f1"}
        assert uid_of(only.text(), r'textbox "Via"') == via  # same node, same uid


async def test_options_interactive_only_selector_budget(chromium, http_server):
    async with open_tab(chromium) as (_, page):
        await load(page, http_server.url("/snapshot/mixed.html"))
        registry = UidRegistry()
        inter = await take_snapshot(page, registry, SnapshotOptions(interactive_only=True))
        roles = {line.role for line in inter.lines}
        assert "text" not in roles
        # a row stays only as the context of a control it holds (of the table's two, the one with the button)
        rows = [i for i, line in enumerate(inter.lines) if line.role == "row"]
        assert len(rows) == 1 and inter.lines[rows[0] + 1].role == "button", inter.text()
        assert inter.lines[rows[0] + 1].depth == inter.lines[rows[0]].depth + 1
        assert {"heading", "error", "textbox", "link"} <= roles  # headings and errors always appear
        sub = await take_snapshot(page, registry, SnapshotOptions(selector="table"))
        assert [line.role for line in sub.lines if line.uid] == ["row", "row", "button"]
        with pytest.raises(SelectorNotFound):
            await take_snapshot(page, registry, SnapshotOptions(selector="#nothing-here"))
        cut = await take_snapshot(page, registry, SnapshotOptions(max_lines=3))
        assert cut.omitted > 0 and "more lines cut by max_lines=3" in cut.text()
        # errors past the budget are kept
        assert any(line.role == "error" for line in cut.lines)
        shallow = await take_snapshot(page, registry, SnapshotOptions(max_depth=0))
        assert all(line.depth == 0 or line.essential for line in shallow.lines)


async def test_generated_5000_element_page(chromium, http_server):
    html = big_page(5000)
    http_server.route("/snapshot/big.html", Reply(200, html))
    async with open_tab(chromium) as (_, page):
        await load(page, http_server.url("/snapshot/big.html"))
        count = await page.send("Runtime.evaluate", {"expression": "document.querySelectorAll('*').length"})
        assert count["result"]["value"] >= 5000
        buttons = html.count("<button")
        registry = UidRegistry()
        snap = await take_snapshot(page, registry)
        assert sum(1 for line in snap.lines if line.role == "button") == buttons
        assert snap.stats()["uids"] == len(registry)
        bounded = await take_snapshot(page, registry, SnapshotOptions(max_chars=4000))
        assert bounded.stats()["chars"] < 4000 + 300 and bounded.omitted > 0


async def test_uids_stay_stable_across_a_partial_rerender(chromium, http_server):
    async with open_tab(chromium) as (_, page):
        await load(page, http_server.url("/snapshot/rerender.html"))
        registry = UidRegistry()
        first = (await take_snapshot(page, registry)).text()
        nome, citta, go = (uid_of(first, p) for p in ('textbox "Nome"', 'textbox "Citta"', 'button "Aggiorna"'))
        again = (await take_snapshot(page, registry)).text()
        assert first == again  # nothing changed: same lines, same uids
        await page.send("Runtime.evaluate", {"expression": "rerender()"})
        after_snap = await take_snapshot(page, registry)
        after = after_snap.text()
        assert uid_of(after, 'textbox "Nome"') == nome
        assert uid_of(after, 'button "Aggiorna"') == go
        new_citta = uid_of(after, 'textbox "Citta" value="Roma"')
        assert new_citta != citta and new_citta > go
        with pytest.raises(StaleUid, match="removed"):
            await resolve_uid(registry, citta)
        diff = diff_snapshots(None, after_snap)
        assert diff["baseline"] is False
        resolved = await resolve_uid(registry, new_citta)
        try:
            assert await resolved.call("function() { return this.value; }") == "Roma"
        finally:
            await resolved.release()


async def test_diff_lists_what_changed(chromium, http_server):
    async with open_tab(chromium) as (_, page):
        await load(page, http_server.url("/snapshot/rerender.html"))
        registry = UidRegistry()
        before = await take_snapshot(page, registry)
        await page.send("Runtime.evaluate", {"expression": "document.getElementById('nome').value = 'Luigi'"})
        await page.send("Runtime.evaluate", {"expression": "rerender()"})
        after = await take_snapshot(page, registry)
        diff = diff_snapshots(before, after)
        assert any('"Mario"' in c["before"] and '"Luigi"' in c["after"] for c in diff["changed"])
        assert any('textbox "Citta" value="Roma"' in line for line in diff["added"])
        assert any('textbox "Citta" value="Milano"' in line for line in diff["removed"])
        assert any('error "Citta non servita"' in line for line in diff["added"])
        assert not any("Aggiorna" in line for line in diff["added"] + diff["removed"])


async def test_uid_from_before_a_navigation_is_stale(chromium, http_server):
    async with open_tab(chromium) as (_, page):
        await load(page, http_server.url("/snapshot/form.html"))
        registry = UidRegistry()
        salva = uid_of((await take_snapshot(page, registry)).text(), 'button "Salva"')
        await load(page, http_server.url("/snapshot/form.html"))  # same URL, new document
        with pytest.raises(StaleUid, match="old document"):
            await resolve_uid(registry, salva)
        fresh = (await take_snapshot(page, registry)).text()
        new_salva = uid_of(fresh, 'button "Salva"')
        assert new_salva != salva  # never reused across documents
        with pytest.raises(StaleUid):
            await resolve_uid(registry, salva)
        with pytest.raises(StaleUid, match="no snapshot"):
            registry.lookup(10**9)
        (await resolve_uid(registry, new_salva)).entry.backend_node_id  # noqa: B018


async def test_out_of_process_iframe_through_its_own_session(http_server):
    """A cross-site iframe lives in another renderer: read through its auto-attached session."""
    from cdp_core import ChromiumProcess

    # other.test resolves to 127.0.0.1 inside this browser only: a second site on loopback.
    chrome = await ChromiumProcess.astart(
        extra_args=["--host-resolver-rules=MAP other.test 127.0.0.1", "--site-per-process"]
    )
    inner = f"http://other.test:{http_server.port}/snapshot/inner.html"
    http_server.route("/snapshot/outer.html", Reply(200, f'<title>Outer</title><h1>Fuori</h1><iframe src="{inner}">'))
    try:
        async with open_tab(chrome) as (_, page):
            await page.send(
                "Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True}
            )
            async with page.events("Target.attachedToTarget") as attached:
                await load(page, http_server.url("/snapshot/outer.html"))
                async for ev in attached:
                    if ev.params["targetInfo"]["type"] == "iframe":
                        break
            registry = UidRegistry()
            text = (await take_snapshot(page, registry)).text()
            assert re.search(r'\nFrame f1 "Indirizzo" http://other\.test:\d+/snapshot/inner\.html:\n', text), text
            cap = uid_of(text, r'textbox "CAP" value="20100"')
            resolved = await resolve_uid(registry, cap)
            try:
                assert resolved.session is not page  # the OOPIF's own session
                assert await resolved.call("function() { return this.id + '@' + location.host; }") == (
                    f"cap@other.test:{http_server.port}"
                )
            finally:
                await resolved.release()
    finally:
        chrome.stop()
