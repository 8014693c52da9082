"""cookies and storage through a real MCP client on real Chromium: everything a user needs to see,
and never a value that could be a credential, in the text or in the structured answer.
"""

from __future__ import annotations

import json

from faults_util import UserTabs, serving
from httpserver import Reply

from mcp_server.features.storage.actions import value_preview

SECRETS = [
    "c00kie-s3ss10n-9f8e7d6c5b4a",  # cookie values
    "remember-me-token-77",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IifQ.c2lnbmF0dXJl",  # a JWT
    "hunter2-password",
    "sk_live_51HcD8fK2eZvKYlo2C9x8",  # an API key under a harmless-looking name
    "a8f7c6d5e4b3a2918f7e6d5c4b3a2910",  # an opaque session id
    "482913",  # a numeric PIN: redacted whole, whatever its JSON type
    "k2-def-key",  # a list under a secret name
]

STORAGE_PAGE = f"""<!doctype html><title>Storage</title><script>
localStorage.setItem('auth_token', '{SECRETS[2]}');
localStorage.setItem('theme', 'dark');
localStorage.setItem('profile', JSON.stringify({{user: 'bob', password: '{SECRETS[3]}', visits: 12}}));
localStorage.setItem('config', JSON.stringify({{endpoint: '/api/v2', key: '{SECRETS[4]}'}}));
localStorage.setItem('long', 'x'.repeat(500));
localStorage.setItem('account', JSON.stringify({{id: 7, pin: {SECRETS[6]}, apiKeys: ['{SECRETS[7]}']}}));
sessionStorage.setItem('state', '{SECRETS[5]}');
sessionStorage.setItem('step', '3');
</script>"""


def _routes(http_server) -> None:
    http_server.route(
        "/cs/login",
        Reply(
            200,
            "<!doctype html><title>Logged in</title>",
            headers={
                "Set-Cookie": f"SESSIONID={SECRETS[0]}; Path=/; HttpOnly; SameSite=Lax",
            },
        ),
    )
    http_server.route(
        "/cs/app/remember",
        Reply(
            200,
            "{}",
            "application/json",
            headers={"Set-Cookie": f"remember={SECRETS[1]}; Path=/cs/app; Max-Age=86400; Secure; SameSite=Strict"},
        ),
    )
    http_server.route("/cs/app/page", Reply(200, STORAGE_PAGE))


def _leaks(answer: dict, text: str) -> list[str]:
    blob = json.dumps(answer) + text
    return [s for s in SECRETS if s in blob]


async def test_cookies_by_name_flags_size_and_expiry_never_values(http_server, tmp_path):
    _routes(http_server)
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/cs/login"))
        await agent.s("navigate", url=http_server.url("/cs/app/page"))
        await agent.js("fetch('/cs/app/remember').then(r => r.status)")
        await agent.js("document.cookie = 'ui=compact; path=/'; 1")
        result = await agent.call("browser_session", action="cookies")
        answer, text = result.structured_content, result.content[0].text
        assert _leaks(answer, text) == []
        by_name = {c["name"]: c for c in answer["cookies"]}
        assert answer["count"] == 3 and set(by_name) == {"SESSIONID", "remember", "ui"}
        session = by_name["SESSIONID"]
        assert session == {
            "name": "SESSIONID",
            "domain": "127.0.0.1",
            "flags": "HttpOnly SameSite=Lax",
            "size": len("SESSIONID") + len(SECRETS[0]),
            "expires": "session",
        }
        remember = by_name["remember"]
        assert remember["path"] == "/cs/app" and remember["flags"] == "Secure SameSite=Strict"
        assert remember["expires"].startswith("20") and remember["expires"].endswith("Z")
        assert by_name["ui"]["expires"] == "session" and "flags" not in by_name["ui"]
        assert "values never shown" in text and "SESSIONID  127.0.0.1/" in text and "HttpOnly" in text

        # A page that only sees the path /: the cookie of /cs/app is not the page's.
        await agent.s("navigate", url=http_server.url("/cs/login"))
        names = [c["name"] for c in (await agent.s("cookies"))["cookies"]]
        assert sorted(names) == ["SESSIONID", "ui"]


async def test_storage_keys_with_redacted_previews_in_a_background_tab_of_the_users_chrome(
    fresh_chromium, http_server, tmp_path
):
    _routes(http_server)
    user = UserTabs(fresh_chromium.http_url)
    work = await user.open(http_server.url("/cs/app/page"))
    front = await user.open(http_server.url("/cs/login"))  # the user looks at this one
    await user.close_all_but({work, front})
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=fresh_chromium.http_url)
        await agent.s("select_page_by_title", title_contains="Storage")
        assert await agent.js("document.visibilityState") == "hidden"
        result = await agent.call("browser_session", action="storage")
        answer, text = result.structured_content, result.content[0].text
        assert _leaks(answer, text) == []
        assert answer["origin"] == http_server.base
        local = {i["key"]: i for i in answer["localStorage"]["items"]}
        assert answer["localStorage"]["count"] == 6 and answer["sessionStorage"]["count"] == 2
        assert local["theme"] == {"key": "theme", "preview": "dark", "length": 4}
        assert local["auth_token"]["preview"] == "[redacted]" and local["auth_token"]["length"] == len(SECRETS[2])
        assert '"user":"bob"' in local["profile"]["preview"] and "[redacted]" in local["profile"]["preview"]
        assert local["config"]["preview"].startswith('{"endpoint":"/api/v2","key":"[redacted]"')
        assert local["account"]["preview"] == '{"id":7,"pin":"[redacted]","apiKeys":"[redacted]"}'
        assert local["long"]["length"] == 500 and local["long"]["preview"].endswith("…")
        assert len(local["long"]["preview"]) <= 61
        session = {i["key"]: i["preview"] for i in answer["sessionStorage"]["items"]}
        assert session == {"state": "[redacted]", "step": "3"}
        assert "theme = dark (4 chars)" in text and "sessionStorage (2 key(s))" in text
        # Reading changed nothing in the page.
        assert await agent.js("localStorage.length + sessionStorage.length") == 8


async def test_storage_of_a_page_without_storage(tmp_path):
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url="data:text/html,<title>no storage</title>")
        opaque = await agent.call("browser_session", action="storage")
        assert not opaque.is_error and "error" in opaque.structured_content["localStorage"]
        assert "localStorage: not readable" in opaque.content[0].text and "data:text/html" in opaque.content[0].text
        none = await agent.call("browser_session", action="cookies")
        assert none.structured_content["count"] == 0 and "not an http(s) page" in none.content[0].text


async def test_debug_bundle_says_storage_it_could_not_read_never_none(tmp_path):
    """A data: page refuses localStorage: the bundle says so in its notes, it does not list 'none'."""
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url="data:text/html,<title>no storage</title>")
        answer = await agent.call("browser_session", action="debug_bundle", include_storage=True)
        sc, text = answer.structured_content, answer.content[0].text
        assert not answer.is_error, sc
        assert "localStorageKeys" not in sc.get("storage", {}) and "sessionStorageKeys" not in sc.get("storage", {})
        assert any("localStorageKeys unreadable" in n for n in sc["notes"]), sc
        assert "localStorage keys none" not in text and "localStorageKeys unreadable" in text


def test_value_preview_masks_by_name_content_and_shape():
    assert value_preview("api_key", "plain", 5) == "[redacted]"
    assert value_preview("data", '{"token": "abc", "n": 1}', 24) == '{"token":"[redacted]","n":1}'
    assert value_preview("x", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", 47) == "Bearer [redacted]"
    assert (
        value_preview("x", "https://example.com/some/long/path-name", 38) == "https://example.com/some/long/path-name"
    )
    # A secret cut by the read limit still does not show: redaction runs before the preview is cut.
    cut = '{"password": "' + "p" * 5000
    assert "ppp" not in value_preview("state", cut[:4096], len(cut))
