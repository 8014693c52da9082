"""Chrome's "Failed to load resource" lines: the status or net error each one says, as Chrome words it."""

from __future__ import annotations

import pytest

from cdp_core.recorders.console.load_errors import load_error_text, parse_load_error


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        (
            "Failed to load resource: the server responded with a status of 500 (Internal Server Error)",
            {"status": 500, "statusText": "Internal Server Error"},
        ),
        (
            "Failed to load resource: the server responded with a status of 404 (Not Found)",
            {"status": 404, "statusText": "Not Found"},
        ),
        # HTTP/2 has no reason phrase: Chrome prints empty parentheses
        ("Failed to load resource: the server responded with a status of 503 ()", {"status": 503}),
        ("Failed to load resource: net::ERR_CONNECTION_REFUSED", {"netError": "net::ERR_CONNECTION_REFUSED"}),
        ("Failed to load resource: net::ERR_UNSAFE_PORT", {"netError": "net::ERR_UNSAFE_PORT"}),
        ("Failed to load resource: net::ERR_HTTP2_PROTOCOL_ERROR", {"netError": "net::ERR_HTTP2_PROTOCOL_ERROR"}),
    ],
)
def test_a_load_error_line_says_its_own_outcome(text: str, parsed: dict) -> None:
    assert parse_load_error(text) == parsed


@pytest.mark.parametrize(
    "text",
    [
        "Refused to load the script 'http://127.0.0.1/x.js' because it violates the Content Security Policy",
        "GET http://127.0.0.1:8000/api 500 (Internal Server Error)",  # a console.error of the app's own
        "Failed to load resource",  # names no outcome: nothing is claimed
        "error: Failed to load resource: the server responded with a status of 500 (Internal Server Error)",
        "",
    ],
)
def test_other_lines_are_not_load_errors(text: str) -> None:
    assert parse_load_error(text) is None


def test_the_answer_text_keeps_the_status_or_net_error_without_chromes_filler() -> None:
    assert load_error_text({"status": 500, "statusText": "Internal Server Error"}) == (
        "Failed to load resource: 500 (Internal Server Error)"
    )
    assert load_error_text({"status": 503}) == "Failed to load resource: 503"
    assert load_error_text({"netError": "net::ERR_CONNECTION_REFUSED"}) == (
        "Failed to load resource: net::ERR_CONNECTION_REFUSED"
    )
