"""Redaction of secrets in the shapes that slip past a name list: one test per shape.

Unit tests of the pure redaction functions (every writer goes through them: listings, HAR files,
bundles, console entries, the audit log), then one page on 127.0.0.1 that carries the shapes only
a browser produces (a textarea's content, ``data-token`` attributes, an exception's message) and is
read with ``snapshot``, ``get_dom`` and ``console_list``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from httpserver import Reply
from mcp.client import Client

from cdp_core.recorders.redact import HeaderRedactor, redact_body, redact_secrets_in_text, redact_url
from mcp_server.safety.audit_arguments import redact_arguments

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnLXNlY3JldC05OQ"
SECRET = "hunter2-c0ffee"


def test_a_jwt_header_is_masked_whatever_it_is_called():
    out = HeaderRedactor().headers({"X-JWT-Assertion": JWT, "X-Forwarded-Claims": JWT, "Accept": "text/html"})
    assert JWT not in json.dumps(out) and "c2lnLXNlY3JldC05OQ" not in json.dumps(out)
    assert out["Accept"] == "text/html"


def test_a_bearer_value_is_masked_whatever_the_header_is_called():
    headers = {"X-Original-Bearer": f"Bearer {SECRET}", "X-Upstream": f"Bearer {SECRET}"}
    out = HeaderRedactor().headers(headers)
    assert SECRET not in json.dumps(out)


def test_a_field_named_pw_is_masked():
    assert SECRET not in redact_body(json.dumps({"user": "ada", "pw": SECRET}), "application/json")
    assert SECRET not in redact_body(f"user=ada&pw={SECRET}", "application/x-www-form-urlencoded")
    assert "ada" in redact_body(json.dumps({"user": "ada", "pw": SECRET}), "application/json")


def test_json_inside_a_json_string_is_masked():
    body = json.dumps({"payload": json.dumps({"password": SECRET, "note": "kept"})})
    out = redact_body(body, "application/json")
    assert SECRET not in out and "kept" in out


def test_a_graphql_inline_password_is_masked():
    query = 'mutation { login(user: "ada", password: "' + SECRET + '") { ok } }'
    out = redact_body(json.dumps({"query": query}), "application/json")
    assert SECRET not in out and "login(user" in out
    assert SECRET not in redact_secrets_in_text(query)


def test_an_oauth_code_is_masked_in_urls_and_token_requests():
    assert SECRET not in redact_url(f"http://127.0.0.1/cb?code={SECRET}&state=s1")
    body = f"grant_type=authorization_code&code={SECRET}&redirect_uri=x"
    out = redact_body(body, "application/x-www-form-urlencoded")
    assert SECRET not in out and "grant_type=authorization_code" in out
    assert SECRET not in redact_secrets_in_text(f"GET /cb?state=1&code={SECRET} 302")
    # an error code in JSON is no credential
    assert "NOT_FOUND" in redact_body(json.dumps({"code": "NOT_FOUND"}), "application/json")


def test_a_saml_response_is_masked():
    saml = "PHNhbWxwOlJlc3BvbnNlIHhtbG5zOnNhbWxwPSJ1cm4i"
    assert saml not in redact_body(f"SAMLResponse={saml}&RelayState=r", "application/x-www-form-urlencoded")
    assert saml not in redact_url(f"http://127.0.0.1/acs?SAMLResponse={saml}")


def test_exception_text_is_masked():
    assert SECRET not in redact_secrets_in_text(f"Error: login failed, password: {SECRET}")
    assert SECRET not in redact_secrets_in_text(f"TypeError: bad token={SECRET}")


def test_a_password_in_a_urls_userinfo_is_masked_in_any_text():
    assert SECRET not in redact_secrets_in_text(f"fetch failed: https://ada:{SECRET}@127.0.0.1/x")
    assert SECRET not in redact_url(f"https://ada:{SECRET}@127.0.0.1/x")
    assert "ada:" in redact_url(f"https://ada:{SECRET}@127.0.0.1/x")


def test_the_audit_log_masks_secrets_inside_code():
    for code in (
        f"localStorage.setItem('token', '{SECRET}')",
        f'headers.set("Authorization", "{SECRET}")',
        f"login({{pw: '{SECRET}'}})",
        f"fetch('/x', {{headers: {{Authorization: 'Basic ' + btoa('ada:{SECRET}')}}}})",
        f"location = '/cb?pw={SECRET}&SAMLResponse={SECRET}'",
        f"fetch('https://ada:{SECRET}@127.0.0.1/')",
        f"document.cookie = 'x=1'; fetch('/', {{headers: {{'X-Original-Bearer': 'Bearer {SECRET}'}}}})",
    ):
        out = json.dumps(redact_arguments({"expression": code}))
        assert SECRET not in out, out
    out = redact_arguments({"url": f"http://127.0.0.1/?pw={SECRET}&SAMLResponse={SECRET}&page=2"})
    assert SECRET not in out["url"] and "page=2" in out["url"]


PAGE = f"""<!doctype html><title>Shapes</title>
<form><label>API token <textarea name="api_token">{SECRET}-ta</textarea></label>
<label>Notes <textarea name="notes">plain notes {JWT}</textarea></label></form>
<div id="cfg" data-token="{SECRET}-dt" data-role="kept-role">config</div>
<button onclick="throw new Error('login failed, password: {SECRET}-ex')">fail</button>
<script>setTimeout(() => {{ throw new Error('bad token={SECRET}-ex2 for ada'); }}, 0);</script>"""


@pytest.fixture
async def client(app_client: Client, http_server) -> Client:
    http_server.route("/shapes.html", Reply(200, PAGE))
    return app_client


async def _call(client: Client, action: str, tool: str = "browser_session", **args: Any) -> str:
    result = await client.call_tool(tool, {"action": action, **args})
    text = "\n".join(getattr(b, "text", "") or "" for b in result.content)
    assert not result.is_error, text
    return text + "\n" + json.dumps(result.structured_content)


async def test_textarea_data_token_and_exception_text_stay_out_of_page_reads(client, http_server):
    await _call(client, "navigate", url=http_server.url("/shapes.html"))
    await _call(client, "click", "browser_interact", selector="button")
    await _call(client, "wait_for", predicate="true", timeout_ms=1000)
    snapshot = await _call(client, "snapshot")
    dom = await _call(client, "get_dom")
    console = await _call(client, "console_list")
    assert "kept-role" in dom and "plain notes" in dom and "API token" in snapshot
    assert "login failed" in console and "for ada" in console
    for where, text in (("snapshot", snapshot), ("get_dom", dom), ("console_list", console)):
        assert SECRET not in text, (where, text)
        assert JWT not in text and "c2lnLXNlY3JldC05OQ" not in text, (where, text)
