"""Chrome's "Failed to load resource" lines point at the request they are about, with their own outcome.

The case: an app calls one endpoint several times (a save that answers 500, then 200 on retry,
then 503), and a request to a closed loopback port fails. Each line Chrome logs names its request
by Chrome's own request id; the answer links it to that request (not the newest with the same
URL) and keeps the line's own status or net error, in console_list, console_get and debug_bundle,
in both renderings. A line Chrome replays at attach, from a save the person made before, links to
no captured request even when the person's repeated save (same URL) was captured.
"""

from __future__ import annotations

import socket

import anyio
from before_attach_app import open_app_before_attach
from faults_util import serving
from httpserver import Reply, Request
from lean_util import records

LOAD_ERROR = "Failed to load resource"
#: the text of a line from before attach: its own status, its URL, and no request
REPLAYED_500 = f"[replayed] {LOAD_ERROR}: 500 (Internal Server Error) (/ba/api/save) → not captured (before attach)"

PAGE = """<!doctype html><title>Saves</title><link rel="icon" href="data:,">
<script>
(async () => {
  for (const n of [1, 2, 3]) {
    const r = await fetch("/ll/api/save", {method: "POST", body: "try=" + n});
    await r.text();
  }
  try { await fetch("http://127.0.0.1:%(closed)d/ll/down"); } catch (e) {}
  document.body.insertAdjacentHTML("beforeend", "<p>done</p>");
})();
</script>
<button id="again" onclick="fetch('/ll/api/again', {method: 'POST'})">Save again</button>"""


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released): a request there is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _load_errors(agent, count: int) -> tuple[list[dict], str]:
    """console_list's load error lines once ``count`` are in, and the answer's text."""
    with anyio.fail_after(30):
        while True:
            listed = await agent.s("console_list", types=["error"])
            lines = [e for e in records(listed) if e["text"].startswith(LOAD_ERROR)]
            if len(lines) >= count:
                return lines, agent.last_text
            await anyio.sleep(0.1)


async def test_each_load_error_links_to_its_own_request_and_keeps_its_status(http_server, tmp_path):
    answers = iter([500, 200, 503])

    def save(_req: Request) -> Reply:
        return Reply(next(answers), '{"saved": false}', "application/json")

    closed = _closed_port()
    http_server.route("/ll/api/save", save)
    http_server.route("/ll/api/again", Reply(502, "bad gateway", "text/plain"))
    http_server.route("/ll/saves.html", Reply(200, PAGE % {"closed": closed}))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/ll/saves.html"))
        await agent.s("wait_for", text="done", timeout_ms=30_000)
        lines, text = await _load_errors(agent, 3)
        saves = records(await agent.s("network_list", url_contains="/ll/api/save"))
        assert [(e["method"], e["status"]) for e in saves] == [("POST", 500), ("POST", 200), ("POST", 503)], saves
        first, _retry, third = (e["id"] for e in saves)
        (down,) = records(await agent.s("network_list", url_contains="/ll/down"))

        by_text = {e["text"]: e for e in lines}
        assert set(by_text) == {
            f"{LOAD_ERROR}: 500 (Internal Server Error)",
            f"{LOAD_ERROR}: 503 (Service Unavailable)",
            f"{LOAD_ERROR}: net::ERR_CONNECTION_REFUSED",
        }, lines
        # the 500's line names the 500, not the newest call of the same URL
        assert by_text[f"{LOAD_ERROR}: 500 (Internal Server Error)"]["request"] == f"#{first} POST"
        assert by_text[f"{LOAD_ERROR}: 503 (Service Unavailable)"]["request"] == f"#{third} POST"
        assert by_text[f"{LOAD_ERROR}: net::ERR_CONNECTION_REFUSED"]["request"] == f"#{down['id']} GET"
        # the text says the same link
        assert f"{LOAD_ERROR}: 500 (Internal Server Error) → #{first} POST /ll/api/save" in text, text
        assert f"{LOAD_ERROR}: 503 (Service Unavailable) → #{third} POST /ll/api/save" in text, text
        assert (
            f"{LOAD_ERROR}: net::ERR_CONNECTION_REFUSED → #{down['id']} GET http://127.0.0.1:{closed}/ll/down" in text
        )

        # console_get of the 500's line: Chrome's own words, and its request
        line = by_text[f"{LOAD_ERROR}: 500 (Internal Server Error)"]
        got = (await agent.s("console_get", id=line["id"]))["entry"]
        assert got["text"].endswith("status of 500 (Internal Server Error)") and got["request"] == f"#{first} POST"
        assert f"request #{first} POST" in agent.last_text

        # debug_bundle: the same links, each line with its own status
        bundle = await agent.s("debug_bundle")
        text = agent.last_text
        errors = {e["text"]: e.get("request") for e in records(bundle["console"], "errors")}
        assert errors[f"{LOAD_ERROR}: 500 (Internal Server Error)"] == f"#{first} POST", errors
        assert errors[f"{LOAD_ERROR}: 503 (Service Unavailable)"] == f"#{third} POST", errors
        assert errors[f"{LOAD_ERROR}: net::ERR_CONNECTION_REFUSED"] == f"#{down['id']} GET", errors
        assert f"{LOAD_ERROR}: 500 (Internal Server Error) → #{first} POST /ll/api/save" in text, text
        assert f"{LOAD_ERROR}: 503 (Service Unavailable) → #{third} POST /ll/api/save" in text, text

        # a click's own answer names the request its load error is about
        result = await agent.call("browser_interact", action="click", selector="#again")
        assert not result.is_error, result.content[0].text
        followed, text = result.structured_content["followed"], result.content[0].text
        (again,) = records(await agent.s("network_list", url_contains="/ll/api/again"))
        said = f"{LOAD_ERROR}: 502 (Bad Gateway) → #{again['id']} POST"
        assert [row[2] for row in followed["consoleErrors"]] == [said], followed
        assert said in text, text


async def test_a_load_error_from_before_attach_links_to_no_captured_request(fresh_chromium, http_server, tmp_path):
    await open_app_before_attach(fresh_chromium, http_server)  # the person's save answered 500, before attach
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("select_page", url_contains="/ba/app.html")
        # the save is repeated after attach: same URL, same 500, captured
        await agent.js("fetch('/ba/api/save', {method: 'POST', body: 'codice=CLI-00042'}).then(r => r.status)")
        lines, text = await _load_errors(agent, 2)
        (captured,) = records(await agent.s("network_list", url_contains="/ba/api/save"))
        assert (captured["method"], captured["status"]) == ("POST", 500)

        old = [e for e in lines if e.get("replayed")]
        new = [e for e in lines if not e.get("replayed")]
        assert len(old) == 1 and len(new) == 1, lines
        assert old[0]["text"] == new[0]["text"] == f"{LOAD_ERROR}: 500 (Internal Server Error)"
        assert old[0]["request"] == "not captured (before attach)", old
        assert new[0]["request"] == f"#{captured['id']} POST", new
        assert f"#{old[0]['id']} {REPLAYED_500}" in text, text
        linked = f"#{new[0]['id']} {LOAD_ERROR}: 500 (Internal Server Error) → #{captured['id']} POST /ba/api/save"
        assert linked in text, text

        bundle = await agent.s("debug_bundle")
        text = agent.last_text
        errors = {e["id"]: e for e in records(bundle["console"], "errors")}
        assert errors[old[0]["id"]]["request"] == "not captured (before attach)", errors
        assert errors[new[0]["id"]]["request"] == f"#{captured['id']} POST", errors
        assert f"#{old[0]['id']} [error] {REPLAYED_500}" in text, text
