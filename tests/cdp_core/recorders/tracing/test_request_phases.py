"""A slow request split into the time Chrome held it back (queued) and the time on the network (transfer).

The phpMyAdmin page in a background tab: 435-byte icons took 5.5 s each, all of it waiting in Chrome's
queue (Resource Timing: ``startTime`` 1,252 ms, ``connectStart`` 6,780 ms). Pure logic on synthetic
trace events: the response's ``timing`` is what Chrome's network stack reports.
"""

from __future__ import annotations

from typing import Any

from cdp_core.recorders.tracing.phases import request_phases
from cdp_core.recorders.tracing.summary import summarize_events

PID, TID = 1, 1
T0 = 1_000_000_000.0  # µs


def ev(name: str, ts: float, data: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "ph": "I", "pid": PID, "tid": TID, "ts": ts, "args": {"data": data}}


def icon(rid: str, *, start: float, request_time: float, timing: dict[str, float], finish: float) -> list[dict]:
    url = f"http://127.0.0.1/themes/{rid}.png"
    full = {"requestTime": request_time / 1e6, "dnsStart": -1, "connectStart": -1, "sslStart": -1, **timing}
    return [
        ev("ResourceSendRequest", start, {"requestId": rid, "url": url, "resourceType": "Image"}),
        ev("ResourceReceiveResponse", finish - 1_000, {"requestId": rid, "statusCode": 200, "timing": full}),
        ev("ResourceFinish", finish + 500, {"requestId": rid, "finishTime": finish / 1e6, "encodedDataLength": 435}),
    ]


def test_a_queued_icon_says_5_5_s_queued_and_12_ms_transfer() -> None:
    # sent by the renderer at T0; the network stack took it 5.5 s later, sent at once, done 12 ms later
    events = icon("b_edit", start=T0, request_time=T0 + 5_500_000, timing={"sendStart": 0.0, "receiveHeadersEnd": 10.0},
                  finish=T0 + 5_512_000)  # fmt: skip
    (slow,) = summarize_events(events)["slowestRequests"]
    assert slow["durationMs"] == 5512.0
    assert (slow["queuedMs"], slow["transferMs"]) == (5500.0, 12.0) and "connectMs" not in slow

    from mcp_server.features.trace.text import summary_text

    text = summary_text(summarize_events(events))
    assert "5.51 s http://127.0.0.1/themes/b_edit.png (200, Image, 435 B, 5.50 s queued, 12 ms transfer)" in text


def test_a_new_connection_is_its_own_part_and_the_parts_add_up() -> None:
    timing = {"dnsStart": 1.0, "connectStart": 2.0, "sendStart": 30.0, "receiveHeadersEnd": 200.0}
    parts = request_phases({"requestTime": (T0 + 100_000) / 1e6, **timing}, T0, T0 + 500_000)
    assert parts == {"queuedMs": 101.0, "connectMs": 29.0, "transferMs": 370.0}
    assert sum(parts.values()) == 500.0


def test_marks_that_cross_are_cut_to_fit_the_duration() -> None:
    # The main document: the renderer logs its send after the network stack took it (queued < 0).
    parts = request_phases({"requestTime": (T0 - 3_000) / 1e6, "sendStart": 1.0}, T0, T0 + 50_000)
    assert parts == {"queuedMs": 0.0, "transferMs": 50.0}
    # A network send after the end (clock rounding): all of it queued, nothing negative.
    parts = request_phases({"requestTime": (T0 + 60_000) / 1e6, "sendStart": 0.0}, T0, T0 + 50_000)
    assert parts == {"queuedMs": 50.0, "transferMs": 0.0}


def test_no_timing_no_split() -> None:
    assert request_phases(None, T0, T0 + 1) is None
    assert request_phases({"requestTime": 0, "sendStart": 1.0}, T0, T0 + 1) is None  # memory cache
    assert request_phases({"requestTime": T0 / 1e6, "sendStart": -1}, T0, T0 + 1) is None  # never sent
    events = icon("x", start=T0, request_time=T0, timing={"sendStart": 0.0}, finish=T0 + 10_000)
    events[1]["args"]["data"].pop("timing")
    (slow,) = summarize_events(events)["slowestRequests"]
    assert "queuedMs" not in slow and "transferMs" not in slow


def test_the_answer_rows_carry_queued_and_transfer_columns() -> None:
    from mcp_server.features.trace.render import lean_summary

    events = icon("b_edit", start=T0, request_time=T0 + 5_500_000, timing={"sendStart": 0.0}, finish=T0 + 5_512_000)
    lean = lean_summary(summarize_events(events))
    row = dict(zip(lean["columns"]["slowestRequests"], lean["slowestRequests"][0], strict=False))
    assert (row["ms"], row["queued"], row["transfer"]) == (5512, 5500, 12)
