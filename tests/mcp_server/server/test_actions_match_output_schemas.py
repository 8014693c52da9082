"""The MCP tools against a real browser, through the SDK's in-memory client.

One server (with a real BrowserManager: internal headless Chromium, capture installed) serves
the whole module; every answer any test gets is checked against the tool's declared
outputSchema. The pages are tests/pages/mcp/*.html on the local test server.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import jsonschema
import pytest
from lean_util import assert_lean, records
from mcp.client import Client

from mcp_server.evidence import capture
from mcp_server.server.app import BrowserMCP
from mcp_server.server.registry import legacy_map
from mcp_server.server.settings import Settings
from targets import BrowserManager
from targets.errors import ErrorCode

LEGACY_TOOLS = {
    "browser_navigate": ("browser_session", "navigate"),
    "browser_get_dom": ("browser_session", "get_dom"),
    "browser_screenshot": ("browser_session", "screenshot"),
    "browser_evaluate_js": ("browser_session", "evaluate_js"),
    "browser_annotate": ("browser_session", "annotate"),
    "browser_click_by_id": ("browser_session", "click_by_id"),
    "browser_export_state": ("browser_session", "export_state"),
    "browser_load_state": ("browser_session", "load_state"),
    "browser_get_network_errors": ("browser_session", "get_network_errors"),
    "browser_get_console_logs": ("browser_session", "get_console_logs"),
    "browser_switch_tab": ("browser_session", "switch_tab"),
    "browser_list_frames": ("browser_session", "list_frames"),
    "browser_select_frame": ("browser_session", "select_frame"),
    "browser_read_downloaded_file": ("browser_session", "read_downloaded_file"),
    "browser_click": ("browser_interact", "click"),
    "browser_fill": ("browser_interact", "fill"),
    "browser_scroll": ("browser_interact", "scroll"),
    "browser_hover": ("browser_interact", "hover"),
    "browser_press_key": ("browser_interact", "press_key"),
}


class Session:
    """A connected client plus helpers that validate every answer against its tool's outputSchema."""

    def __init__(self, client: Client, app: BrowserMCP, tools: dict[str, Any]) -> None:
        self.client, self.app, self.tools = client, app, tools
        self.answers = 0

    async def call(self, tool: str, **args: Any):
        result = await self.client.call_tool(tool, args)
        assert result.structured_content is not None, result.content
        jsonschema.validate(result.structured_content, self.tools[tool].output_schema)
        self.answers += 1
        return result

    async def ok(self, tool: str, **args: Any) -> dict[str, Any]:
        result = await self.call(tool, **args)
        assert not result.is_error, result.content[0].text
        assert_lean(result, verbatim=("$.result",))  # every answer here: JSON <= 1.3x text + 400, no empty keys
        return result.structured_content

    async def err(self, tool: str, code: str, **args: Any) -> dict[str, Any]:
        result = await self.call(tool, **args)
        assert result.is_error, result.content[0].text
        sc = result.structured_content
        assert sc["status"] == "error" and sc["code"] == code, sc
        assert result.content[0].text.startswith(f"Error {code}")
        return sc

    async def s(self, action: str, **args: Any) -> dict[str, Any]:
        return await self.ok("browser_session", action=action, **args)

    async def js(self, expression: str) -> Any:
        return (await self.s("evaluate_js", expression=expression))["result"]


@pytest.fixture(scope="module")
async def mcp(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Session]:
    settings = Settings(artifact_dir=tmp_path_factory.mktemp("mcp-artifacts"))
    manager = BrowserManager(settings.target_settings())
    capture.install(manager, settings)
    app = BrowserMCP(settings, manager)
    try:
        async with Client(app.build()) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            yield Session(client, app, tools)
    finally:
        await manager.close()


FRAME_LOADED_JS = """new Promise((resolve) => {
  const f = document.querySelector('iframe');
  const done = () => f.contentDocument && f.contentDocument.readyState === 'complete'
    && f.contentWindow.location.href.endsWith('/mcp/frame.html');
  if (done()) resolve(true); else f.addEventListener('load', () => resolve(true));
})"""


async def open_app(mcp: Session, http_server, query: str = "") -> dict[str, Any]:
    return await mcp.ok("browser_navigate", url=http_server.url("/mcp/app.html" + query))


async def test_legacy_table_matches_issue(mcp: Session):
    assert {k: v for k, v in legacy_map().items() if k in LEGACY_TOOLS} == LEGACY_TOOLS
    assert set(LEGACY_TOOLS) <= set(mcp.tools)
    for name in LEGACY_TOOLS:
        tool = mcp.tools[name]
        assert tool.output_schema and tool.input_schema["type"] == "object"
        assert tool.annotations is not None and tool.annotations.read_only_hint is not None
    assert mcp.tools["browser_get_dom"].annotations.read_only_hint is True
    assert mcp.tools["browser_click"].annotations.read_only_hint is False
    # navigating or loading state throws away what the user's tab held
    assert mcp.tools["browser_navigate"].annotations.destructive_hint is True
    assert mcp.tools["browser_load_state"].annotations.destructive_hint is True
    assert mcp.tools["browser_session"].annotations.destructive_hint is True
    assert mcp.tools["browser_navigate"].description.endswith("(= browser_session action=navigate)")


async def test_capabilities_and_status(mcp: Session, http_server):
    result = await mcp.call("browser_session", action="get_capabilities")
    caps, text = result.structured_content, result.content[0].text
    assert caps["server"]["name"] == "mcp-browser-debug" and caps["server"]["version"]
    browser = caps["browser"]
    for key in ("defaultTarget", "launch", "cdp"):
        assert key in browser
    assert browser["launch"]["available"] and "launch" in text
    assert {"available", "cdpUrl"} <= set(browser["cdp"]) and not browser["cdp"].get("attached")
    names = {(tool, action) for tool, actions in caps["actions"].items() for action in actions}
    assert set(LEGACY_TOOLS.values()) <= names
    assert ("browser_session", "get_capabilities") in names
    for tool, actions in caps["actions"].items():
        assert f"{tool} actions ({len(actions)}): {', '.join(actions)}" in text  # the text says it too
    experimental = set(caps.get("experimental", []))
    if any(a.startswith("performance_") for _, a in names):
        assert any(a.startswith("performance_") for a in experimental)
    await open_app(mcp, http_server)
    status = await mcp.s("get_browser_status")
    assert status["browser"]["activeTarget"] == "launch"
    assert status["browser"]["currentPage"]["url"].endswith("/mcp/app.html")
    current = await mcp.s("get_current_page")
    assert current["page"]["title"] == "MCP App" and current["page"]["capturedSince"]


async def test_every_legacy_tool_matches_its_condensed_twin(mcp: Session, http_server, tmp_path):
    await open_app(mcp, http_server)
    downloads = mcp.app.artifacts.dir("downloads")
    (downloads / "report.csv").write_text("id,total\n1,42\n")
    exported = await mcp.ok("browser_export_state")
    state_path = Path(exported["path"]).name
    calls: dict[str, dict[str, Any]] = {
        "browser_navigate": {"url": http_server.url("/mcp/app.html")},
        "browser_get_dom": {"selector": "form"},
        "browser_screenshot": {},
        "browser_evaluate_js": {"expression": "document.title"},
        "browser_annotate": {},
        "browser_click_by_id": {"element_id": 1},
        "browser_export_state": {},
        "browser_load_state": {"path": state_path},
        "browser_get_network_errors": {},
        "browser_get_console_logs": {"types": ["error"]},
        "browser_switch_tab": {"page_id": 0},
        "browser_list_frames": {},
        "browser_select_frame": {"frame_index": 0},
        "browser_read_downloaded_file": {"path": "report.csv"},
        "browser_click": {"selector": "#count"},
        "browser_fill": {"selector": "#name", "value": "Ada"},
        "browser_scroll": {"selector": "#bottom"},
        "browser_hover": {"selector": "#hov"},
        "browser_press_key": {"selector": "#keys", "key": "Enter"},
    }
    assert set(calls) == set(LEGACY_TOOLS)
    volatile = {"path", "bytes", "adapter"}
    for legacy, args in calls.items():
        tool, action = LEGACY_TOOLS[legacy]
        direct = await mcp.call(legacy, **args)
        twin = await mcp.call(tool, action=action, **args)
        assert not direct.is_error and not twin.is_error, (legacy, direct.content[0].text, twin.content[0].text)
        assert twin.structured_content["adapter"] == {"entryTool": tool, "action": action, "legacyTool": legacy}
        assert "adapter" not in direct.structured_content
        same = {k: v for k, v in direct.structured_content.items() if k not in volatile | {"message"}}
        other = {k: v for k, v in twin.structured_content.items() if k not in volatile | {"message"}}
        assert same == other, legacy
        if legacy not in ("browser_screenshot", "browser_export_state"):
            assert direct.content[0].text == twin.content[0].text, legacy
    # the stateful ones really acted, twice
    assert await mcp.js("document.getElementById('count').textContent") == "Clicked 2"  # label 1 is the name field
    assert await mcp.js("document.getElementById('hov').textContent") == "hovered"
    assert await mcp.js("document.getElementById('lastkey').textContent") == "Enter"


async def test_get_dom_is_cleaned_and_capped(mcp: Session, http_server):
    await open_app(mcp, http_server)
    dom = await mcp.s("get_dom")
    html = dom["html"]
    assert "<h1>Orders</h1>" in html
    for gone in ("<script", "<style", "a comment", "onclick=", "hunter2-secret", "style="):
        assert gone not in html
    assert len(dom["message"]) <= 300 and dom["message"] != html  # the HTML is in the data, not twice
    small = await mcp.s("get_dom", max_chars=200)
    assert small["truncated"] is True and len(small["html"]) == 200 and small["length"] > 200
    missing = await mcp.err("browser_session", ErrorCode.INVALID_ARGUMENT, action="get_dom", selector="#nope")
    assert "#nope" in missing["message"]


async def test_screenshot_goes_to_a_file(mcp: Session, http_server):
    await open_app(mcp, http_server)
    result = await mcp.call("browser_session", action="screenshot")
    sc = result.structured_content
    path = Path(sc["path"])
    assert path.parent == mcp.app.artifacts.root / "screenshots"
    png = await anyio.Path(path).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and sc["bytes"] == len(png)
    assert [c.type for c in result.content] == ["text", "resource_link"]  # no inline image unless asked
    assert result.content[1].uri == (await anyio.Path(path).resolve()).as_uri()
    full = await mcp.call("browser_session", action="screenshot", full_page=True, inline=True)
    assert [c.type for c in full.content] == ["text", "image", "resource_link"]
    image = base64.b64decode(full.content[1].data)
    assert image == await anyio.Path(full.structured_content["path"]).read_bytes()
    assert len(image) > sc["bytes"]  # the 2500px tall page is bigger than the viewport


async def test_evaluate_js_errors_and_disabled(mcp: Session, http_server):
    await open_app(mcp, http_server)
    assert await mcp.js("({a: [1, 2], b: 'x'})") == {"a": [1, 2], "b": "x"}
    assert await mcp.js("await new Promise(r => setTimeout(() => r(7), 10))") == 7
    assert await mcp.js("new Promise(r => setTimeout(() => r(8), 10))") == 8  # a returned promise is awaited
    assert await mcp.js("fetch('/mcp/frame.html').then(r => r.status)") == 200
    assert await mcp.js("let y = 2; y * 3") == 6
    assert await mcp.js("let y = 5; y * 3") == 15  # REPL mode: re-declaring is fine
    node = await mcp.s("evaluate_js", expression="document.querySelector('h1')")
    assert node["type"] == "node" and "h1" in str(node["result"])
    cyclic = await mcp.s("evaluate_js", expression="const o = {}; o.self = o; o")
    assert cyclic.get("type", "object") == "object" and cyclic["result"]
    reject = "Promise.reject(new Error('refused here'))"
    rejected = await mcp.err("browser_session", ErrorCode.EVALUATION_FAILED, action="evaluate_js", expression=reject)
    assert "refused here" in rejected["message"]
    failed = await mcp.err("browser_session", ErrorCode.EVALUATION_FAILED, action="evaluate_js", expression="nope()")
    assert "nope" in failed["message"]
    big = await mcp.s("evaluate_js", expression="'x'.repeat(5000)", max_chars=100)
    assert big["truncated"] and await anyio.Path(big["path"]).read_text() == json.dumps("x" * 5000)
    off = BrowserMCP(Settings(artifact_dir=mcp.app.artifacts.root, evaluate_enabled=False), mcp.app.manager)
    async with Client(off.build()) as client:
        result = await client.call_tool("browser_evaluate_js", {"expression": "document.title = 'changed'"})
    assert result.is_error and result.structured_content["code"] == ErrorCode.EVALUATE_DISABLED
    assert await mcp.js("document.title") == "MCP App"


async def test_annotate_then_click_by_id(mcp: Session, http_server):
    await open_app(mcp, http_server)
    labelled = await mcp.s("annotate")
    elements = records(labelled, "elements")
    count = next(e for e in elements if e["text"] == "Count")
    assert all("hunter2" not in json.dumps(e) for e in elements)
    assert await mcp.js("document.querySelectorAll('#__mcp_annotations div').length") == len(elements)
    await mcp.s("click_by_id", element_id=count["id"])
    assert await mcp.js("document.getElementById('count').textContent") == "Clicked 1"
    await mcp.err("browser_click_by_id", ErrorCode.STALE_UID, element_id=999)
    await mcp.s("annotate", clear=True)
    assert await mcp.js("document.getElementById('__mcp_annotations')") is None
    await mcp.err("browser_click_by_id", ErrorCode.STALE_UID, element_id=count["id"])


async def test_export_and_load_state_keep_values_out_of_answers(mcp: Session, http_server):
    await open_app(mcp, http_server)
    result = await mcp.call("browser_export_state")
    sc = result.structured_content
    assert "cookie-secret-42" not in json.dumps(sc) + result.content[0].text
    assert sc["cookies"] >= 1 and "sid" in sc["cookieNames"] and sc["localStorageKeys"] == 1
    saved = json.loads(await anyio.Path(sc["path"]).read_text())
    assert any(c["value"] == "cookie-secret-42" for c in saved["cookies"])
    assert (await anyio.Path(sc["path"]).stat()).st_mode & 0o077 == 0
    # wipe both (the page sets them again on load, so check before reloading)
    await mcp.js("localStorage.clear(); document.cookie = 'sid=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/'; 1")
    assert await mcp.js("document.cookie") == ""
    loaded = await mcp.s("load_state", path=Path(sc["path"]).name)
    assert loaded["cookies"] >= 1 and loaded["localStorageKeys"] == 1
    assert "sid=cookie-secret-42" in await mcp.js("document.cookie")
    assert await mcp.js("localStorage.getItem('theme')") == "dark"
    await mcp.err("browser_load_state", ErrorCode.PATH_OUTSIDE_ARTIFACTS, path="../../etc/passwd")
    await mcp.err("browser_load_state", ErrorCode.FILE_NOT_FOUND, path="nope.json")


async def test_network_errors_and_console_logs(mcp: Session, http_server):
    await open_app(mcp, http_server, "?capture")
    await mcp.js("new Promise(r => setTimeout(r, 300))")
    errors = await mcp.s("get_network_errors")
    assert any(e["url"].endswith("/mcp/missing-api") and e["status"] == 404 for e in records(errors))
    assert errors["capturedSince"]
    logs = await mcp.s("get_console_logs", types=["error"])
    assert any("boom from app" in str(e.get("text")) for e in records(logs))
    assert all(e["type"] in ("error", "pageerror") for e in records(logs))  # "error" includes uncaught ones


async def test_frames(mcp: Session, http_server):
    await open_app(mcp, http_server)
    assert await mcp.js(FRAME_LOADED_JS) is True
    frames = (await mcp.s("list_frames"))["frames"]
    assert len(frames) == 2 and frames[0].get("selected", False) and frames[1]["name"] == "child"
    picked = await mcp.s("select_frame", frame_name="child")
    assert picked["frame"]["url"].endswith("/mcp/frame.html")
    await mcp.ok("browser_click", selector="#fbtn")
    assert "frame clicked" in (await mcp.s("get_dom"))["html"]
    assert (await mcp.s("list_frames"))["frames"][1].get("selected", False)
    await mcp.err("browser_select_frame", ErrorCode.FRAME_NOT_FOUND, frame_name="nope")
    assert (await mcp.s("list_frames"))["frames"][1].get("selected", False)  # a refused selection changes nothing
    await mcp.s("select_frame", frame_index=0)
    assert "<h1>Orders</h1>" in (await mcp.s("get_dom"))["html"]


async def test_interact_actions_and_their_errors(mcp: Session, http_server):
    await open_app(mcp, http_server)
    filled = await mcp.call("browser_interact", action="fill", selector="#name", value="Grace")
    assert "Grace" not in filled.content[0].text + json.dumps(filled.structured_content)
    await mcp.ok("browser_interact", action="click", selector="#save")
    assert await mcp.js("document.getElementById('out').textContent") == "saved Grace"
    await mcp.ok("browser_interact", action="press_key", selector="#keys", key="ArrowDown")
    assert await mcp.js("document.getElementById('lastkey').textContent") == "ArrowDown"
    await mcp.ok("browser_interact", action="press_key", key="a")
    assert await mcp.js("document.getElementById('lastkey').textContent") == "a"  # focus stayed in #keys
    scrolled = await mcp.ok("browser_interact", action="scroll", direction="down", amount=400)
    assert scrolled["scroll"]["y"] == 400
    await mcp.err("browser_interact", ErrorCode.ELEMENT_NOT_INTERACTABLE, action="click", selector="#missing")
    await mcp.err("browser_interact", ErrorCode.INVALID_ARGUMENT, action="click", selector="#bad[[")
    await mcp.err("browser_interact", ErrorCode.INVALID_ARGUMENT, action="fill", selector="#name")
    await mcp.err("browser_interact", ErrorCode.UNKNOWN_ACTION, action="navigate", url="http://127.0.0.1/")
    await mcp.err("browser_interact", ErrorCode.INVALID_ARGUMENT, action="click", selector="#save", clear=True)


async def test_tabs_selection_and_ambiguity(mcp: Session, http_server):
    await open_app(mcp, http_server, "?tab=one")
    extra = await mcp.app.manager.new_page(http_server.url("/mcp/app.html?tab=two"))
    try:
        pages = (await mcp.s("list_pages"))["pages"]
        assert sum(p.get("selected", False) for p in pages) == 1
        ambiguous = await mcp.err(
            "browser_session", ErrorCode.AMBIGUOUS_MATCH, action="select_page_by_url", url_contains="mcp/app.html"
        )
        assert len(ambiguous["candidates"]) == 2
        before = (await mcp.s("get_current_page"))["page"]["stable_page_id"]
        assert before == extra.stable_page_id  # new_page selected it; the refusal did not change that
        one = next(p for p in pages if p["url"].endswith("tab=one"))
        switched = await mcp.ok("browser_switch_tab", page_id=one["page_id"])
        assert switched.get("selected", False)["stable_page_id"] == one["stable_page_id"]
        await mcp.err(
            "browser_session", ErrorCode.AMBIGUOUS_MATCH, action="select_page_by_title", title_contains="MCP App"
        )
        await mcp.s("select_page", stable_page_id=extra.stable_page_id)
        assert (await mcp.s("get_current_page"))["page"]["url"].endswith("tab=two")
        await mcp.err("browser_session", ErrorCode.PAGE_NOT_FOUND, action="select_page", stable_page_id="p999")
        await mcp.err("browser_session", ErrorCode.INVALID_ARGUMENT, action="select_page")
    finally:
        await mcp.app.manager.launch.close_page(extra)
    await mcp.s("list_pages")


async def test_read_downloaded_file(mcp: Session):
    folder = mcp.app.artifacts.dir("downloads")
    (folder / "notes.txt").write_text("line one\n" * 20)
    (folder / "blob.bin").write_bytes(b"\x00\x01\x02" * 10)
    listing = await mcp.s("read_downloaded_file")
    assert {"notes.txt", "blob.bin"} <= {f["path"] for f in records(listing, "files")}
    text = await mcp.s("read_downloaded_file", path="notes.txt", max_chars=100)
    assert text["content"] == ("line one\n" * 20)[:100] and text["truncated"] is True
    binary = await mcp.s("read_downloaded_file", path="blob.bin")
    assert binary["binary"] is True and "content" not in binary
    await mcp.err("browser_read_downloaded_file", ErrorCode.FILE_NOT_FOUND, path="missing.txt")
    await mcp.err("browser_read_downloaded_file", ErrorCode.PATH_OUTSIDE_ARTIFACTS, path="../../../../etc/hostname")
    outside = folder.parent.parent / "outside.txt"
    outside.write_text("secret")
    (folder / "link.txt").symlink_to(outside)
    await mcp.err("browser_read_downloaded_file", ErrorCode.PATH_OUTSIDE_ARTIFACTS, path="link.txt")


async def test_target_errors_leave_state_alone(mcp: Session, http_server):
    await open_app(mcp, http_server, "?state")
    before = await mcp.s("get_browser_status")
    await mcp.err(
        "browser_session", ErrorCode.NOT_ALLOWED, action="close_browser_target", target="cdp", close_chrome=True
    )
    unreachable = await mcp.err(
        "browser_session", ErrorCode.CDP_UNREACHABLE, action="attach_cdp", cdp_url="http://127.0.0.1:9"
    )
    assert unreachable["hint"]
    await mcp.err("browser_session", ErrorCode.NOT_ALLOWED, action="attach_cdp", cdp_url="http://10.1.2.3:9222")
    await mcp.err("browser_session", ErrorCode.NOT_ATTACHED, action="detach_cdp")
    await mcp.err("browser_session", ErrorCode.INVALID_ARGUMENT, action="close_browser_target", target="chrome")
    after = await mcp.s("get_browser_status")
    assert after["browser"]["currentPage"] == before["browser"]["currentPage"]
    assert after["browser"]["activeTarget"] == "launch"


async def test_attach_to_running_chrome_and_back(mcp: Session, http_server, chromium):
    url = http_server.url("/mcp/app.html?user-tab")
    async with httpx.AsyncClient(trust_env=False) as http:
        tab = (await http.put(f"{chromium.http_url}/json/new?{url}")).json()
        for _ in range(200):  # the user's tab finished loading before we attach
            listed = (await http.get(f"{chromium.http_url}/json/list")).json()
            if any(t["id"] == tab["id"] and t["title"] == "MCP App" for t in listed):
                break
            await anyio.sleep(0.05)
    try:
        answer = await mcp.call("browser_session", action="attach_cdp", cdp_url=chromium.http_url)
        assert not answer.is_error, answer.content[0].text
        assert "capture starts now" in answer.content[0].text.lower()
        attached = answer.structured_content
        assert attached["capturedSince"] and "pages" not in attached  # the selected tab, not the list
        listed = await mcp.s("list_pages")
        assert any(p["url"] == url for p in listed["pages"])
        # A second attach to the same Chrome keeps the attachment: it must not say capture starts now.
        second = await mcp.call("browser_session", action="attach_cdp", cdp_url=chromium.http_url)
        again = second.content[0].text.lower()
        assert second.structured_content["alreadyAttached"] is True and "starts now" not in again
        assert "already attached" in again and attached["capturedSince"] in second.content[0].text
        assert second.structured_content["capturedSince"] == attached["capturedSince"]
        picked = await mcp.s("select_page_by_url", url_contains="user-tab")
        assert picked.get("selected", False)["url"] == url
        assert await mcp.js("document.title") == "MCP App"
        caps = await mcp.s("get_capabilities")
        assert caps["browser"]["activeTarget"] == "cdp" and caps["browser"]["cdp"]["attached"] is True
        detached = await mcp.s("detach_cdp")
        assert detached["detached"] is True and not detached.get("chromeClosed")
        async with httpx.AsyncClient(trust_env=False) as http:
            alive = [t["id"] for t in (await http.get(f"{chromium.http_url}/json/list")).json()]
        assert tab["id"] in alive
        await mcp.s("use_launch_browser")
        assert (await mcp.s("get_browser_status"))["browser"]["activeTarget"] == "launch"
    finally:
        if mcp.app.manager.active_target == "cdp":  # a failure above must not leak into later tests
            await mcp.call("browser_session", action="detach_cdp")
            await mcp.call("browser_session", action="use_launch_browser")
        async with httpx.AsyncClient(trust_env=False) as http:
            await http.get(f"{chromium.http_url}/json/close/{tab['id']}")


async def test_every_answer_was_schema_checked(mcp: Session):
    # Session.call validates each answer against the tool's outputSchema; make sure that ran a lot.
    assert mcp.answers > 80


async def test_selector_click_that_opens_a_dialog_never_hangs(mcp: Session, http_server):
    await mcp.ok("browser_navigate", url=http_server.url("/mcp/dialog.html"))
    # Nobody answers the page's dialogs but handle_dialog (Playwright used to dismiss them before any
    # uid action ran): the very first selector click says at once that the alert is open.
    clicked = await mcp.call("browser_click", selector="#alert")
    assert not clicked.is_error, clicked.content[0].text
    held = clicked.structured_content
    assert held["dialog"]["type"] == "alert" and held["dialog"]["message"] == "Saved with errors"
    assert clicked.content[0].text.count("Saved with errors") == 1  # said once, not twice
    assert "Saved with errors" not in held["message"]  # the JSON says it in `dialog`, not again in the message
    blocked = await mcp.err("browser_session", "DIALOG_OPEN", action="get_dom")
    assert "handle_dialog" in blocked["hint"]
    await mcp.err("browser_click", "DIALOG_OPEN", selector="#plain")
    await mcp.s("handle_dialog", dialog_action="accept")
    assert await mcp.js("document.getElementById('log').textContent") == "after alert"


def _minimal_args(schema: dict[str, Any]) -> dict[str, Any]:
    """The smallest call an agent could make: only the required fields, with plain values."""
    samples = {"string": "x", "integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}
    args: dict[str, Any] = {}
    for name in schema.get("required", []):
        prop = schema["properties"][name]
        args[name] = prop["enum"][0] if "enum" in prop else samples[prop.get("type", "string")]
    return args


async def test_every_action_answers_in_the_envelope(mcp: Session, http_server):
    # Each registered action (all modules present), called with minimal arguments on a real page:
    # an ok or error answer that validates against the outputSchema, and never INTERNAL_ERROR.
    from mcp_server.server.registry import ACTIONS
    from mcp_server.server.schema import args_schema

    skip = {"attach_cdp", "detach_cdp", "use_launch_browser", "close_browser_target"}  # tested above
    await open_app(mcp, http_server, "?sweep")
    outcomes: dict[str, str] = {}
    for (tool, name), spec in ACTIONS.items():
        if name in skip:
            continue
        result = await mcp.call(tool, action=name, **_minimal_args(args_schema(spec.args)))
        sc = result.structured_content
        assert sc["status"] == ("error" if result.is_error else "ok")
        adapter = {"entryTool": tool, "action": name, **({"legacyTool": spec.legacy} if spec.legacy else {})}
        assert sc["adapter"] == adapter
        outcomes[name] = sc.get("code", "ok")
        if sc.get("code") == "DIALOG_OPEN":
            await mcp.s("handle_dialog", dialog_action="dismiss")
    assert "INTERNAL_ERROR" not in outcomes.values(), outcomes
    assert sum(code == "ok" for code in outcomes.values()) > len(outcomes) / 2, outcomes
    trace = await mcp.call("browser_session", action="performance_stop_trace")  # in case the sweep started one
    assert trace.structured_content["status"] in ("ok", "error")


async def test_fifty_concurrent_calls_are_all_answered_in_order(mcp: Session, http_server):
    await open_app(mcp, http_server, "?concurrent")
    await mcp.js("window.__n = 0; 0")
    calls = []
    for i in range(50):
        if i % 3 == 0:
            calls.append(mcp.call("browser_session", action="evaluate_js", expression="++window.__n"))
        elif i % 3 == 1:
            calls.append(mcp.call("browser_get_dom", selector="h1"))
        else:
            calls.append(mcp.call("browser_session", action="list_frames"))
    results = await asyncio.gather(*calls)
    assert all(not r.is_error for r in results), [r.content[0].text for r in results if r.is_error]
    counts = sorted(r.structured_content["result"] for r in results if "result" in r.structured_content)
    assert counts == list(range(1, 18))  # each increment ran once, none lost or doubled


async def test_no_active_page_and_policy_errors_without_launching(tmp_path: Path, http_server):
    settings = Settings(artifact_dir=tmp_path, allowed_urls=["http://localhost:1/*"])
    manager = BrowserManager(settings.target_settings())
    try:
        async with Client(BrowserMCP(settings, manager).build()) as client:
            current = await client.call_tool("browser_session", {"action": "get_current_page"})
            assert current.is_error and current.structured_content["code"] == ErrorCode.NO_ACTIVE_PAGE
            listed = await client.call_tool("browser_session", {"action": "list_pages"})
            assert listed.structured_content.get("pages", []) == []
            blocked = await client.call_tool("browser_navigate", {"url": http_server.url("/a.html")})
            assert blocked.is_error and blocked.structured_content["code"] == ErrorCode.BLOCKED_BY_POLICY
            status = await client.call_tool("browser_session", {"action": "get_browser_status"})
            assert status.structured_content["browser"].get("activeTarget") is None  # nothing was launched
    finally:
        await manager.close()


async def test_selected_tab_closed_says_page_closed(mcp: Session, http_server):
    await open_app(mcp, http_server, "?keep")
    extra = await mcp.app.manager.new_page(http_server.url("/mcp/app.html?doomed"))
    await mcp.app.manager.launch.browser.close_target(extra.target_id)  # closed in the browser, not by the agent
    closed = await mcp.err("browser_session", ErrorCode.PAGE_CLOSED, action="get_dom")
    assert "list_pages" in closed["hint"]
    pages = (await mcp.s("list_pages"))["pages"]
    assert not any("doomed" in p["url"] for p in pages)
    keep = next(p for p in pages if p["url"].endswith("?keep"))
    await mcp.s("select_page", stable_page_id=keep["stable_page_id"])
    assert "<h1>Orders</h1>" in (await mcp.s("get_dom"))["html"]


async def test_selected_frame_removed_says_frame_not_found(mcp: Session, http_server):
    await open_app(mcp, http_server, "?frame-gone")
    assert await mcp.js(FRAME_LOADED_JS) is True
    await mcp.s("select_frame", frame_name="child")
    page = await mcp.app.manager.current_page()
    await page.session.send("Runtime.evaluate", {"expression": "document.querySelector('iframe').remove()"})
    gone = await mcp.err("browser_session", ErrorCode.FRAME_NOT_FOUND, action="get_dom")
    assert "select_frame" in gone["hint"] or "list_frames" in gone["hint"]
    await mcp.s("select_frame", frame_index=0)
    assert "<h1>Orders</h1>" in (await mcp.s("get_dom"))["html"]
