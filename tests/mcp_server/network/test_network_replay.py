"""``network_replay`` through the SDK's real client, on a real Chromium: checking a patch without the person.

A PHP-style app on the loopback test server: the edit page sets its session cookie, its save
(an AJAX POST with a CSRF header and a password field) dies with a PHP fatal error and a 500, and
its lookup (a GET) answers 200 with an app error, until the test "patches" the server. The agent
replays what was captured: the POST is refused with what would be sent until confirm=true, then
the server gets the same body with the page's cookie, and the answer puts 200 next to the 500.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from background_tabs import agent_in_hidden_tab, visibility
from golden import Golden
from httpserver import Reply, Request
from lean_util import assert_carries, assert_lean, records
from mcp.client import Client

from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings

pytestmark = pytest.mark.anyio

GOLDEN = Path(__file__).parent / "golden"
SESSION = "sess-replay-secret-77"
CSRF = "csrf-replay-secret-99"
PASSWORD = "hunter2-replay-secret"
BODY = f"id=12&city=Rome&password={PASSWORD}"
FATAL = (
    "<br />\n<b>Fatal error</b>:  Uncaught Error: Call to undefined function save_city() in "
    "/var/www/rp/save.php:7\nStack trace:\n#0 {main}\n  thrown in <b>/var/www/rp/save.php</b> on line <b>7</b><br />"
)

#: over the 1 MiB of request body Chrome puts in its event (maxPostDataSize): Chrome alone keeps it, until a navigation
UPLOAD_BYTES = 1_200_000
EDIT = f"""<!doctype html><html><head><title>Edit city</title></head><body>
<div id="msg"></div>
<script>
async function save() {{
  const r = await fetch("/rp/save.php", {{method: "POST", body: "{BODY}",
    headers: {{"Content-Type": "application/x-www-form-urlencoded", "X-CSRF-Token": "{CSRF}",
               "X-Requested-With": "XMLHttpRequest"}}}});
  document.getElementById("msg").textContent = "saved " + r.status + " " + (await r.text()).length;
}}
async function lookup() {{
  const r = await fetch("/rp/lookup.php?id=12");
  document.getElementById("msg").textContent = "looked up " + (await r.json()).success;
}}
async function upload() {{
  const r = await fetch("/rp/upload.php", {{method: "POST", body: "file=" + "a".repeat({UPLOAD_BYTES}),
    headers: {{"Content-Type": "application/x-www-form-urlencoded"}}}});
  document.getElementById("msg").textContent = "uploaded " + (await r.text());
}}
async function moved() {{
  const r = await fetch("/rp/moved.php?id=12");
  document.getElementById("msg").textContent = "moved " + (await r.json()).success;
}}
async function elsewhere() {{
  try {{ await fetch("/elsewhere/ping"); }} catch (e) {{ document.getElementById("msg").textContent = "blocked"; }}
}}
</script></body></html>"""


#: a frame of the page that asks for its own data: its request is replayed from the frame, not the page
INNER = """<script>fetch("/rp/lookup.php?id=12&from=frame").then((r) => r.text())
  .then((t) => { document.body.textContent = "frame got " + t; });</script>"""


@dataclass
class App:
    """The server side: what it received, and whether the fix is deployed."""

    patched: bool = False
    saves: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def edit(self, req: Request) -> Reply:
        return Reply(200, EDIT, headers={"Set-Cookie": f"PHPSESSID={SESSION}; Path=/; HttpOnly"})

    def save(self, req: Request) -> Reply:
        with self.lock:
            self.saves.append(req)
        if not self.patched:
            return Reply(500, FATAL)
        return Reply(200, '{"success":true,"id":12}', "application/json")

    def lookup(self, req: Request) -> Reply:
        if not self.patched:
            return Reply(200, '{"success":false,"error":"no town with id 12"}', "application/json")
        return Reply(200, '{"success":true,"town":"Rome"}', "application/json")


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def app(http_server) -> App:
    served = App()
    http_server.route("/rp/edit.php", served.edit)
    http_server.route("/rp/save.php", served.save)
    http_server.route("/rp/lookup.php", served.lookup)
    http_server.route("/rp/upload.php", Reply(200, "ok", "text/plain"))
    http_server.route("/rp/framed.php", Reply(200, '<title>Framed</title><iframe src="/rp/inner.php"></iframe>'))
    http_server.route("/rp/inner.php", Reply(200, INNER))
    http_server.route("/rp/moved.php", Reply(302, "", headers={"Location": "/rp/lookup.php?id=12"}))
    http_server.route("/elsewhere/ping", Reply(200, "pong", "text/plain"))
    return served


@pytest.fixture(scope="module")
async def client(http_server, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Client]:
    """One server and browser for the module; ALLOWED_URLS admits only the app's /rp/ pages."""
    artifacts = tmp_path_factory.mktemp("replay") / "artifacts"
    manager, server = build_app(Settings(artifact_dir=str(artifacts), allowed_urls=[http_server.url("/rp")]))
    try:
        async with Client(server) as c:
            yield c
    finally:
        await manager.close()


@pytest.fixture(scope="module")
async def g(client: Client, http_server) -> Golden:
    return await Golden.open(client, GOLDEN, http_server=http_server)


async def call(client: Client, action: str, **args: Any) -> tuple[Any, dict[str, Any]]:
    result = await client.call_tool("browser_session", {"action": action, **args})
    return result, result.structured_content or {}


async def ok(client: Client, action: str, **args: Any) -> dict[str, Any]:
    result, sc = await call(client, action, **args)
    assert not result.is_error, sc
    return sc


async def captured(client: Client, script: str, path: str, method: str) -> int:
    """Run one of the page's functions (as the person's click would) and return its request's entry id."""
    await ok(client, "evaluate_js", expression=f"{script}(); true")
    for _ in range(500):
        listing = await ok(client, "network_list", url_contains=path, method=method)
        if records(listing):
            entry_id = int(records(listing)[-1]["id"])
            got = (await ok(client, "network_get", id=entry_id))["entry"]
            while got.get("redirectedTo"):  # where it ended holds the body
                got = (await ok(client, "network_get", id=got["redirectedTo"]))["entry"]
            ended = isinstance(got.get("status"), int) or got.get("failed")
            if ended and got.get("bodyState") not in ("pending", "none"):
                return entry_id
            if got.get("failed"):
                return entry_id
        await asyncio.sleep(0.05)
    raise AssertionError(f"{path} was never captured: {got}")


@pytest.fixture(scope="module")
async def page(client: Client, app: App, http_server) -> str:
    url = http_server.url("/rp/edit.php")
    await ok(client, "navigate", url=url)
    return url


async def replay(client: Client, **args: Any) -> Any:
    """One network_replay call, its answer checked as every answer is: the outputSchema, the size rule."""
    result = await client.call_tool("browser_session", {"action": "network_replay", **args})
    tools = {t.name: t for t in (await client.list_tools()).tools}
    jsonschema.validate(result.structured_content, tools["browser_session"].output_schema)
    if not result.is_error:
        assert_lean(result)
    return result


def everything_text(result: Any) -> str:
    return "\n".join(getattr(b, "text", "") for b in result.content)


def everything(result: Any) -> str:
    """Both renderings: what any client's model may read."""
    return json.dumps(result.structured_content) + everything_text(result)


#: the replay answers' measurements and time-stamped names
MEASURED: dict[str, Any] = {"keys": {"durationMs": "<MS>"}, "subs": [(r"\d+ ms", "<N> ms")]}


async def test_replay_golden(client: Client, app: App, page: str, g: Golden) -> None:
    """What the model reads: the refusal with its preview, the POST and GET replays, a body not captured.

    First in the module, so that its entry ids are the same whether it runs alone (make golden) or not."""
    app.patched = False
    save = await captured(client, "save", "/rp/save.php", "POST")
    await g.check("network_replay", scenario="confirm", error=True, id=save)
    lookup = await captured(client, "lookup", "/rp/lookup.php", "GET")
    app.patched = True
    await g.check("network_replay", id=save, confirm=True, **MEASURED)
    await g.check("network_replay", scenario="get", id=lookup, **MEASURED)
    upload = await captured(client, "upload", "/rp/upload.php", "POST")
    await ok(client, "navigate", url=page)
    await g.check("network_replay", scenario="no-body", error=True, id=upload, confirm=True)


async def test_a_post_waits_for_confirm_then_goes_with_the_same_body_and_cookie(
    client: Client, app: App, page: str
) -> None:
    app.patched = False
    saves = len(app.saves)
    save = await captured(client, "save", "/rp/save.php", "POST")
    assert len(app.saves) == saves + 1
    first = app.saves[-1]
    assert first.body.decode() == BODY and f"PHPSESSID={SESSION}" in first.headers["cookie"]

    result = await replay(client, id=save)
    refused = result.structured_content or {}
    assert result.is_error and refused["code"] == "CONFIRM_REQUIRED", refused
    said = everything(result)
    assert f"POST {page.replace('edit.php', 'save.php')}" in said and "id=12&city=Rome&password=" in said
    assert "X-Requested-With: XMLHttpRequest" in said
    for secret in (PASSWORD, CSRF, SESSION):
        assert secret not in said
    assert len(app.saves) == saves + 1  # nothing was sent

    app.patched = True  # the fix is deployed
    result = await replay(client, id=save, confirm=True)
    assert not result.is_error, result.content
    replayed = result.structured_content or {}
    assert len(app.saves) == saves + 2
    again = app.saves[-1]
    assert again.method == "POST" and again.body == first.body
    assert f"PHPSESSID={SESSION}" in again.headers["cookie"]  # the browser added the page's cookie
    assert again.headers["x-csrf-token"] == CSRF and again.headers["content-type"] == first.headers["content-type"]
    assert again.headers.get("origin") == first.headers.get("origin")
    assert again.headers == first.headers  # the same request, header for header: the browser set the rest
    assert replayed["original"]["status"] == 500 and replayed["replay"]["status"] == 200
    assert "save.php:7" in replayed["original"]["serverError"]
    assert "serverError" not in replayed["replay"]
    assert replayed["replay"]["id"] > save
    artifacts = Path((await ok(client, "get_capabilities"))["settings"]["artifactDir"])
    assert json.loads((artifacts / replayed["saved"]["relativePath"]).read_text()) == {"success": True, "id": 12}
    text = everything_text(result)  # the same facts for a text-only client
    assert "status: 500 -> 200" in text and "save.php:7) -> none" in text
    assert replayed["saved"]["relativePath"] in text

    # the replay is an ordinary request of the tab: listed, read and saved like the person's own
    got = await ok(client, "network_get", id=replayed["replay"]["id"])
    assert (got["entry"]["method"], got["entry"]["status"]) == ("POST", 200)
    assert got["entry"]["postDataPreview"].startswith("id=12&city=Rome&password=")


async def test_a_get_replays_at_once_next_to_its_app_error(client: Client, app: App, page: str) -> None:
    app.patched = False
    lookup = await captured(client, "lookup", "/rp/lookup.php", "GET")
    app.patched = True
    result = await replay(client, id=lookup)
    assert not result.is_error, result.content
    replayed = result.structured_content or {}
    assert replayed["original"]["appError"] == "no town with id 12"
    assert "appError" not in replayed["replay"] and replayed["replay"]["status"] == 200
    assert replayed["saved"]["preview"] == '{"success":true,"town":"Rome"}'
    assert "app error: no town with id 12 -> none" in everything_text(result)
    assert "status: 200 -> 200" in everything_text(result)
    assert_carries(result, "no town with id 12", replayed["saved"]["relativePath"])


async def test_a_redirected_request_is_compared_where_it_ended(client: Client, app: App, page: str) -> None:
    app.patched = False
    moved = await captured(client, "moved", "/rp/moved.php", "GET")
    app.patched = True
    replayed = (await replay(client, id=moved)).structured_content or {}
    assert replayed["original"]["appError"] == "no town with id 12" and replayed["original"]["id"] > moved
    assert "appError" not in replayed["replay"]
    for side in ("original", "replay"):
        hop = (await ok(client, "network_get", id=replayed[side]["id"]))["entry"]
        assert hop["url"].endswith("/rp/lookup.php?id=12") and hop["status"] == 200, hop
    first = (await ok(client, "network_get", id=replayed["replay"]["id"]))["entry"]["redirectedFrom"]
    assert first > moved  # the replay sent the redirecting request itself, and followed it as the page did


async def test_a_frames_request_is_replayed_from_that_frame(client: Client, app: App, page: str, http_server) -> None:
    await ok(client, "navigate", url=http_server.url("/rp/framed.php"))
    try:
        listing: dict[str, Any] = {}
        for _ in range(500):
            listing = await ok(client, "network_list", url_contains="from=frame")
            if records(listing) and isinstance(records(listing)[-1].get("status"), int):
                break
            await asyncio.sleep(0.05)
        framed = int(records(listing)[-1]["id"])
        replayed = (await replay(client, id=framed)).structured_content or {}
        assert replayed["replay"]["status"] == 200
        sent = [r for r in http_server.requests if r.path == "/rp/lookup.php" and r.query.get("from") == ["frame"]]
        assert len(sent) == 2  # the frame's own, then the replay: sent by the frame (its URL is the referrer)
        assert sent[1].headers["referer"] == sent[0].headers["referer"] == http_server.url("/rp/inner.php")
    finally:
        await ok(client, "navigate", url=page)


async def test_a_body_that_was_not_captured_is_not_sent(client: Client, app: App, page: str, http_server) -> None:
    upload = await captured(client, "upload", "/rp/upload.php", "POST")
    await ok(client, "navigate", url=page)  # the person opens the page again: Chrome forgets the big body
    uploads = sum(1 for r in http_server.requests if r.path == "/rp/upload.php")
    result = await replay(client, id=upload, confirm=True)
    refused = result.structured_content or {}
    assert result.is_error and refused["code"] == "BODY_UNAVAILABLE", refused
    assert "not captured" in refused["message"]
    assert sum(1 for r in http_server.requests if r.path == "/rp/upload.php") == uploads


async def test_a_url_outside_allowed_urls_is_refused(client: Client, app: App, page: str, http_server) -> None:
    await ok(client, "evaluate_js", expression="elsewhere(); true")
    await ok(client, "wait_for", text="blocked")
    listing = await ok(client, "network_list", url_contains="/elsewhere/ping")
    blocked = int(records(listing)[-1]["id"])
    requests_before = sum(1 for r in http_server.requests if r.path == "/elsewhere/ping")
    result = await replay(client, id=blocked)
    sc = result.structured_content or {}
    assert result.is_error and sc["code"] == "BLOCKED_BY_POLICY", sc
    assert "ALLOWED_URLS" in sc["message"] + sc.get("hint", "")
    assert sum(1 for r in http_server.requests if r.path == "/elsewhere/ping") == requests_before


async def test_an_unknown_entry_is_named(client: Client, page: str) -> None:
    result, sc = await call(client, "network_replay", id=99999)
    assert result.is_error and sc["code"] == "ENTRY_NOT_FOUND", sc


async def test_in_the_users_chrome_from_a_background_tab(users_chrome, app: App, http_server, tmp_path: Path) -> None:
    """The person's Chrome, the app's tab behind the one they look at: the replay goes from that tab,
    with its cookie, and leaves the tab where it was (hidden, same page)."""
    app.patched = False
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, "/rp/edit.php", "Edit city") as agent:
        save = await captured(agent.client, "save", "/rp/save.php", "POST")
        saves = len(app.saves)
        refused = await agent.err("network_replay", "CONFIRM_REQUIRED", id=save)
        assert PASSWORD not in json.dumps(refused) and CSRF not in json.dumps(refused)
        assert len(app.saves) == saves

        app.patched = True
        replayed = await agent.s("network_replay", id=save, confirm=True)
        assert (replayed["original"]["status"], replayed["replay"]["status"]) == (500, 200)
        again = app.saves[-1]
        assert len(app.saves) == saves + 1 and again.body.decode() == BODY
        assert f"PHPSESSID={SESSION}" in again.headers["cookie"]
        tab = agent.manager.ready_page()
        assert tab is not None and tab.url == http_server.url("/rp/edit.php")  # the page stayed where it was
        assert await visibility(users_chrome.http_url, tab.target_id) == "hidden"  # never brought to front
