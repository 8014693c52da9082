"""An application's own error in a 200 answer is quoted inline: in the click's follow-up,
``network_get``, ``network_list`` (a marker and a filter) and ``debug_bundle`` (counted and listed).

The case of issue 47: phpMyAdmin answers a duplicate key on Insert with ``200 application/json
{"success":false,"error":"<div class=\\"alert alert-danger\\">…"}`` whose ``#1062 - Duplicate
entry …`` sits about 1,200 characters in, past every preview; the bundle said "0 failed, 0 HTTP
error(s)". The answer is phpMyAdmin's own (corpus/real/); the agent works in a hidden tab of the
user's Chrome, as in the issue.
"""

from __future__ import annotations

from pathlib import Path

from background_tabs import CALL, agent_in_hidden_tab
from httpserver import Reply, Request
from lean_util import assert_lean, records

#: phpMyAdmin 5.2.1's own answer to the Insert of a duplicate key (captured, its token values redacted)
PMA_ANSWER = (Path(__file__).parent / "corpus" / "real" / "phpmyadmin-table-replace-duplicate.json").read_text()
DUPLICATE = "#1062 - Duplicate entry 'CLI-00042' for key 'uk_codice'"

PAGE = """<!doctype html><title>clienti | phpMyAdmin</title>
<button id=insert onclick="fetch('/index.php?route=/table/replace', {method: 'POST',
  body: new URLSearchParams({db: 'gestionale', table: 'clienti', 'fields[codice]': 'CLI-00042'})})
  .then(r => r.json()).then(d => { out.innerHTML = d.success ? 'ok' : d.error })">Go</button>
<button id=list onclick="fetch('/index.php?route=/sql', {method: 'POST', body: 'db=gestionale'})
  .then(r => r.json()).then(d => { out.textContent = d.message })">Browse</button>
<div id=out></div>"""


async def test_a_duplicate_key_answered_200_success_false_is_quoted_in_every_answer(
    fresh_chromium, http_server, tmp_path: Path
):
    http_server.route("/pma/clienti.html", Reply(200, PAGE))

    def index(req: Request) -> Reply:  # phpMyAdmin routes by its query's route=
        if req.query["route"] == ["/table/replace"]:
            return Reply(200, PMA_ANSWER, "application/json; charset=UTF-8")
        return Reply(200, '{"success":true,"message":"Saved"}', "application/json")

    http_server.route("/index.php", index)
    http_server.route("/pma/themes/dot.gif", Reply(200, b"GIF89a", "image/gif"))  # the alert's icons
    async with agent_in_hidden_tab(fresh_chromium, http_server, tmp_path, "/pma/clienti.html", "clienti") as agent:
        listed = await agent.call("browser_interact", CALL, action="click", selector="#list")
        assert not listed.is_error, listed.content[0].text
        assert "appErrors" not in listed.structured_content["followed"]  # {"success":true} is no error
        assert "app error" not in listed.content[0].text

        clicked = await agent.call("browser_interact", CALL, action="click", selector="#insert")
        assert not clicked.is_error, clicked.content[0].text
        text, followed = clicked.content[0].text, clicked.structured_content["followed"]
        (save,) = [r for r in records(followed, "requests") if "replace" in r["url"]]
        assert save["status"] == 200 and followed["appErrors"] == [[save["id"], DUPLICATE]], followed
        assert f"#{save['id']}'s response holds an app error, page says: {DUPLICATE!r}" in text, text
        assert_lean(clicked)

        got = await agent.call("browser_session", CALL, action="network_get", id=save["id"])
        assert got.structured_content["entry"]["appError"] == DUPLICATE, got.structured_content
        assert f"app error: {DUPLICATE}" in got.content[0].text, got.content[0].text
        assert_lean(got)

        every = await agent.call("browser_session", CALL, action="network_list", resource_types=["fetch"])
        rows = {r["id"]: r for r in records(every.structured_content)}
        assert rows[save["id"]]["appError"] == DUPLICATE and len(rows) == 2, rows
        assert not any(r.get("appError") for i, r in rows.items() if i != save["id"]), rows
        assert f"app error: {DUPLICATE}" in every.content[0].text, every.content[0].text
        only = await agent.call("browser_session", CALL, action="network_list", app_errors_only=True)
        assert [r["id"] for r in records(only.structured_content)] == [save["id"]], only.structured_content
        assert only.content[0].text.count("app error:") == 1, only.content[0].text
        assert_lean(only)

        bundle = await agent.call("browser_session", CALL, action="debug_bundle", include_snapshot=False)
        net, said = bundle.structured_content["network"], bundle.content[0].text
        assert net["appErrorCount"] == 1 and net["httpErrorCount"] == 0, net
        (row,) = net["appErrors"]
        assert row[0] == save["id"] and row[-1]["appError"] == DUPLICATE, row
        assert "0 HTTP error(s), 1 app error(s) of" in said, said
        # once in the network section, and once more where the page shows it (the "on screen" block)
        assert f"app error: {DUPLICATE}" in said and said.count(f"app error: {DUPLICATE}") == 1, said
        assert said.count(DUPLICATE) <= 2, said
        assert_lean(bundle)


async def test_an_app_error_with_no_text_says_its_flags(fresh_chromium, http_server, tmp_path: Path):
    """phpMyAdmin's answer when the database is down: no message, only flags."""
    page = """<!doctype html><title>Browse</title>
<button onclick="fetch('/index.php?route=/sql&ajax_request=1').then(r => r.json())">Browse</button>"""
    http_server.route("/pma/browse.html", Reply(200, page))
    http_server.route("/index.php", Reply(200, '{"redirect_flag":"1","success":false}', "application/json"))
    async with agent_in_hidden_tab(fresh_chromium, http_server, tmp_path, "/pma/browse.html", "Browse") as agent:
        clicked = await agent.call("browser_interact", CALL, action="click", selector="button")
        assert not clicked.is_error, clicked.content[0].text
        followed = clicked.structured_content["followed"]
        (browse,) = records(followed, "requests")
        assert followed["appErrors"] == [[browse["id"], "success:false (redirect_flag=1)"]], followed
        bundle = await agent.call("browser_session", CALL, action="debug_bundle", include_snapshot=False)
        assert "1 app error(s)" in bundle.content[0].text, bundle.content[0].text
        assert "app error: success:false (redirect_flag=1)" in bundle.content[0].text, bundle.content[0].text


WP_PAGE = """<!doctype html><title>Edit Post</title>
<script>
const ajax = (fields) => fetch('/wp-admin/admin-ajax.php', {method: 'POST',
  body: new URLSearchParams({_wpnonce: '4f9a1c2b7e', post_ID: '12', ...fields})}).then(r => r.text());
</script>
<button id=lock onclick="ajax({action: 'wp-remove-post-lock'})">Unlock</button>
<button id=save onclick="ajax({action: 'inline-save', post_title: 'Hello'})">Quick edit</button>"""


async def test_calls_to_one_endpoint_are_told_apart_and_a_bare_minus_one_is_an_app_error(
    fresh_chromium, http_server, tmp_path: Path
):
    """WordPress sends every AJAX call to admin-ajax.php; its action names it, after the nonce.
    A failed nonce check answers a bare ``-1`` with a 200 (or 403)."""

    def admin_ajax(req: Request) -> Reply:
        return Reply(200, "1" if b"post-lock" in req.body else "-1", "text/html; charset=UTF-8")

    http_server.route("/wp/post.html", Reply(200, WP_PAGE))
    http_server.route("/wp-admin/admin-ajax.php", admin_ajax)
    async with agent_in_hidden_tab(fresh_chromium, http_server, tmp_path, "/wp/post.html", "Edit Post") as agent:
        for button in ("#lock", "#save"):
            clicked = await agent.call("browser_interact", CALL, action="click", selector=button)
            assert not clicked.is_error, clicked.content[0].text
        followed = clicked.structured_content["followed"]
        (save,) = records(followed, "requests")
        said = "admin-ajax.php answered -1 (WordPress: the nonce check failed)"
        assert followed["appErrors"] == [[save["id"], said]], followed

        listed = await agent.call("browser_session", CALL, action="network_list", method="POST")
        rows = records(listed.structured_content)
        assert [r["postDataPreview"].split("&")[0] for r in rows] == [
            "action=wp-remove-post-lock",
            "action=inline-save",
        ]
        assert "4f9a1c2b7e" not in listed.content[0].text  # the nonce stays masked
        assert [r.get("appError") for r in rows] == [None, said], rows
        assert "payload: action=inline-save&" in listed.content[0].text, listed.content[0].text
        assert_lean(listed)
