"""Capture the real apps' answers, failures and look-alikes, into a corpus for the app-error detector.

    .venv/bin/python tests/realapps/capture.py OUT_DIR

A person's session on each app is played in a (headless) Chromium: a wrong login, the right
one, the actions that fail (phpMyAdmin's duplicate key, a bad SQL command in Adminer, a
WordPress AJAX call with a stale nonce) and the ones that succeed. Every document, XHR and
fetch answer is kept: the cases named below as ``<app>-<case>.<ext>``, the rest of the session
as ``<app>-session-NN.<ext>`` (the detector's false-positive check runs on all of them).
Secrets (CSRF tokens, nonces, cookies, passwords) are replaced by ``x`` of the same length.
``index.json`` lists each file: url, method, status, mime, resource type, and what the person saw.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, Response, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))

from apps import DB_PASSWORD, DB_USER, WP_PASSWORD, WP_USER, RealApps  # noqa: E402

KEEP_TYPES = ("document", "xhr", "fetch")


@dataclass
class Recorder:
    """Every document/XHR/fetch answer of one app's session, labelled when the script names the case."""

    app: str
    secrets: set[str] = field(default_factory=set)
    answers: list[dict[str, Any]] = field(default_factory=list)
    label: str | None = None
    saw: str = ""
    match: str = ""

    def on_response(self, response: Response) -> None:
        request = response.request
        if request.resource_type not in KEEP_TYPES:
            return
        try:
            body = response.body()
        except Exception as exc:  # a body lost to a navigation: the detector cannot use it
            body = f"[body unavailable: {exc}]".encode()
        self.answers.append(
            {
                "url": request.url,
                "method": request.method,
                "status": response.status,
                "mime": (response.headers.get("content-type") or "").split(";")[0].strip(),
                "resourceType": request.resource_type,
                "postData": request.post_data or "",
                "body": body,
                "label": self.label if re.search(self.match, request.url) else None,
                "saw": self.saw,
            }
        )

    def case(self, label: str, saw: str, match: str = "") -> None:
        """The next answers whose URL matches ``match`` belong to this case (until the next call)."""
        self.label, self.saw, self.match = label, saw, match

    def learn_secrets(self, page: Page) -> None:
        """Tokens, nonces and cookie values now known to this browser (to redact them)."""
        for cookie in page.context.cookies():
            if len(cookie["value"]) >= 6:
                self.secrets.add(cookie["value"])
        for answer in self.answers:
            text = answer["body"].decode("utf-8", "replace") + answer["url"] + answer["postData"]
            for pattern in SECRET_PATTERNS:
                self.secrets.update(m for m in pattern.findall(text) if len(m) >= 6)


SECRET_PATTERNS = (
    re.compile(r"[?&;](?:amp;)?token=([0-9A-Za-z]{16,})"),
    re.compile(r'name="(?:token|set_session|_wpnonce|_ajax_nonce|nonce|sk)" value="([^"]{6,})"'),
    re.compile(r'"(?:token|nonce|_wpnonce|_ajax_nonce|ajax_nonce|wpApiSettings[^"]*|restNonce)"\s*:\s*"([^"]{6,})"'),
    re.compile(r"(?:_wpnonce|_ajax_nonce|nonce)=([0-9a-f]{10})"),
    re.compile(r'(?:nonce|Nonce)["\']?\s*[:=]\s*["\']([0-9a-f]{10})["\']'),
    re.compile(r"token\s*[:=]\s*'([0-9A-Za-z]{16,})'"),
    re.compile(r'"PMA_token"\s*:\s*"(\w+)"|common_params\s*=\s*\{[^}]*token:\s*"(\w+)"'),
)


def redact(text: str, secrets: set[str]) -> str:
    """Each secret replaced by as many ``x`` (lengths and shapes kept, so offsets stay honest)."""
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, "x" * len(secret))
    return text


def extension(mime: str, body: str) -> str:
    if "json" in mime or body.lstrip().startswith(("{", "[")):
        return "json"
    if "html" in mime:
        return "html"
    return "txt"


def write(out: Path, rec: Recorder, index: list[dict[str, Any]]) -> None:
    secrets = rec.secrets | {DB_PASSWORD, WP_PASSWORD}
    counts: dict[str, int] = {}
    session = 0
    for answer in rec.answers:
        body = redact(answer["body"].decode("utf-8", "replace"), secrets)
        if answer["label"]:
            n = counts.get(answer["label"], 0)
            counts[answer["label"]] = n + 1
            stem = f"{rec.app}-{answer['label']}" + (f"-{n + 1}" if n else "")
        else:
            session += 1
            stem = f"{rec.app}-session-{session:02d}"
        name = f"{stem}.{extension(answer['mime'], body)}"
        (out / name).write_text(body)
        index.append(
            {
                "file": name,
                "app": rec.app,
                "case": answer["label"] or "session",
                "url": redact(answer["url"], secrets),
                "method": answer["method"],
                "status": answer["status"],
                "mime": answer["mime"],
                "resourceType": answer["resourceType"],
                "saw": answer["saw"] if answer["label"] else "",
            }
        )


def settle(page: Page, ms: int = 600) -> None:
    page.wait_for_load_state("load")
    page.wait_for_timeout(ms)


def phpmyadmin(page: Page, apps: RealApps, rec: Recorder) -> None:
    origin = apps.url("phpmyadmin", "")
    rec.case("login-page", "the login form (no error)", r"index\.php$")
    page.goto(origin + "/index.php")
    rec.case(
        "login-wrong-password", "the login form again with a red box: #1045 Access denied / Cannot log in", r"route="
    )
    page.fill("#input_username", DB_USER)
    page.fill("#input_password", "wrong-password")
    page.click("#input_go")
    settle(page)
    rec.case("login-ok", "the home page (databases listed on the left)", r"index\.php\?route=/(&|$)")
    page.fill("#input_username", DB_USER)
    page.fill("#input_password", DB_PASSWORD)
    page.click("#input_go")
    settle(page, 1500)
    rec.case("table-structure", "the table's page", r"route=/sql&db=crm&table=clienti&pos=0$")
    page.goto(origin + "/index.php?route=/sql&db=crm&table=clienti&pos=0")
    settle(page, 1000)
    rec.case("insert-form", "the Insert form", r"route=/table/change")
    page.click("#topmenu a[href*='route=/table/change']")
    page.wait_for_selector("#insertForm")
    settle(page, 800)
    rec.case(
        "insert-duplicate",
        "a red box: #1062 - Duplicate entry 'CLI-00042' for key 'uk_codice'",
        r"route=/table/replace",
    )
    page.fill("#insertForm input[data-type=CHAR][name*='df5c2c5c29a7957abccb02c606f593c0']", "CLI-00042")
    page.locator("#insertForm textarea").first.fill("Bianchi SpA bis")
    page.locator("#insertForm #buttonYes").click()
    page.wait_for_selector(".alert-danger")
    settle(page, 1000)
    rec.case("insert-ok", "a green box: 1 row inserted.", r"route=/table/replace")
    page.goto(origin + "/index.php?route=/table/change&db=crm&table=clienti")
    page.wait_for_selector("#insertForm")
    page.fill("#insertForm input[data-type=CHAR][name*='df5c2c5c29a7957abccb02c606f593c0']", "CLI-00099")
    page.locator("#insertForm textarea").first.fill("Nuovo Cliente")
    page.locator("#insertForm #buttonYes").click()
    page.wait_for_selector(".alert-success")
    settle(page, 1000)
    rec.case("sql-syntax-error", "a red box: #1064 - You have an error in your SQL syntax", r"route=/import")
    page.goto(origin + "/index.php?route=/table/sql&db=crm&table=clienti")
    page.wait_for_selector(".CodeMirror >> visible=true")
    settle(page, 1500)
    page.evaluate(
        "(window.codeMirrorEditor || document.querySelector('.CodeMirror').CodeMirror).setValue('SELEC * FROM clienti')"
    )
    page.click("#button_submit_query")
    page.wait_for_selector(".alert-danger")
    settle(page, 800)
    rec.case("browse-ok", "the rows of clienti", r"route=/sql")
    page.goto(origin + "/index.php?route=/table/structure&db=crm&table=clienti")
    settle(page, 800)
    page.click("#topmenu a[href*='route=/sql']")
    page.wait_for_selector("table.table_results")
    settle(page, 800)
    rec.learn_secrets(page)
    rec.case(
        "db-stopped-browse",
        "the page goes back to the login form with: mysqli::real_connect(): (HY000/2002)",
        r"route=/table/structure|route=/(&|$)|index\.php",
    )
    assert apps.db is not None
    apps.db.stop()
    page.click("#topmenu a[href*='route=/table/structure']")
    settle(page, 2500)
    rec.learn_secrets(page)
    apps.db.start()


def type_query(page: Page, sql: str) -> None:
    """Adminer's SQL box: a highlighting ``pre`` stands over the hidden textarea, so type as the person does."""
    page.locator("pre.jush, textarea[name=query]").locator("visible=true").first.click()
    page.keyboard.type(sql)


def adminer(page: Page, apps: RealApps, rec: Recorder) -> None:
    origin = apps.url("adminer", "/adminer.php")
    rec.case("login-page", "the login form")
    page.goto(origin)
    settle(page)
    rec.case("login-wrong-password", "the login form with a red error: Access denied for user")
    page.fill("input[name='auth[username]']", DB_USER)
    page.fill("input[name='auth[password]']", "wrong-password")
    page.click("input[type=submit]")
    settle(page)
    rec.case("login-ok", "the server's databases")
    page.fill("input[name='auth[username]']", DB_USER)
    page.fill("input[name='auth[password]']", DB_PASSWORD)
    page.click("input[type=submit]")
    settle(page)
    rec.case("select-ok", "the rows of clienti", r"select=clienti")
    page.goto(origin + "?username=" + DB_USER + "&db=crm&select=clienti")
    settle(page)
    rec.case("sql-ok", "the query's result and 'Query executed OK'")
    page.goto(origin + "?username=" + DB_USER + "&db=crm&sql=")
    type_query(page, "SELECT codice, citta FROM clienti ORDER BY codice")
    page.click("input[type=submit][value=Execute]")
    settle(page)
    rec.case("sql-error", "a red error block: Error in query (1146): Table 'crm.clienti_old' doesn't exist")
    page.goto(origin + "?username=" + DB_USER + "&db=crm&sql=")
    type_query(page, "SELECT * FROM clienti_old")
    page.click("input[type=submit][value=Execute]")
    settle(page)
    rec.case("insert-duplicate", "a red error block: Duplicate entry 'CLI-00042' for key 'uk_codice'")
    page.goto(origin + "?username=" + DB_USER + "&db=crm&edit=clienti")
    page.fill("input[name='fields[codice]']", "CLI-00042")
    page.fill("input[name='fields[ragione_sociale]']", "Doppione")
    page.click("input[type=submit][value=Save]")
    settle(page)
    rec.learn_secrets(page)


def wordpress(page: Page, apps: RealApps, rec: Recorder) -> None:
    origin = apps.url("wordpress", "")
    rec.case("login-page", "the login form")
    page.goto(origin + "/wp-login.php")
    rec.case("login-wrong-password", "the login form with: Error: The password you entered ... is incorrect.")
    page.fill("#user_login", WP_USER)
    page.fill("#user_pass", "wrong-password")
    page.click("#wp-submit")
    settle(page)
    rec.case("login-ok", "the Dashboard", r"wp-admin/$|wp-login")
    page.fill("#user_login", WP_USER)
    page.fill("#user_pass", WP_PASSWORD)
    page.click("#wp-submit")
    settle(page, 1500)
    rec.case("new-post", "the post editor", r"post-new")
    page.goto(origin + "/wp-admin/post-new.php?classic-editor")
    settle(page, 2500)
    rec.case("rest-ok", "nothing (a list of posts in the console)", r"rest_route")
    page.evaluate(
        """() => fetch('/?rest_route=/wp/v2/posts&context=edit',
               {headers: {'X-WP-Nonce': wpApiSettings.nonce}}).then(r => r.text())"""
    )
    page.wait_for_timeout(500)
    rec.case(
        "rest-forbidden",
        "the save failed: Sorry, you are not allowed to ... (rest_cookie_invalid_nonce)",
        r"rest_route",
    )
    page.evaluate(
        """() => fetch('/?rest_route=/wp/v2/posts', {method: 'POST',
               headers: {'X-WP-Nonce': 'deadbeef00', 'Content-Type': 'application/json'},
               body: JSON.stringify({title: 'Bozza', status: 'draft'})}).then(r => r.text())"""
    )
    page.wait_for_timeout(500)
    rec.case("rest-invalid-param", "the save failed: Invalid parameter(s): status", r"rest_route")
    page.evaluate(
        """() => fetch('/?rest_route=/wp/v2/posts', {method: 'POST',
               headers: {'X-WP-Nonce': wpApiSettings.nonce, 'Content-Type': 'application/json'},
               body: JSON.stringify({title: 'Bozza', status: 'pubblicato'})}).then(r => r.text())"""
    )
    page.wait_for_timeout(500)
    rec.case("rest-created", "the post saved (201)", r"rest_route")
    page.evaluate(
        """() => fetch('/?rest_route=/wp/v2/posts', {method: 'POST',
               headers: {'X-WP-Nonce': wpApiSettings.nonce, 'Content-Type': 'application/json'},
               body: JSON.stringify({title: 'Bozza', status: 'draft'})}).then(r => r.text())"""
    )
    page.wait_for_timeout(500)
    rec.case("ajax-bad-nonce", "nothing visible: admin-ajax answered -1 (403)", r"admin-ajax")
    page.evaluate(
        """() => fetch('/wp-admin/admin-ajax.php', {method: 'POST',
               headers: {'Content-Type': 'application/x-www-form-urlencoded'},
               body: 'action=add-tag&taxonomy=post_tag&tag-name=prova&_wpnonce_add-tag=deadbeef00'})
               .then(r => r.text())"""
    )
    page.wait_for_timeout(500)
    rec.case(
        "tag-duplicate",
        "a red notice over the Add New Tag form: A term with the name provided already exists",
        r"admin-ajax",
    )
    page.goto(origin + "/wp-admin/edit-tags.php?taxonomy=post_tag")
    settle(page)
    page.fill("#tag-name", "fattura")
    page.click("#submit")
    page.wait_for_timeout(1500)
    page.fill("#tag-name", "fattura")
    page.click("#submit")
    page.wait_for_selector("#ajax-response .notice-error, #ajax-response .error", timeout=15000)
    page.wait_for_timeout(800)
    rec.case("ajax-heartbeat-ok", "nothing (a background heartbeat)", r"admin-ajax")
    page.evaluate(
        """() => fetch('/wp-admin/admin-ajax.php', {method: 'POST',
               headers: {'Content-Type': 'application/x-www-form-urlencoded'},
               body: 'action=heartbeat&_nonce=' + (window.heartbeatSettings ? heartbeatSettings.nonce : '') +
                     '&interval=60&has_focus=true&screen_id=edit-post_tag'}).then(r => r.text())"""
    )
    page.wait_for_timeout(500)
    rec.case("logged-out-redirect", "the login form: the session expired (redirect to wp-login.php)")
    page.context.clear_cookies()
    page.goto(origin + "/wp-admin/edit.php")
    settle(page)
    rec.learn_secrets(page)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    index: list[dict[str, Any]] = []
    started = time.monotonic()
    with RealApps.start() as apps, sync_playwright() as pw:
        for reason in apps.unavailable.values():
            print(f"skipped {reason}")
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for app, play in (("phpmyadmin", phpmyadmin), ("adminer", adminer), ("wordpress", wordpress)):
            if app not in apps.servers or app not in os.environ.get("CAPTURE_APPS", app):
                continue
            context = browser.new_context()
            page = context.new_page()
            rec = Recorder(app)
            page.on("response", rec.on_response)
            try:
                play(page, apps, rec)
            finally:
                rec.learn_secrets(page)
                page.wait_for_timeout(300)
                write(out, rec, index)
                context.close()
        browser.close()
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    print(f"{len(index)} answers in {out} ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/realapp-corpus"))
