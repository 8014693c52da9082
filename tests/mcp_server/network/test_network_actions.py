"""Capture actions through the SDK's real client, on the server the CLI builds (capture installed).

The internal browser loads the legacy form whose POST to /clienti/save.cfm answers 500;
the agent asks for the debug bundle, lists and reads the request, saves its body and a HAR.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from httpserver import Reply
from lean_util import record, records
from mcp.client import Client

from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings

ERROR_HTML = "<html><body><h1>Error Occurred While Processing Request</h1><p>PROVINCIA is undefined</p></body></html>"
SECRET_AUTH = "Bearer mcp-capture-secret-42"

FORM = f"""<!doctype html><html><head><title>Modifica cliente</title></head><body>
<form id="f" onsubmit="save(); return false"><input name="id" value="123"><input name="provincia" value="">
<button>Salva</button></form><div id="msg"></div>
<script>
localStorage.setItem("draft-cliente", "secret-draft-value");
sessionStorage.setItem("tab-state", "1");
document.cookie = "CFID=cookie-secret-value; path=/";
async function save() {{
  const body = new URLSearchParams(new FormData(document.getElementById("f"))).toString();
  const r = await fetch("/clienti/save.cfm", {{method: "POST", body,
    headers: {{"Content-Type": "application/x-www-form-urlencoded", "Authorization": "{SECRET_AUTH}"}}}});
  const html = await r.text();
  if (!r.ok) {{
    console.error("salvataggio fallito", {{status: r.status}});
    throw new Error("save failed " + r.status);
  }}
}}
</script></body></html>"""


@pytest.fixture
async def app(artifacts_dir: Path) -> AsyncIterator[tuple[object, object]]:
    manager, server = build_app(Settings(artifact_dir=str(artifacts_dir)))
    try:
        yield manager, server
    finally:
        await manager.close()


@pytest.fixture
def legacy_form(http_server) -> str:
    http_server.route("/mcp-cap/edit.cfm", Reply(200, FORM))
    http_server.route("/clienti/save.cfm", Reply(500, ERROR_HTML))
    http_server.route("/mcp-cap/other.html", Reply(200, "<title>other</title><p>elsewhere</p>"))
    return http_server.url("/mcp-cap/edit.cfm")


async def call(client: Client, action: str, **args):
    result = await client.call_tool("browser_session", {"action": action, **args})
    return result, result.structured_content or {}


async def wait_for(client: Client, action: str, predicate, **args):
    for _ in range(500):
        result, sc = await call(client, action, **args)
        assert not result.is_error, sc
        if predicate(sc):
            return sc
        await asyncio.sleep(0.02)
    raise AssertionError(f"{action} never satisfied the condition: {sc}")


async def test_debug_bundle_on_the_save_cfm_500(app, legacy_form, artifacts_dir: Path):
    _, server = app
    async with Client(server) as client:
        result, sc = await call(client, "navigate", url=legacy_form)
        assert not result.is_error, sc
        # As a click would: the rejection is unhandled, so it is a page error too.
        result, sc = await call(client, "evaluate_js", expression="setTimeout(save, 0); true")
        assert not result.is_error, sc
        await wait_for(client, "console_list", lambda sc: sc.get("entries", []), types=["pageerror"])

        # every section asked for (by default storage and the snapshot come only when they matter)
        result, bundle = await call(
            client,
            "debug_bundle",
            include_screenshot=True,
            save_artifacts=True,
            include_storage=True,
            include_snapshot=True,
        )
        assert not result.is_error, bundle
        assert bundle["capturedSince"]
        assert bundle["page"]["url"] == legacy_form and bundle["page"]["stable_page_id"].startswith("p")
        assert bundle["page"]["title"] == "Modifica cliente"
        assert "frames" not in bundle  # one frame: the page itself, said once
        http_errors = records(bundle["network"], "httpErrors")
        assert [(e["method"], e["status"]) for e in http_errors if "save.cfm" in e["url"]] == [("POST", 500)]
        post = next(e for e in http_errors if "save.cfm" in e["url"])
        assert post["postDataPreview"] == "id=123&provincia="
        last = record(bundle["network"]["lastXhrOrFetch"], bundle["network"]["columns"])
        assert last == {"id": post["id"]}  # the save's row is above: named by its id, not repeated
        texts = [e["text"] for e in records(bundle["console"], "errors")]
        assert any("salvataggio fallito" in t for t in texts)
        assert any("save failed 500" in t for t in texts)
        assert bundle["storage"]["localStorageKeys"] == ["draft-cliente"]
        assert bundle["storage"]["sessionStorageKeys"] == ["tab-state"]
        assert "CFID" in bundle["storage"]["cookieNames"]
        assert 'button "Salva"' in bundle["snapshot"]
        shot = artifacts_dir / bundle["screenshot"]
        assert shot.read_bytes().startswith(b"\x89PNG")
        saved = json.loads((artifacts_dir / bundle["files"]["bundleJson"]).read_text())
        # the file keeps the full records; the answer is their lean form (no nulls, no false flags)
        assert saved["snapshotPreview"]["kind"] == "snapshot"
        assert [e["id"] for e in saved["network"]["httpErrors"]] == [e["id"] for e in http_errors]
        assert "failureText" in saved["network"]["httpErrors"][0]
        assert "save.cfm" in (artifacts_dir / bundle["files"]["bundleMd"]).read_text()
        everything = json.dumps(bundle) + result.content[0].text
        for secret in (SECRET_AUTH, "cookie-secret-value", "secret-draft-value"):
            assert secret not in everything
        assert "save.cfm" in result.content[0].text


async def test_network_actions_list_get_save_har_clear(app, legacy_form, artifacts_dir: Path):
    _, server = app
    async with Client(server) as client:
        await call(client, "navigate", url=legacy_form)
        await call(client, "evaluate_js", expression="save().catch(e => String(e))")
        listing = await wait_for(client, "network_list", lambda sc: records(sc), method="POST")
        entry = records(listing)[0]
        assert (entry["method"], entry["status"], entry["type"]) == ("POST", 500, "fetch")
        assert listing["capturedSince"] and "evicted" not in listing
        assert entry["postDataPreview"] == "id=123&provincia="  # the payload, in the list
        await wait_for(client, "network_get", lambda sc: sc["entry"].get("bodyState") == "held", id=entry["id"])

        result, got = await call(client, "network_get", id=entry["id"])
        assert not result.is_error
        headers = {k.lower(): v for k, v in got["entry"]["requestHeaders"].items()}
        assert headers["authorization"] == "[redacted]" and headers["cookie"] == "[redacted]"
        assert SECRET_AUTH not in json.dumps(got) + result.content[0].text

        # The page navigates away: the body is still there because it was held.
        await call(client, "navigate", url=legacy_form.replace("edit.cfm", "other.html"))
        result, body = await call(client, "network_save_body", id=entry["id"])
        assert not result.is_error, body
        assert (artifacts_dir / body["relativePath"]).read_bytes() == ERROR_HTML.encode()
        assert body["relativePath"].startswith("network/") and body["sha256"] and body["mimeType"] == "text/html"

        result, req = await call(client, "network_save_body", id=entry["id"], body="request")
        assert (artifacts_dir / req["relativePath"]).read_text() == "id=123&provincia="

        other = await wait_for(client, "network_list", lambda sc: records(sc), url_contains="other.html")
        doc = records(other)[0]
        result, err = await call(client, "network_save_body", id=doc["id"] + 1000)
        assert result.is_error and err["code"] == "ENTRY_NOT_FOUND"

        result, har = await call(client, "network_export_har")
        assert not result.is_error, har
        data = json.loads((artifacts_dir / har["relativePath"]).read_text())
        assert data["log"]["version"] == "1.2" and len(data["log"]["entries"]) == har.get("entries", []) >= 3
        headers_only = [[e["request"]["headers"], e["response"]["headers"]] for e in data["log"]["entries"]]
        assert SECRET_AUTH not in json.dumps(headers_only)  # (the form page's own source does contain it)
        assert "[redacted]" in json.dumps(headers_only)

        result, cleared = await call(client, "network_clear")
        assert cleared["cleared"] >= 3
        result, after = await call(client, "network_list")
        assert records(after) == [] and after["total"] == 0
        result, err = await call(client, "network_get", id=entry["id"])
        assert result.is_error and err["code"] == "ENTRY_NOT_FOUND" and "network_list" in err["hint"]


async def test_console_actions_and_body_unavailable(app, http_server, legacy_form):
    _, server = app
    http_server.route("/mcp-cap/page.html", Reply(200, "<title>p</title><img src='/mcp-cap/missing.png'>"))
    async with Client(server) as client:
        await call(client, "navigate", url=http_server.url("/mcp-cap/page.html"))
        await call(client, "evaluate_js", expression="console.warn('attenzione', 1); console.log('ciao')")
        listing = await wait_for(client, "console_list", lambda sc: len(records(sc)) >= 3)
        kinds = {e["type"] for e in records(listing)}
        assert {"warning", "log", "error"} <= kinds  # the 404 image comes from Log.entryAdded
        warn = next(e for e in records(listing) if e["type"] == "warning")
        result, got = await call(client, "console_get", id=warn["id"])
        assert got["entry"]["args"] == ["attenzione", "1"]
        result, only = await call(client, "console_list", types=["warning"], since_id=0, limit=5)
        assert [e["id"] for e in records(only)] == [warn["id"]]
        result, bad = await call(client, "console_list", limit=0)
        assert result.is_error and bad["code"] == "INVALID_ARGUMENT"

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        await call(client, "evaluate_js", expression=f"fetch('http://127.0.0.1:{port}/x').catch(String)")
        net = await wait_for(client, "network_list", lambda sc: records(sc), failed_only=True)
        failed = records(net)[0]
        assert failed["status"].startswith("FAILED") and "ERR_CONNECTION_REFUSED" in failed["status"]
        result, err = await call(client, "network_save_body", id=failed["id"])
        assert result.is_error and err["code"] == "BODY_UNAVAILABLE" and err["id"] == failed["id"]
        result, still = await call(client, "network_list")
        assert not result.is_error and failed["id"] in [e["id"] for e in records(still)]  # state intact

        result, cleared = await call(client, "console_clear")
        assert cleared["cleared"] >= 3
        result, empty = await call(client, "console_list")
        assert records(empty) == []


async def test_users_chrome_oopif_error_and_request_captured_after_attach(http_server, artifacts_dir: Path):
    """The user's Chrome with a cross-site iframe (its own process): errors and requests of both."""
    import cdp_core
    from cdp_core import ChromiumProcess

    # other.test resolves to 127.0.0.1 inside this browser only: a second site on loopback.
    chrome = await ChromiumProcess.astart(
        extra_args=["--host-resolver-rules=MAP other.test 127.0.0.1", "--site-per-process"]
    )
    inner = f"http://other.test:{http_server.port}/mcp-cap/inner.html"
    http_server.route(
        "/mcp-cap/inner.html",
        Reply(
            200,
            "<title>inner</title><script>function handleMessage(m) {"
            " fetch('/mcp-cap/from-frame?x=' + m.data).then(r => r.text());"
            " throw new Error('errore nel frame ' + m.data) }"
            " window.onmessage = handleMessage;</script>",
        ),
    )
    http_server.route("/mcp-cap/outer.html", Reply(200, f'<title>outer</title><iframe src="{inner}"></iframe>'))
    http_server.route("/mcp-cap/from-frame", Reply(200, "ok", "text/plain"))
    try:
        await cdp_core.new_tab(chrome.http_url, http_server.url("/mcp-cap/outer.html"))
        manager, server = build_app(Settings(artifact_dir=str(artifacts_dir)))
        try:
            async with Client(server) as client:
                result, sc = await call(client, "attach_cdp", cdp_url=chrome.http_url)
                assert not result.is_error, sc
                result, sc = await call(client, "select_page", url_contains="outer.html")
                assert not result.is_error, sc
                # The tab was opened before attach: poke the iframe until its handler is there.
                error = None
                for n in range(100):
                    await call(client, "evaluate_js", expression=f"frames[0].postMessage('{n}', '*'); true")
                    await asyncio.sleep(0.1)
                    _, errors = await call(client, "console_list", types=["pageerror"])
                    # A poke that ran before capture reached the iframe's own session is only replayed
                    # (Runtime.enable): its request came before Network.enable and is rightly not listed.
                    live = [e for e in records(errors) if not e.get("replayed")]
                    if live:
                        error = live[0]
                        break
                assert error is not None, "the iframe never threw"
                n = error["text"].rsplit(" ", 1)[-1]
                assert f"errore nel frame {n}" in error["text"]
                # the list names the page once; an entry of another frame says its frame
                assert error["frame"] == inner and "page" not in error
                assert errors["page"] == http_server.url("/mcp-cap/outer.html")
                net = await wait_for(
                    client,
                    "network_list",
                    lambda sc: records(sc) and records(sc)[0]["status"] == 200,
                    url_contains=f"x={n}",
                )
                entry = records(net)[0]
                result, got = await call(client, "network_get", id=entry["id"])
                assert got["entry"]["frameKind"] == "iframe" and got["entry"]["status"] == 200
                await wait_for(client, "network_get", lambda sc: sc["entry"].get("bodyState") == "held", id=entry["id"])
                result, body = await call(client, "network_save_body", id=entry["id"])
                assert not result.is_error, body
                assert (artifacts_dir / body["relativePath"]).read_text() == "ok"
        finally:
            await manager.close()
        urls = [t.url for t in await cdp_core.list_targets(chrome.http_url)]
        assert http_server.url("/mcp-cap/outer.html") in urls  # the user's tab is still open
    finally:
        chrome.stop()


async def test_debug_bundle_with_a_dialog_open_does_not_hang(app, http_server, fresh_chromium):
    """On the user's Chrome nothing dismisses an alert: the bundle reports it instead of hanging."""
    import cdp_core

    _, server = app
    http_server.route("/mcp-cap/dialog.html", Reply(200, "<title>dialog</title><p>pagina</p>"))
    await cdp_core.new_tab(fresh_chromium.http_url, http_server.url("/mcp-cap/dialog.html"))
    async with Client(server) as client:
        result, sc = await call(client, "attach_cdp", cdp_url=fresh_chromium.http_url)
        assert not result.is_error, sc
        result, sc = await call(client, "select_page", url_contains="dialog.html")
        assert not result.is_error, sc
        result, first = await call(client, "debug_bundle")
        assert not result.is_error and "dialog" not in first, first
        expression = "setTimeout(() => alert('Sessione scaduta'), 0); true"
        result, sc = await call(client, "evaluate_js", expression=expression)
        assert not result.is_error, sc
        for _ in range(200):
            result, bundle = await call(client, "debug_bundle", include_screenshot=True)
            if bundle.get("dialog"):
                break
            await asyncio.sleep(0.02)
        assert not result.is_error, bundle
        assert bundle["dialog"]["type"] == "alert" and bundle["dialog"]["message"] == "Sessione scaduta"
        assert "snapshot" not in bundle and "storage" not in bundle and "screenshot" not in bundle
        assert any("dialog" in note for note in bundle["notes"])
        assert "Sessione scaduta" in result.content[0].text
        result, sc = await call(client, "handle_dialog", dialog_action="accept")
        assert not result.is_error, sc
        result, after = await call(client, "debug_bundle", include_snapshot=True)
        assert "dialog" not in after and after["snapshot"]


async def test_websocket_frames_through_network_list_and_get(app, http_server):
    from websockets.asyncio.server import serve

    async def echo(ws):
        async for message in ws:
            await ws.send(message)

    _, server = app
    http_server.route("/mcp-cap/ws.html", Reply(200, "<title>ws</title>"))
    async with serve(echo, "127.0.0.1", 0, compression=None) as ws_server:
        ws_url = f"ws://127.0.0.1:{ws_server.sockets[0].getsockname()[1]}/live"
        async with Client(server) as client:
            await call(client, "navigate", url=http_server.url("/mcp-cap/ws.html"))
            payload = json.dumps(json.dumps({"token": "tok-secret", "op": "ping"}, separators=(",", ":")))
            script = (
                "new Promise(ok => { const ws = new WebSocket(" + json.dumps(ws_url) + ");"
                " ws.onopen = () => ws.send(" + payload + "); ws.onmessage = m => ok(m.data); })"
            )
            result, sc = await call(client, "evaluate_js", expression=script)
            assert not result.is_error, sc
            listing = await wait_for(client, "network_list", lambda sc: records(sc), resource_types=["websocket"])
            (entry,) = records(listing)
            assert entry["url"] == ws_url and entry["type"] == "websocket"
            got = await wait_for(
                client, "network_get", lambda sc: sc["entry"]["ws"].get("received", 0) >= 1, id=entry["id"]
            )
            frames = got["entry"]["frames"]
            assert got["entry"]["frameColumns"] == ["direction", "t", "length", "preview"]
            assert [f[0] for f in frames] == ["sent", "received"]
            assert frames[1][3] == '{"token":"[redacted]","op":"ping"}'
            result, _ = await call(client, "network_list")
            assert "tok-secret" not in json.dumps(got) + result.content[0].text
