"""Tracing at the cdp_core level: the Tracer on real Chromium, and the summary of trace files.

The summary's logic is tested on small hand-made traces (pure logic: exact numbers can be
known) and on real traces of the slow report page (what a user would check: the busy
loop shows up as a long task in busyLoop, the 20 fetches are counted).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trace_pages
from hypothesis import given, settings
from hypothesis import strategies as st

import cdp_core
from cdp_core import CDPSession
from cdp_core.recorders.tracing import NoTraceRunning, TraceAlreadyRunning, TraceError, Tracer
from cdp_core.recorders.tracing.summary import (
    TraceReader,
    TraceSummaryError,
    iter_trace_events,
    summarize,
    summarize_events,
)

# -- hand-made traces ----------------------------------------------------------------------

PID, TID = 10, 11
MS = 1000  # trace timestamps are microseconds


def meta(pid: int, tid: int, name: str) -> dict:
    return {
        "name": "thread_name",
        "ph": "M",
        "pid": pid,
        "tid": tid,
        "ts": 0,
        "cat": "__metadata",
        "args": {"name": name},
    }


def x(name: str, ts_ms: float, dur_ms: float, pid: int = PID, tid: int = TID, **data) -> dict:
    ev = {
        "name": name,
        "ph": "X",
        "pid": pid,
        "tid": tid,
        "ts": ts_ms * MS,
        "dur": dur_ms * MS,
        "cat": "devtools.timeline",
    }
    if data:
        ev["args"] = {"data": data}
    return ev


def inst(name: str, ts_ms: float, pid: int = PID, tid: int = TID, frame: str | None = None, **data) -> dict:
    ev = {"name": name, "ph": "I", "s": "t", "pid": pid, "tid": tid, "ts": ts_ms * MS, "args": {"data": data}}
    if frame:
        ev["args"]["frame"] = frame
    return ev


def nav(ts_ms: float, url: str = "http://127.0.0.1/app", nav_id: str = "N1", pid: int = PID) -> dict:
    return {
        "name": "navigationStart",
        "ph": "R",
        "pid": pid,
        "tid": pid + 1,
        "ts": ts_ms * MS,
        "args": {
            "frame": "F1",
            "data": {
                "documentLoaderURL": url,
                "isLoadingMainFrame": True,
                "isOutermostMainFrame": True,
                "navigationId": nav_id,
            },
        },
    }


def request(rid: str, url: str, start_ms: float, end_ms: float | None, status: int = 200) -> list[dict]:
    evs = [inst("ResourceSendRequest", start_ms, requestId=rid, url=url, requestMethod="GET", resourceType="Fetch")]
    if end_ms is not None:
        evs.append(inst("ResourceReceiveResponse", end_ms - 1, requestId=rid, statusCode=status, mimeType="text/plain"))
        evs.append(inst("ResourceFinish", end_ms + 50, requestId=rid, finishTime=end_ms / 1000, didFail=False))
    return evs


def test_self_time_by_category_and_long_task_attribution():
    events = [
        meta(PID, TID, "CrRendererMain"),
        x("RunTask", 100, 100),
        x("FunctionCall", 110, 80, url="http://127.0.0.1/a.js", functionName="render", lineNumber=3, columnNumber=7),
        x("Layout", 120, 20),  # forced layout inside the script
        x("Paint", 192, 4),
        x("RunTask", 300, 30),  # short task: counted, not long
        x("ParseHTML", 305, 10),
    ]
    s = summarize_events(events)
    assert s["mainThread"]["pid"] == PID and s["mainThread"]["busyMs"] == 130.0
    assert s["mainThreadTimeMs"] == {
        "scripting": 60.0,
        "rendering": 20.0,
        "painting": 4.0,
        "loading": 10.0,
        "other": 36.0,
    }
    assert s["longTaskCount"] == 1
    (task,) = s["longestTasks"]
    assert task["durationMs"] == 100.0 and task["activity"] == "FunctionCall"
    assert task["script"]["functionName"] == "render" and task["script"]["url"].endswith("/a.js")
    assert task["script"]["lineNumber"] == 3
    assert task["breakdownMs"] == {"scripting": 60.0, "rendering": 20.0, "painting": 4.0, "loading": 0.0, "other": 16.0}


def test_longest_tasks_sorted_and_capped_and_deepest_script_wins():
    events = [meta(PID, TID, "CrRendererMain")]
    for i, dur in enumerate((60, 200, 51, 90, 120, 75, 49)):
        start = i * 1000
        events.append(x("RunTask", start, dur))
        events.append(x("TimerFire", start + 0.5, dur - 1, timerId=i))
        events.append(x("FunctionCall", start + 1, dur - 2, url=f"http://127.0.0.1/t{i}.js", functionName=f"f{i}"))
    s = summarize_events(events)
    assert s["longTaskCount"] == 6  # 49 ms is not long
    assert [t["durationMs"] for t in s["longestTasks"]] == [200.0, 120.0, 90.0, 75.0, 60.0]
    assert s["longestTasks"][0]["activity"] == "TimerFire"
    assert s["longestTasks"][0]["script"]["functionName"] == "f1"


def test_main_thread_is_the_navigated_renderer_not_the_busiest():
    other = 20
    events = [
        meta(PID, TID, "CrRendererMain"),
        meta(other, other + 1, "CrRendererMain"),
        meta(other, other + 2, "Compositor"),
        x("RunTask", 0, 500, pid=other, tid=other + 1),  # an old about:blank renderer, busier
        nav(1000, pid=PID),
        x("RunTask", 1100, 80),
    ]
    s = summarize_events(events)
    assert (s["mainThread"]["pid"], s["mainThread"]["tid"]) == (PID, TID)
    assert s["longTaskCount"] == 1 and s["longestTasks"][0]["startMs"] == 100.0


def test_page_load_marks_relative_to_the_last_navigation():
    f = "F1"
    events = [
        meta(PID, TID, "CrRendererMain"),
        nav(1000, nav_id="OLD"),
        inst("firstContentfulPaint", 1050, frame=f, navigationId="OLD"),
        nav(5000, url="http://127.0.0.1/report", nav_id="N2"),
        inst("firstContentfulPaint", 5200, frame=f, navigationId="N2"),
        inst("largestContentfulPaint::Candidate", 5300, frame=f, navigationId="N2", candidateIndex=1, size=10),
        inst(
            "largestContentfulPaint::Candidate",
            5700,
            frame=f,
            navigationId="N2",
            candidateIndex=2,
            size=900,
            nodeName="IMG",
            type="image",
        ),
        inst("MarkDOMContent", 5250, frame=f, isOutermostMainFrame=True),
        inst("MarkDOMContent", 5260, frame="IFRAME", isOutermostMainFrame=False),
        inst("MarkLoad", 5800, frame=f, isOutermostMainFrame=True),
    ]
    s = summarize_events(events)
    assert s["navigationUrl"] == "http://127.0.0.1/report"
    assert (s["fcpMs"], s["lcpMs"], s["dclMs"], s["loadMs"]) == (200.0, 700.0, 250.0, 800.0)
    assert s["lcpElement"] == {"nodeName": "IMG", "type": "image", "size": 900}


def test_no_navigation_means_no_load_marks_and_says_why():
    s = summarize_events([meta(PID, TID, "CrRendererMain"), x("RunTask", 0, 10)])
    assert (s["fcpMs"], s["lcpMs"], s["dclMs"], s["loadMs"]) == (None, None, None, None)
    assert any("reload=true" in n for n in s["notes"])


def test_cls_is_the_worst_session_window_without_input_shifts():
    def shift(ts_ms: float, score: float, recent_input: bool = False) -> dict:
        return inst("LayoutShift", ts_ms, weighted_score_delta=score, had_recent_input=recent_input, is_main_frame=True)

    events = [
        shift(100, 0.1),
        shift(500, 0.05),  # same window: 0.15
        shift(2600, 0.2),  # gap > 1 s: new window
        shift(3000, 0.05),  # 0.25
        shift(3100, 0.5, recent_input=True),  # after input: excluded
    ]
    s = summarize_events(events)
    assert s["cls"] == pytest.approx(0.25) and s["layoutShiftCount"] == 4


def test_requests_counted_and_slowest_first_by_network_finish():
    events = [meta(PID, TID, "CrRendererMain")]
    events += request("r1", "http://127.0.0.1/fast", 100, 120)
    events += request("r2", "http://127.0.0.1/slow", 100, 900, status=500)
    events += request("r3", "http://127.0.0.1/mid", 200, 500)
    events += request("r4", "http://127.0.0.1/pending", 300, None)
    s = summarize_events(events)
    assert s["requestCount"] == 4
    slow = s["slowestRequests"]
    assert [r["url"].rsplit("/", 1)[1] for r in slow] == ["slow", "mid", "fast"]
    # finishTime (network) is used, not the later renderer-side ResourceFinish timestamp
    assert slow[0]["durationMs"] == 800.0 and slow[0]["statusCode"] == 500
    assert any("had not finished" in n for n in s["notes"])


def test_hot_functions_from_cpu_samples_overall_and_per_long_task():
    def frame(name, url="", line=-1, col=-1):
        return {"functionName": name, "url": url, "lineNumber": line, "columnNumber": col, "scriptId": 1}

    nodes = [
        {"id": 1, "callFrame": frame("(root)")},
        {"id": 2, "callFrame": frame("(program)"), "parent": 1},
        {"id": 3, "callFrame": frame("render", "http://127.0.0.1/a.js", 9, 4), "parent": 1},
        {"id": 4, "callFrame": frame("", "http://127.0.0.1/b.js", 0, 0), "parent": 1},
    ]
    profile = {
        "name": "Profile",
        "ph": "P",
        "id": "0x1",
        "pid": PID,
        "tid": TID,
        "ts": 0,
        "args": {"data": {"startTime": 100 * MS}},
    }
    # Chunks come from the profiler thread (another tid) and carry deltas in µs.
    chunk1 = {
        "name": "ProfileChunk",
        "ph": "P",
        "id": "0x1",
        "pid": PID,
        "tid": 99,
        "ts": 0,
        "args": {
            "data": {"cpuProfile": {"nodes": nodes, "samples": [3, 3, 3]}, "timeDeltas": [1 * MS, 10 * MS, 10 * MS]}
        },
    }
    chunk2 = {
        "name": "ProfileChunk",
        "ph": "P",
        "id": "0x1",
        "pid": PID,
        "tid": 99,
        "ts": 0,
        "args": {"data": {"cpuProfile": {"samples": [2, 4, 4]}, "timeDeltas": [10 * MS, 200 * MS, 5 * MS]}},
    }
    events = [meta(PID, TID, "CrRendererMain"), x("RunTask", 100, 25), x("RunTask", 300, 80), profile, chunk1, chunk2]
    s = summarize_events(events)
    hot = s["hotFunctions"]
    # A sample stands for the time until the next sample (DevTools' profile calls do the same):
    # render at 101, 111, 121 ms (next sample at 131) = 30 ms; b.js at 331 and 336 ms = 5 ms plus
    # one sampling interval (5 ms) for the last sample. The 200 ms before 331 belong to (program).
    assert [h["functionName"] for h in hot] == ["render", "(anonymous)"]  # (program)/(root) left out
    assert hot[1]["selfMs"] == 10.0 and hot[1]["url"].endswith("b.js") and hot[1]["lineNumber"] == 1
    assert hot[0] == {
        "functionName": "render",
        "selfMs": 30.0,
        "url": "http://127.0.0.1/a.js",
        "lineNumber": 10,
        "columnNumber": 5,
    }
    (task,) = s["longestTasks"]  # 300..380 ms holds the b.js samples at 331 and 336 ms
    assert [h["functionName"] for h in task["hotFunctions"]] == ["(anonymous)"]


def test_begin_end_pairs_count_like_complete_events():
    events = [
        meta(PID, TID, "CrRendererMain"),
        {"name": "RunTask", "ph": "B", "pid": PID, "tid": TID, "ts": 0},
        {"name": "EvaluateScript", "ph": "B", "pid": PID, "tid": TID, "ts": 1 * MS, "args": {"data": {"url": "u.js"}}},
        {"name": "EvaluateScript", "ph": "E", "pid": PID, "tid": TID, "ts": 61 * MS},
        {"name": "RunTask", "ph": "E", "pid": PID, "tid": TID, "ts": 70 * MS},
    ]
    s = summarize_events(events)
    assert s["longTaskCount"] == 1 and s["longestTasks"][0]["durationMs"] == 70.0
    assert s["longestTasks"][0]["script"]["url"] == "u.js"
    assert s["mainThreadTimeMs"]["scripting"] == 60.0


# -- the streaming reader ------------------------------------------------------------------

event_st = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["RunTask", "FunctionCall", 'weird "name" ]},[', "ünïcode ✓"]),
        "ph": st.sampled_from(["X", "I", "M"]),
        "ts": st.integers(0, 10**12),
        "pid": st.integers(0, 5),
        "args": st.dictionaries(st.text(max_size=5), st.one_of(st.integers(), st.text(max_size=20)), max_size=3),
    }
)


@settings(max_examples=60, deadline=None)
@given(
    events=st.lists(event_st, max_size=30),
    form=st.sampled_from(["object", "object-meta-first", "array", "array-open"]),
    indent=st.sampled_from([None, 0, 2]),
    chunk=st.integers(1, 64),
)
def test_reader_yields_exactly_the_events_whatever_the_layout(tmp_path_factory, events, form, indent, chunk):
    path = tmp_path_factory.mktemp("r") / "t.json"
    if form == "object":
        text = json.dumps({"traceEvents": events, "metadata": {"k": [1, 2]}}, indent=indent)
    elif form == "object-meta-first":
        text = json.dumps({"metadata": {"x": "]}"}, "displayTimeUnit": "ms", "traceEvents": events}, indent=indent)
    else:
        text = json.dumps(events, indent=indent, ensure_ascii=False)
        if form == "array-open":  # the array form may omit its closing bracket
            text = text.rstrip().removesuffix("]").rstrip()
    path.write_text(text, encoding="utf-8")
    reader = TraceReader(path, chunk_size=chunk)
    assert list(reader) == events
    if form == "object-meta-first":
        assert reader.metadata["displayTimeUnit"] == "ms"


def test_reader_refuses_what_is_not_a_trace(tmp_path):
    for i, text in enumerate(['"just a string"', '{"foo": 1}', '{"traceEvents": [{"a": 1}, {"b": ', "not json"]):
        path = tmp_path / f"bad{i}.json"
        path.write_text(text)
        with pytest.raises(TraceSummaryError):
            list(iter_trace_events(path))


def test_reader_tolerates_a_cut_array_form(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text('[{"name": "RunTask", "ph": "X", "ts": 1, "dur": 60000, "pid": 1, "tid": 1},\n{"name": "Ru')
    reader = TraceReader(path, chunk_size=8)
    assert [e["name"] for e in reader] == ["RunTask"] and reader.truncated
    s = summarize(path)
    assert s["longTaskCount"] == 1 and any("ends early" in n for n in s["notes"])


# -- real Chromium ---------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def tab(chromium) -> AsyncIterator[CDPSession]:
    async with cdp_core.connect(chromium.http_url) as browser:
        page = await browser.new_page("about:blank")
        try:
            yield page
        finally:
            await browser.close_target(page.target_info["targetId"])


async def load(page: CDPSession, url: str) -> None:
    await page.send("Page.enable")
    async with page.events("Page.loadEventFired") as loads:
        await page.send("Page.navigate", {"url": url})
        await loads.get(timeout=15)


async def test_trace_of_the_slow_report_page(chromium, http_server, tmp_path: Path):
    url = trace_pages.install(http_server)
    async with tab(chromium) as page:
        tracer = Tracer(page)
        await tracer.start()
        assert tracer.running
        await load(page, url)
        await trace_pages.wait_busy_done(page)  # the busy loop runs 20 ms after load
        progress: list[int] = []
        result = await tracer.stop(tmp_path / "traces" / "report.json", progress_cb=lambda n, _m: progress.append(n))
        assert not tracer.running

    assert result.path.is_file() and result.bytes_written == result.path.stat().st_size > 0
    assert sorted(p.name for p in (tmp_path / "traces").iterdir()) == ["report.json"]  # no .part left
    assert progress[0] == 0 and progress[-1] == result.bytes_written and progress == sorted(progress)
    assert result.data_loss_occurred is False
    trace = json.loads(result.path.read_text())  # the file is plain Trace Event JSON
    assert isinstance(trace["traceEvents"], list) and len(trace["traceEvents"]) > 100
    names = {e.get("name") for e in trace["traceEvents"]}
    assert any(e.get("name") == "thread_name" and e["args"]["name"] == "CrRendererMain" for e in trace["traceEvents"])
    # DevTools' Performance panel finds the page by TracingStartedInBrowser; JS samples need ProfileChunk.
    assert {"TracingStartedInBrowser", "RunTask", "ProfileChunk"} <= names

    s = summarize(result.path)
    assert s["navigationUrl"] == url
    assert s["requestCount"] >= trace_pages.FETCHES + 2  # the page, its script and 20 fetches
    slowest = s["slowestRequests"]
    assert len(slowest) == 5 and [r["durationMs"] for r in slowest] == sorted(
        (r["durationMs"] for r in slowest), reverse=True
    )
    # The browser's own favicon.ico request (404 here) may be among them; the page's requests all succeeded.
    assert all(r["statusCode"] == 200 for r in slowest if "/trace/" in r["url"])
    assert all(r["statusCode"] == 404 for r in slowest if "/trace/" not in r["url"])
    assert s["longTaskCount"] >= 1
    busy = s["longestTasks"][0]
    assert busy["durationMs"] >= trace_pages.BUSY_MS - 50
    assert busy["script"]["functionName"] == "busyLoop" and busy["script"]["url"].endswith("/trace/app.js")
    assert busy["hotFunctions"][0]["functionName"] == "busyLoop"  # from the CPU samples
    assert s["hotFunctions"][0]["functionName"] == "busyLoop"
    assert s["mainThreadTimeMs"]["scripting"] >= busy["durationMs"] * 0.9
    assert s["fcpMs"] is not None and s["loadMs"] is not None and s["dclMs"] <= s["loadMs"]


async def test_start_twice_and_stop_without_start_are_refused(chromium, tmp_path: Path):
    async with tab(chromium) as page:
        tracer = Tracer(page)
        with pytest.raises(NoTraceRunning):
            await tracer.stop(tmp_path / "never.json")
        assert not (tmp_path / "never.json").exists()
        await tracer.start()
        with pytest.raises(TraceAlreadyRunning):
            await tracer.start()
        assert tracer.running  # the refused start left the running trace alone
        await tracer.stop(tmp_path / "one.json")
        with pytest.raises(NoTraceRunning):
            await tracer.stop(tmp_path / "two.json")
        await tracer.start()  # idle again: a new trace can start
        await tracer.abort()
        assert not tracer.running


async def test_browser_runs_one_trace_at_a_time(chromium, tmp_path: Path):
    async with tab(chromium) as first, tab(chromium) as second:
        one, two = Tracer(first), Tracer(second)
        await one.start()
        try:
            with pytest.raises(TraceAlreadyRunning, match="another"):
                await two.start()
            assert not two.running
        finally:
            await one.stop(tmp_path / "t.json")
        await two.start()
        await two.stop(tmp_path / "t2.json")
        assert summarize(tmp_path / "t2.json")["eventCount"] > 0


async def test_page_closed_while_tracing(chromium, tmp_path: Path):
    async with cdp_core.connect(chromium.http_url) as browser:
        page = await browser.new_page("about:blank")
        tracer = Tracer(page)
        await tracer.start()
        await browser.close_target(page.target_info["targetId"])
        await asyncio.sleep(0.2)
        with pytest.raises(TraceError):
            await tracer.stop(tmp_path / "lost.json")
        assert not tracer.running
        assert not (tmp_path / "lost.json").exists() and not (tmp_path / "lost.json.part").exists()
        # Chrome is not left tracing: another page can trace.
        other = await browser.new_page("about:blank")
        try:
            t = Tracer(other)
            await t.start()
            await t.stop(tmp_path / "ok.json")
        finally:
            await browser.close_target(other.target_info["targetId"])


def test_duration_is_the_traced_window_not_a_hidden_tabs_old_frame_events():
    """A background tab's trace starts with async frame events stamped at its last frame (minutes ago)."""
    start = 500_000_000.0  # µs
    events = [
        {"name": "PipelineReporter", "ph": "b", "ts": start - 155_000_000, "pid": 1, "tid": 2, "id": "0x1"},
        {"name": "TracingStartedInBrowser", "ph": "I", "ts": start, "pid": 1, "tid": 1, "args": {"data": {}}},
        {"name": "RunTask", "ph": "X", "ts": start + 100_000, "dur": 1_700_000, "pid": 1, "tid": 3},
        {"name": "PipelineReporter", "ph": "e", "ts": start + 1_800_000, "pid": 1, "tid": 2, "id": "0x1"},
    ]
    assert summarize_events(events)["durationMs"] == 1800.0
    # Without a start mark (an imported file), the first event is the start, as before.
    assert summarize_events(events[2:])["durationMs"] == 1700.0
