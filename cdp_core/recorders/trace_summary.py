"""What took the time: a summary of a saved trace file that an agent can act on.

Everything here is read from the trace, nothing is guessed: when the trace holds no
navigation there are no FCP/LCP/DCL/load values (``None``, with a note saying to trace
with a reload), when it holds no CPU samples the long tasks still get their script from
the ``FunctionCall``/``EvaluateScript`` events nested in them.

The file is read as a stream (:func:`iter_trace_events`): one chunk and one event at a
time, so a 100 MB trace never sits in memory as a parsed JSON tree. What the summary
keeps is small: per thread compact arrays of the timed main-thread events (19 bytes per
event, for the self-time breakdown), per CPU sample 20 bytes (for the hot functions), per
request one small record, and the handful of page-load marks (measured: 14 MB of Python
allocations for a 79 MB trace, against 300 MB for ``json.load``; see
tests/bench/trace_bench.py). Both layouts Chrome writes are accepted: the object form
``{"traceEvents": [...], "metadata": {...}}`` (``Tracing`` stream, DevTools' "Save
trace") and the bare array form (with or without its closing bracket, as the Trace Event
format allows).

Times are in milliseconds; page-load marks and task starts are relative to the
navigation start of the last main-frame navigation in the trace (else to the trace start).
Line and column numbers are 1-based, as in ``FunctionCall`` events and editors (the CPU
profile's 0-based positions are converted).
"""

from __future__ import annotations

import json
import os
import threading
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

__all__ = ["TraceReader", "iter_trace_events", "summarize", "summarize_events", "TraceSummaryError", "LONG_TASK_MS"]

#: A task longer than this blocks input noticeably (the web's "long task" definition).
LONG_TASK_MS = 50.0
TOP_N = 5

_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


class TraceSummaryError(ValueError):
    """The file is not a trace we can read (not JSON, or not the Trace Event format)."""


# -- streaming reader ----------------------------------------------------------------------


class _Stream:
    """A cursor over a text file, refilled chunk by chunk, for ``raw_decode``."""

    def __init__(self, fh: IO[str], chunk_size: int) -> None:
        self.fh = fh
        self.chunk_size = chunk_size
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.truncated = False

    def fill(self) -> bool:
        """Append the next chunk (dropping what was consumed); False at end of file."""
        if self.eof:
            return False
        data = self.fh.read(self.chunk_size)
        if not data:
            self.eof = True
            return False
        self.buf = self.buf[self.pos :] + data
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next non-blank character ('' at end of file), without consuming it."""
        while True:
            buf, pos, n = self.buf, self.pos, len(self.buf)
            while pos < n and buf[pos] in _WS:
                pos += 1
            self.pos = pos
            if pos < n:
                return buf[pos]
            if not self.fill():
                return ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            got = self.buf[self.pos : self.pos + 20]
            raise TraceSummaryError(f"not a trace file: expected {char!r}, found {got!r}")
        self.pos += 1

    def value(self) -> Any:
        """Decode one JSON value at the cursor, reading more of the file as needed."""
        self.peek()
        while True:
            try:
                obj, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if self.fill():
                    continue
                raise TraceSummaryError(f"not a trace file: {exc.msg} at offset {exc.pos}") from None
            # A value that ends exactly at the buffer's end may be a cut number: read on.
            if end == len(self.buf) and not self.eof and self.fill():
                continue
            self.pos = end
            return obj

    def array_items(self) -> Iterator[Any]:
        """The elements of the array whose ``[`` was just consumed."""
        while True:
            c = self.peek()
            if c == "]":
                self.pos += 1
                return
            if c == ",":
                self.pos += 1
                continue
            if c == "":
                self.truncated = True  # the array form may end without "]"
                return
            try:
                yield self.value()
            except TraceSummaryError:
                if self.eof:  # a last event cut short (browser crashed while writing)
                    self.truncated = True
                    return
                raise


class TraceReader:
    """Iterate over the events of a trace file, one chunk of the file in memory at a time.

    After iteration, ``truncated`` tells whether the file ended early (the array form may
    lack its closing bracket; a crash may cut the last event), and ``metadata`` holds the
    other top-level keys of the object form (``metadata``, ``displayTimeUnit``...).
    """

    def __init__(self, path: str | os.PathLike[str], *, chunk_size: int = 1024 * 1024) -> None:
        self.path = path
        self.chunk_size = chunk_size
        self.truncated = False
        self.metadata: dict[str, Any] = {}

    def __iter__(self) -> Iterator[dict[str, Any]]:
        with open(self.path, encoding="utf-8", errors="replace") as fh:
            s = _Stream(fh, self.chunk_size)
            try:
                yield from self._events(s)
            finally:
                self.truncated = s.truncated

    def _events(self, s: _Stream) -> Iterator[dict[str, Any]]:
        first = s.peek()
        if first == "[":
            s.pos += 1
            yield from (e for e in s.array_items() if isinstance(e, dict))
            return
        if first != "{":
            raise TraceSummaryError("not a trace file: it is neither a JSON object nor a JSON array")
        s.pos += 1
        seen_events = False
        while True:
            c = s.peek()
            if c == "}":
                break
            if c == "":
                s.truncated = True
                break
            if c == ",":
                s.pos += 1
                continue
            key = s.value()
            s.expect(":")
            if key == "traceEvents":
                seen_events = True
                s.expect("[")
                yield from (e for e in s.array_items() if isinstance(e, dict))
            else:
                self.metadata[str(key)] = s.value()
        if not seen_events:
            raise TraceSummaryError("not a trace file: the JSON object has no traceEvents")


def iter_trace_events(path: str | os.PathLike[str], *, chunk_size: int = 1024 * 1024) -> Iterator[dict[str, Any]]:
    """Yield the trace events of a trace file one by one, reading it in chunks."""
    return iter(TraceReader(path, chunk_size=chunk_size))


# -- categories ----------------------------------------------------------------------------

SCRIPTING, RENDERING, PAINTING, LOADING, TASK = 0, 1, 2, 3, 4
CATEGORY_NAMES = ("scripting", "rendering", "painting", "loading")

# DevTools-like grouping of main-thread events (its "Summary" tab colours).
_BY_NAME: dict[str, int] = {
    **dict.fromkeys(
        (
            "FunctionCall",
            "EvaluateScript",
            "TimerFire",
            "EventDispatch",
            "RunMicrotasks",
            "FireAnimationFrame",
            "FireIdleCallback",
            "XHRReadyStateChange",
            "XHRLoad",
            "MajorGC",
            "MinorGC",
            "GCEvent",
            "CompileScript",
            "CompileCode",
            "CompileModule",
            "CacheScript",
            "CacheModule",
            "HandlePostMessage",
            "SchedulePostMessage",
            "BackgroundDeserialize",
            "ScheduledAction",
        ),
        SCRIPTING,
    ),
    **dict.fromkeys(
        (
            "Layout",
            "UpdateLayoutTree",
            "RecalculateStyles",
            "InvalidateLayout",
            "UpdateLayerTree",
            "HitTest",
            "PrePaint",
            "Layerize",
            "ScrollLayer",
            "IntersectionObserverController::computeIntersections",
            "ComputeIntersections",
        ),
        RENDERING,
    ),
    **dict.fromkeys(
        (
            "Paint",
            "PaintSetup",
            "PaintImage",
            "UpdateLayer",
            "CompositeLayers",
            "Commit",
            "RasterTask",
            "Decode Image",
            "Decode LazyPixelRef",
            "Draw LazyPixelRef",
            "ImageDecodeTask",
            "GPUTask",
        ),
        PAINTING,
    ),
    **dict.fromkeys(("ParseHTML", "ParseAuthorStyleSheet", "ResourceReceivedData"), LOADING),
}
_SCRIPT_PREFIXES = ("v8.", "V8.", "BlinkGC.", "ThreadState::")
#: Events whose args say which script ran: worth remembering for long-task attribution.
_SCRIPT_INFO = frozenset(("FunctionCall", "EvaluateScript", "v8.compile", "v8.evaluateModule", "TimerFire"))
_INFO_MIN_US = 1000.0  # script details kept for events of 1 ms and more


_NAMES: list[str] = []
_NAME_INDEX: dict[str, int] = {}
_NAMES_LOCK = threading.Lock()  # summaries run in worker threads


def _name_index(name: str) -> int:
    """Timed event names are few (a hundred or so): stored once, per event a 2-byte index."""
    i = _NAME_INDEX.get(name)
    if i is None:
        with _NAMES_LOCK:
            i = _NAME_INDEX.get(name)
            if i is None:
                if len(_NAMES) >= 65535:  # only with made-up names; the activity label degrades
                    return 0
                i = len(_NAMES)
                _NAMES.append(name)
                _NAME_INDEX[name] = i
    return i


def _category(name: str) -> int | None:
    if name == "RunTask":
        return TASK
    cat = _BY_NAME.get(name)
    if cat is None and name.startswith(_SCRIPT_PREFIXES):
        cat = SCRIPTING
    return cat


@dataclass
class _Thread:
    """Timed events of one thread, packed: ts/dur in µs, category code, optional details."""

    ts: array = field(default_factory=lambda: array("d"))
    dur: array = field(default_factory=lambda: array("d"))
    cat: array = field(default_factory=lambda: array("b"))
    name: array = field(default_factory=lambda: array("H"))  # index into _NAMES
    info: dict[int, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    task_us: float = 0.0
    task_count: int = 0
    open_b: dict[str, list[tuple[float, dict[str, Any]]]] = field(default_factory=dict)

    def add(self, ts: float, dur: float, cat: int, name: str, args: dict[str, Any]) -> None:
        if cat == TASK:
            self.task_us += dur
            self.task_count += 1
        if dur >= _INFO_MIN_US and (name in _SCRIPT_INFO or name == "EventDispatch"):
            data = args.get("data")
            self.info[len(self.ts)] = (name, data if isinstance(data, dict) else {})
        self.ts.append(ts)
        self.dur.append(dur)
        self.cat.append(cat)
        self.name.append(_name_index(name))


@dataclass
class _Request:
    url: str = ""
    method: str | None = None
    resource_type: str | None = None
    priority: str | None = None
    start: float | None = None
    response: float | None = None
    end: float | None = None
    status: int | None = None
    mime: str | None = None
    from_cache: bool = False
    failed: bool = False
    encoded: int | None = None


_SKIP_FRAMES = frozenset(("(root)", "(program)", "(idle)"))


@dataclass
class _Profile:
    """One V8 CPU profile (``Profile`` + its ``ProfileChunk`` events): sample times and functions."""

    thread: tuple[Any, Any] | None = None
    clock: float | None = None  # time of the last sample, µs, same clock as ts
    node_fn: dict[int, int] = field(default_factory=dict)  # profile node id -> function index (-1: skip)
    ts: array = field(default_factory=lambda: array("d"))
    fn: array = field(default_factory=lambda: array("i"))
    weight: array = field(default_factory=lambda: array("d"))  # µs credited to the sample


def _is_main_frame(frame: dict[str, Any]) -> bool:
    return bool(frame.get("isOutermostMainFrame", frame.get("isInPrimaryMainFrame")))


def _data(ev: dict[str, Any]) -> dict[str, Any]:
    args = ev.get("args")
    if not isinstance(args, dict):
        return {}
    data = args.get("data")
    return data if isinstance(data, dict) else {}


def _ms(us: float | None) -> float | None:
    return None if us is None else round(us / 1000.0, 1)


class _Analyzer:
    """One pass over the events; :meth:`result` does the little work left at the end."""

    def __init__(self) -> None:
        self.events = 0
        self.thread_names: dict[tuple[Any, Any], str] = {}
        self.threads: dict[tuple[Any, Any], _Thread] = {}
        self.min_ts: float | None = None
        self.max_ts: float | None = None
        self.requests: dict[str, _Request] = {}
        self.navs: list[dict[str, Any]] = []  # main-frame navigationStart marks
        self.commits: list[tuple[float, str, Any]] = []  # (ts, url, pid) of main-frame commits
        self.initial_frames: list[dict[str, Any]] = []  # TracingStartedInBrowser frames
        self.marks: dict[str, list[tuple[float, Any, dict[str, Any]]]] = {
            "fcp": [],
            "lcp": [],
            "dcl": [],
            "load": [],
        }
        self.shifts: list[tuple[float, float, Any]] = []  # (ts, score, frame)
        self.profiles: dict[tuple[Any, Any], _Profile] = {}  # (pid, profile id) -> samples
        self.functions: list[tuple[str, str, int | None, int | None]] = []
        self._function_ids: dict[tuple[str, str, int | None, int | None], int] = {}

    # -- feeding --------------------------------------------------------------------------

    def feed(self, ev: dict[str, Any]) -> None:
        self.events += 1
        ph = ev.get("ph")
        name = ev.get("name")
        if not isinstance(name, str):
            return
        if ph == "M":
            if name == "thread_name":
                args = ev.get("args") or {}
                self.thread_names[(ev.get("pid"), ev.get("tid"))] = str(args.get("name", ""))
            return
        ts = ev.get("ts")
        if not isinstance(ts, int | float):
            return
        dur = ev.get("dur")
        dur = float(dur) if isinstance(dur, int | float) and dur > 0 else 0.0
        if ts > 0:
            self.min_ts = ts if self.min_ts is None or ts < self.min_ts else self.min_ts
            end = ts + dur
            self.max_ts = end if self.max_ts is None or end > self.max_ts else self.max_ts
        key = (ev.get("pid"), ev.get("tid"))
        if ph in ("X", "B", "E"):
            cat = _category(name)
            if cat is not None:
                self._timed(key, ph, float(ts), dur, cat, name, ev.get("args") or {})
            return
        handler = _MARKS.get(name)
        if handler is not None:
            handler(self, ev, float(ts))

    def _timed(self, key: tuple[Any, Any], ph: str, ts: float, dur: float, cat: int, name: str, args: Any) -> None:
        thread = self.threads.get(key)
        if thread is None:
            thread = self.threads[key] = _Thread()
        if not isinstance(args, dict):
            args = {}
        if ph == "X":
            thread.add(ts, dur, cat, name, args)
        elif ph == "B":
            thread.open_b.setdefault(name, []).append((ts, args))
        else:  # "E": close the innermost open "B" of that name
            stack = thread.open_b.get(name)
            if stack:
                begin, begin_args = stack.pop()
                thread.add(begin, max(ts - begin, 0.0), cat, name, {**begin_args, **args})

    def _request(self, ev: dict[str, Any]) -> _Request | None:
        rid = _data(ev).get("requestId")
        if not rid:
            return None
        req = self.requests.get(rid)
        if req is None:
            req = self.requests[rid] = _Request()
        return req

    def _send(self, ev: dict[str, Any], ts: float) -> None:
        req = self._request(ev)
        if req is None:
            return
        d = _data(ev)
        req.url = str(d.get("url") or req.url)
        req.method = d.get("requestMethod") or req.method
        req.resource_type = d.get("resourceType") or req.resource_type
        req.priority = d.get("priority") or req.priority
        if req.start is None or ts < req.start:
            req.start = ts

    def _response(self, ev: dict[str, Any], ts: float) -> None:
        req = self._request(ev)
        if req is None:
            return
        d = _data(ev)
        req.response = ts
        status = d.get("statusCode")
        req.status = status if isinstance(status, int) else req.status
        req.mime = d.get("mimeType") or req.mime
        req.from_cache = bool(d.get("fromCache") or d.get("fromServiceWorker") or req.from_cache)

    def _finish(self, ev: dict[str, Any], ts: float) -> None:
        req = self._request(ev)
        if req is None:
            return
        d = _data(ev)
        finish = d.get("finishTime")
        # finishTime (seconds, same clock as ts) is when the network finished; ts is when
        # the renderer got to hear of it. DevTools uses the former when it is there.
        # For the main document the renderer may log its send after the browser already
        # finished the load; a finishTime before the send would give a negative duration.
        network_end = finish * 1e6 if isinstance(finish, int | float) and finish > 0 else ts
        req.end = network_end if req.start is None or network_end >= req.start else ts
        req.failed = bool(d.get("didFail"))
        encoded = d.get("encodedDataLength")
        req.encoded = encoded if isinstance(encoded, int) else req.encoded

    def _nav(self, ev: dict[str, Any], ts: float) -> None:
        d = _data(ev)
        url = d.get("documentLoaderURL") or ""
        if not d.get("isLoadingMainFrame") or d.get("isOutermostMainFrame") is False or not url:
            return
        args = ev.get("args") or {}
        self.navs.append(
            {"ts": ts, "url": url, "id": d.get("navigationId"), "frame": args.get("frame"), "pid": ev.get("pid")}
        )

    def _commit(self, ev: dict[str, Any], ts: float) -> None:
        d = _data(ev)
        if d.get("isOutermostMainFrame", d.get("isMainFrame")) and d.get("url"):
            self.commits.append((ts, str(d["url"]), d.get("processId", ev.get("pid"))))

    def _started(self, ev: dict[str, Any], ts: float) -> None:
        frames = _data(ev).get("frames")
        if isinstance(frames, list):
            self.initial_frames.extend(f for f in frames if isinstance(f, dict))

    def _shift(self, ev: dict[str, Any], ts: float) -> None:
        d = _data(ev)
        if d.get("had_recent_input") or d.get("is_main_frame") is False:
            return
        score = d.get("weighted_score_delta", d.get("score"))
        if isinstance(score, int | float):
            frame = (ev.get("args") or {}).get("frame")
            self.shifts.append((ts, float(score), frame))

    def _profile_of(self, ev: dict[str, Any]) -> _Profile:
        key = (ev.get("pid"), ev.get("id"))
        prof = self.profiles.get(key)
        if prof is None:
            prof = self.profiles[key] = _Profile()
        return prof

    def _profile(self, ev: dict[str, Any], ts: float) -> None:
        prof = self._profile_of(ev)
        prof.thread = (ev.get("pid"), ev.get("tid"))  # chunks come from the profiler's thread
        start = _data(ev).get("startTime")
        if prof.clock is None:
            prof.clock = float(start) if isinstance(start, int | float) else ts

    def _function(self, frame: dict[str, Any]) -> int:
        name = str(frame.get("functionName") or "")
        if name in _SKIP_FRAMES:
            return -1
        line, col = frame.get("lineNumber"), frame.get("columnNumber")
        # CPU profile positions are 0-based; FunctionCall's (and editors') are 1-based.
        key = (
            name,
            str(frame.get("url") or ""),
            line + 1 if isinstance(line, int) and line >= 0 else None,
            col + 1 if isinstance(col, int) and col >= 0 else None,
        )
        i = self._function_ids.get(key)
        if i is None:
            i = self._function_ids[key] = len(self.functions)
            self.functions.append(key)
        return i

    def _chunk(self, ev: dict[str, Any], ts: float) -> None:
        d = _data(ev)
        cpu = d.get("cpuProfile")
        if not isinstance(cpu, dict):
            return
        prof = self._profile_of(ev)
        for node in cpu.get("nodes") or ():
            if isinstance(node, dict) and isinstance(node.get("id"), int):
                frame = node.get("callFrame")
                prof.node_fn[node["id"]] = self._function(frame) if isinstance(frame, dict) else -1
        samples = cpu.get("samples") or ()
        deltas = d.get("timeDeltas") or ()
        if prof.clock is None:
            prof.clock = ts
        clock = prof.clock
        for node_id, delta in zip(samples, deltas, strict=False):
            if not isinstance(delta, int | float):
                continue
            clock += delta
            fn = prof.node_fn.get(node_id, -1) if isinstance(node_id, int) else -1
            if fn >= 0:
                prof.ts.append(clock)
                prof.fn.append(fn)
                prof.weight.append(max(float(delta), 0.0))
        prof.clock = clock

    def _hot(self, thread: tuple[Any, Any], start: float | None = None, end: float | None = None) -> list[dict]:
        """Functions by self time (CPU samples) on ``thread``, optionally within [start, end]."""
        totals: dict[int, float] = {}
        for prof in self.profiles.values():
            if prof.thread != thread:
                continue
            for t, fn, w in zip(prof.ts, prof.fn, prof.weight, strict=True):
                if (start is None or t >= start) and (end is None or t <= end):
                    totals[fn] = totals.get(fn, 0.0) + w
        out = []
        for fn, us in sorted(totals.items(), key=lambda kv: kv[1], reverse=True)[:TOP_N]:
            name, url, line, col = self.functions[fn]
            entry: dict[str, Any] = {"functionName": name or "(anonymous)", "selfMs": _ms(us)}
            if url:
                entry["url"] = _short(url)
            if line is not None:
                entry["lineNumber"] = line
            if col is not None:
                entry["columnNumber"] = col
            out.append(entry)
        return out

    # -- results --------------------------------------------------------------------------

    def _main_thread(self, nav: dict[str, Any] | None) -> tuple[Any, Any] | None:
        renderers = [k for k, n in self.thread_names.items() if n == "CrRendererMain" and k in self.threads]
        preferred_pids = []
        if nav is not None:
            preferred_pids.append(nav["pid"])
        preferred_pids += [pid for _, _, pid in sorted(self.commits, key=lambda c: c[0], reverse=True)]
        preferred_pids += [
            f.get("processId")
            for f in self.initial_frames
            if f.get("isOutermostMainFrame", f.get("isInPrimaryMainFrame"))
        ]
        for pid in preferred_pids:
            for key in renderers:
                if key[0] == pid:
                    return key
        pool = renderers or list(self.threads)
        pool = [k for k in pool if k in self.threads]
        if not pool:
            return None
        return max(pool, key=lambda k: (self.threads[k].task_us, len(self.threads[k].ts)))

    def result(self, truncated: bool = False) -> dict[str, Any]:
        notes: list[str] = []
        nav = max(self.navs, key=lambda n: n["ts"]) if self.navs else None
        origin = nav["ts"] if nav else self.min_ts or 0.0
        navigation_url = nav["url"] if nav else None
        if navigation_url is None and self.commits:
            navigation_url = max(self.commits, key=lambda c: c[0])[1]
        if navigation_url is None:
            for f in self.initial_frames:
                if _is_main_frame(f) and f.get("url"):
                    navigation_url = str(f["url"])
                    break

        main = self._main_thread(nav)
        main_info: dict[str, Any] | None = None
        long_tasks: list[dict[str, Any]] = []
        long_count = 0
        by_cat = {n: 0.0 for n in (*CATEGORY_NAMES, "other")}
        hot: list[dict[str, Any]] = []
        if main is not None:
            thread = self.threads[main]
            by_cat, long_tasks, long_count = _breakdown(thread, origin)
            for task in long_tasks:
                task["hotFunctions"] = self._hot(main, *task.pop("_span"))[:3]
            hot = self._hot(main)
            main_info = {
                "pid": main[0],
                "tid": main[1],
                "name": self.thread_names.get(main, ""),
                "busyMs": _ms(thread.task_us),
                "taskCount": thread.task_count,
            }
        else:
            notes.append("no main-thread tasks found (no RunTask events: was devtools.timeline traced?)")

        timings = self._timings(nav)
        if nav is None:
            notes.append("no navigation in the trace: FCP/LCP/DCL/load need a trace started with reload=true")
        elif timings["fcpMs"] is None:
            notes.append(
                "no first contentful paint after the navigation: the trace stopped before the page painted "
                "(paint is reported after load at times), or the tab was in the background"
            )
        cls, shift_count = _cls([s for s in self.shifts if nav is None or s[0] >= nav["ts"]])

        requests = [r for r in self.requests.values() if r.start is not None]
        finished = [r for r in requests if r.end is not None]
        slowest = sorted(finished, key=lambda r: r.end - r.start, reverse=True)[:TOP_N]  # type: ignore[operator]
        pending = len(requests) - len(finished)
        if pending:
            notes.append(f"{pending} request(s) had not finished when the trace stopped")
        if truncated:
            notes.append("the trace file ends early (cut off); the summary covers what it holds")

        duration = (self.max_ts - self.min_ts) if self.min_ts is not None and self.max_ts is not None else 0.0
        return {
            "navigationUrl": navigation_url,
            "durationMs": _ms(duration),
            "eventCount": self.events,
            "mainThread": main_info,
            "requestCount": len(requests),
            "longTaskCount": long_count,
            "longestTasks": long_tasks,
            "hotFunctions": hot,
            **timings,
            "cls": cls,
            "layoutShiftCount": shift_count,
            "slowestRequests": [_request_dict(r, origin) for r in slowest],
            "mainThreadTimeMs": {k: round(v / 1000.0, 1) for k, v in by_cat.items()},
            "notes": notes,
        }

    def _timings(self, nav: dict[str, Any] | None) -> dict[str, Any]:
        out: dict[str, Any] = {"fcpMs": None, "lcpMs": None, "dclMs": None, "loadMs": None, "lcpElement": None}
        if nav is None:
            return out
        start, nav_id, frame = nav["ts"], nav["id"], nav["frame"]

        def mine(ts: float, mark_frame: Any, d: dict[str, Any]) -> bool:
            if nav_id and d.get("navigationId"):
                return d["navigationId"] == nav_id
            return ts >= start and (frame is None or mark_frame is None or mark_frame == frame)

        def first(kind: str) -> tuple[float, Any, dict[str, Any]] | None:
            hits = [m for m in self.marks[kind] if mine(*m)]
            return min(hits, key=lambda m: m[0]) if hits else None

        for kind, key in (("fcp", "fcpMs"), ("dcl", "dclMs"), ("load", "loadMs")):
            hit = first(kind)
            if hit is not None:
                out[key] = _ms(hit[0] - start)
        lcps = [m for m in self.marks["lcp"] if mine(*m)]
        if lcps:
            last = max(lcps, key=lambda m: (m[2].get("candidateIndex") or 0, m[0]))
            out["lcpMs"] = _ms(last[0] - start)
            d = last[2]
            out["lcpElement"] = {k: d.get(k) for k in ("nodeName", "type", "size") if d.get(k) is not None} or None
        return out


def _mark(kind: str) -> Callable[[_Analyzer, dict[str, Any], float], None]:
    """A handler that records a main-frame page-load mark (FCP, LCP, DCL, load)."""

    def handler(self: _Analyzer, ev: dict[str, Any], ts: float) -> None:
        args = ev.get("args") or {}
        d = _data(ev)
        if d.get("isOutermostMainFrame", d.get("isMainFrame", True)) is False:
            return
        frame = args.get("frame") or d.get("frame")
        self.marks[kind].append((ts, frame, d))

    return handler


_MARKS: dict[str, Callable[[_Analyzer, dict[str, Any], float], None]] = {
    "ResourceSendRequest": _Analyzer._send,
    "ResourceReceiveResponse": _Analyzer._response,
    "ResourceFinish": _Analyzer._finish,
    "navigationStart": _Analyzer._nav,
    "CommitLoad": _Analyzer._commit,
    "FrameCommittedInBrowser": _Analyzer._commit,
    "TracingStartedInBrowser": _Analyzer._started,
    "firstContentfulPaint": _mark("fcp"),
    "largestContentfulPaint::Candidate": _mark("lcp"),
    "MarkDOMContent": _mark("dcl"),
    "MarkLoad": _mark("load"),
    "LayoutShift": _Analyzer._shift,
    "Profile": _Analyzer._profile,
    "ProfileChunk": _Analyzer._chunk,
}


def _breakdown(thread: _Thread, origin: float) -> tuple[dict[str, float], list[dict[str, Any]], int]:
    """Self time per category, and the long tasks with what ran inside them.

    Events are nested by time (sorted by start, longer first; a stack of open events):
    each event's self time is its duration minus its direct children's, so a forced
    layout inside a script counts as rendering, not twice. Time of a task not covered
    by any known event is "other".
    """
    n = len(thread.ts)
    ts, dur, cat = thread.ts, thread.dur, thread.cat
    order = sorted(range(n), key=lambda i: (ts[i], -dur[i]))
    self_us = list(dur)
    task_of = [-1] * n
    parent_of = [-1] * n
    stack: list[int] = []
    for i in order:
        start = ts[i]
        while stack and ts[stack[-1]] + dur[stack[-1]] <= start:
            stack.pop()
        if stack:
            p = stack[-1]
            parent_of[i] = p
            # A child sticking out past its parent's end (clock rounding) is cut to fit.
            self_us[p] -= min(dur[i], ts[p] + dur[p] - start)
            task_of[i] = task_of[p]
        if cat[i] == TASK and task_of[i] == -1:
            task_of[i] = i
        stack.append(i)

    totals = [0.0] * 5
    long_ids = [i for i in range(n) if cat[i] == TASK and task_of[i] == i and dur[i] > LONG_TASK_MS * 1000]
    per_task: dict[int, list[float]] = {i: [0.0] * 5 for i in long_ids}
    for i in range(n):
        s = max(self_us[i], 0.0)
        totals[cat[i]] += s
        acc = per_task.get(task_of[i])
        if acc is not None:
            acc[cat[i]] += s
    by_cat = {name: totals[c] for c, name in enumerate(CATEGORY_NAMES)}
    by_cat["other"] = totals[TASK]

    longest = sorted(long_ids, key=lambda i: dur[i], reverse=True)[:TOP_N]
    members: dict[int, list[int]] = {i: [] for i in longest}
    for i in range(n):
        if task_of[i] in members and i != task_of[i]:
            members[task_of[i]].append(i)
    tasks = []
    for t in longest:
        inside = members[t]
        top = [i for i in inside if parent_of[i] == t]
        activity = max(top, key=lambda i: dur[i]) if top else None
        acc = per_task[t]
        tasks.append(
            {
                "_span": (ts[t], ts[t] + dur[t]),
                "startMs": _ms(ts[t] - origin),
                "durationMs": _ms(dur[t]),
                "activity": _activity(thread, activity) if activity is not None else None,
                "script": _script(thread, inside),
                "breakdownMs": {
                    **{name: round(acc[c] / 1000.0, 1) for c, name in enumerate(CATEGORY_NAMES)},
                    "other": round(acc[TASK] / 1000.0, 1),
                },
            }
        )
    return by_cat, tasks, len(long_ids)


def _activity(thread: _Thread, i: int) -> str:
    """What the task was busy with at top level, e.g. ``TimerFire`` or ``EventDispatch (click)``."""
    name = _NAMES[thread.name[i]]
    _, data = thread.info.get(i, ("", {}))
    if name == "EventDispatch" and data.get("type"):
        return f"EventDispatch ({data['type']})"
    return name


def _script(thread: _Thread, inside: list[int]) -> dict[str, Any] | None:
    """The longest script-running event with a URL inside the task (the deepest on ties)."""
    best: int | None = None
    for i in inside:
        entry = thread.info.get(i)
        if entry is None or not entry[1].get("url"):
            continue
        if best is None or thread.dur[i] >= thread.dur[best]:
            best = i
    if best is None:
        return None
    name, data = thread.info[best]
    out: dict[str, Any] = {"event": name, "url": _short(str(data["url"]))}
    fn = data.get("functionName")
    if fn:
        out["functionName"] = fn
    for src, dst in (("lineNumber", "lineNumber"), ("columnNumber", "columnNumber")):
        if isinstance(data.get(src), int):
            out[dst] = data[src]
    out["durationMs"] = _ms(thread.dur[best])
    return out


def _cls(shifts: list[tuple[float, float, Any]]) -> tuple[float | None, int]:
    """Cumulative Layout Shift: the worst session window (gap < 1 s, window <= 5 s)."""
    if not shifts:
        return None, 0
    shifts.sort(key=lambda s: s[0])
    best = window = 0.0
    window_start = prev = None
    for ts, score, _ in shifts:
        if window_start is None or ts - prev > 1_000_000 or ts - window_start > 5_000_000:  # type: ignore[operator]
            window, window_start = 0.0, ts
        window += score
        prev = ts
        best = max(best, window)
    return round(best, 4), len(shifts)


def _short(url: str, limit: int = 200) -> str:
    return url if len(url) <= limit else url[: limit - 3] + "..."


def _request_dict(r: _Request, origin: float) -> dict[str, Any]:
    out: dict[str, Any] = {
        "url": _short(r.url),
        "durationMs": _ms(max(0.0, (r.end or 0) - (r.start or 0))),
        "startMs": _ms((r.start or 0) - origin),
        "method": r.method,
        "resourceType": r.resource_type,
        "statusCode": r.status,
        "mimeType": r.mime,
        "fromCache": r.from_cache,
        "failed": r.failed,
    }
    if r.encoded is not None:
        out["encodedBytes"] = r.encoded
    if r.priority:
        out["priority"] = r.priority
    return out


# -- entry points --------------------------------------------------------------------------


def summarize_events(events: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Summarize trace events already in memory (tests, or events from another source)."""
    analyzer = _Analyzer()
    for ev in events:
        if isinstance(ev, dict):
            analyzer.feed(ev)
    return analyzer.result()


def summarize(path: str | os.PathLike[str], *, chunk_size: int = 1024 * 1024) -> dict[str, Any]:
    """Summarize a saved trace file (read in chunks; see the module docstring).

    Raises :class:`TraceSummaryError` when the file is not a trace, ``OSError`` when it
    cannot be read.
    """
    analyzer = _Analyzer()
    reader = TraceReader(path, chunk_size=chunk_size)
    for ev in reader:
        analyzer.feed(ev)
    result = analyzer.result(truncated=reader.truncated)
    result["fileBytes"] = os.path.getsize(path)
    if analyzer.events == 0:
        result["notes"].append("the trace holds no events")
    return result
