"""Source-mapped stacks through a real MCP client: minified code read back as its authors wrote it.

The order form loads ``orders.min.js`` (terser, top-level mangling: every function is one
letter) with its map. The agent reads the console error, the uncaught TypeError and the
order POST's initiator: each frame names the original function, file and line, and keeps
the generated location. A map that is missing is said, never guessed; a ``debugger;``
statement in the page keeps running (nothing enables the Debugger domain). The same holds
in the user's Chrome, on a background tab whose script loaded before we attached.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import paths
import pytest
from httpserver import Reply
from lean_util import answer_text, records
from mcp.client import Client

import cdp_core
from cdp_core.sourcemap import decode_vlq_segment, function_declaration, parse_source_map, source_mapping_url
from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings

PAGES = paths.PAGES / "sourcemap"


def _page(script: str) -> str:
    # The error listener only notes that the order failed (the error is still reported).
    return (
        f"<!doctype html><html><head><title>Ordini {script}</title></head><body><h1>Ordini</h1>"
        '<script>addEventListener("error", () => { window.orderFailed = true; });</script>'
        f'<script src="/sourcemap/{script}"></script></body></html>'
    )


@pytest.fixture
def order_pages(http_server) -> dict[str, str]:
    http_server.route("/sm/api/orders", Reply(200, "{}", "application/json"))
    urls = {}
    for variant, script in (
        ("map", "orders.min.js"),
        ("inline", "orders.inline.min.js"),
        ("broken", "orders.broken.min.js"),
        ("nomap", "orders.nomap.min.js"),
    ):
        http_server.route(f"/sm/{variant}.html", Reply(200, _page(script)))
        urls[variant] = http_server.url(f"/sm/{variant}.html")
    return urls


async def call(client: Client, action: str, **args: Any) -> tuple[Any, dict[str, Any]]:
    result = await client.call_tool("browser_session", {"action": action, **args})
    sc = result.structured_content or {}
    assert not result.is_error, sc
    return result, sc


async def wait_console(client: Client, want: int) -> list[dict[str, Any]]:
    """The script's errors (console.error and uncaught, those with a stack), once ``want`` of them arrived."""
    for _ in range(300):
        _, sc = await call(client, "console_list", types=["error"], include_stack=True)
        mine = [e for e in records(sc) if e.get("stack")]
        if len(mine) >= want:
            return mine
        await asyncio.sleep(0.05)
    raise AssertionError(f"fewer than {want} console errors: {sc}")


def originals(frames: list[str]) -> list[str | None]:
    """The original function of each frame ``fn (file:line:col) [generated g (min.js:1:c)]``, None if unmapped."""
    return [f.split(" (", 1)[0] if "[generated " in f else None for f in frames]


def unmapped(entries: list[dict[str, Any]]) -> bool:
    return all("[generated " not in f for e in entries for f in e.get("stack", []))


async def assert_page_keeps_running(client: Client) -> None:
    """Run the page's ``debugger;`` statement: a page whose Debugger domain is on would pause
    there and the call would time out; ours returns at once, the counter moved on."""
    _, sc = await call(
        client, "evaluate_js", expression="const before = window.ticks; pauseForDebugger(); [before, window.ticks]"
    )
    before, after = sc["result"]
    assert after == before + 1


async def test_minified_stacks_name_the_original_functions(client: Client, order_pages: dict[str, str]):
    await call(client, "navigate", url=order_pages["map"])
    entries = await wait_console(client, 2)
    console_error = next(e for e in entries if e["type"] == "error")
    page_error = next(e for e in entries if e["type"] == "pageerror")

    # console.error inside validateOrder, called by submitOrder, called by the startOrder timer.
    assert originals(console_error["stack"])[:3] == ["validateOrder", "submitOrder", "startOrder"]
    top = console_error["stack"][0]  # console.error(...) in orders.js, generated in orders.min.js
    assert (
        top.startswith("validateOrder (/sourcemap/orders.js:14:") and "[generated t (/sourcemap/orders.min.js:1:" in top
    )
    at = console_error["at"]
    assert at.startswith("/sourcemap/orders.js:14:") and "[generated /sourcemap/orders.min.js:1" in at

    # The uncaught TypeError thrown in formatAmount.
    assert originals(page_error["stack"])[:4] == ["formatAmount", "validateOrder", "submitOrder", "startOrder"]
    assert page_error["stack"][0].startswith("formatAmount (/sourcemap/orders.js:7:")
    assert page_error["at"].startswith("/sourcemap/orders.js:7:")

    # Text-only clients read the same: original first, the generated location kept.
    result, sc = await call(client, "console_get", id=page_error["id"])
    text = answer_text(result)
    assert "at formatAmount (" in text and "orders.js:7:" in text and "[generated o " in text
    assert "orders.min.js:1:" in text
    assert sc["entry"]["stack"][1].startswith("validateOrder (")
    code = sc["entry"]["stack"][0].split(")]: ", 1)[1]  # console_get adds the original line of source
    assert code.startswith("throw new"), sc["entry"]["stack"][0]

    # The order POST: its initiator is sendOrder in orders.js, called by submitOrder.
    _, listed = await call(client, "network_list", url_contains="/sm/api/orders")
    result, sc = await call(client, "network_get", id=records(listed)[-1]["id"])
    initiator = sc["entry"]["initiator"]
    assert originals(initiator["stack"])[:2] == ["sendOrder", "submitOrder"]
    assert (
        initiator["stack"][0].startswith("sendOrder (/sourcemap/orders.js:20:")
        and "[generated r (" in initiator["stack"][0]
    )
    assert "initiator: " in answer_text(result) and "    at sendOrder (" in answer_text(result)
    assert "sourceMapNotes" not in sc

    # The page's `debugger;` statement never paused it: its interval keeps counting.
    await assert_page_keeps_running(client)


async def test_script_in_a_cross_origin_iframe(client: Client, order_pages: dict[str, str], http_server):
    """The order form inside an iframe of another origin (its own process and session)."""
    inner = order_pages["map"].replace("127.0.0.1", "localhost")
    http_server.route("/sm/outer.html", Reply(200, f'<title>Portale</title><iframe src="{inner}"></iframe>'))
    await call(client, "navigate", url=http_server.url("/sm/outer.html"))
    entries = await wait_console(client, 2)
    page_error = next(e for e in entries if e["type"] == "pageerror")
    assert "[generated o (http://localhost:" in page_error["stack"][0]  # another origin: URLs kept whole
    assert originals(page_error["stack"])[:2] == ["formatAmount", "validateOrder"]
    assert (
        page_error["stack"][0].startswith("formatAmount (http://localhost:")
        and "/sourcemap/orders.js:" in page_error["stack"][0]
    )


async def test_inline_data_url_map(client: Client, order_pages: dict[str, str]):
    await call(client, "navigate", url=order_pages["inline"])
    entries = await wait_console(client, 2)
    page_error = next(e for e in entries if e["type"] == "pageerror")
    assert originals(page_error["stack"])[:2] == ["formatAmount", "validateOrder"]
    assert page_error["stack"][0].startswith("formatAmount (/sourcemap/orders.js:7:")
    result, sc = await call(client, "console_get", id=page_error["id"])
    assert not sc["entry"]["stack"][0].endswith(")]") or ")]: " not in sc["entry"]["stack"][0]  # no sourcesContent


async def test_unreadable_map_is_said_and_nothing_is_guessed(client: Client, order_pages: dict[str, str]):
    await call(client, "navigate", url=order_pages["broken"])
    entries = await wait_console(client, 2)
    result, sc = await call(client, "console_list", types=["error"], include_stack=True)
    assert unmapped(records(sc))
    notes = sc["sourceMapNotes"]
    assert len(notes) == 1 and "missing.min.js.map" in notes[0] and "HTTP 404" in notes[0]
    assert "source map:" in answer_text(result) and "HTTP 404" in answer_text(result)
    # A script without any map is not worth a note.
    await call(client, "console_clear")
    await call(client, "navigate", url=order_pages["nomap"])
    await wait_console(client, 2)
    _, sc = await call(client, "console_list", types=["error"], include_stack=True)
    assert "sourceMapNotes" not in sc
    assert unmapped(records(sc))
    assert entries  # the broken variant logged its errors too


async def test_users_chrome_background_tab_loaded_before_attach(
    artifacts_dir: Path, order_pages: dict[str, str], fresh_chromium
):
    """The script and its error came before we attached; the tab the agent reads is in the background."""
    orders = await cdp_core.new_tab(fresh_chromium.http_url, order_pages["map"])
    other = await cdp_core.new_tab(fresh_chromium.http_url, "about:blank")
    async with httpx.AsyncClient(trust_env=False) as http:
        await http.get(f"{fresh_chromium.http_url}/json/activate/{other.id}")
    async with cdp_core.connect(fresh_chromium.http_url) as user:  # the user saw the order fail
        session = await user.attach(orders.id)
        for _ in range(200):
            reply = await session.send(
                "Runtime.evaluate", {"expression": "!!window.orderFailed", "returnByValue": True}
            )
            if reply["result"]["value"]:
                break
            await asyncio.sleep(0.05)
    manager, server = build_app(Settings(artifact_dir=str(artifacts_dir)))
    try:
        async with Client(server) as c:
            await call(c, "attach_cdp", cdp_url=fresh_chromium.http_url)
            await call(c, "select_page", url_contains=order_pages["map"].rsplit("/", 1)[-1])
            entries = await wait_console(c, 2)
            page_error = next(e for e in entries if e["type"] == "pageerror")
            assert page_error["replayed"] is True  # absent when false
            assert originals(page_error["stack"])[:2] == ["formatAmount", "validateOrder"]
            # Errors after attach too (the agent runs the order again), and the page keeps running.
            await call(c, "evaluate_js", expression="setTimeout(() => submitOrder(), 0); 1")
            entries = await wait_console(c, 4)
            fresh = [e for e in entries if e["type"] == "error" and not e.get("replayed")]
            assert originals(fresh[-1]["stack"])[:2] == ["validateOrder", "submitOrder"]
            await assert_page_keeps_running(c)
            await call(c, "detach_cdp")
    finally:
        await manager.close()
    assert fresh_chromium.alive


# -- the decoder against terser's output and the specification's rules ---------------------


def test_vlq_values_from_the_specification():
    assert decode_vlq_segment("AAAA") == [0, 0, 0, 0]
    assert decode_vlq_segment("C") == [1]
    assert decode_vlq_segment("D") == [-1]
    assert decode_vlq_segment("gB") == [16]
    assert decode_vlq_segment("2HwcrxB") == [123, 456, -789]


def test_terser_map_lookups_and_function_names():
    script = (PAGES / "orders.min.js").read_text()
    smap = parse_source_map((PAGES / "orders.min.js.map").read_text(), "http://h/sourcemap/orders.min.js.map")
    assert source_mapping_url(script) == "orders.min.js.map"
    line = script.split("\n")[0]
    pos = smap.lookup(0, line.index("throw new"))
    assert (pos.source, pos.line + 1) == ("http://h/sourcemap/orders.js", 7)
    decl = function_declaration(script, 0, line.index("console.error"), "t")
    assert decl is not None and smap.name_at(*decl) == "validateOrder"
    # The timer's function is also called "o" (like formatAmount): the nearest declaration wins.
    decl = function_declaration(script, 0, line.index("e()},100"), "o")
    assert decl is not None and smap.name_at(*decl) == "startOrder"


async def test_allowed_urls_keep_a_map_outside_them_unfetched(
    artifacts_dir: Path, order_pages: dict[str, str], http_server
):
    """The internal browser's ALLOWED_URLS hold for maps too (loadNetworkResource is not intercepted)."""
    base = http_server.url("/")
    settings = Settings(artifact_dir=str(artifacts_dir), allowed_urls=[f"{base}sm/*", f"{base}sourcemap/*.js"])
    manager, server = build_app(settings)
    try:
        async with Client(server) as c:
            before = len([r for r in http_server.requests if r.path.endswith(".map")])
            await call(c, "navigate", url=order_pages["map"])
            await wait_console(c, 2)
            _, sc = await call(c, "console_list", types=["error"], include_stack=True)
            assert unmapped(records(sc))
            assert any("not in ALLOWED_URLS" in n for n in sc["sourceMapNotes"])
            assert len([r for r in http_server.requests if r.path.endswith(".map")]) == before
    finally:
        await manager.close()


async def test_a_list_of_logs_reads_no_source_map(client: Client, http_server):
    """A list shows where errors happened, not where each log line was written: reading 300 logs
    makes the browser fetch no map (and says nothing about one); console_get of a log, which
    shows its place, does read it."""
    script = 'for (let i = 0; i < 300; i++) console.log("step " + i);\n//# sourceMappingURL=steps.min.js.map\n'
    http_server.route("/sm/steps.min.js", Reply(200, script, "application/javascript"))
    http_server.route(
        "/sm/steps.html", Reply(200, '<!doctype html><title>Steps</title><script src="/sm/steps.min.js"></script>')
    )
    await call(client, "navigate", url=http_server.url("/sm/steps.html"))
    for _ in range(200):
        result, sc = await call(client, "console_list", types=["log"], limit=500)
        if sc.get("total") == 300:
            break
        await asyncio.sleep(0.05)
    assert sc["total"] == 300 and sc["shared"] == {"type": "log"}, sc
    assert "sourceMapNotes" not in sc and "source map:" not in answer_text(result)
    assert not [r for r in http_server.requests if r.path.endswith("steps.min.js.map")]

    result, sc = await call(client, "console_get", id=records(sc)[0]["id"])
    assert sc["entry"]["at"].startswith("/sm/steps.min.js:1"), sc
    assert any("steps.min.js.map" in note and "404" in note for note in sc["sourceMapNotes"]), sc
    assert [r for r in http_server.requests if r.path.endswith("steps.min.js.map")]
