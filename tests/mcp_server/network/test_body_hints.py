"""The line about a missing body says what is true of that body (pure choice, no browser).

The answer that said a body was gone once ended with "bodies of document/xhr/fetch responses are
kept automatically". Each case here is one ``bodyState`` / type / navigation / durable-messages
combination the recorder reports; the end-to-end cases are in test_bodies_survive_navigation.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_server.features.network.body_hints import BodyFacts, missing_body_note, save_failure_hint

DURABLE = BodyFacts(durable=True, navigated_to=None, eager_max_bytes=1_048_576)
MOVED_ON = BodyFacts(durable=True, navigated_to=7, eager_max_bytes=1_048_576)
OLD_CHROME_MOVED_ON = BodyFacts(durable=False, navigated_to=7, eager_max_bytes=1_048_576)
OLD_CHROME = BodyFacts(durable=False, navigated_to=None, eager_max_bytes=1_048_576)


def _entry(state: str, kind: str = "xhr", **more: Any) -> dict[str, Any]:
    return {"bodyState": state, "resourceType": kind, "status": 200, "finished": True, **more}


@pytest.mark.parametrize(
    ("entry", "facts", "says", "never"),
    [
        (_entry("held"), OLD_CHROME_MOVED_ON, None, ()),
        (_entry("failed"), MOVED_ON, "body lost: the page navigated (#7) before it was read", ("refused", "save")),
        (_entry("failed"), OLD_CHROME_MOVED_ON, "this Chrome refused to keep bodies across navigations", ("save",)),
        (_entry("failed"), DURABLE, "body lost: Chrome dropped it before it was read", ("navigated", "refused")),
        (_entry("dropped"), DURABLE, "held-body budget; network_save_body asks Chrome", ("navigated",)),
        (_entry("dropped"), MOVED_ON, "Chrome may not have it either, repeat the request", ("network_save_body",)),
        (_entry("too_large", "document"), DURABLE, "over the 1048576 bytes read at once", ("lost",)),
        (_entry("none", "script"), OLD_CHROME, "body not held in memory: network_save_body asks", ("refused",)),
        (_entry("none", "xhr"), OLD_CHROME_MOVED_ON, "refused to keep bodies across navigations (#7 since)", ()),
        (_entry("pending"), DURABLE, "being read from Chrome", ("lost", "save")),
        (_entry("none", status=302, redirectedTo=4), DURABLE, "a redirect hop has no body of its own: see #4", ()),
        (_entry("none", status=None, failed=True), DURABLE, "no response arrived", ("save",)),
        (_entry("none", "websocket"), DURABLE, None, ()),
    ],
)
def test_network_get_line_agrees_with_the_body_state(
    entry: dict[str, Any], facts: BodyFacts, says: str | None, never: tuple[str, ...]
) -> None:
    note = missing_body_note(entry, facts)
    if says is None:
        assert note is None
        return
    assert note is not None and says in note, note
    assert "kept automatically" not in note
    for word in never:
        assert word not in note, (word, note)


@pytest.mark.parametrize(
    ("reason", "entry", "facts", "says", "never"),
    [
        ("gone", _entry("failed"), MOVED_ON, "the page navigated (#7) before it was read; repeat", ("refused",)),
        ("gone", _entry("failed"), OLD_CHROME_MOVED_ON, "#7) before it was read and this Chrome refused", ()),
        ("gone", _entry("dropped"), DURABLE, "dropped (oldest first) to stay within the held-body budget", ()),
        ("gone", _entry("none", "image"), MOVED_ON, "only document/xhr/fetch bodies are held", ("refused",)),
        ("gone", None, DURABLE, "repeat the request", ()),
        ("redirect_hop", _entry("none"), DURABLE, "entry it was redirected to", ("repeat",)),
        ("not_finished", _entry("none"), DURABLE, "wait for it to finish", ("repeat",)),
        ("over_chrome_limit", _entry("too_large"), DURABLE, "never keeps a copy this large", ("repeat",)),
        ("tab_closed", _entry("failed"), DURABLE, "the tab is gone", ()),
    ],
)
def test_save_failure_hint_fits_the_reason(
    reason: str, entry: dict[str, Any] | None, facts: BodyFacts, says: str, never: tuple[str, ...]
) -> None:
    hint = save_failure_hint("response", reason, entry, facts)
    assert says in hint and "kept automatically" not in hint, hint
    for word in never:
        assert word not in hint, (word, hint)


def test_request_body_hints() -> None:
    assert "sent no body" in save_failure_hint("request", "no_request_body", None, DURABLE)
    gone = save_failure_hint("request", "request_gone", _entry("held"), DURABLE)
    assert "request body" in gone and "repeat the request" in gone
