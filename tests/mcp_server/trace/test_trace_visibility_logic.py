"""Pure logic of a trace's visibility: the page's ``visibility-state`` record read into what the answer says first."""

from __future__ import annotations

from mcp_server.features.trace.render import summary_answer
from mcp_server.features.trace.visibility import (
    WARNING,
    VisibilityMark,
    changes_since,
    notes_for,
    visibility_fields,
    visibility_line,
)

START = VisibilityMark(state="hidden", at_ms=1_000_000.0)  # epoch ms on the page's clock


def test_changes_after_the_start_only_and_no_repeat_of_a_state() -> None:
    # the document began hidden 5 s before the trace, was shown 1.2 s into it and hidden 0.3 s later
    entries = [["hidden", 0.0], ["visible", 6_200.0], ["visible", 6_300.0], ["hidden", 6_500.0]]
    changes = changes_since(START, START.at_ms - 5_000, entries)
    assert changes == [{"atMs": 1_200, "state": "visible"}, {"atMs": 1_500, "state": "hidden"}]


def test_a_document_reloaded_during_the_trace_starts_with_its_own_state() -> None:
    # reloaded 200 ms in, still hidden: its first entry repeats the state, which is no change
    assert changes_since(START, START.at_ms + 200, [["hidden", 0.0]]) == []
    assert changes_since(START, START.at_ms + 200, [["visible", 0.0]]) == [{"atMs": 200, "state": "visible"}]


def test_fields_hidden_throughout_partly_or_nothing_when_in_front() -> None:
    assert visibility_fields({"start": "hidden", "changes": []}) == {"visibility": "hidden", "warning": WARNING}
    partly = visibility_fields({"start": "visible", "changes": [{"atMs": 1_500, "state": "hidden"}]})
    assert partly["visibility"] == "partly hidden"
    assert partly["visibilityChanges"] == [{"atMs": 0, "state": "visible"}, {"atMs": 1_500, "state": "hidden"}]
    assert visibility_line(partly).startswith(
        "The tab was hidden (in the background) for part of the trace (visible at 0 ms, hidden at 1.5 s): "
    )
    assert visibility_fields({"start": "visible", "changes": []}) == {}
    assert visibility_fields(None) == {} and visibility_line({}) == ""


def test_the_summary_answer_says_it_first_and_explains_the_missing_paint() -> None:
    summary = {
        "navigationUrl": "http://127.0.0.1/index.php",
        "durationMs": 6800.0,
        "requestCount": 43,
        "loadMs": 6800.0,
        "notes": ["no first contentful paint after the navigation: the trace stopped before the page painted "
                  "(paint is reported after load at times), or the tab was in the background"],
    }  # fmt: skip
    hidden = visibility_fields({"start": "hidden", "changes": []})
    text, data = summary_answer(summary, "traces/t.json", visibility=hidden)
    assert text.splitlines()[0] == f"The tab was hidden (in the background) for the whole trace: {WARNING}."
    assert list(data)[:2] == ["visibility", "warning"] and data["visibility"] == "hidden"
    assert data["notes"] == [notes_for(summary["notes"], hidden)[0]]
    assert "the tab was hidden, and Chrome paints no frames for a background tab" in text
    # unknown visibility (a trace of an earlier server run): nothing claimed
    text, data = summary_answer(summary, "traces/t.json")
    assert "visibility" not in data and text.startswith("Trace of ")
    assert "or the tab was in the background" in text
