"""Debugging with values through a real MCP client, in the user's Chrome, on a background tab.

The page runs an esbuild bundle (tests/pages/debug: ``build.sh`` rebuilds it; every local is
renamed to one letter, and the map's ``names`` carry the originals). The agent lists the
sources, reads a line, sets a logpoint at an original line (each value of the loop logged,
under the original names), a snapshot point (locals and the original call chain), captures an
uncaught exception's locals (the password redacted), caps a logpoint in a 20,000-iteration
loop (the loop finishes), and clears it all; a MessageChannel heartbeat in the page (timers
are throttled in hidden tabs, messages are not) keeps beating through all of it. Detaching
with a point set leaves the page running.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest
from background_tabs import agent_in_hidden_tab
from lean_util import assert_lean, records

import cdp_core
from cdp_core import ChromiumProcess

ORDER = "{cliente: 'Bianchi', limite: 1000, righe: [{prezzo: 2, quantita: 3}, {prezzo: 5, quantita: 1}]}"


async def entries(agent: Any, kind: str, want: int, timeout: float = 15.0) -> list[dict[str, Any]]:
    """The console entries of ``kind``, once at least ``want`` arrived."""
    with anyio.fail_after(timeout):
        while True:
            found = records(await agent.s("console_list", types=[kind], limit=500))
            if len(found) >= want:
                return found
            await asyncio.sleep(0.05)


async def get(agent: Any, entry_id: int) -> tuple[str, dict[str, Any]]:
    result = await agent.call("browser_session", action="console_get", id=entry_id)
    assert not result.is_error, result.content[0].text
    assert_lean(result)
    return result.content[0].text, result.structured_content["entry"]


async def lean(agent: Any, action: str, **args: Any) -> dict[str, Any]:
    """A debug action that must succeed, its two renderings equally lean."""
    result = await agent.call("browser_session", action=action, **args)
    assert not result.is_error, result.content[0].text
    return assert_lean(result)


async def test_values_in_a_background_tab_without_freezing_it(fresh_chromium, http_server, tmp_path):
    async with agent_in_hidden_tab(fresh_chromium, http_server, tmp_path, "/debug/index.html", "Ordini debug") as agent:
        # The heartbeat's own longest gap, before any point exists.
        await agent.js("ordini.avviaBattito()")
        await asyncio.sleep(1.0)
        baseline = await agent.js("ordini.fermaBattito()")
        assert baseline["ticks"] > 50, baseline
        await agent.js("ordini.avviaBattito()")

        listing = await lean(agent, "source_list")
        bundle = next(s for s in listing["scripts"] if s["url"].endswith("app.min.js"))
        assert any(s.endswith("src/ordini.js") for s in bundle["sources"]), bundle
        lines = await lean(agent, "source_get", source="ordini.js", line=14)
        assert lines["firstLine"] == 6 and "totale += totaleRiga" in lines["lines"][14 - 6], lines

        # A logpoint at an original line, written with the original names.
        set_log = await lean(agent, "debug_logpoint", source="ordini.js", line=14, expression="totale, riga.prezzo")
        assert set_log["point"]["at"].endswith("ordini.js:14"), set_log
        assert set_log["renamed"]["totale"] != "totale", set_log
        assert await agent.js(f"ordini.inviaOrdine({ORDER}).esito") == 11
        logged = await entries(agent, "logpoint", 2)
        assert [e["text"] for e in logged] == ["totale=0, riga.prezzo=2", "totale=6, riga.prezzo=5"], logged
        assert logged[0]["at"].startswith("src/ordini.js:14") or "ordini.js:14" in logged[0]["at"], logged[0]

        # A snapshot point: locals under their original names and the original call chain.
        # (its condition, in original names, lets only the order above 10 through)
        await lean(agent, "debug_snapshot", source="ordini.js", line=20, condition="totale > 10")
        small = "{cliente: 'Verdi', limite: 1000, righe: [{prezzo: 1, quantita: 1}]}"
        assert await agent.js(f"ordini.inviaOrdine({small}).esito") == 1
        assert await agent.js(f"ordini.inviaOrdine({ORDER}).esito") == 11
        snap = (await entries(agent, "snapshot", 1))[0]
        text, record = await get(agent, snap["id"])
        assert len(await entries(agent, "snapshot", 1)) == 1  # the small order did not stop there
        top = record["capture"]["frames"][0]
        assert top["function"] == "validaOrdine", record
        local = {k: v for s in top["scopes"] for k, v in s["vars"].items()}
        assert local["totale"] == "11" and local["password"] == "[redacted]", local
        assert "cliente" in local and "nome: 'Bianchi'" in local["cliente"], local
        assert record["stack"][0].startswith("validaOrdine (") and record["stack"][1].startswith("inviaOrdine ("), (
            record
        )
        locals_text = text.split("locals:", 1)[1]  # (the stack's code lines quote the source, literals included)
        assert "hunter2" not in locals_text and "totale=11" in locals_text and "validaOrdine" in text, text

        # A logpoint in a 20,000-iteration synchronous loop: capped in the page, the loop finishes.
        capped = await lean(agent, "debug_logpoint", source="ordini.js", line=26, expression="somma", max_hits=50)
        assert await agent.js("ordini.sommaLunga(20000)", timeout=30) == 199990000
        hits = [e for e in await entries(agent, "logpoint", 53) if e.get("text", "").startswith("somma")]
        assert len(hits) == 50 and hits[-1]["text"] == "somma = 1176", hits[-1]
        points = await lean(agent, "debug_list")
        row = next(p for p in points["points"] if p["id"] == capped["point"]["id"])
        assert row["capped"] and row["hits"] == 50, row

        # An uncaught exception carries its locals, the password redacted.
        await lean(agent, "debug_exceptions", mode="uncaught")
        await agent.js("ordini.inviaLimite()")
        with anyio.fail_after(20):
            while True:
                errors = records(await agent.s("console_list", types=["pageerror"]))
                if errors:
                    text, record = await get(agent, errors[-1]["id"])
                    if record.get("capture"):
                        break
                await asyncio.sleep(0.1)
        assert record["stack"][0].startswith("validaOrdine ("), record["stack"]  # the original name, minified "s"
        thrower = record["capture"]["frames"][0]
        local = {k: v for s in thrower["scopes"] for k, v in s["vars"].items()}
        assert thrower["function"] == "validaOrdine" and local["totale"] == "21", record
        assert local["password"] == "[redacted]" and "hunter2" not in text.split("locals:", 1)[1], text

        # A debugger; statement nobody here set is resumed and said.
        assert await agent.js("debugger; 7") == 7
        listed = await lean(agent, "debug_list")
        assert listed["foreignPauses"], listed

        cleared = await lean(agent, "debug_clear")
        assert cleared["removed"] == 3 and not cleared.get("debuggerOn"), cleared
        assert not (await lean(agent, "debug_list")).get("points")
        assert await agent.js("Object.keys(globalThis).filter(k => k.startsWith('__mcp')).length") == 0

        beat = await agent.js("ordini.fermaBattito()")
        # Still beating, and no gap beyond the baseline plus the capture watchdog's bound (2 s):
        # a pause left standing would have stopped it for the rest of the test.
        assert beat["ticks"] > 100, (baseline, beat)
        assert beat["gap"] < baseline["gap"] + 2000, (baseline, beat)


@pytest.mark.parametrize("let_go", ["detach_cdp", "server_shutdown", "attach_elsewhere"])
async def test_letting_go_with_a_point_set_leaves_the_page_as_it_was(fresh_chromium, http_server, tmp_path, let_go):
    """However the attachment ends (detach_cdp, the server stopping, attach_cdp to another Chrome),
    the page keeps no ``__mcpDebug_*`` binding and no point of ours fires."""
    other = ChromiumProcess.start() if let_go == "attach_elsewhere" else None
    try:
        async with agent_in_hidden_tab(
            fresh_chromium, http_server, tmp_path, "/debug/index.html", "Ordini debug"
        ) as agent:
            await lean(agent, "debug_logpoint", source="ordini.js", line=14, expression="totale")
            await lean(agent, "debug_snapshot", source="ordini.js", line=20)
            await lean(agent, "debug_exceptions", mode="all")
            bound = await agent.js("Object.keys(globalThis).filter(k => k.startsWith('__mcp')).length")
            assert bound > 0  # the binding is there while attached: the check below can fail
            if let_go == "detach_cdp":
                await agent.s("detach_cdp")
            elif other is not None:
                await agent.s("attach_cdp", cdp_url=other.http_url)
            # server_shutdown: leaving the block stops the server
    finally:
        if other is not None:
            other.stop()
    # The user's own look at the tab: the point's line and a debugger; statement run through.
    async with cdp_core.connect(fresh_chromium.http_url) as user:
        tab = next(t for t in await user.pages() if t["url"].endswith("/debug/index.html"))
        session = await user.attach(tab["targetId"])
        with anyio.fail_after(10):
            reply = await session.send(
                "Runtime.evaluate",
                {"expression": f"debugger; ordini.inviaOrdine({ORDER}).esito", "returnByValue": True},
            )
        assert reply["result"]["value"] == 11
        left = await session.send(
            "Runtime.evaluate",
            {"expression": "Object.keys(globalThis).filter(k => k.startsWith('__mcp'))", "returnByValue": True},
        )
        assert left["result"]["value"] == [], left


async def test_internal_browser_and_an_out_of_process_iframe(http_server, tmp_path):
    """The internal browser (launch target): the bundle runs in a cross-site iframe, its own session."""
    from faults_util import serving
    from httpserver import Reply

    frame_src = "http://localhost:' + location.port + '/debug/index.html"
    http_server.route(
        "/debug/framed.html",
        Reply(
            200,
            "<!doctype html><title>Framed ordini</title><script>const f = document.createElement('iframe');"
            f"f.src = '{frame_src}'; document.documentElement.appendChild(f);</script>",
        ),
    )
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/debug/framed.html"))
        with anyio.fail_after(15):
            while "localhost" not in str(await agent.s("list_frames")):
                await asyncio.sleep(0.1)
        page = await agent.manager.current_page()
        assert any(r.kind == "iframe" for r in page.sessions)  # out of process: a session of its own
        listing = await lean(agent, "source_list")
        assert any(s["url"].startswith("http://localhost:") for s in listing["scripts"]), listing
        await lean(agent, "debug_logpoint", source="ordini.js", line=26, expression="indice", max_hits=3)
        await agent.s("select_frame", url_contains="localhost")
        assert await agent.js("ordini.sommaLunga(5)") == 10
        logged = await entries(agent, "logpoint", 4)
        assert [e["text"] for e in logged] == ["indice = 0", "indice = 1", "indice = 2", logged[3]["text"]], logged
        assert "max_hits=3" in logged[3]["text"], logged
        # Mode "all" in a page that throws and catches in a loop: captures stop at their budget.
        await lean(agent, "debug_exceptions", mode="all")
        thrown = (
            "(() => { let n = 0; for (let i = 0; i < 200; i++) {"
            " try { throw new Error('x' + i); } catch (e) { n++; } } return n; })()"
        )
        assert await agent.js(thrown, timeout=60) == 200
        with anyio.fail_after(30):  # captures are mapped after the resume: they may land after the notice
            while True:
                snaps = await entries(agent, "snapshot", 1)
                if sum(1 for e in snaps if e["text"].startswith("exception:")) >= 50:
                    break
                await asyncio.sleep(0.1)
        assert sum(1 for e in snaps if e["text"].startswith("exception:")) == 50, [e["text"][:60] for e in snaps]
        assert any("stopped after 50" in e["text"] for e in snaps), snaps
        with anyio.fail_after(10):
            while (await lean(agent, "debug_list")).get("exceptions") not in (None, "off"):
                await asyncio.sleep(0.1)
        await lean(agent, "debug_clear")


async def test_a_pause_of_the_users_own_debugger_is_left_to_it(fresh_chromium, http_server, tmp_path):
    """The user's DevTools (here a CDP client of its own) stops at its breakpoint: our points do not resume it."""
    async with agent_in_hidden_tab(fresh_chromium, http_server, tmp_path, "/debug/index.html", "Ordini debug") as agent:
        await lean(agent, "debug_snapshot", source="ordini.js", line=20)
        async with cdp_core.connect(fresh_chromium.http_url) as user:
            tab = next(t for t in await user.pages() if t["url"].endswith("/debug/index.html"))
            devtools = await user.attach(tab["targetId"])
            paused: list[dict[str, Any]] = []
            resumed: list[dict[str, Any]] = []
            devtools.on("Debugger.paused", lambda ev: paused.append(ev.params))
            devtools.on("Debugger.resumed", lambda ev: resumed.append(ev.params))
            await devtools.send("Debugger.enable")
            script = (await devtools.send("Runtime.evaluate", {"expression": "document.scripts[0].src"}))["result"]
            bundle = (
                await devtools.send(
                    "Runtime.evaluate",
                    {"expression": "fetch(document.scripts[0].src).then(r => r.text())", "awaitPromise": True},
                )
            )["result"]["value"]
            user_bp = await devtools.send(
                "Debugger.setBreakpointByUrl",
                {"url": script["value"], "lineNumber": 0, "columnNumber": bundle.index("i+=e")},
            )
            await devtools.send(
                "Runtime.evaluate", {"expression": "setTimeout(() => { window.done = ordini.sommaLunga(3); }, 0)"}
            )
            with anyio.fail_after(10):
                while not paused:
                    await asyncio.sleep(0.05)
            await asyncio.sleep(1.0)  # our server saw the pause too, and had time to (wrongly) resume it
            assert not resumed, "the user's pause was resumed by the server"
            listed = await lean(agent, "debug_list")
            assert any("left to the user's debugger" in f for f in listed["foreignPauses"]), listed
            await devtools.send("Debugger.removeBreakpoint", {"breakpointId": user_bp["breakpointId"]})
            await devtools.send("Debugger.resume")  # the user removes the breakpoint and presses Resume
            await devtools.send("Debugger.disable")
            with anyio.fail_after(10):
                while (await devtools.send("Runtime.evaluate", {"expression": "window.done", "returnByValue": True}))[
                    "result"
                ].get("value") != 3:
                    await asyncio.sleep(0.1)
        await lean(agent, "debug_clear")
