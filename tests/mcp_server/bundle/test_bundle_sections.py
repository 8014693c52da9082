"""debug_bundle's sections by general rules: the snapshot on a form error, storage names when storage is involved.

The case: the diagnosis of an AJAX save that answered 500 paid for a snapshot and storage names
it did not need. By default the bundle carries the failing requests (with their server error
line or body preview) and the console errors (with stacks) always; the snapshot only when the
page shows a form error, storage key and cookie names only when an error involves storage or a
login; the answer names what it left out and how to ask (both renderings).
"""

from __future__ import annotations

from pathlib import Path

import anyio
from faults_util import serving
from httpserver import Reply
from lean_util import assert_carries, assert_lean, records

from mcp_server.features.bundle.sections import storage_involved

PHP_500 = (
    "<br />\n<b>Fatal error</b>:  Uncaught PDOException: SQLSTATE[23000]: Integrity constraint violation: "
    "1048 Column 'province' cannot be null in /var/www/app/save.php:42\nStack trace:\n#0 {main}\n"
)

SAVE = """<!doctype html><title>%(title)s</title>
<form><label>Name <input name="name" value="ACME"></label>%(extra)s<button type="button">Save</button></form>
<script>
document.cookie = "sid=abc; path=/";
localStorage.setItem("draft", "1");
fetch("%(target)s", {method: "POST", body: "name=ACME"}).then(r => r.text().then(() => r)).then(r => {
  if (!r.ok) { try { throw new Error("save failed: HTTP " + r.status); } catch (e) { console.error(e); } }
  %(after)s
});
</script>"""


def _page(http_server, name: str, *, target: str, extra: str = "", after: str = "") -> str:
    body = SAVE % {"title": name, "extra": extra, "target": target, "after": after}
    http_server.route(f"/sec/{name}.html", Reply(200, body))
    return http_server.url(f"/sec/{name}.html")


async def _bundle_after_the_save(agent, url: str, **args):
    await agent.s("navigate", url=url)

    with anyio.fail_after(20):  # the save's own console error (not Chrome's load error) is in
        while not any("save failed" in e["text"] for e in records(await agent.s("console_list", types=["error"]))):
            await anyio.sleep(0.05)
    result = await agent.call("browser_session", action="debug_bundle", **args)
    assert not result.is_error, result.content[0].text
    assert_lean(result)
    return result, result.structured_content, result.content[0].text


async def test_a_500_save_gets_requests_and_errors_and_names_what_it_left_out(http_server, tmp_path: Path):
    http_server.route("/sec/save.php", Reply(500, PHP_500, "text/html; charset=UTF-8"))
    url = _page(http_server, "plain", target="/sec/save.php")
    async with serving(tmp_path / "artifacts") as agent:
        result, sc, text = await _bundle_after_the_save(agent, url)
        # the failing request with the server's error line, the console error with its stack
        post = next(r for r in records(sc["network"], "httpErrors") if r["url"] == "/sec/save.php")
        assert post["status"] == 500 and "Column 'province' cannot be null" in post["serverError"]
        assert "response" not in post  # the error page is said by its line, not previewed again
        thrown = next(e for e in records(sc["console"], "errors") if "save failed" in e["text"])
        assert thrown["stack"], thrown
        assert_carries(result, "Column 'province' cannot be null", "save failed: HTTP 500")
        # Chrome's own "Failed to load resource" keeps its status and names its request by id
        # (the line about this save: Chrome may also report the page's favicon 404, at its own pace)
        loads = [e for e in records(sc["console"], "errors") if e["text"].startswith("Failed to load")]
        load = next(e for e in loads if str(e.get("at", "")).endswith("/sec/save.php"))
        assert load["text"] == "Failed to load resource: 500 (Internal Server Error)", load
        assert load["request"] == f"#{post['id']} POST", load
        # no form error, nothing about storage: both left out, and said so in both renderings
        assert "snapshot" not in sc and "storage" not in sc
        assert sc["leftOutSections"] == {"storage": "include_storage=true", "snapshot": "include_snapshot=true"}
        assert "left out: storage, snapshot (ask: include_storage=true, include_snapshot=true)" in text

        # asked for: there they are, nothing said left out
        result, sc, text = await _bundle_after_the_save(agent, url, include_snapshot=True, include_storage=True)
        assert 'button "Save"' in sc["snapshot"] and sc["storage"]["localStorageKeys"] == ["draft"]
        assert "sid" in sc["storage"]["cookieNames"] and "leftOutSections" not in sc and "left out" not in text


async def test_a_form_error_is_quoted_on_screen_and_the_snapshot_stays_out(http_server, tmp_path: Path):
    """The snapshot used to come with a form error; the on-screen part quotes it whole, uids and all."""
    http_server.route("/sec/ok.php", Reply(422, '{"error": "name taken"}', "application/json"))
    invalid = '<label>Email <input name="email" type="email" required></label>'
    shown = "document.body.insertAdjacentHTML('beforeend', '<div class=\"error\">Name already taken</div>');"
    url = _page(http_server, "form", target="/sec/ok.php", extra=invalid, after=shown)
    async with serving(tmp_path / "artifacts") as agent:
        _result, sc, text = await _bundle_after_the_save(agent, url)
        said = [item["text"] for item in sc["onScreen"]]
        assert any("Name already taken" in t for t in said), sc["onScreen"]
        assert "Name already taken" in text.split("console:")[0]  # first, before the rest
        assert "snapshot" not in sc and sc["leftOutSections"]["snapshot"] == "include_snapshot=true"
        # asked for: the form around the message
        _result, sc, _text = await _bundle_after_the_save(agent, url, include_snapshot=True)
        assert 'textbox "Email"' in sc["snapshot"] and "Name already taken" in sc["snapshot"], sc.get("snapshot")
        # not asked for: absent, and not reported as left out by the rule
        _result, sc, _text = await _bundle_after_the_save(agent, url, include_snapshot=False)
        assert "snapshot" not in sc and "snapshot" not in sc["leftOutSections"]


async def test_a_refused_request_brings_the_storage_names(http_server, tmp_path: Path):
    http_server.route("/sec/api", Reply(401, '{"error": "expired"}', "application/json"))
    url = _page(http_server, "auth", target="/sec/api")
    async with serving(tmp_path / "artifacts") as agent:
        _result, sc, text = await _bundle_after_the_save(agent, url)
        assert sc["storage"]["localStorageKeys"] == ["draft"] and "sid" in sc["storage"]["cookieNames"]
        assert "storage: localStorage keys draft" in text
        assert sc["leftOutSections"] == {"snapshot": "include_snapshot=true"}


def test_storage_is_involved_by_words_and_statuses_not_by_any_error():
    def bundle(text: str = "", status: int = 500, preview: str = "") -> dict:
        return {
            "console": {"errors": [{"text": text}]},
            "network": {"httpErrors": [{"url": "/api/save", "status": status, "responsePreview": preview}]},
        }

    assert not storage_involved(bundle("TypeError: x is undefined"))
    assert not storage_involved(bundle("SyntaxError: Unexpected token '<'"))  # a token, not a login token
    assert storage_involved(bundle("QuotaExceededError: localStorage is full"))
    assert storage_involved(bundle("CSRF token mismatch"))
    assert storage_involved(bundle(status=403))
    assert storage_involved(bundle(preview="Session expired, please log in again"))
    assert not storage_involved({})
