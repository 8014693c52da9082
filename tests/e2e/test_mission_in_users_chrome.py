"""The mission end to end, as an agent and its user live it, through the real stdio server.

The user starts their own Chrome (own profile, debugging port on loopback), logs in (a
session token in sessionStorage, an HttpOnly cookie), opens three tabs and half fills a
legacy ColdFusion form. Then the agent starts ``mcp-browser`` over stdio, attaches without
navigating, finds the tab, asks the user to press Salva again (capture starts at attach:
the two-prompt workflow), reads what happened (bundle, network, bodies, console stacks),
fixes the form by uid, traces, exports a HAR, detaches, and uses its own browser. The user's
Chrome and tabs must come out alive and unreloaded, and the planted token and cookie value
must appear nowhere the agent can read: answers, artifacts, the server's stderr.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from headful import VirtualDisplay
from httpserver import Reply, Request, TestServer
from lean_util import records
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from paths import ROOT

from cdp_core import ChromiumProcess, connect

pytestmark = pytest.mark.slow

SERVER_BIN = ROOT / ".venv" / "bin" / "mcp-browser"

TOKEN = "Bearer e2e-planted-token-5f1c0a9d"
TOKEN_CORE = "e2e-planted-token-5f1c0a9d"
COOKIE_VALUE = "e2e-cookie-value-83b2c7"
COOKIE_VALUE_2 = "e2e-cookie-reissued-41aa9e"
SECRETS = (TOKEN_CORE, COOKIE_VALUE, COOKIE_VALUE_2)

DARK = "matchMedia('(prefers-color-scheme: dark)').matches"
CALL_TIMEOUT = 60.0  # seconds per tool call
TEST_TIMEOUT = 300.0  # the whole mission

ERROR_HTML = (
    "<html><head><title>Error</title></head><body><h1>Error Occurred While Processing Request</h1>"
    "<p>Element PROVINCIA is undefined in FORM.</p><p>The error occurred in save.cfm: line 42</p></body></html>"
)

# jQuery-free legacy form: XHR with the session token from sessionStorage; the cookie goes by itself.
EDIT_HTML = """<!doctype html><html lang="it"><head><meta charset="utf-8"><title>Modifica cliente</title></head>
<body>
<form id="cliente" onsubmit="return false">
<input type="hidden" id="id" name="id" value="123">
<label for="rs">Ragione sociale</label> <input id="rs" name="ragione_sociale" value="">
<label for="prov">Provincia</label>
<select id="prov" name="provincia"><option value=""></option><option value="MI">MI</option>
<option value="RM">RM</option></select>
<button type="button" id="salva">Salva</button>
<div id="msg" role="alert"></div>
</form>
<script>
function salvaCliente() {
  var body = "id=" + encodeURIComponent(document.getElementById("id").value) +
    "&provincia=" + encodeURIComponent(document.getElementById("prov").value);
  var xhr = new XMLHttpRequest();
  xhr.open("POST", "/clienti/save.cfm");
  xhr.setRequestHeader("Content-Type", "application/x-www-form-urlencoded");
  xhr.setRequestHeader("Authorization", sessionStorage.getItem("authToken"));
  xhr.onload = function () { gestisciRisposta(xhr); };
  xhr.send(body);
}
function gestisciRisposta(xhr) {
  var msg = document.getElementById("msg");
  if (xhr.status === 200) { msg.textContent = "Salvato"; return; }
  msg.textContent = "Provincia obbligatoria";
  console.error("salvataggio fallito", xhr.status);
  controllaEsito(xhr.responseText);
}
function controllaEsito(html) {
  leggiErrore(new DOMParser().parseFromString(html, "text/html"));
}
function leggiErrore(doc) {
  throw new Error("Errore server: " + doc.querySelector("p").textContent);
}
document.getElementById("salva").addEventListener("click", salvaCliente);
</script>
</body></html>"""


def _save(req: Request) -> Reply:
    if "provincia=MI" in req.body.decode():
        return Reply(200, "OK", "text/plain; charset=utf-8")
    return Reply(500, ERROR_HTML, headers={"Set-Cookie": f"CFTOKEN={COOKIE_VALUE_2}; Path=/; HttpOnly"})


@pytest.fixture
def app_server() -> Iterator[TestServer]:
    """The legacy application, with a request log of its own (no other test's traffic in it)."""
    server = TestServer().start()
    server.route(
        "/clienti/edit.cfm",
        Reply(200, EDIT_HTML, headers={"Set-Cookie": f"CFTOKEN={COOKIE_VALUE}; Path=/; HttpOnly"}),
    )
    server.route("/clienti/save.cfm", _save)
    yield server
    server.stop()


@pytest.fixture
def user_chrome(app_server: TestServer, virtual_display: VirtualDisplay) -> Iterator[ChromiumProcess]:
    """The user's Chrome: started by hand with its own profile, a window on the screen, three tabs open.

    Headful (Xvfb), as a person's Chrome runs: the tab the agent works in is behind the one the
    user opened last, a hidden tab that gets no frames (headless hides what that breaks).
    """
    # The user opens the other two tabs afterwards, through /json/new as a new tab would.
    # The user works in dark mode: nothing the agent does may switch their pages to light.
    chrome = ChromiumProcess.start(
        urls=[app_server.url("/a.html")], extra_args=["--force-dark-mode"], headless=False, env=virtual_display.env()
    )
    for path in ("/clienti/edit.cfm?id=123", "/b.html"):
        with httpx.Client(trust_env=False, timeout=10) as http:
            http.put(chrome.http_url + "/json/new?" + app_server.url(path)).raise_for_status()
    yield chrome
    chrome.stop()


def _tabs(chrome: ChromiumProcess) -> list[dict[str, Any]]:
    with httpx.Client(trust_env=False, timeout=10) as http:
        return [t for t in http.get(chrome.http_url + "/json/list").json() if t.get("type") == "page"]


def functions(stack: list[str]) -> list[str]:
    """The function names of stack frames as answers write them: ``fn (file:line:col)``."""
    return [frame.split(" (", 1)[0] for frame in stack]


async def _saves_reach(server: TestServer, count: int) -> None:
    """Wait (bounded) until the application has answered ``count`` saves (the user's clicks)."""
    with anyio.fail_after(20):
        while sum(1 for r in server.requests if r.path == "/clienti/save.cfm") < count:
            await anyio.sleep(0.05)


def _page_gets(server: TestServer, path: str) -> int:
    return sum(1 for r in server.requests if r.method == "GET" and r.path == path)


async def _user_eval(chrome: ChromiumProcess, url_part: str, expression: str, *, front: bool = False) -> Any:
    """What the user does by hand, done through a short CDP connection of the test's own."""
    async with connect(chrome.http_url) as browser:
        target = next(t for t in await browser.pages() if url_part in t["url"])
        session = await browser.attach(target["targetId"])
        if front:
            await session.send("Page.bringToFront", timeout=10)
        reply = await session.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, timeout=10
        )
        await session.detach()
        return reply["result"].get("value")


async def _user_types(chrome: ChromiumProcess, selector: str, text: str) -> None:
    async with connect(chrome.http_url) as browser:
        target = next(t for t in await browser.pages() if "edit.cfm" in t["url"])
        session = await browser.attach(target["targetId"])
        await session.send("Page.bringToFront", timeout=10)
        # Typing goes to the focused element; on a loaded machine the tab may take a moment to
        # become the focused one after bringToFront, and text inserted before that goes nowhere.
        focused = (
            f"(() => {{ const el = document.querySelector({selector!r}); el.focus();"
            " return document.hasFocus() && document.activeElement === el; })()"
        )
        with anyio.fail_after(10):
            while not (await session.send("Runtime.evaluate", {"expression": focused, "returnByValue": True}))[
                "result"
            ].get("value"):
                await anyio.sleep(0.05)
        await session.send("Input.insertText", {"text": text}, timeout=10)
        await session.detach()


async def _user_clicks(chrome: ChromiumProcess, selector: str) -> None:
    """A real mouse click at the element's centre (Input.dispatchMouseEvent), as the user's hand."""
    async with connect(chrome.http_url) as browser:
        target = next(t for t in await browser.pages() if "edit.cfm" in t["url"])
        session = await browser.attach(target["targetId"])
        await session.send("Page.bringToFront", timeout=10)
        box = await session.send(
            "Runtime.evaluate",
            {
                "expression": f"(() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect();"
                " return [r.x + r.width / 2, r.y + r.height / 2]; })()",
                "returnByValue": True,
            },
            timeout=10,
        )
        assert "value" in box["result"], box
        x, y = box["result"]["value"]
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            params: dict[str, Any] = {"type": kind, "x": x, "y": y}
            if kind != "mouseMoved":
                params.update(button="left", clickCount=1)
            await session.send("Input.dispatchMouseEvent", params, timeout=10)
        await session.detach()


class Agent:
    """The MCP client side: every answer is kept, to scan it for secrets at the end."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.received: list[str] = []

    async def call(self, tool: str, action: str, **args: Any) -> tuple[Any, dict[str, Any], str]:
        with anyio.fail_after(CALL_TIMEOUT + 5):
            result = await self.client.call_tool(tool, {"action": action, **args}, read_timeout_seconds=CALL_TIMEOUT)
        self.received.append(result.model_dump_json())
        text = "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")
        return result, result.structured_content or {}, text

    async def ok(self, tool: str, action: str, **args: Any) -> tuple[dict[str, Any], str]:
        result, sc, text = await self.call(tool, action, **args)
        assert not result.is_error, f"{action}: {text}\n{sc}"
        assert sc.get("status") == "ok", sc
        return sc, text

    async def legacy(self, tool: str, **args: Any) -> tuple[dict[str, Any], str]:
        """A flat legacy tool (older clients): no ``action`` field."""
        with anyio.fail_after(CALL_TIMEOUT + 5):
            result = await self.client.call_tool(tool, args, read_timeout_seconds=CALL_TIMEOUT)
        self.received.append(result.model_dump_json())
        text = "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")
        assert not result.is_error, f"{tool}: {text}"
        return result.structured_content or {}, text

    async def session(self, action: str, **args: Any) -> tuple[dict[str, Any], str]:
        return await self.ok("browser_session", action, **args)

    async def interact(self, action: str, **args: Any) -> tuple[dict[str, Any], str]:
        return await self.ok("browser_interact", action, **args)

    async def until(self, action: str, predicate: Any, **args: Any) -> dict[str, Any]:
        """Poll a read-only action (bounded): capture runs on its own socket, a moment behind the page."""
        for _ in range(200):
            sc, _ = await self.session(action, **args)
            if predicate(sc):
                return sc
            await anyio.sleep(0.05)
        raise AssertionError(f"{action} never satisfied the condition: {sc}")


def _uid(text: str, pattern: str) -> int:
    match = re.search(r"\[uid=(\d+)\] " + pattern, text)
    assert match, f"no line {pattern!r} in:\n{text}"
    return int(match.group(1))


def _is_png(path: str) -> bool:
    return Path(path).read_bytes().startswith(b"\x89PNG")


def _iso(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _server_env(artifacts: Path) -> dict[str, str]:
    drop = {"BROWSER_DEFAULT_TARGET", "PLAYWRIGHT_CDP_URL", "MCP_AUDIT_LOG"}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.lower().endswith("_proxy")}
    env.update(MCP_ARTIFACT_DIR=str(artifacts), NO_PROXY="127.0.0.1,localhost,::1")
    return env


async def test_the_mission_in_the_users_chrome(tmp_path: Path, app_server: TestServer, user_chrome: ChromiumProcess):
    artifacts = tmp_path / "artifacts"
    stderr_path = tmp_path / "server-stderr.log"
    edit_path = "/clienti/edit.cfm"
    with anyio.fail_after(TEST_TIMEOUT):
        # --- the user, before any agent exists ---------------------------------------------------
        with anyio.fail_after(20):
            while len(_tabs(user_chrome)) < 3 or any(t["url"] == "about:blank" for t in _tabs(user_chrome)):
                await anyio.sleep(0.05)
            while not await _user_eval(user_chrome, "edit.cfm", "document.readyState === 'complete'"):
                await anyio.sleep(0.05)
        tabs_before = {t["id"]: t["url"] for t in _tabs(user_chrome)}
        assert sorted(tabs_before.values()) == sorted(
            app_server.url(p) for p in ("/a.html", "/clienti/edit.cfm?id=123", "/b.html")
        )
        # "login": the session token lives in sessionStorage, the HttpOnly cookie came with the page
        await _user_eval(
            user_chrome,
            "edit.cfm",
            f"sessionStorage.setItem('authToken', {TOKEN!r}); window.__userMark = 'not reloaded'; true",
        )
        await _user_types(user_chrome, "#rs", "ACME SRL")
        assert await _user_eval(user_chrome, "edit.cfm", "document.getElementById('rs').value") == "ACME SRL"
        assert await _user_eval(user_chrome, "edit.cfm", DARK)
        # ... and presses Salva: the save fails, before any agent exists (the first prompt's story).
        await _user_clicks(user_chrome, "#salva")
        await _saves_reach(app_server, 1)
        assert _page_gets(app_server, edit_path) == 1
        # Then they go on in another tab while they ask their agent: the form's tab is hidden (a
        # window with no frames for it, where input to a page that loaded hidden can be lost).
        await _user_eval(user_chrome, "b.html", "true", front=True)
        assert await _user_eval(user_chrome, "edit.cfm", "document.visibilityState") == "hidden"

        # --- the agent --------------------------------------------------------------------------
        params = StdioServerParameters(command=str(SERVER_BIN), args=[], env=_server_env(artifacts), cwd=str(tmp_path))
        failure: BaseException | None = None
        with stderr_path.open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=CALL_TIMEOUT) as client:
                agent = Agent(client)
                try:
                    await _agent_mission(agent, user_chrome, app_server, artifacts, tabs_before)
                except Exception as exc:  # re-raised below, outside the SDK's task group (readable report)
                    failure = exc
        if failure is not None:
            raise failure
        received = agent.received
        assert user_chrome.alive, "the server's shutdown closed the user's Chrome"
        assert {t["id"]: t["url"] for t in _tabs(user_chrome)} == tabs_before
        assert await _user_eval(user_chrome, "edit.cfm", "window.__userMark") == "not reloaded"
        assert _page_gets(app_server, edit_path) == 1

    # --- nothing the agent could read holds the planted secrets --------------------------------
    saves = [r for r in app_server.requests if r.path == "/clienti/save.cfm"]
    assert saves and all(r.headers.get("authorization") == TOKEN for r in saves), "the token never went on the wire"
    cookies = [r.headers.get("cookie", "") for r in saves]
    assert COOKIE_VALUE in cookies[0] and all(COOKIE_VALUE_2 in c for c in cookies[1:]), cookies  # 500 re-issued it
    leaks = [s for s in SECRETS for blob in received if s in blob]
    assert not leaks, f"secrets in the agent's answers: {set(leaks)}"
    files = [p for p in artifacts.rglob("*") if p.is_file()]
    assert {p.suffix for p in files} >= {".html", ".har", ".json", ".jsonl"}, files
    for path in files:
        data = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in data, f"{secret} in {path}"
    log = stderr_path.read_text()
    assert "Traceback" not in log, log
    for secret in SECRETS:
        assert secret not in log, f"{secret} on the server's stderr"


async def _agent_mission(
    agent: Agent, chrome: ChromiumProcess, app: TestServer, artifacts: Path, tabs_before: dict[str, str]
) -> None:
    edit_path = "/clienti/edit.cfm"
    edit_url = app.url("/clienti/edit.cfm?id=123")

    # Prompt 1: "ho Chrome già aperto sulla pagina del cliente, perché Salva dà errore?"
    caps, _ = await agent.session("get_capabilities")
    assert caps["server"]["name"] == "mcp-browser-debug"
    caps_text = json.dumps(caps)
    for action in ("attach_cdp", "debug_bundle", "network_save_body", "snapshot", "click_uid", "detach_cdp"):
        assert action in caps_text, action

    before_attach = datetime.now(UTC)
    attached, _ = await agent.session("attach_cdp", cdp_url=chrome.http_url)
    after_attach = datetime.now(UTC)
    assert _page_gets(app, edit_path) == 1, "attach must not load the user's page again"

    pages, text = await agent.session("list_pages")
    by_url = {p["url"]: p for p in pages["pages"]}
    assert set(by_url) == set(tabs_before.values()), pages
    assert "edit.cfm" in text

    selected, _ = await agent.session("select_page_by_url", url_contains="edit.cfm")
    current = (await agent.session("get_current_page"))[0]["page"]
    assert current["url"] == edit_url and current["title"] == "Modifica cliente", current
    assert before_attach <= _iso(current["capturedSince"]) <= after_attach, (current, before_attach, after_attach)
    # Nothing from before attach is pretended: neither the page's GET nor the user's failed POST.
    listing, _ = await agent.session("network_list")
    assert records(listing) == [], listing
    assert await _user_eval(chrome, "edit.cfm", "document.getElementById('rs').value") == "ACME SRL"
    assert _page_gets(app, edit_path) == 1

    # The first look: Chrome replays the earlier errors (marked), with the stack read from error.stack;
    # no request is there, and the bundle says to have the user repeat the failure.
    first, first_text = await agent.session("debug_bundle")
    assert first["network"].get("total", 0) == 0 and first["network"].get("httpErrors", []) == [], first["network"]
    old_thrown = next(e for e in records(first["console"], "errors") if e["type"] == "pageerror")
    assert old_thrown.get("replayed", False), old_thrown
    assert functions(old_thrown["stack"]) == ["leggiErrore", "controllaEsito", "gestisciRisposta"]
    # the page's own record names the failed save from before attach, and says to ask for it again
    assert "[pageerror] [replayed]" in first_text and "xhr /clienti/save.cfm answered 500" in first_text, first_text
    assert "before attach" in first_text and "ask the person to repeat it" in first_text, first_text
    old_full, old_full_text = await agent.session("console_get", id=old_thrown["id"])
    assert old_full["entry"]["t"] < 0, old_full  # older than the capture, and the text says so in words
    assert f"{-old_full['entry']['t']} ms before capture start" in old_full_text, old_full_text
    seen = max(e["id"] for e in records(first["console"], "errors"))

    # The agent: "Attached to Modifica cliente. Press Salva again and tell me when you're done."
    await _user_clicks(chrome, "#salva")
    await _saves_reach(app, 2)
    # ... and goes back to their other tab: the agent reads and fixes the form in a hidden tab.
    await _user_eval(chrome, "b.html", "true", front=True)
    assert await _user_eval(chrome, "edit.cfm", "document.visibilityState") == "hidden"

    # Prompt 2: "fatto, ha dato di nuovo errore"
    await agent.until("console_list", lambda sc: any(e["type"] == "pageerror" for e in records(sc)), since_id=seen)
    # the agent asks for the storage names and the form too (a session token is in the story)
    bundle, bundle_text = await agent.session("debug_bundle", include_storage=True, include_snapshot=True)
    assert before_attach <= _iso(bundle["capturedSince"]) <= after_attach
    assert bundle["page"]["url"] == edit_url and bundle["page"]["title"] == "Modifica cliente"
    errors = records(bundle["network"], "httpErrors")
    post = next(e for e in errors if e["url"].endswith("/clienti/save.cfm"))
    assert (post["method"], post["status"], post["type"]) == ("POST", 500, "xhr"), post
    assert post["postDataPreview"] == "id=123&provincia=", post
    console_errors = records(bundle["console"], "errors")
    thrown = next(e for e in console_errors if e["type"] == "pageerror" and not e.get("replayed", False))
    assert "Element PROVINCIA is undefined" in thrown["text"], thrown
    assert functions(thrown["stack"]) == ["leggiErrore", "controllaEsito", "gestisciRisposta"]
    assert any("salvataggio fallito" in e["text"] and not e.get("replayed", False) for e in console_errors)
    storage = bundle["storage"]
    assert storage.get("sessionStorageKeys") == ["authToken"], (storage, bundle.get("notes"))
    assert "CFTOKEN" in storage["cookieNames"], storage
    assert 'button "Salva"' in bundle["snapshot"]
    # The text alone (what many clients show the model) names the failing call and the throwing functions.
    assert "POST 500 xhr /clienti/save.cfm" in bundle_text, bundle_text  # the page's origin said once
    thrown_text = bundle_text[bundle_text.index("[pageerror] Uncaught") :]  # the repeat's own error
    at = [thrown_text.index(f"    at {fn} (") for fn in ("leggiErrore", "controllaEsito", "gestisciRisposta")]
    assert at == sorted(at), bundle_text
    shown = [e for e in console_errors if f"  #{e['id']} [" in bundle_text]  # the text lists the newest few
    assert shown and any(e.get("replayed", False) for e in shown), bundle_text
    for e in shown:  # messages Chrome replayed from before attach are marked as such
        assert e.get("replayed", False) == (f"#{e['id']} [{e['type']}] [replayed]" in bundle_text), (e, bundle_text)

    http_500, _ = await agent.session("network_list", status_min=500)
    assert [(e["method"], e["status"]) for e in records(http_500)] == [("POST", 500)], http_500
    entry_id = records(http_500)[0]["id"]
    # Older clients' flat tools read the same capture in the user's Chrome.
    legacy_net, legacy_text = await agent.legacy("browser_get_network_errors")
    assert [e["id"] for e in records(legacy_net)] == [entry_id] and "save.cfm" in legacy_text, legacy_net
    legacy_console, _ = await agent.legacy("browser_get_console_logs", types=["pageerror"])
    assert [(e["type"], e.get("replayed", False)) for e in records(legacy_console)] == [
        ("pageerror", True),
        ("pageerror", False),
    ], legacy_console

    got, got_text = await agent.session("network_get", id=entry_id)
    entry = got["entry"]
    request_headers = {k.lower(): v for k, v in entry["requestHeaders"].items()}
    assert request_headers["authorization"] == "[redacted]" and request_headers["cookie"] == "[redacted]"
    response_headers = {k.lower(): v for k, v in entry["responseHeaders"].items()}
    assert response_headers["set-cookie"] == "[redacted]", response_headers
    assert entry["postDataPreview"] == "id=123&provincia="
    assert entry["initiator"]["stack"][0].startswith("salvaCliente ("), entry["initiator"]

    body, _ = await agent.session("network_save_body", id=entry_id)
    saved = artifacts / body["relativePath"]
    assert saved.read_bytes() == ERROR_HTML.encode(), "the saved body must be what the server sent"
    assert body["bytes"] == len(ERROR_HTML.encode()) and body["mimeType"] == "text/html"

    # Only what the repeat produced (since_id), with stacks, as the skill says.
    console, console_text = await agent.session("console_list", types=["error"], include_stack=True, since_id=seen)
    assert records(console) and not any(e.get("replayed", False) for e in records(console)), console
    stacks = [functions(e.get("stack") or []) for e in records(console)]
    assert any(s[:3] == ["leggiErrore", "controllaEsito", "gestisciRisposta"] for s in stacks), console
    assert "    at leggiErrore (" + edit_path + "?id=123:" in console_text, console_text  # the page's origin: a path
    assert ":None" not in console_text, console_text

    # Read the form the way an agent does, then fix it by uid.
    snap, snap_text = await agent.session("snapshot")
    lines = snap_text.splitlines()
    assert lines[0] == "Page: Modifica cliente", snap_text
    ragione = _uid(snap_text, r'textbox "Ragione sociale" value="ACME SRL"')
    provincia = _uid(snap_text, r'combobox "Provincia" value=""')
    salva = _uid(snap_text, r'button "Salva"')
    alert = _uid(snap_text, r'alert "Provincia obbligatoria"')
    assert len({ragione, provincia, salva, alert}) == 4
    assert len([r for r in records(snap, "lines") if r.get("uid")]) == 4, snap_text

    await agent.interact("fill_uid", uid=provincia, value="MI")
    last_id = max(e["id"] for e in records((await agent.session("network_list"))[0]))
    await agent.interact("click_uid", uid=salva)
    fixed = await agent.until(
        "network_list",
        lambda sc: any(e.get("status") == 200 for e in records(sc)),
        method="POST",
        since_id=last_id,
    )
    new_post = next(e for e in records(fixed) if e["url"].endswith("/clienti/save.cfm"))
    new_entry = (await agent.session("network_get", id=new_post["id"]))[0]["entry"]
    assert new_entry["postDataPreview"] == "id=123&provincia=MI", new_entry
    assert any(r.body == b"id=123&provincia=MI" for r in app.requests if r.path == "/clienti/save.cfm")
    # Acting through Playwright left the user's browser settings alone (no colour-scheme emulation).
    assert await _user_eval(chrome, "edit.cfm", DARK) and await _user_eval(chrome, "a.html", DARK)
    await agent.session("wait_for", text="Salvato", timeout_ms=10000)

    # A trace of one more save, in the user's tab, without reloading it.
    await agent.session("performance_start_trace", reload=False)
    await agent.interact("click_uid", uid=salva)
    await agent.session("wait_for", network_idle=True, timeout_ms=10000)
    stopped, _ = await agent.session("performance_stop_trace")
    trace_file = artifacts / stopped["tracePath"]
    assert trace_file.is_file() and trace_file.stat().st_size == stopped["bytes"] > 0, stopped
    assert not stopped.get("reloaded")
    json.loads(trace_file.read_text())
    summary, summary_text = await agent.session("performance_summary")
    assert summary["tracePath"] == stopped["tracePath"], summary
    assert "save.cfm" in json.dumps(summary), summary_text

    har, _ = await agent.session("network_export_har")
    har_data = json.loads((artifacts / har["relativePath"]).read_text())
    har_urls = [
        (e["request"]["method"], e["request"]["url"], e["response"]["status"]) for e in har_data["log"]["entries"]
    ]
    assert ("POST", app.url("/clienti/save.cfm"), 500) in har_urls, har_urls
    assert ("POST", app.url("/clienti/save.cfm"), 200) in har_urls, har_urls

    # A screenshot of a tab the user is not looking at: a picture, or at once a TIMEOUT saying why (never
    # the whole 60 s wait for a frame Chrome does not paint); bring_to_front is the way out.
    await agent.session("select_page_by_url", url_contains="a.html")
    assert not await _user_eval(chrome, "a.html", "document.visibilityState === 'visible'")
    for _ in range(2):
        result, shot, shot_text = await agent.call("browser_session", "screenshot")
        if result.is_error:
            assert shot["code"] == "TIMEOUT" and "background" in shot["message"], shot
            assert "bring_to_front" in shot["hint"], shot
        else:
            assert _is_png(shot["path"]), shot
    await agent.session("select_page_by_url", url_contains="a.html", bring_to_front=True)
    shot, _ = await agent.session("screenshot")
    assert _is_png(shot["path"]), shot
    await agent.session("select_page_by_url", url_contains="edit.cfm")

    # Let go: the user's Chrome, its three tabs and their state stay as they were.
    await agent.session("detach_cdp")
    assert chrome.alive
    assert {t["id"]: t["url"] for t in _tabs(chrome)} == tabs_before
    assert await _user_eval(chrome, "edit.cfm", "window.__userMark") == "not reloaded"
    assert await _user_eval(chrome, "edit.cfm", "document.getElementById('rs').value") == "ACME SRL"
    assert _page_gets(app, edit_path) == 1
    # Reading capture now says there is nothing to read, instead of launching a browser to show "0 entries".
    result, refused, _ = await agent.call("browser_session", "console_list")
    assert result.is_error and refused["code"] == "NOT_ATTACHED" and "attach_cdp" in refused["hint"], refused
    assert "detached" in refused["message"]  # the user's Chrome was let go of: said, not hidden
    status, _ = await agent.session("get_browser_status")
    assert status["browser"].get("activeTarget") is None and not status["browser"]["launch"].get("running"), status

    # The agent's own browser, in the same server process.
    await agent.session("use_launch_browser")
    nav, _ = await agent.session("navigate", url=app.url("/b.html"))
    assert nav["title"] == "Page B", nav
    status, _ = await agent.session("get_browser_status")
    assert status["browser"]["activeTarget"] == "launch", status
    assert {t["id"]: t["url"] for t in _tabs(chrome)} == tabs_before, "navigate went to the user's Chrome"

    # ... and the user's Chrome again.
    await agent.session("attach_cdp", cdp_url=chrome.http_url)
    again, _ = await agent.session("list_pages")
    assert {p["url"] for p in again["pages"]} == set(tabs_before.values()), again
    await agent.session("select_page_by_url", url_contains="edit.cfm")
    current = (await agent.session("get_current_page"))[0]["page"]
    assert current["url"] == edit_url and current.get("selected", False), current
    # The session ends still attached: the server's shutdown must leave the user's Chrome alone too.


def test_help_reads_well():
    proc = subprocess.run([str(SERVER_BIN), "--help"], capture_output=True, timeout=60, text=True)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("usage: mcp-browser")
    for flag in ("--http", "--toolset", "--cdp-url", "--artifact-dir"):
        assert flag in out, flag
    assert "./.mcp-browser-artifacts" in out, "the default artifacts dir is split across lines"
    assert "mcp-browser hook user-prompt" in out and "attach_cdp" in out
    bad = subprocess.run([str(SERVER_BIN), "--log-level", "loud"], capture_output=True, timeout=60, text=True, input="")
    assert bad.returncode == 2 and "--log-level" in bad.stderr and "Traceback" not in bad.stderr, bad.stderr


def test_module_entry_point_answers_initialize(tmp_path: Path):
    """``python -m mcp_server.cli`` (what ``make serve`` runs, minus set-up) answers one initialize line."""
    line = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}},
    }
    proc = subprocess.run(
        [sys.executable, "-m", "mcp_server.cli"],
        input=json.dumps(line) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        env=_server_env(tmp_path / "artifacts"),
        cwd=str(tmp_path),
    )
    answer = json.loads(proc.stdout.splitlines()[0])
    assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "mcp-browser-debug", answer


def test_unwritable_artifacts_dir_stops_with_a_clear_message(tmp_path: Path):
    """Claude Desktop starts servers in a read-only directory: a clear exit, not a traceback."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the artifacts folder would go")
    proc = subprocess.run(
        [str(SERVER_BIN)],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        env=_server_env(blocker / "artifacts"),
        cwd=str(tmp_path),
    )
    assert proc.returncode == 2, proc.stderr
    assert "MCP_ARTIFACT_DIR" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
