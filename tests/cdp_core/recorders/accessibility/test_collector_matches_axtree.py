"""The in-page snapshot collector against Chrome's own accessibility tree, on a real Chromium.

The collector computes roles and accessible names itself (in our isolated world); Chrome's
``Accessibility.getFullAXTree`` is the reference: on the benchmark pages, the seed form, a
Django-admin change form and a table page, every element the collector reports must have
Chrome's role and name. Then: both sources give the same element lines, uids from the
collector resolve to the right element and go stale when it leaves, the page's own scripts
cannot disturb the collector, a frame the collector cannot read falls back to the tree.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys

import paths
import pytest
from httpserver import Reply
from snapshot_helpers import big_page, load, open_tab

from cdp_core.recorders.accessibility import SnapshotOptions, resolve_uid, take_snapshot
from cdp_core.recorders.accessibility import collector as snapshot_collector
from cdp_core.recorders.accessibility.collector import element_backend, isolated_world
from cdp_core.recorders.uids import StaleUid, UidRegistry

sys.path.insert(0, str(paths.ROOT))

from bench.pages import FORM_HTML, big_html  # noqa: E402

UID = r"\[uid=(\d+)\]"
PAGES = {
    "bench form": FORM_HTML,
    "bench 5000 elements": big_html(),
    "legacy 5000 elements": big_page(5000),
}
FILES = ["form.html", "admin_form.html", "table.html", "mixed.html", "actions.html"]


def norm(text: str) -> str:
    return " ".join((text or "").split())


async def page_url(http_server, key: str) -> str:
    if key in PAGES:
        path = "/collector/" + re.sub(r"\W+", "-", key) + ".html"
        http_server.route(path, Reply(200, PAGES[key]))
        return http_server.url(path)
    return http_server.url("/snapshot/" + key)


async def collector_elements(page) -> list[tuple[dict, int]]:
    """Every element line of the collector (debug: its role and accessible name) with its backendNodeId."""
    tree = (await page.send("Page.getFrameTree"))["frameTree"]["frame"]
    registry = UidRegistry()
    frame = registry.update_frame(tree["id"], tree["loaderId"], url=tree["url"], name="", session=page, parent_id=None)
    context_id = await isolated_world(frame)
    params = json.dumps({"debug": True, "maxOptions": 12})
    result = await page.send(
        "Runtime.evaluate",
        {"expression": f"__mcpSnapshot.snapshot({params})", "contextId": context_id, "returnByValue": True},
    )
    lines = [line for line in json.loads(result["result"]["value"])["lines"] if "ax" in line]
    backends: list[int | None] = []
    for i in range(0, len(lines), 200):  # bounded concurrency
        chunk = lines[i : i + 200]
        backends += await asyncio.gather(*(element_backend(frame, context_id, line["k"]) for line in chunk))
    assert all(b is not None for b in backends)
    return list(zip(lines, backends, strict=True))  # type: ignore[arg-type]


@pytest.mark.parametrize("key", [*PAGES, *FILES])
async def test_role_and_name_of_every_reported_element_equal_chromes(chromium, http_server, key):
    async with open_tab(chromium) as (_, page):
        await load(page, await page_url(http_server, key))
        elements = await collector_elements(page)
        ax = (await page.send("Accessibility.getFullAXTree"))["nodes"]
    by_backend = {n["backendDOMNodeId"]: n for n in ax if "backendDOMNodeId" in n}
    compared = 0
    mismatches = []
    for line, backend in elements:
        role, name = line["ax"]
        node = by_backend.get(backend)
        if node is None or node.get("ignored"):
            # Chrome leaves plain containers out; we report them only as error messages or
            # legacy clickables (<span class="error">, <div onclick>), never as a named control.
            assert role in ("generic", "none") and line["r"] in ("error", "alert", "clickable"), line
            continue
        compared += 1
        chrome_role = node["role"]["value"]
        chrome_name = norm((node.get("name") or {}).get("value", ""))
        if (role, norm(name)) != (chrome_role, chrome_name):
            mismatches.append(f"ours {role} {name!r} / chrome {chrome_role} {chrome_name!r} ({line['r']})")
    assert not mismatches, "\n".join(mismatches)
    minimum = {"bench 5000 elements": 3000, "legacy 5000 elements": 1800, "bench form": 8}.get(key, 4)
    assert compared >= minimum, compared


#: What the collector adds from the DOM to a control with no accessible name (its form field
#: name): no accessibility property, so Chrome's tree has no counterpart to compare it with.
FIELD = re.compile(r'^(\w+) field="(?:[^"\\]|\\.)*"')


def element_lines(text: str) -> list[str]:
    """Lines with a uid, without the uid; names of lines whose name is gathered text are left out."""
    out = []
    for line in text.splitlines():
        if "[uid=" not in line:
            continue
        line = FIELD.sub(r"\1", re.sub(UID + " ", "", line).strip())
        # what an invalid field says is ours: Chrome's tree carries no validation message
        line = re.sub(r' error="(?:[^"\\]|\\.)*"', "", line)
        role = line.split(" ", 1)[0]
        if role in ("row", "error", "alert", "status"):
            line = role + re.sub(r'^\w+ "(?:[^"\\]|\\.)*"', "", line)
        out.append(line)
    return out


@pytest.mark.parametrize(
    ("key", "interactive_only"),
    [
        ("bench form", False),
        ("admin_form.html", False),
        ("table.html", False),
        ("table.html", True),  # rows holding a control stay, as their context; the others go
        ("mixed.html", False),
        ("form.html", False),
    ],
)
async def test_collector_and_accessibility_tree_give_the_same_element_lines(
    chromium, http_server, key, interactive_only
):
    async with open_tab(chromium) as (_, page):
        await load(page, await page_url(http_server, key))
        options = {"include_urls": True, "interactive_only": interactive_only}
        ours = await take_snapshot(page, UidRegistry(), SnapshotOptions(**options))
        chrome = await take_snapshot(page, UidRegistry(), SnapshotOptions(**options, engine="ax"))
    assert ours.notes == chrome.notes == []
    assert element_lines(ours.text()) == element_lines(chrome.text())
    assert len(element_lines(ours.text())) >= 4
    assert all(not line.name for line in ours.lines if line.field), "a field name shown beside an accessible name"


async def test_in_page_line_cap_counts_what_it_leaves_out(chromium, http_server):
    http_server.route("/collector/cap.html", Reply(200, big_html()))
    async with open_tab(chromium) as (_, page):
        await load(page, http_server.url("/collector/cap.html"))
        ours = await take_snapshot(page, UidRegistry(), SnapshotOptions(max_lines=50))
        chrome = await take_snapshot(page, UidRegistry(), SnapshotOptions(max_lines=50, engine="ax"))
    assert len(ours.lines) == len(chrome.lines) == 50
    assert ours.omitted == chrome.omitted > 2900 and ours.cut_by == chrome.cut_by == "max_lines=50"
    assert element_lines(ours.text()) == element_lines(chrome.text())


async def test_collector_uids_resolve_and_go_stale(chromium, http_server):
    http_server.route(
        "/collector/live.html",
        Reply(
            200,
            '<title>Live</title><button id="a">Uno</button><button id="b">Due</button>'
            '<div id="host"></div><script>document.getElementById("host").attachShadow({mode: "open"})'
            '.innerHTML = "<button id=s>Ombra</button>";</script>',
        ),
    )
    async with open_tab(chromium) as (_, page):
        await load(page, http_server.url("/collector/live.html"))
        registry = UidRegistry()
        text = (await take_snapshot(page, registry)).text()
        uno, due, ombra = (int(re.search(UID + f' button "{n}"', text).group(1)) for n in ("Uno", "Due", "Ombra"))
        resolved = await resolve_uid(registry, due)
        try:
            assert await resolved.call("function() { return this.id; }") == "b"
            assert resolved.entry.backend_node_id is not None
        finally:
            await resolved.release()
        shadow = await resolve_uid(registry, ombra)  # open shadow roots are walked too
        try:
            assert await shadow.call("function() { return this.id; }") == "s"
        finally:
            await shadow.release()
        # the accessibility tree knows the node resolved above under the same uid
        again = (await take_snapshot(page, registry, SnapshotOptions(engine="ax"))).text()
        assert re.search(rf'\[uid={due}\] button "Due"', again), again
        await page.send("Runtime.evaluate", {"expression": "document.getElementById('b').remove()"})
        with pytest.raises(StaleUid, match="removed"):
            await resolve_uid(registry, due)
        after = (await take_snapshot(page, registry)).text()
        assert f"[uid={uno}] button" in after and "Due" not in after
        await load(page, http_server.url("/collector/live.html"))
        with pytest.raises(StaleUid, match="old document"):
            await resolve_uid(registry, uno)


async def test_a_repeated_snapshot_reads_the_document_as_it_is_now(chromium, http_server, monkeypatch):
    """The main frame's read is sent with the frame tree request (one round trip): never a stale answer."""
    used: list[bool] = []
    take = snapshot_collector.Prefetch.take

    def spy(self, frame, expression):
        task = take(self, frame, expression)
        used.append(task is not None)
        return task

    monkeypatch.setattr(snapshot_collector.Prefetch, "take", spy)
    http_server.route("/collector/one.html", Reply(200, "<title>Uno</title><button>Uno</button>"))
    http_server.route("/collector/two.html", Reply(200, "<title>Due</title><button>Altro</button>"))
    async with open_tab(chromium) as (_, page):
        await load(page, http_server.url("/collector/one.html"))
        registry = UidRegistry()
        first = (await take_snapshot(page, registry)).text()
        assert used == []  # no world yet: nothing to send early
        await page.send(
            "Runtime.evaluate",
            {
                "expression": "document.body.append(Object.assign("
                "document.createElement('button'), {textContent: 'Nuovo'}))"
            },
        )
        second = (await take_snapshot(page, registry)).text()
        assert used == [True]
        uno = re.search(UID + ' button "Uno"', first).group(1)
        assert re.search(UID + ' button "Uno"', second).group(1) == uno and 'button "Nuovo"' in second
        await load(page, http_server.url("/collector/two.html"))  # the early read went to the old document
        third = await take_snapshot(page, registry)
        assert used == [True, False]
        assert 'button "Altro"' in third.text() and "Uno" not in third.text() and third.title == "Due"
        with pytest.raises(StaleUid, match="old document"):
            await resolve_uid(registry, int(uno))
        fourth = (await take_snapshot(page, registry, SnapshotOptions(selector="button"))).text()
        assert used == [True, False, True] and 'button "Altro"' in fourth


HOSTILE = """<!doctype html><title>Ostile</title>
<label for="q">Cerca</label><input id="q" value="abc"><button>Vai</button>
<ul class="errorlist"><li>Campo obbligatorio</li></ul>
<script>
  // what legacy pages do to the main world: the collector lives in another one
  Array.prototype.map = function () { return ["rotto"]; };
  Array.prototype.push = function () { return 0; };
  JSON.stringify = function () { return '"rotto"'; };
  Object.keys = function () { return []; };
  Element.prototype.getAttribute = function () { return "rotto"; };
  window.getComputedStyle = function () { return {display: "none"}; };
  Document.prototype.querySelector = function () { return null; };
</script>"""


async def test_page_scripts_and_csp_cannot_disturb_the_collector(chromium, http_server):
    http_server.route(
        "/collector/hostile.html",
        Reply(
            200,
            HOSTILE,
            headers={"Content-Security-Policy": "script-src 'unsafe-inline'; require-trusted-types-for 'script'"},
        ),
    )
    async with open_tab(chromium) as (_, page):
        await load(page, http_server.url("/collector/hostile.html"))
        snap = await take_snapshot(page, UidRegistry(), SnapshotOptions(selector="body"))
    text = snap.text()
    assert snap.notes == []
    assert re.search(UID + ' textbox "Cerca" value="abc"', text), text
    assert re.search(UID + ' button "Vai"', text) and re.search(UID + ' error "Campo obbligatorio"', text)


async def test_a_frame_the_collector_cannot_read_comes_from_the_accessibility_tree(chromium, http_server, monkeypatch):
    monkeypatch.setattr(snapshot_collector, "_SOURCE", "throw new Error('collector broken')")
    async with open_tab(chromium) as (_, page):
        await load(page, http_server.url("/snapshot/form.html"))
        snap = await take_snapshot(page, UidRegistry())
    text = snap.text()
    assert re.search(UID + ' textbox "Ragione sociale" value="ACME SRL"', text), text
    assert snap.notes == ["frame main read from Chrome's accessibility tree"]


async def test_snapshot_of_a_background_tab(chromium, http_server):
    import httpx

    async with open_tab(chromium) as (browser, page):
        await load(page, http_server.url("/snapshot/form.html"))
        other = await browser.new_page("about:blank")
        try:
            target = other.target_info["targetId"]
            async with httpx.AsyncClient(trust_env=False) as web:
                await web.put(f"{chromium.http_url}/json/activate/{target}")
            hidden = await page.send("Runtime.evaluate", {"expression": "document.visibilityState"})
            assert hidden["result"]["value"] == "hidden"
            text = (await take_snapshot(page, UidRegistry())).text()
        finally:
            await browser.close_target(target)
    assert re.search(UID + ' button "Salva"', text) and re.search(UID + ' alert "Provincia obbligatoria"', text)


CLOSED_SHADOW = """<!doctype html><title>Chiuso</title><button>Fuori</button><div id="host"></div>
<script>
  document.getElementById("host").attachShadow({mode: "closed"}).innerHTML = "<button>Dentro</button>";
</script>"""


async def test_closed_shadow_roots_need_the_accessibility_tree_engine(chromium, http_server, artifacts_dir):
    """Page scripts, and so the collector, cannot see into a closed shadow root; MCP_SNAPSHOT_ENGINE=ax can."""
    from mcp.client import Client

    from mcp_server.cli.main import build_app
    from mcp_server.server.settings import Settings

    http_server.route("/collector/closed.html", Reply(200, CLOSED_SHADOW))
    texts = {}
    for engine in ("page", "ax"):
        manager, server = build_app(Settings(artifact_dir=str(artifacts_dir), snapshot_engine=engine))
        try:
            async with Client(server) as client:
                url = http_server.url("/collector/closed.html")
                nav = await client.call_tool("browser_session", {"action": "navigate", "url": url})
                assert not nav.is_error
                snap = await client.call_tool("browser_session", {"action": "snapshot"})
                texts[engine] = snap.content[0].text
        finally:
            await manager.close()
    assert 'button "Fuori"' in texts["page"] and "Dentro" not in texts["page"]
    assert 'button "Fuori"' in texts["ax"] and 'button "Dentro"' in texts["ax"]


async def test_what_leaves_the_page_is_bounded_whatever_the_page_holds(chromium, http_server):
    """A 3 MB text node, a 1 MB aria-label, a 1 MB title and a long URL: each field leaves the page cut.

    The server shows a few hundred characters of each; before the bound the collector sent them
    whole and the server held several copies (a 60 MB page took it past 500 MiB).
    """
    big = "lorem ipsum dolor sit amet " * (3 * 1024 * 1024 // 27)
    html = (
        f"<title>{'T' * 1_000_000}</title><pre>{big}</pre>"
        f'<button aria-label="{"L" * 1_000_000}">x</button>'
        f"<select><option>{'O' * 1_000_000}</option></select>"
    )
    http_server.route("/collector/huge.html", Reply(200, html))
    async with open_tab(chromium) as (_, page):
        await load(page, http_server.url("/collector/huge.html") + "#" + "u" * 500_000)
        tree = (await page.send("Page.getFrameTree"))["frameTree"]["frame"]
        registry = UidRegistry()
        frame = registry.update_frame(
            tree["id"], tree["loaderId"], url=tree["url"], name="", session=page, parent_id=None
        )
        context_id = await isolated_world(frame)
        result = await page.send(
            "Runtime.evaluate",
            {
                "expression": '__mcpSnapshot.snapshot({"maxOptions": 12})',
                "contextId": context_id,
                "returnByValue": True,
            },
        )
        raw = result["result"]["value"]
        snap = await take_snapshot(page, UidRegistry(), SnapshotOptions())
    assert len(raw) < 40_000, len(raw)  # every field at most 2,000 characters
    out = json.loads(raw)
    assert out["title"].startswith("TTT") and out["title"].endswith("…") and out["url"].endswith("…")
    texts = [line["n"] for line in out["lines"] if line.get("r") == "text"]
    assert texts and texts[0].startswith("lorem ipsum") and texts[0].endswith("…")
    # What the user reads is the same as before: the text line, the button, the option, cut for display.
    shown = snap.text()
    assert "lorem ipsum" in shown and "LLLL" in shown and "OOOO" in shown
