"""No planted secret leaks: a scripted session, every read tool, every file written, the audit log.

The page gets a cookie from ``Set-Cookie`` (HttpOnly) and sets one from script; it sends
fetches with ``Authorization: Bearer ...`` and ``X-API-Key``, a JSON POST and a form POST
carrying a password typed with ``fill``; responses carry ``Set-Cookie``. Then every read
tool is called and each answer's text and structuredContent, every file under the artifacts
root and the audit log are scanned for the planted values. The one documented exception is
the file ``export_state`` writes (cookie values, owner-only, for ``load_state``): it holds the
cookies, its answer does not, and no tool reads it back. Run on the internal browser and on an
attached Chrome.
"""

from __future__ import annotations

import json
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from httpserver import Reply, Request
from lean_util import records
from mcp.client import Client

from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings

SRV_COOKIE = "srvck-planted-5be1"
JS_COOKIE = "jsck-planted-77c0"
BEARER = "bearer-planted-91fa"
API_KEY = "apikey-planted-2d4e"
PASSWORD = "pw-planted-c8f3"
RESP_COOKIE = "respck-planted-0a9b"
SECRETS = (SRV_COOKIE, JS_COOKIE, BEARER, API_KEY, PASSWORD, RESP_COOKIE)

PAGE = """<!doctype html><html><head><title>Account</title></head><body>
<h1>Sign in</h1>
<form id="login" method="post" action="/sec-leak/login">
  <label>User <input id="user" name="user" value="ada"></label>
  <label>Password <input id="pw" type="password" name="password"></label>
  <button id="go">Sign in</button>
</form>
<script>
// The secrets come from the app's runtime state (planted by the test over a side channel),
// never from the page source, so a saved page body is not a leak of them.
async function calls() {
  const s = window.__planted;
  document.cookie = "jsck=" + s.jsCookie + "; path=/";
  await fetch("/sec-leak/api?q=1", {headers: {"Authorization": "Bearer " + s.bearer, "X-API-Key": s.apiKey}});
  await fetch("/sec-leak/json", {method: "POST",
    headers: {"Content-Type": "application/json", "Authorization": "Bearer " + s.bearer},
    body: JSON.stringify({user: "ada", password: document.getElementById("pw").value})});
  await fetch("/sec-leak/fail", {headers: {"X-API-Key": s.apiKey}});
  console.error("request failed for user ada");
  return "done";
}
</script></body></html>"""

PLANT = json.dumps({"jsCookie": JS_COOKIE, "bearer": BEARER, "apiKey": API_KEY})


def _login(req: Request) -> Reply:
    return Reply(
        200,
        "<!doctype html><title>Welcome</title><p>Signed in</p>",
        headers={"Set-Cookie": f"resp={RESP_COOKIE}; Path=/; HttpOnly"},
    )


@pytest.fixture
def site(http_server) -> Any:
    http_server.route(
        "/sec-leak/page.html", Reply(200, PAGE, headers={"Set-Cookie": f"sid={SRV_COOKIE}; Path=/; HttpOnly"})
    )
    http_server.route(
        "/sec-leak/api",
        Reply(200, '{"items": [1, 2]}', "application/json", headers={"Set-Cookie": f"resp={RESP_COOKIE}; Path=/"}),
    )
    http_server.route("/sec-leak/json", Reply(201, '{"saved": true}', "application/json"))
    http_server.route("/sec-leak/fail", Reply(500, '{"error": "boom"}', "application/json"))
    http_server.route("/sec-leak/login", _login)
    return http_server


class Scanner:
    """Calls tools and keeps every answer to scan."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.answers: list[tuple[str, str]] = []

    async def call(self, tool: str, args: dict[str, Any], *, ok: bool = True) -> dict[str, Any]:
        result = await self.client.call_tool(tool, args)
        sc = result.structured_content or {}
        label = f"{tool} {json.dumps(args)[:80]}"
        texts = [getattr(block, "text", "") or "" for block in result.content]
        self.answers.append((label, "\n".join(texts) + "\n" + json.dumps(sc, ensure_ascii=False)))
        if ok:
            assert not result.is_error, (label, texts)
        return sc

    async def s(self, action: str, **args: Any) -> dict[str, Any]:
        return await self.call("browser_session", {"action": action, **args})


@pytest.fixture(params=["launch", "cdp"])
async def session(request, tmp_path: Path, site) -> AsyncIterator[tuple[Scanner, Path, Any, Any]]:
    root = tmp_path / "artifacts"
    manager, server = build_app(Settings(artifact_dir=str(root)))
    chrome = None
    if request.param == "cdp":
        chrome = request.getfixturevalue("fresh_chromium")
    try:
        async with Client(server) as client:
            scanner = Scanner(client)
            if chrome is not None:
                await scanner.s("attach_cdp", cdp_url=chrome.http_url)
            yield scanner, root, manager, site
    finally:
        await manager.close()


async def _wait_entries(sc: Scanner, count: int) -> list[dict[str, Any]]:
    for _ in range(300):
        entries = records(await sc.s("network_list", limit=200))
        done = [e for e in entries if "/sec-leak/" in e["url"] and e.get("status") is not None]
        if len(done) >= count:
            return entries
        await anyio.sleep(0.02)
    raise AssertionError(f"expected {count} finished requests: {entries}")


async def test_no_planted_secret_in_any_output_file_or_log(session):
    sc, root, manager, site = session
    await sc.s("navigate", url=site.url("/sec-leak/page.html"))
    page = await manager.current_page()  # side channel, outside the tools: the app's own runtime state
    await page.session.send("Runtime.evaluate", {"expression": f"window.__planted = {PLANT}; 1"})
    await sc.call("browser_fill", {"selector": "#pw", "value": PASSWORD})
    await sc.call("browser_interact", {"action": "fill", "selector": "#pw", "value": PASSWORD})
    assert (await sc.s("evaluate_js", expression="await calls()"))["result"] == "done"
    entries = await _wait_entries(sc, 4)

    # -- every read tool on the page with the secrets -------------------------------------
    for entry in entries:
        await sc.s("network_get", id=entry["id"])
        for body in ("response", "request"):
            await sc.call("browser_session", {"action": "network_save_body", "id": entry["id"], "body": body}, ok=False)
    await sc.s("network_list", failed_only=True)
    await sc.s("network_export_har")
    await sc.s("network_export_har", include_bodies=True)
    await sc.s("console_list", include_stack=True)
    for item in records(await sc.s("console_list")):
        await sc.s("console_get", id=item["id"], include_stack=True)
    await sc.s("get_console_logs")
    await sc.s("get_network_errors")
    await sc.s("snapshot")
    await sc.s("snapshot", interactive_only=True, include_urls=True)
    await sc.s("get_dom")
    await sc.s("get_dom", selector="#login")
    await sc.s("annotate")
    await sc.s("annotate", clear=True)
    await sc.s("list_frames")
    await sc.s("list_pages")
    await sc.s("get_current_page")
    await sc.s("get_browser_status")
    await sc.s("get_capabilities")
    await sc.s("screenshot")
    await sc.s("debug_bundle", save_artifacts=True, include_screenshot=True)
    await sc.s("read_downloaded_file")
    exported = await sc.s("export_state")
    await sc.s("performance_start_trace")
    await sc.s("evaluate_js", expression="await calls()")
    await sc.s("performance_stop_trace")
    await sc.s("performance_summary")

    # -- the form POST with the typed password, and the page after it ---------------------
    await sc.call("browser_click", {"selector": "#go"})
    await sc.s("wait_for", text="Signed in", timeout_ms=10000)
    entries = records(await sc.s("network_list", limit=200))
    login = [e for e in entries if e["url"].endswith("/sec-leak/login")]
    assert login and login[-1]["method"] == "POST"
    await sc.s("network_get", id=login[-1]["id"])
    await sc.call(
        "browser_session", {"action": "network_save_body", "id": login[-1]["id"], "body": "request"}, ok=False
    )
    await sc.s("network_export_har", include_bodies=True)
    await sc.s("debug_bundle", save_artifacts=True)
    await sc.s("snapshot")

    # -- the scan ----------------------------------------------------------------------------
    leaks = [(label, s) for label, text in sc.answers for s in SECRETS if s in text]
    assert not leaks, leaks
    _check_files(root, Path(exported["path"]))
    assert "sid" in exported["cookieNames"]
    # The secrets did reach the browser and the server: the test is not vacuous.
    sent = [r for r in site.requests if r.path.startswith("/sec-leak/")]
    assert any(r.headers.get("authorization") == f"Bearer {BEARER}" for r in sent)
    assert any(r.headers.get("x-api-key") == API_KEY for r in sent)
    assert any(PASSWORD.encode() in r.body for r in sent if r.path == "/sec-leak/login")
    assert any(SRV_COOKIE in r.headers.get("cookie", "") for r in sent)


def _check_files(root: Path, state_file: Path) -> None:
    """Every file under the artifacts root (the audit log included) is free of the planted values."""
    files = [p for p in root.rglob("*") if p.is_file() and p != state_file]
    assert any(p.name == "audit.jsonl" for p in files)
    assert any(p.suffix == ".har" for p in files) and any(p.name == "bundle.json" for p in files)
    for path in files:
        data = path.read_bytes()
        found = [s for s in SECRETS if s.encode() in data]
        assert not found, (str(path.relative_to(root)), found)
    # The saved request bodies are there, with the typed password masked and the rest as sent.
    saved_login = [p for p in files if "-request-login" in p.name]
    assert saved_login and b"user=ada" in saved_login[-1].read_bytes()
    assert b"password=[redacted]" in saved_login[-1].read_bytes()
    assert any(b'"password":"[redacted]"' in p.read_bytes() for p in files if "-request-json" in p.name)
    # The exception: export_state's file holds the cookies (load_state needs them), owner-only.
    state = json.loads(state_file.read_text())
    assert {SRV_COOKIE, JS_COOKIE} <= {c["value"] for c in state["cookies"]}
    assert stat.S_IMODE(state_file.stat().st_mode) == 0o600
