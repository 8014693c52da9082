"""Network capture against real Chromium: the legacy save.cfm 500, bodies, redirects, failures, bursts."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from capture_util import open_tab, until, wait_loaded
from httpserver import Reply

from cdp_core.recorders.network import BodyIsBinary, BodyUnavailable, EntryNotFound, NetworkRecorder


def read_bytes(path: str) -> bytes:
    return Path(path).read_bytes()


SECRET_AUTH = "Basic c2VncmV0by11dGVudGU6cGFzc3dvcmQ="
SECRET_COOKIE = "CFTOKEN-secret-7781"
ERROR_HTML = (
    "<html><body><h1>500 Internal Server Error</h1><p>Element PROVINCIA is undefined in FORM.</p></body></html>"
)

FORM_PAGE = f"""<!doctype html><html><head><title>Clienti</title></head><body>
<form id="f"><input name="id" value="123"><input name="provincia" value=""></form>
<div id="out"></div>
<script>
document.cookie = "CFTOKEN={SECRET_COOKIE}; path=/";
async function save() {{
  const body = new URLSearchParams(new FormData(document.getElementById("f"))).toString();
  const r = await fetch("/clienti/save.cfm", {{
    method: "POST",
    headers: {{"Content-Type": "application/x-www-form-urlencoded", "Authorization": "{SECRET_AUTH}"}},
    body,
  }});
  document.getElementById("out").innerHTML = await r.text();
  return r.status;
}}
</script></body></html>"""


@pytest.fixture(scope="module")
def capture_routes(http_server):
    http_server.route("/clienti/form.html", Reply(200, FORM_PAGE))
    http_server.route("/clienti/save.cfm", Reply(500, ERROR_HTML))
    http_server.route("/cap/r1", Reply(302, "", headers={"Location": "/cap/r2"}))
    http_server.route("/cap/r2", Reply(301, "", headers={"Location": "/cap/final"}))
    http_server.route("/cap/final", Reply(200, "<p>final</p>"))
    big = json.dumps({"rows": [{"i": i, "name": f"cliente {i:07d}", "pad": "x" * 80} for i in range(30000)]})
    http_server.route("/cap/big.json", Reply(200, big, "application/json"))
    http_server.route("/cap/burst", lambda req: Reply(200, "ok " + req.query.get("i", ["?"])[0], "text/plain"))
    http_server.route("/cap/pixel.png", Reply(200, b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "image/png"))
    http_server.route("/cap/blank.html", Reply(200, "<title>blank</title><p>blank</p>"))
    return {"big": big.encode()}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_form_post_500_listed_with_payload_and_redacted_secrets(chromium, http_server, capture_routes, tmp_path):
    async with open_tab(chromium, http_server.url("/clienti/form.html")) as tab:
        assert await tab.eval("save()") == 500
        entries = await until(lambda: tab.network.list(method="POST", url_contains="save.cfm"), what="POST entry")
        assert len(entries) == 1
        summary = entries[0]
        assert summary["method"] == "POST"
        assert summary["status"] == 500
        assert summary["resourceType"] == "fetch"
        full = tab.network.get(summary["id"])
        assert full["postDataPreview"] == "id=123&provincia="
        headers = {k.lower(): v for k, v in full["requestHeaders"].items()}
        assert headers["authorization"] == "[redacted]"
        # The cookie as actually sent comes in requestWillBeSentExtraInfo, which Chrome may deliver
        # after the response: wait for it, then it must be hidden too.
        sent = await until(
            lambda: {k.lower(): v for k, v in tab.network.get(summary["id"])["requestHeaders"].items()}.get("cookie"),
            what="the ExtraInfo request headers",
        )
        assert sent == "[redacted]"
        # Until then a read said its headers were provisional; now they are the ones sent.
        if "cookie" not in headers:
            assert full["requestHeadersProvisional"], full
        assert not tab.network.get(summary["id"])["requestHeadersProvisional"]
        assert full["pageUrl"].endswith("/clienti/form.html")
        assert full["initiator"]["type"] == "script"
        top = full["initiator"]["stackTop"]
        assert top["function"] == "save" and top["url"] == http_server.url("/clienti/form.html")
        assert FORM_PAGE.splitlines()[top["lineNumber"] - 1].strip().startswith("const r = await fetch(")
        dumped = json.dumps(tab.network.entries())
        assert SECRET_AUTH not in dumped and SECRET_COOKIE not in dumped

        await until(lambda: tab.network.get(summary["id"])["finished"], what="loadingFinished")
        saved = await tab.network.save_body(summary["id"], dest_dir=tmp_path)
        assert read_bytes(saved.file_path) == ERROR_HTML.encode()
        assert saved.bytes == len(ERROR_HTML.encode()) and not saved.truncated
        assert saved.mime_type == "text/html"
        assert "PROVINCIA is undefined" in saved.preview
        assert tab.network.get(summary["id"])["responseBodyFile"] == saved.file_path

        request_body = await tab.network.save_body(summary["id"], which="request", dest_dir=tmp_path)
        assert read_bytes(request_body.file_path).decode() == "id=123&provincia="


async def test_big_json_body_truncated_at_a_lower_cap(chromium, http_server, capture_routes, tmp_path):
    big = capture_routes["big"]
    assert len(big) > 3_000_000
    async with open_tab(chromium, http_server.url("/cap/blank.html")) as tab:
        n = await tab.eval("fetch('/cap/big.json').then(r => r.text()).then(t => t.length)")
        assert n == len(big)
        entry = (await until(lambda: tab.network.list(url_contains="big.json"), what="big.json"))[0]
        await until(lambda: tab.network.get(entry["id"])["finished"])
        assert tab.network.get(entry["id"])["bodyHeld"] is False  # over the 1 MiB eager cap
        saved = await tab.network.save_body(entry["id"], dest_dir=tmp_path, max_bytes=1_000_000)
        data = read_bytes(saved.file_path)
        assert saved.truncated is True
        assert saved.bytes == len(data) == 1_000_000
        assert saved.total_bytes == len(big)
        assert data == big[:1_000_000]
        full = await tab.network.save_body(entry["id"], dest_dir=tmp_path)
        assert read_bytes(full.file_path) == big and not full.truncated


async def test_binary_body_needs_allow_binary(chromium, http_server, capture_routes, tmp_path):
    async with open_tab(chromium, http_server.url("/cap/blank.html")) as tab:
        await tab.eval("fetch('/cap/pixel.png').then(r => r.arrayBuffer()).then(b => b.byteLength)")
        entry = (await until(lambda: tab.network.list(url_contains="pixel.png"), what="png"))[0]
        await until(lambda: tab.network.get(entry["id"])["finished"])
        with pytest.raises(BodyIsBinary):
            await tab.network.save_body(entry["id"], dest_dir=tmp_path)
        saved = await tab.network.save_body(entry["id"], dest_dir=tmp_path, allow_binary=True)
        assert read_bytes(saved.file_path).startswith(b"\x89PNG")
        assert saved.preview == ""


async def test_redirect_chain_is_one_entry_per_hop_linked(chromium, http_server, capture_routes, tmp_path):
    async with open_tab(chromium) as tab:
        await tab.goto(http_server.url("/cap/r1"))
        hops = await until(lambda: tab.network.list(url_contains="/cap/") if len(tab.network.list()) >= 3 else None)
        hops = [h for h in hops if h["resourceType"] == "document"]
        assert [h["url"].rsplit("/", 1)[-1] for h in hops] == ["r1", "r2", "final"]
        assert [h["status"] for h in hops] == [302, 301, 200]
        assert len({h["requestId"] for h in hops}) == 1
        assert hops[0]["redirectedFrom"] is None
        assert hops[1]["redirectedFrom"] == hops[0]["id"]
        assert hops[2]["redirectedFrom"] == hops[1]["id"]
        first = tab.network.get(hops[0]["id"])
        assert first["redirectedTo"] == hops[1]["id"]
        assert first["responseHeaders"].get("Location") == "/cap/r2"
        with pytest.raises(BodyUnavailable, match="redirect"):
            await tab.network.save_body(hops[0]["id"], dest_dir=tmp_path)


async def test_request_to_closed_port_is_failed(chromium, http_server, capture_routes, tmp_path):
    port = closed_port()
    async with open_tab(chromium, http_server.url("/cap/blank.html")) as tab:
        await tab.eval(f"fetch('http://127.0.0.1:{port}/nothing').catch(e => String(e))")
        entry = (await until(lambda: tab.network.list(failed_only=True), what="failed entry"))[0]
        assert entry["url"] == f"http://127.0.0.1:{port}/nothing"
        assert entry["failed"] is True
        assert "ERR_CONNECTION_REFUSED" in entry["failureText"]
        assert entry["status"] is None
        with pytest.raises(BodyUnavailable):
            await tab.network.save_body(entry["id"], dest_dir=tmp_path)


async def test_events_after_attach_to_an_already_open_tab(chromium, http_server, capture_routes):
    import cdp_core

    async with cdp_core.connect(chromium.http_url) as browser:
        result = await browser.send("Target.createTarget", {"url": http_server.url("/cap/blank.html")})
        target_id = result["targetId"]
        try:
            opener = await browser.attach(target_id)
            await wait_loaded(opener, "/cap/blank.html")
            await opener.send("Runtime.evaluate", {"expression": "fetch('/cap/burst?i=before')", "awaitPromise": True})
            # Attach later, as to the user's Chrome: earlier traffic is not claimed.
            session = await browser.attach(target_id)
            recorder = NetworkRecorder()
            await recorder.attach(session)
            assert recorder.captured_since is not None
            assert recorder.list(url_contains="i=before") == []
            await session.send(
                "Runtime.evaluate",
                {"expression": "fetch('/cap/burst?i=after').then(r => r.text())", "awaitPromise": True},
            )
            entries = await until(lambda: recorder.list(url_contains="i=after"), what="request after attach")
            assert entries[0]["status"] == 200
        finally:
            await browser.close_target(target_id)


async def test_burst_of_2000_requests_none_lost_below_cap_evicted_counted_above(chromium, http_server, capture_routes):
    async with open_tab(chromium, http_server.url("/cap/blank.html"), max_entries=3000) as tab:
        small = NetworkRecorder(max_entries=300)
        await small.attach(tab.session)
        done = await tab.eval(
            """(async () => {
                 let ok = 0;
                 for (let b = 0; b < 10; b++) {
                   const batch = [];
                   for (let i = b * 200; i < (b + 1) * 200; i++)
                     batch.push(fetch('/cap/burst?i=' + i).then(r => r.text()).then(() => ok++));
                   await Promise.all(batch);
                 }
                 return ok;
               })()"""
        )
        assert done == 2000

        def all_finished():
            entries = tab.network.list(url_contains="/cap/burst?i=")
            return len(entries) == 2000 and all(e["status"] == 200 for e in entries) and entries

        entries = await until(all_finished, what="2000 entries")
        assert {e["url"].rsplit("=", 1)[-1] for e in entries} == {str(i) for i in range(2000)}
        assert tab.network.evicted == 0
        # The small recorder (attached after the page loaded) saw exactly the 2000 and kept the newest 300.
        assert len(small) == 300
        assert small.evicted == 1700
        assert small.stats["evicted"] == 1700
        assert [e["url"] for e in small.list()] == [e["url"] for e in entries[-300:]]


async def test_get_unknown_and_evicted_ids(chromium, http_server, capture_routes):
    async with open_tab(chromium, http_server.url("/cap/blank.html"), max_entries=2) as tab:
        await tab.eval("Promise.all([1,2,3,4].map(i => fetch('/cap/burst?i=' + i).then(r => r.text())))")
        await until(lambda: tab.network.evicted >= 3)
        with pytest.raises(EntryNotFound, match="evicted"):
            tab.network.get(1)
        with pytest.raises(EntryNotFound):
            tab.network.get(10_000)
        assert tab.network.clear() == 2
        assert tab.network.list() == []
