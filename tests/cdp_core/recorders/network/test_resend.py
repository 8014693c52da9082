"""What a replay may send of a captured request: pure logic of cdp_core.recorders.network.resend."""

from __future__ import annotations

from typing import Any, cast

import pytest

from cdp_core.recorders.network.model import Entry, post_data_bytes
from cdp_core.recorders.network.resend import page_may_set, resend_of


def entry(
    headers: dict[str, str], sent: dict[str, str] | None = None, url: str = "http://127.0.0.1:8000/save.php"
) -> Entry:
    return Entry(
        id=3,
        request_id="r1",
        session=cast(Any, object()),
        wall_time=0.0,
        start_ts=0.0,
        page_url="http://127.0.0.1:8000/edit.php",
        method="post",
        url=url,
        resource_type="fetch",
        request_headers=headers,
        request_extra_headers=sent,
        frame_id="F1",
        document_url="http://127.0.0.1:8000/edit.php",
    )


@pytest.mark.parametrize(
    ("name", "allowed"),
    [
        ("Content-Type", True),
        ("X-CSRF-Token", True),
        ("Authorization", True),  # a page's script sets it, so the replay does too (shown masked)
        ("X-Requested-With", True),
        ("Cookie", False),
        ("Host", False),
        ("Content-Length", False),
        ("Origin", False),
        ("Referer", False),
        ("User-Agent", False),
        ("Sec-Fetch-Mode", False),
        ("sec-ch-ua", False),
        ("Proxy-Connection", False),
        ("Accept-Encoding", False),
        (":authority", False),
        ("", False),
    ],
)
def test_only_headers_a_page_may_set_are_sent(name: str, allowed: bool) -> None:
    assert page_may_set(name) is allowed


def test_the_browser_adds_the_rest_and_cookies_decide_credentials() -> None:
    headers = {"Content-Type": "application/json", "Referer": "http://127.0.0.1:8000/edit.php", "sec-ch-ua": "x"}
    plain = resend_of(entry(headers), b'{"id":1}', True)
    assert plain.method == "POST" and plain.headers == {"Content-Type": "application/json"}
    assert plain.left_to_browser == ("Referer", "sec-ch-ua")
    assert plain.credentials == "same-origin" and plain.content_type == "application/json"
    with_cookie = resend_of(entry(headers, sent={"Cookie": "PHPSESSID=abc"}), b"", True)
    assert with_cookie.credentials == "include"


def test_a_fragment_is_not_sent() -> None:
    assert resend_of(entry({}, url="http://127.0.0.1:8000/a?x=1#top"), None, True).url == "http://127.0.0.1:8000/a?x=1"


def test_chromes_copy_of_a_binary_body_is_decoded() -> None:
    assert post_data_bytes({"postData": "AAEC/w==", "base64Encoded": True}) == b"\x00\x01\x02\xff"
    assert post_data_bytes({"postData": "città=Roma"}) == "città=Roma".encode()
