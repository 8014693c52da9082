"""Collect: one pass over the trace events into compact per-thread arrays and small records.

What is kept is small: per thread compact arrays of the timed main-thread events (19 bytes
per event, for the self-time breakdown), per CPU sample 20 bytes (for the hot functions and
third-party time), per request one small record, and the handful of page-load marks and
insight inputs (LCP candidates, image paints, first paint, layout shifts). Building the
summary from them is :mod:`.build`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .records import (
    _SKIP_FRAMES,
    LONG_TASK_MS,
    TOP_N,
    _category,
    _data,
    _Profile,
    _Request,
    _Thread,
)

__all__ = ["TraceCollector", "LONG_TASK_MS", "TOP_N"]


class TraceCollector:
    """One pass over the events (:meth:`feed`); :func:`.build.build_summary` does the rest."""

    def __init__(self) -> None:
        self.events = 0
        self.thread_names: dict[tuple[Any, Any], str] = {}
        self.threads: dict[tuple[Any, Any], _Thread] = {}
        self.min_ts: float | None = None
        self.max_ts: float | None = None
        #: when tracing started (TracingStartedInBrowser): the traced window's start. Async frame
        #: events of a background tab carry the time of its last frame, long before.
        self.started_ts: float | None = None
        self.requests: dict[str, _Request] = {}
        self.navs: list[dict[str, Any]] = []  # main-frame navigationStart marks
        self.commits: list[tuple[float, str, Any]] = []  # (ts, url, pid) of main-frame commits
        self.initial_frames: list[dict[str, Any]] = []  # TracingStartedInBrowser frames
        self.marks: dict[str, list[tuple[float, Any, dict[str, Any]]]] = {
            "fcp": [],
            "lcp": [],
            "dcl": [],
            "load": [],
            "fp": [],
        }
        self.image_paints: dict[tuple[Any, Any], tuple[float, str]] = {}  # (pid, DOM node id) -> (ts, url)
        self.unsized_images: list[tuple[float, Any, str]] = []
        self.shifts: list[tuple[float, float, Any]] = []  # (ts, score, frame)
        self.profiles: dict[tuple[Any, Any], _Profile] = {}  # (pid, profile id) -> samples
        self.functions: list[tuple[str, str, int | None, int | None]] = []
        self._function_ids: dict[tuple[str, str, int | None, int | None], int] = {}

    @property
    def window_start(self) -> float | None:
        """The traced window's start: when tracing started, else the first event."""
        if self.started_ts is not None and (self.min_ts is None or self.started_ts > self.min_ts):
            return self.started_ts
        return self.min_ts

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
            req = self.requests[rid] = _Request(request_id=str(rid))
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
        if req.first_send is None:
            req.first_send = ts
        req.frame = d.get("frame") or req.frame
        req.render_blocking = d.get("renderBlocking") or req.render_blocking

    def _will_send(self, ev: dict[str, Any], ts: float) -> None:
        req = self._request(ev)
        if req is not None and req.will_send is None:
            req.will_send = ts

    def _priority(self, ev: dict[str, Any], ts: float) -> None:
        req = self._request(ev)
        if req is not None and _data(ev).get("priority"):
            req.priority = _data(ev)["priority"]

    def _preload_blocking(self, ev: dict[str, Any], ts: float) -> None:
        req = self._request(ev)
        if req is not None and _data(ev).get("renderBlocking"):
            req.preload_render_blocking = _data(ev)["renderBlocking"]

    def _image_paint(self, ev: dict[str, Any], ts: float) -> None:
        d = _data(ev)
        if d.get("DOMNodeId") is not None and d.get("imageUrl"):
            self.image_paints[(ev.get("pid"), d["DOMNodeId"])] = (ts, str(d["imageUrl"]))

    def _unsized_image(self, ev: dict[str, Any], ts: float) -> None:
        d = _data(ev)
        self.unsized_images.append((ts, d.get("nodeId"), str(d.get("url") or "")))

    def _response(self, ev: dict[str, Any], ts: float) -> None:
        req = self._request(ev)
        if req is None:
            return
        d = _data(ev)
        req.response = ts
        if isinstance(d.get("timing"), dict):
            req.timing = d["timing"]
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
        req.finish_ts = ts
        req.finish_time = finish * 1e6 if isinstance(finish, int | float) and finish > 0 else None
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
        if ts > 0 and (self.started_ts is None or ts < self.started_ts):
            self.started_ts = ts
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
            prof.last_delta = max(float(delta), 0.0)
            # A sample stands for the time until the next one (as DevTools' profile calls do):
            # the sample before gets its weight now, whatever this one is (idle included).
            if prof.open >= 0:
                prof.weight[prof.open] = max(clock - prof.ts[prof.open], 0.0)
                prof.open = -1
            fn = prof.node_fn.get(node_id, -1) if isinstance(node_id, int) else -1
            if fn >= 0:
                prof.open = len(prof.ts)
                prof.ts.append(clock)
                prof.fn.append(fn)
                prof.weight.append(0.0)
        prof.clock = clock

    def finish(self) -> None:
        """Close what the stream left open: each profile's last sample stands for one sampling interval."""
        for prof in self.profiles.values():
            if prof.open >= 0:
                prof.weight[prof.open] = prof.last_delta
                prof.open = -1


def _mark(kind: str) -> Callable[[TraceCollector, dict[str, Any], float], None]:
    """A handler that records a main-frame page-load mark (FCP, LCP, DCL, load)."""

    def handler(self: TraceCollector, ev: dict[str, Any], ts: float) -> None:
        args = ev.get("args") or {}
        d = _data(ev)
        if d.get("isOutermostMainFrame", d.get("isMainFrame", True)) is False:
            return
        frame = args.get("frame") or d.get("frame")
        if kind == "lcp":
            d = {**d, "_pid": ev.get("pid")}  # image paints are matched by (pid, node id)
        self.marks[kind].append((ts, frame, d))

    return handler


_MARKS: dict[str, Callable[[TraceCollector, dict[str, Any], float], None]] = {
    "ResourceSendRequest": TraceCollector._send,
    "ResourceWillSendRequest": TraceCollector._will_send,
    "ResourceChangePriority": TraceCollector._priority,
    "PreloadRenderBlockingStatusChange": TraceCollector._preload_blocking,
    "LargestImagePaint::Candidate": TraceCollector._image_paint,
    "LayoutImageUnsized": TraceCollector._unsized_image,
    "firstPaint": _mark("fp"),
    "ResourceReceiveResponse": TraceCollector._response,
    "ResourceFinish": TraceCollector._finish,
    "navigationStart": TraceCollector._nav,
    "CommitLoad": TraceCollector._commit,
    "FrameCommittedInBrowser": TraceCollector._commit,
    "TracingStartedInBrowser": TraceCollector._started,
    "firstContentfulPaint": _mark("fcp"),
    "largestContentfulPaint::Candidate": _mark("lcp"),
    "MarkDOMContent": _mark("dcl"),
    "MarkLoad": _mark("load"),
    "LayoutShift": TraceCollector._shift,
    "Profile": TraceCollector._profile,
    "ProfileChunk": TraceCollector._chunk,
}
