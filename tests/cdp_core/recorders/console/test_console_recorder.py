"""Console capture against real Chromium: console.*, uncaught errors with stacks, iframes, replay, bursts."""

from __future__ import annotations

import pytest
from capture_util import open_tab, until, wait_loaded
from httpserver import Reply

import cdp_core
from cdp_core.recorders.console import ConsoleRecorder, format_remote_object
from cdp_core.recorders.network import EntryNotFound

CONSOLE_JS = """// line 1
function logIt() {
  console.error("errore console test", {id: 123});
}
logIt();
"""

NESTED_JS = """function level1() { level2(); }
function level2() { level3(); }
function level3() { throw new TypeError("nested boom"); }
setTimeout(level1, 0);
"""


@pytest.fixture(scope="module")
def console_routes(http_server):
    http_server.route("/con/console.js", Reply(200, CONSOLE_JS, "application/javascript"))
    http_server.route("/con/nested.js", Reply(200, NESTED_JS, "application/javascript"))
    http_server.route("/con/console.html", Reply(200, '<title>c</title><script src="/con/console.js"></script>'))
    http_server.route("/con/nested.html", Reply(200, '<title>n</title><script src="/con/nested.js"></script>'))
    http_server.route(
        "/con/frame.html",
        Reply(
            200,
            "<title>f</title><script>function inFrame(){ throw new Error('iframe boom') }"
            "setTimeout(inFrame, 0)</script>",
        ),
    )
    http_server.route("/con/parent.html", Reply(200, '<title>p</title><iframe src="/con/frame.html"></iframe>'))
    http_server.route("/con/blank.html", Reply(200, "<title>blank</title>"))
    return True


async def test_console_error_with_url_line_and_args(chromium, http_server, console_routes):
    async with open_tab(chromium, http_server.url("/con/console.html")) as tab:
        entries = await until(lambda: tab.console.list(types=["error"]), what="console.error")
        entry = entries[0]
        assert entry["text"] == "errore console test {id: 123}"
        assert entry["argsPreview"] == ["errore console test", "{id: 123}"]
        assert entry["source"] == "console"
        assert entry["location"]["url"] == http_server.url("/con/console.js")
        assert entry["location"]["lineNumber"] == 3
        assert entry["pageUrl"] == http_server.url("/con/console.html")
        assert entry["replayed"] is False
        full = tab.console.get(entry["id"])
        assert [f["function"] for f in full["stack"]][:1] == ["logIt"]
        assert "stack" not in entry and entry["stackFrames"] >= 1


async def test_thrown_error_from_nested_functions_has_their_stack(chromium, http_server, console_routes):
    async with open_tab(chromium, http_server.url("/con/nested.html")) as tab:
        entry = (await until(lambda: tab.console.list(types=["pageerror"], include_stack=True)))[0]
        assert entry["source"] == "exception"
        assert "nested boom" in entry["text"]
        assert entry["message"] == "TypeError: nested boom"
        assert "at level3" in entry["description"]
        functions = [f["function"] for f in entry["stack"]]
        assert functions[:3] == ["level3", "level2", "level1"]
        assert entry["stack"][0]["url"] == http_server.url("/con/nested.js")
        assert entry["stack"][0]["lineNumber"] == 3


async def test_iframe_error_names_its_frame(chromium, http_server, console_routes):
    async with open_tab(chromium, http_server.url("/con/parent.html")) as tab:
        entry = (await until(lambda: tab.console.list(types=["pageerror"], include_stack=True), what="iframe error"))[0]
        assert "iframe boom" in entry["text"]
        assert entry["frameUrl"] == http_server.url("/con/frame.html")
        assert entry["pageUrl"] == http_server.url("/con/parent.html")
        assert entry["stack"][0]["function"] == "inFrame"


async def test_log_entries_for_failed_loads_join_the_timeline(chromium, http_server, console_routes):
    async with open_tab(chromium, http_server.url("/con/blank.html")) as tab:
        await tab.eval("console.log('before'); fetch('/con/missing-file').then(r => r.text())")

        def failed_load():
            return [e for e in tab.console.list() if e["source"] == "log" and "missing-file" in e["location"]["url"]]

        log_entry = (await until(failed_load, what="Log.entryAdded"))[0]
        before = next(e for e in tab.console.list() if e["text"] == "before")
        assert "404" in log_entry["text"] and log_entry["logSource"] == "network"
        assert log_entry["type"] == "error"
        assert log_entry["location"]["url"].endswith("/con/missing-file")
        assert before["id"] < log_entry["id"]  # one timeline, in arrival order


async def test_attach_to_open_tab_marks_replayed_messages(chromium, http_server, console_routes):
    async with cdp_core.connect(chromium.http_url) as browser:
        session = await browser.new_page(http_server.url("/con/blank.html"))
        try:
            await wait_loaded(session, "/con/blank.html")
            await session.send("Runtime.evaluate", {"expression": "console.warn('logged before attach')"})
            missing = "fetch('/con/missing-before-attach').then(r => r.text())"
            await session.send("Runtime.evaluate", {"expression": missing, "awaitPromise": True})
            recorder = ConsoleRecorder()
            await recorder.attach(session)
            await session.send("Runtime.evaluate", {"expression": "console.info('logged after attach')"})
            after = await until(lambda: [e for e in recorder.list() if e["text"] == "logged after attach"])
            assert after[0]["replayed"] is False and after[0]["type"] == "info"
            before = [e for e in recorder.list() if e["text"] == "logged before attach"]
            assert before and before[0]["replayed"] is True and before[0]["type"] == "warning"
            logs = [e for e in recorder.list() if "missing-before-attach" in e["location"]["url"]]
            assert logs and logs[0]["source"] == "log" and logs[0]["replayed"] is True
        finally:
            await browser.close_target(session.target_info["targetId"])


async def test_burst_of_5000_messages_none_lost_below_cap_evicted_counted_above(chromium, http_server, console_routes):
    async with open_tab(chromium, http_server.url("/con/blank.html"), console_max_entries=6000) as tab:
        small = ConsoleRecorder(max_entries=300)
        await small.attach(tab.session)
        await tab.eval("for (let i = 0; i < 5000; i++) console.log('burst ' + i, {i})")
        await until(lambda: len(tab.console.list(types=["log"])) >= 5000, what="5000 messages")
        texts = [e["text"] for e in tab.console.list(types=["log"]) if e["text"].startswith("burst ")]
        assert texts == [f"burst {i} {{i: {i}}}" for i in range(5000)]
        assert tab.console.evicted == 0
        await until(lambda: small.evicted + len(small) >= 5000)
        assert len(small) == 300 and small.evicted == 4700
        assert [e["text"] for e in small.list()] == texts[-300:]


async def test_args_preview_never_fails_and_stays_bounded(chromium, http_server, console_routes):
    async with open_tab(chromium, http_server.url("/con/blank.html")) as tab:
        await tab.eval(
            "const cyc = {name: 'c'}; cyc.self = cyc;"
            "console.log(cyc, Symbol('s'), 10n, undefined, null, NaN, -0, () => 1, new Map([[1,2]]),"
            " document.body, new Error('e'), 'x'.repeat(100000), [1,2,3], {password: 'hunter2'})"
        )
        entry = (await until(lambda: tab.console.list(types=["log"])))[0]
        assert len(entry["text"]) <= 2100
        assert "hunter2" not in entry["text"]
        joined = " | ".join(entry["argsPreview"])
        for expected in ("Symbol(s)", "10n", "undefined", "null", "NaN", "[1, 2, 3]"):
            assert expected in joined
        assert format_remote_object({"type": "object", "preview": {"properties": "not a list"}}) != ""


async def test_list_filters_get_and_clear(chromium, http_server, console_routes):
    async with open_tab(chromium, http_server.url("/con/blank.html")) as tab:
        await tab.eval("console.log('a'); console.warn('b'); console.error('c'); console.debug('d')")
        await until(lambda: len(tab.console) >= 4)
        assert [e["text"] for e in tab.console.list(types=["warning", "error"])] == ["b", "c"]
        await tab.eval("console.info('%cSalvato%c cliente %s in %d ms', 'color: green', '', 'Rossi', 12.7)")
        formatted = await until(lambda: tab.console.list(types=["info"]))
        assert formatted[0]["text"] == "Salvato cliente Rossi in 12 ms"
        tab.console.clear()
        await tab.eval("console.log('a'); console.warn('b'); console.error('c'); console.debug('d')")
        await until(lambda: len(tab.console) >= 4)
        last = tab.console.list(limit=1)[0]
        assert last["text"] == "d"
        first_id = tab.console.list()[0]["id"]
        assert [e["text"] for e in tab.console.list(since_id=first_id)] == ["b", "c", "d"]
        assert tab.console.get(last["id"])["text"] == "d"
        await tab.eval("setTimeout(() => { throw new Error('e') }, 0)")
        await until(lambda: tab.console.list(types=["pageerror"]))
        assert [e["type"] for e in tab.console.list(types=["error"])] == ["error", "pageerror"]
        assert [e["type"] for e in tab.console.list(types=["pageerror"])] == ["pageerror"]
        assert tab.console.clear() == 5
        with pytest.raises(EntryNotFound):
            tab.console.get(last["id"])
