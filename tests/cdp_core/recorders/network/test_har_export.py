"""HAR 1.2 export: parses, holds every captured entry, carries no secrets."""

from __future__ import annotations

import json

from capture_util import open_tab, until
from httpserver import Reply

from cdp_core.recorders.network.har import build_har, write_har

SECRET = "Bearer har-secret-token-99"


def _check_har_shape(har: dict) -> None:
    """Required fields of HAR 1.2 (what DevTools' importer reads)."""
    log = har["log"]
    assert log["version"] == "1.2" and log["creator"]["name"]
    page_ids = {p["id"] for p in log["pages"]}
    for e in log["entries"]:
        assert e["pageref"] in page_ids
        assert isinstance(e["startedDateTime"], str) and e["startedDateTime"].endswith("Z")
        assert isinstance(e["time"], (int, float)) and e["time"] >= 0
        req, resp = e["request"], e["response"]
        for key in ("method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"):
            assert key in req, key
        for key in ("status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL"):
            assert key in resp, key
        assert "size" in resp["content"] and "mimeType" in resp["content"]
        for key in ("send", "wait", "receive"):
            assert e["timings"][key] >= 0
        assert isinstance(e["cache"], dict)


async def test_har_parses_and_holds_the_entries(chromium, http_server, tmp_path):
    http_server.route("/har/blank.html", Reply(200, "<title>har</title>"))
    http_server.route("/har/save.cfm", Reply(500, "<h1>boom</h1>", headers={"Set-Cookie": "SID=har-cookie-secret"}))
    http_server.route("/har/r1", Reply(302, "", headers={"Location": "/har/blank.html?x=1"}))
    async with open_tab(chromium, http_server.url("/har/r1")) as tab:
        await tab.eval(
            f"fetch('/har/save.cfm?a=b', {{method: 'POST', headers: {{'Authorization': '{SECRET}'}},"
            " body: 'id=123&provincia=&password=pw-secret'}).then(r => r.text())"
        )
        await until(lambda: any(e["url"].endswith("a=b") and e["durationMs"] for e in tab.network.list()))
        await tab.network.drain()
        path = write_har(tmp_path / "capture.har", build_har(tab.network, page_title="har"))
        text = path.read_text()
        har = json.loads(text)
        _check_har_shape(har)
        entries = har["log"]["entries"]
        assert len(entries) == len(tab.network)
        assert [e["request"]["url"] for e in entries] == [e["url"] for e in tab.network.list()]
        post = next(e for e in entries if e["request"]["method"] == "POST")
        assert post["response"]["status"] == 500
        assert post["response"]["content"]["text"] == "<h1>boom</h1>"
        assert post["request"]["postData"]["text"] == "id=123&provincia=&password=[redacted]"
        assert {"name": "a", "value": "b"} in post["request"]["queryString"]
        auth = [h for h in post["request"]["headers"] if h["name"].lower() == "authorization"]
        assert auth == [{"name": "Authorization", "value": "[redacted]"}]
        redirect = next(e for e in entries if e["response"]["status"] == 302)
        assert redirect["response"]["redirectURL"] == "/har/blank.html?x=1"
        for secret in (SECRET, "har-cookie-secret", "pw-secret"):
            assert secret not in text
