"""The names and values real apps send, and their look-alikes: which are hidden, which are shown.

Pure logic (no browser): the one predicate every redaction asks. The corpus is taken from real
apps' requests (phpMyAdmin's ``token`` and ``session_max_rows``, WordPress's ``_wpnonce`` and
``X-WP-Nonce``, Moodle's ``sesskey``, OAuth's ``token_type``, LLM APIs' ``max_tokens``). Precision
matters as much as recall: a hidden row count or state word costs the agent the fact it debugs.
"""

from __future__ import annotations

import pytest

from cdp_core.recorders.redact import REDACTED, redact_body, redact_secrets_in_text, redact_url, redact_url_params
from cdp_core.recorders.secret_names import is_plain_fact, is_secret_field, is_secret_pair

TOKEN = "6b3e9f0a1c2d4e5f6a7b8c9d0e1f2a3b"  # phpMyAdmin's CSRF token: 32 hex
NONCE = "1a2b3c4d5e"  # WordPress nonce: 10 hex

#: Secret names: a whole name or a segment (split on _ - . [] and camelCase), or a marker glued in a word.
SECRET_NAMES = [
    "token", "csrf_token", "csrfToken", "sesskey", "_wpnonce", "api_key", "apiKey", "auth[token]",
    "X-WP-Nonce", "save_post_nonce", "delete-comment_nonce", "_ajax_nonce", "closedpostboxesnonce",
    "PHPSESSID", "session", "user_session", "session_id", "access_token", "refresh_token", "security",
    "password", "pma_password", "userpass", "pin", "otp", "client_secret", "prompt_tokens",
]  # fmt: skip
#: Look-alikes: a marker inside another word, a setting of a session, a count of tokens.
PLAIN_NAMES = [
    "session_max_rows", "session_timeout", "sessionTimeoutWarning", "cookie_consent", "tokens_count",
    "token_count", "max_tokens", "csrf_ttl", "nonce_lifetime", "pos", "db", "table", "route", "author",
    "passport_number", "tokenizer", "compass", "ajax_request", "goto", "sql_query", "KeyError",
]  # fmt: skip


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_a_secret_name_is_a_whole_name_a_segment_or_a_glued_marker(name: str) -> None:
    assert is_secret_field(name)
    assert is_secret_pair(name, TOKEN)  # a token's shape under its name: hidden


@pytest.mark.parametrize("name", PLAIN_NAMES)
def test_a_name_that_only_holds_a_marker_in_another_sense_is_shown(name: str) -> None:
    assert not is_secret_field(name)
    assert not is_secret_pair(name, TOKEN)


#: (name, value, hidden): by name and value
PAIRS = [
    ("_wpnonce", NONCE, True),
    ("save_post_nonce", NONCE, True),
    ("X-WP-Nonce", "9f8e7d6c5b", True),
    ("token", "482913", True),  # a 6-digit code typed into a "token" field: an OTP, not a count
    ("token", "abc", True),  # an unknown word: maybe the token itself
    ("session", "ss-4e2a", True),
    ("security", NONCE, True),
    ("csrf", "true", False),
    ("nonce_verified", True, False),
    ("token_type", "Bearer", False),
    ("session", "active", False),
    ("token_status", "EXPIRED", False),
    ("auth", "basic", False),
    ("prompt_tokens", 12, False),  # a count under a plural name
    ("key", "Enter", False),  # a keyboard event's key
    ("key", "k-77a1c9e0", True),
    # strong names: hidden whatever the value
    ("password", "active", True),
    ("pin", 1234, True),
    ("pma_password", "true", True),
]


@pytest.mark.parametrize(("name", "value", "hidden"), PAIRS)
def test_a_weak_name_is_judged_with_its_value_a_strong_one_never(name: str, value: object, hidden: bool) -> None:
    assert is_secret_pair(name, value) is hidden


@pytest.mark.parametrize("value", [True, None, 3, "25", "false", "active", "NOT_FOUND", ""])
def test_plain_facts(value: object) -> None:
    assert is_plain_fact(value)


@pytest.mark.parametrize("value", [TOKEN, NONCE, "482913", "abc", "dGhpcyBpcyBhIHRva2Vu", "ss-4e2a", 918273645])
def test_a_tokens_shape_is_no_plain_fact(value: object) -> None:
    assert not is_plain_fact(value)


def test_the_same_rules_hold_in_urls_bodies_and_text() -> None:
    url = f"http://127.0.0.1:8080/index.php?route=/table/replace&ajax_request=true&token={TOKEN}&session_max_rows=25"
    want = "http://127.0.0.1:8080/index.php?route=/table/replace&ajax_request=true&token=[redacted]&session_max_rows=25"
    assert redact_url(url) == want
    assert redact_url_params(f"GET {url} 200") == f"GET {want} 200"
    assert redact_url("http://127.0.0.1/a?b=1#") == "http://127.0.0.1/a?b=1#"  # untouched: byte for byte
    # An encoded URL in a parameter (phpMyAdmin's goto=), and HTML's &amp;
    nested = f"http://127.0.0.1/?goto=index.php%3Froute%3D%2F%26token%3D{TOKEN}%26db%3Dshop"
    assert TOKEN not in redact_url(nested) and "db%3Dshop" in redact_url(nested)
    assert redact_url_params(f'<a href="?a=1&amp;token={TOKEN}">') == '<a href="?a=1&amp;token=[redacted]">'
    # A JSON line of a trace stays JSON: only the value changes
    line = f'{{"args":{{"data":{{"url":"{url}","frames":[]}}}}}}'
    assert redact_url_params(line) == f'{{"args":{{"data":{{"url":"{want}","frames":[]}}}}}}'
    body = redact_body(
        f'{{"_wpnonce":"{NONCE}","nonce_verified":true,"token_type":"Bearer","tokens_count":3,"action":"save"}}'
    )
    assert body == (
        '{"_wpnonce":"[redacted]","nonce_verified":true,"token_type":"Bearer","tokens_count":3,"action":"save"}'
    )
    assert redact_body(f"action=trash&_wpnonce={NONCE}&session_max_rows=25") == (
        f"action=trash&_wpnonce={REDACTED}&session_max_rows=25"
    )
    assert redact_secrets_in_text(f"token: {TOKEN}, session: active") == f"token: {REDACTED}, session: active"
