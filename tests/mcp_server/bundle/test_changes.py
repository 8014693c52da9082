"""The comparison of ``debug_bundle since_mark`` and the marks store, on plain data (no browser)."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_server.evidence.marks import Marks
from mcp_server.features.bundle.changes import (
    AS_LONG,
    SINCE_CAPTURE,
    TO_FAILURE,
    compare,
    console_key,
    failure_state,
    newest_failure,
    outcome,
    request_key,
    span_before,
)
from targets.errors import ToolFailure

ORIGIN = "http://127.0.0.1:8080"


def req(id: int, status: int | None, *, method: str = "POST", path: str = "/save.php", **more: Any) -> dict[str, Any]:
    return {"id": id, "method": method, "url": ORIGIN + path, "status": status, "failed": False, "error": None, **more}


def err(id: int, text: str, url: str = ORIGIN + "/app.js", line: int | None = 12) -> dict[str, Any]:
    return {"id": id, "type": "error", "text": text, "location": {"url": url, "lineNumber": line}}


def test_a_request_is_keyed_by_method_and_path_without_query() -> None:
    assert request_key(req(1, 200, path="/save.php?t=1#x")) == request_key(req(2, 500, path="/save.php?t=2"))
    assert request_key(req(1, 200, method="GET")) != request_key(req(2, 200))


def test_a_console_error_is_keyed_by_message_and_location() -> None:
    assert console_key(err(1, "boom", ORIGIN + "/app.js?v=1")) == console_key(err(2, "boom", ORIGIN + "/app.js?v=2"))
    assert console_key(err(1, "boom", line=12)) != console_key(err(2, "boom", line=13))
    assert console_key(err(1, "boom")) != console_key(err(2, "bang"))


def test_outcome_says_status_network_failure_and_body_error() -> None:
    assert outcome(req(1, 500)) == "500"
    assert outcome(req(1, None, failed=True, failureText="net::ERR_CONNECTION_REFUSED")) == (
        "failed net::ERR_CONNECTION_REFUSED"
    )
    assert outcome(req(1, 200, error="app error: Could not save")) == "200 app error: Could not save"


def test_requests_whose_outcome_changed_are_listed_with_both_ids() -> None:
    before = ([req(1, 200, method="GET", path="/list.php"), req(2, 500)], [])
    after = ([req(3, 200, method="GET", path="/list.php"), req(4, 200), req(5, 404, method="GET", path="/new")], [])
    out = compare(before, after, None, None, ORIGIN)
    # the list answered the same; /new was not made before the mark: not a change
    assert out["requests"] == [{"request": "POST /save.php", "before": "500", "after": "200", "ids": [2, 4]}]


def test_the_newest_outcome_of_each_span_is_compared() -> None:
    before = ([req(1, 500), req(2, 200)], [])  # it failed, then worked, before the mark
    after = ([req(3, 200)], [])
    assert compare(before, after, None, None, ORIGIN)["requests"] == []


def test_an_app_error_that_went_away_is_a_change_at_the_same_status() -> None:
    before = ([req(1, 200, error="app error: duplicate key")], [])
    after = ([req(2, 200)], [])
    (changed,) = compare(before, after, None, None, ORIGIN)["requests"]
    assert changed["before"] == "200 app error: duplicate key" and changed["after"] == "200"


def test_console_errors_gone_and_new_once_each_with_their_count() -> None:
    before = ([], [err(1, "save failed 500"), err(2, "save failed 500"), err(3, "kept")])
    after = ([], [err(4, "kept"), err(5, "TypeError: x is undefined", line=40)])
    out = compare(before, after, None, None, ORIGIN)
    assert out["consoleGone"] == [{"id": 1, "text": "save failed 500", "at": "/app.js:12", "times": 2}]
    assert out["consoleNew"] == [{"id": 5, "text": "TypeError: x is undefined", "at": "/app.js:40"}]


def test_a_load_error_without_a_line_is_placed_by_its_url() -> None:
    before = ([], [err(1, "Failed to load resource: 500", ORIGIN + "/save.php?t=3", line=None)])
    (row,) = compare(before, ([], []), None, None, ORIGIN)["consoleGone"]
    assert row["at"] == "/save.php"


def test_on_screen_messages_that_appeared_or_went() -> None:
    at_mark = [{"kind": "alert", "text": "Could not save", "uid": 7}, {"kind": "status", "text": "Draft"}]
    now = [{"kind": "status", "text": "Draft", "uid": 3}, {"kind": "status", "text": "Saved", "uid": 4}]
    out = compare(([], []), ([], []), at_mark, now, ORIGIN)
    assert out["onScreenGone"] == [{"kind": "alert", "text": "Could not save"}]
    assert out["onScreenNew"] == [{"kind": "status", "text": "Saved"}]


def test_on_screen_is_left_out_when_it_was_not_read() -> None:
    assert "onScreenGone" not in compare(([], []), ([], []), None, [{"kind": "alert", "text": "x"}])


def test_the_failure_before_the_mark_is_the_newest_still_failing_request() -> None:
    failure = newest_failure([req(1, 500, path="/a"), req(2, 404, method="GET", path="/b")], [], ORIGIN)
    assert failure is not None and failure.said == "GET /b 404" and failure.resolved_by is None


def test_a_failure_answered_well_before_the_mark_is_resolved() -> None:
    failure = newest_failure([req(1, 500), req(2, 200)], [err(1, "save failed")], ORIGIN)
    assert failure is not None and failure.id == 1 and failure.resolved_by == 2
    state, line = failure_state("m2", failure, ([], []), captured_after=0, origin=ORIGIN)
    assert state == "none" and line.startswith("No failure was left before m2")


def test_a_200_with_an_app_error_is_said_by_its_error() -> None:
    failure = newest_failure([req(1, 200, error="app error: Could not save")], [], ORIGIN)
    assert failure is not None and failure.said == "POST /save.php 200 app error: Could not save"


def test_without_a_failing_request_the_newest_console_error_is_the_failure() -> None:
    failure = newest_failure([req(1, 200)], [err(1, "old"), err(2, "TypeError: boom\n    at f")], ORIGIN)
    assert failure is not None and failure.kind == "console" and failure.said == 'console error "TypeError: boom"'
    assert newest_failure([req(1, 200)], [], ORIGIN) is None


def test_the_one_line_gone_still_there_not_repeated() -> None:
    failure = newest_failure([req(1, 500)], [], ORIGIN)
    gone = failure_state("m1", failure, ([req(5, 200)], []), captured_after=1, origin=ORIGIN)
    assert gone == ("gone", "The failure before m1 (POST /save.php 500) is gone: #5 answered 200 after m1.")
    still = failure_state("m1", failure, ([req(5, 200), req(6, 502)], []), captured_after=2, origin=ORIGIN)
    assert still[0] == "still there" and "is still there: #6 answered 502" in still[1]
    other = failure_state("m1", failure, ([req(5, 200, method="GET", path="/")], []), captured_after=1, origin=ORIGIN)
    assert other == (
        "not repeated",
        "The failure before m1 (POST /save.php 500) was not repeated: no POST /save.php after m1.",
    )
    nothing = failure_state("m1", failure, ([], []), captured_after=0, origin=ORIGIN)
    assert nothing[0] == "not repeated" and "nothing was captured after m1" in nothing[1]
    assert failure_state("m1", None, ([], []), captured_after=0) == ("none", "No failure was captured before m1.")


def test_a_console_failure_is_gone_when_not_logged_again() -> None:
    failure = newest_failure([], [err(1, "boom")], ORIGIN)
    assert failure_state("m1", failure, ([req(2, 200)], [err(3, "other")]), captured_after=2)[0] == "gone"
    assert failure_state("m1", failure, ([], [err(3, "boom")]), captured_after=1)[0] == "still there"


def test_the_span_before_is_as_long_as_after_unless_a_failure_or_the_capture_says_otherwise() -> None:
    assert span_before(mark=100.0, now=110.0, captured_since=0.0, failure=95.0) == span_before(100, 110, 0, None)
    assert span_before(100.0, 110.0, 0.0, None).start == 90.0 and span_before(100.0, 110.0, 0.0, None).rule == AS_LONG
    # the agent patched for minutes between the failure and the mark: the span reaches back to it
    assert (span_before(100.0, 110.0, 0.0, 30.0).start, span_before(100.0, 110.0, 0.0, 30.0).rule) == (30.0, TO_FAILURE)
    # never before the capture started
    assert (span_before(100.0, 110.0, 95.0, 30.0).start, span_before(100.0, 110.0, 95.0, 30.0).rule) == (
        95.0,
        SINCE_CAPTURE,
    )


def test_marks_are_named_in_order_and_an_unknown_one_lists_the_known() -> None:
    marks = Marks(limit=2)
    names = [marks.add(page="p1", network_id=i, console_id=0, captured_since=None).name for i in range(3)]
    assert names == ["m1", "m2", "m3"] and marks.names == ["m2", "m3"]  # the oldest went
    assert marks.get("m3").network_id == 2
    with pytest.raises(ToolFailure) as failure:
        marks.get("m1")
    assert failure.value.code == "INVALID_ARGUMENT" and failure.value.details["knownMarks"] == ["m2", "m3"]
    assert "m2, m3" in (failure.value.hint or "")
