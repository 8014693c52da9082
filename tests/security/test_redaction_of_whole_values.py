"""Redaction holds on parsed bodies, whole values of any length and type; files are owner-only.

The attacks: a JSON password containing ``=`` came out as ``Tr0ub4dor=[redacted]``
and the rest of the JSON was lost; values over 4096 characters and numeric passwords were not
redacted; ``X-Auth-Token`` and ``X-CSRF-Token`` were not redacted by default; body and HAR files
were world-readable. The page here sends each of those (JSON, urlencoded form, multipart, custom
headers), every read tool and every file is scanned for the planted values, the non-secret
fields are checked to survive, and every file and folder under the artifacts root is checked to
be owner-only.
"""

from __future__ import annotations

import json
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from httpserver import Reply
from lean_util import records
from mcp.client import Client

from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings

EQ_PASSWORD = "Tr0ub4dor=horse-7a1c"
LONG_TOKEN = "longtok-3b9e" + "x" * 5000
PIN = 918273645
AUTH_TOKEN = "xauth-0c4f"
CSRF_TOKEN = "xcsrf-51d8"
FORM_PASSWORD = "form=pw-2e6b"
MULTIPART_SECRET = "mp-secret-88aa"
SECRETS = (EQ_PASSWORD, "longtok-3b9e", str(PIN), AUTH_TOKEN, CSRF_TOKEN, FORM_PASSWORD, MULTIPART_SECRET, "horse-7a1c")

PAGE = """<!doctype html><title>Redaction</title><p>redaction page</p>
<script>
async function send(s) {
  await fetch("/redact/json", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({user: "ada", password: s.eq, pin: s.pin, api_token: s.long, note: "kept-note"})});
  await fetch("/redact/headers", {headers: {"X-Auth-Token": s.auth, "X-CSRF-Token": s.csrf, "X-Trace": "kept-trace"}});
  await fetch("/redact/form", {method: "POST", headers: {"Content-Type": "application/x-www-form-urlencoded"},
    body: "user=ada&password=" + encodeURIComponent(s.form) + "&keep=kept-form"});
  const fd = new FormData();
  fd.append("user", "ada");
  fd.append("secret_answer", s.mp);
  fd.append("comment", "kept-multipart");
  await fetch("/redact/multipart", {method: "POST", body: fd});
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob(["downloaded"], {type: "text/plain"}));
  a.download = "report.txt";
  document.body.appendChild(a);
  a.click();
  return "sent";
}
</script>"""


@pytest.fixture
def site(http_server) -> Any:
    http_server.route("/redact/page.html", Reply(200, PAGE))
    for path in ("/redact/json", "/redact/headers", "/redact/form", "/redact/multipart"):
        http_server.route(path, Reply(200, '{"ok": true}', "application/json"))
    return http_server


@pytest.fixture
async def served(tmp_path: Path, site) -> AsyncIterator[tuple[Client, Path, Any]]:
    root = tmp_path / "artifacts"
    manager, server = build_app(Settings(artifact_dir=str(root)))
    try:
        async with Client(server) as client:
            yield client, root, manager
    finally:
        await manager.close()


async def test_secrets_are_redacted_whole_in_every_shape_and_files_are_owner_only(served, site):
    client, root, manager = served
    answers: list[str] = []

    async def s(action: str, ok: bool = True, **args: Any) -> dict[str, Any]:
        result = await client.call_tool("browser_session", {"action": action, **args})
        texts = "\n".join(getattr(b, "text", "") or "" for b in result.content)
        answers.append(f"{action}: {texts}\n{json.dumps(result.structured_content, ensure_ascii=False)}")
        if ok:
            assert not result.is_error, texts
        return result.structured_content or {}

    await s("navigate", url=site.url("/redact/page.html"))
    page = await manager.current_page()  # side channel: the app's own state, not in the page source
    planted = {"eq": EQ_PASSWORD, "pin": PIN, "long": LONG_TOKEN, "auth": AUTH_TOKEN, "csrf": CSRF_TOKEN,
               "form": FORM_PASSWORD, "mp": MULTIPART_SECRET}  # fmt: skip
    await page.session.send("Runtime.evaluate", {"expression": f"send({json.dumps(planted)})", "awaitPromise": True})
    for _ in range(300):
        entries = records(await s("network_list", limit=100))
        done = [
            e
            for e in entries
            if "/redact/" in e["url"] and isinstance(e.get("status"), int) and e["method"] in ("GET", "POST")
        ]
        if len(done) >= 5:
            break
        await anyio.sleep(0.02)
    by_path = {e["url"].rsplit("/", 1)[-1]: e for e in entries}
    for entry in entries:
        await s("network_get", id=entry["id"])
    for name in ("json", "form", "multipart"):
        await s("network_save_body", id=by_path[name]["id"], body="request")
    saved = {name: next(root.glob(f"network/*-request-{name}*")) for name in ("json", "form", "multipart")}
    await s("network_export_har", include_bodies=True)
    await s("debug_bundle", save_artifacts=True)
    await s("screenshot")
    await s("read_downloaded_file")

    leaks = [(secret, text[:200]) for text in answers for secret in SECRETS if secret in text]
    assert not leaks, leaks
    files = [p for p in root.rglob("*") if p.is_file()]
    for path in files:
        data = path.read_bytes()
        assert not [s for s in SECRETS if s.encode() in data], path

    # The rest of each body survives as sent: the JSON is whole, numbers and long values included.
    json_file = json.loads(saved["json"].read_text())
    assert json_file == {
        "user": "ada",
        "password": "[redacted]",
        "pin": "[redacted]",
        "api_token": "[redacted]",
        "note": "kept-note",
    }
    form_file = saved["form"].read_text()
    assert form_file == "user=ada&password=[redacted]&keep=kept-form"
    multipart_file = saved["multipart"].read_text()
    assert "kept-multipart" in multipart_file and "[redacted]" in multipart_file
    headers = (await s("network_get", id=by_path["headers"]["id"]))["entry"]["requestHeaders"]
    lowered = {k.lower(): v for k, v in headers.items()}
    assert lowered["x-auth-token"] == lowered["x-csrf-token"] == "[redacted]"
    assert lowered["x-trace"] == "kept-trace"

    # Owner-only: every file 0600, every folder 0700 (the root included), downloads too.
    assert any(p.parent.name == "downloads" for p in files), files
    assert {p.suffix for p in files} >= {".har", ".png", ".json"}
    for path in [root, *root.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (str(path), oct(mode))


BOOKING = """<!doctype html><title>Booking</title>
<form method=post action="/redact/booking"><input name=passport_number value="YA1234567">
<input name=passenger_name value="Ada Lovelace"><input name=secretary value="Grace">
<input name=session_timeout value="1800"><input name=cookie_consent value="accepted">
<input name=userpass value="up-77d1"><input name=passport_token value="pt-19c3">
<input name=session value="ss-4e2a"><input name=cookie_value value="cv-60b8"><button>Book</button></form>
<script>console.log({passenger: "Ada", sessionTimeoutWarning: 300, sessionToken: "st-2f9d"})</script>"""


async def test_a_field_whose_name_only_looks_like_a_secret_is_shown(served, site):
    """A travel or HR form names its fields passport_number, passenger_name, secretary, session_timeout,
    cookie_consent: they hold the values the agent is debugging, not credentials, and were all shown
    as [redacted] (the names contain pass, secret, session, cookie). They are shown now; a word glued
    to them (userpass, passport_token) or a name that holds the credential itself (session,
    cookie_value, sessionToken) is still redacted, in the request body and in a console object."""
    client, _, _ = served
    site.route("/redact/booking.html", Reply(200, BOOKING))
    site.route("/redact/booking", Reply(200, "<title>Booked</title>booked"))

    async def s(action: str, **args: Any) -> tuple[str, str]:
        result = await client.call_tool("browser_session", {"action": action, **args})
        assert not result.is_error, result.content[0].text
        return result.content[0].text, json.dumps(result.structured_content)

    await s("navigate", url=site.url("/redact/booking.html"))
    await client.call_tool("browser_interact", {"action": "click", "selector": "button"})
    posted = [e for e in records(json.loads((await s("network_list", method="POST"))[1])) if "booking" in e["url"]]
    assert posted, "the form post was not captured"
    text, data = await s("network_get", id=posted[-1]["id"])
    console_text, console_data = await s("console_list")
    for shown in ("YA1234567", "Ada+Lovelace", "Grace", "1800", "accepted"):
        assert shown in text and shown in data, (shown, text)
    assert "sessionTimeoutWarning: 300" in console_text, console_text
    for hidden in ("up-77d1", "pt-19c3", "ss-4e2a", "cv-60b8", "st-2f9d"):
        assert hidden not in text + data + console_text + console_data, hidden


def test_which_field_names_count_as_secrets():
    from cdp_core.recorders.redact import is_secret_field

    shown = ["passport_number", "passportNo", "passenger_name", "compass", "bypass_cache", "secretary_email",
             "tokenizer", "session_timeout", "sessionTimeoutWarning", "session_expires", "cookie_consent",
             "cookieConsent", "cookies_accepted", "author", "authored_by"]  # fmt: skip
    hidden = ["password", "pass", "userpass", "dbpass", "loginPass", "pass_word", "passportToken", "passport_token",
              "session", "session_id", "sessionId", "sessionToken", "PHPSESSID", "jsessionid", "cookie",
              "cookie_value", "cookies", "csrf_token", "api_key", "client_secret", "x-auth-token", "session_data",
              "session_timeout_id", "cookie_consent_token", "secretary_password", "access_token", "pin", "otp",
              "passphrase", "pwd", "secret_answer"]  # fmt: skip
    assert [name for name in shown if is_secret_field(name)] == []
    assert [name for name in hidden if not is_secret_field(name)] == []
