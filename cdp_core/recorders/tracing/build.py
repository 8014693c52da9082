"""Build: the summary dict from what :class:`.collect.TraceCollector` kept.

Everything here is read from the trace, nothing is guessed: when the trace holds no
navigation there are no FCP/LCP/DCL/load values (``None``, with a note saying to trace with
a reload), when it holds no CPU samples the long tasks still get their script from the
``FunctionCall``/``EvaluateScript`` events nested in them. Times are in milliseconds;
page-load marks and task starts are relative to the navigation start of the last main-frame
navigation in the trace (else to the trace start).
"""

from __future__ import annotations

from typing import Any

from .collect import TraceCollector
from .insights import build_insights
from .phases import request_phases
from .records import (
    _NAMES,
    CATEGORY_NAMES,
    LONG_TASK_MS,
    TASK,
    TOP_N,
    _is_main_frame,
    _ms,
    _Request,
    _Thread,
)

__all__ = ["build_summary"]


class _Builder:
    """The collector's data and the computations over it (one per summary)."""

    def __init__(self, c: TraceCollector) -> None:
        self.c = c

    def _hot(
        self, thread: tuple[Any, Any], start: float | None = None, end: float | None = None
    ) -> list[dict[str, Any]]:
        """Functions by self time (CPU samples) on ``thread``, optionally within [start, end]."""
        totals: dict[int, float] = {}
        for prof in self.c.profiles.values():
            if prof.thread != thread:
                continue
            for t, fn, w in zip(prof.ts, prof.fn, prof.weight, strict=True):
                if (start is None or t >= start) and (end is None or t <= end):
                    totals[fn] = totals.get(fn, 0.0) + w
        out = []
        for fn, us in sorted(totals.items(), key=lambda kv: kv[1], reverse=True)[:TOP_N]:
            name, url, line, col = self.c.functions[fn]
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
        renderers = [k for k, n in self.c.thread_names.items() if n == "CrRendererMain" and k in self.c.threads]
        preferred_pids = []
        if nav is not None:
            preferred_pids.append(nav["pid"])
        preferred_pids += [pid for _, _, pid in sorted(self.c.commits, key=lambda c: c[0], reverse=True)]
        preferred_pids += [
            f.get("processId")
            for f in self.c.initial_frames
            if f.get("isOutermostMainFrame", f.get("isInPrimaryMainFrame"))
        ]
        for pid in preferred_pids:
            for key in renderers:
                if key[0] == pid:
                    return key
        pool = renderers or list(self.c.threads)
        pool = [k for k in pool if k in self.c.threads]
        if not pool:
            return None
        return max(pool, key=lambda k: (self.c.threads[k].task_us, len(self.c.threads[k].ts)))

    def result(self, truncated: bool = False) -> dict[str, Any]:
        notes: list[str] = []
        nav = max(self.c.navs, key=lambda n: n["ts"]) if self.c.navs else None
        origin = nav["ts"] if nav else self.c.window_start or 0.0
        navigation_url = nav["url"] if nav else None
        if navigation_url is None and self.c.commits:
            navigation_url = max(self.c.commits, key=lambda c: c[0])[1]
        if navigation_url is None:
            for f in self.c.initial_frames:
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
            thread = self.c.threads[main]
            by_cat, long_tasks, long_count = _breakdown(thread, origin)
            for task in long_tasks:
                task["hotFunctions"] = self._hot(main, *task.pop("_span"))[:3]
            hot = self._hot(main)
            main_info = {
                "pid": main[0],
                "tid": main[1],
                "name": self.c.thread_names.get(main, ""),
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
        cls, shift_count = _cls([s for s in self.c.shifts if nav is None or s[0] >= nav["ts"]])

        requests = [r for r in self.c.requests.values() if r.start is not None]
        finished = [r for r in requests if r.end is not None]
        slowest = sorted(finished, key=lambda r: r.end - r.start, reverse=True)[:TOP_N]  # type: ignore[operator]
        pending = len(requests) - len(finished)
        if pending:
            notes.append(f"{pending} request(s) had not finished when the trace stopped")
        if truncated:
            notes.append("the trace file ends early (cut off); the summary covers what it holds")

        start = self.c.window_start  # not the old frame events a hidden tab reports
        duration = max(0.0, self.c.max_ts - start) if start is not None and self.c.max_ts is not None else 0.0
        later = [n["ts"] for n in self.c.navs if nav is not None and n["ts"] > nav["ts"]]
        insights = build_insights(self.c, nav, main, min(later) if later else (self.c.max_ts or 0.0))
        return {
            "navigationUrl": navigation_url,
            "durationMs": _ms(duration),
            "eventCount": self.c.events,
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
            **({"insights": insights} if insights else {}),
            "notes": notes,
        }

    def _timings(self, nav: dict[str, Any] | None) -> dict[str, Any]:
        out: dict[str, Any] = {"fcpMs": None, "lcpMs": None, "dclMs": None, "loadMs": None, "lcpElement": None}
        if nav is None:
            return out
        start, nav_id, frame = nav["ts"], nav["id"], nav["frame"]

        def mine(ts: float, mark_frame: Any, d: dict[str, Any]) -> bool:
            if nav_id and d.get("navigationId"):
                return bool(d["navigationId"] == nav_id)
            return bool(ts >= start) and (frame is None or mark_frame is None or mark_frame == frame)

        def first(kind: str) -> tuple[float, Any, dict[str, Any]] | None:
            hits = [m for m in self.c.marks[kind] if mine(*m)]
            return min(hits, key=lambda m: m[0]) if hits else None

        for kind, key in (("fcp", "fcpMs"), ("dcl", "dclMs"), ("load", "loadMs")):
            hit = first(kind)
            if hit is not None:
                out[key] = _ms(hit[0] - start)
        lcps = [m for m in self.c.marks["lcp"] if mine(*m)]
        if lcps:
            last = max(lcps, key=lambda m: (m[2].get("candidateIndex") or 0, m[0]))
            out["lcpMs"] = _ms(last[0] - start)
            d = last[2]
            out["lcpElement"] = {k: d.get(k) for k in ("nodeName", "type", "size") if d.get(k) is not None} or None
        return out


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
    phases = request_phases(r.timing, r.start or 0.0, r.end or 0.0) if r.start is not None and r.end else None
    if phases:
        out.update(phases)
    if r.priority:
        out["priority"] = r.priority
    return out


def build_summary(collector: TraceCollector, truncated: bool = False) -> dict[str, Any]:
    """The summary of everything the collector saw."""
    collector.finish()
    return _Builder(collector).result(truncated=truncated)
