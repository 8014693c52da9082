"""Build: performance insights of the last navigation, as Chrome DevTools' trace engine defines them.

Written from the definitions of DevTools' trace engine (``front_end/models/trace``: the
LCPBreakdown, RenderBlocking, CLSCulprits and ThirdParties insights and the network
handler's request times), read for their facts, and checked against the engine itself on
the same traces by ``tests/bench/trace_insights_vs_devtools.py``. What they say:

- Request times: a request starts at its first ``ResourceWillSendRequest`` (else its first
  ``ResourceSendRequest``), ends at its ``ResourceFinish`` event, and finished on the network
  at that event's ``finishTime``.
- LCP breakdown: the last LCP candidate of the navigation; time to first byte runs from the
  navigation start to the document's first response byte (``timing.requestTime`` +
  ``receiveHeadersStart``); an image LCP adds the load delay (to its request's start), the
  load duration (to the request's network finish) and the render delay (to the LCP); a text
  LCP has only TTFB and render delay. The image request is the first one for the image URL
  of the candidate's node (``LargestImagePaint::Candidate``) started after the navigation.
- Render-blocking: requests of the main frame marked blocking (``renderBlocking`` is not
  ``non_blocking``, ``dynamically_injected_non_blocking`` or ``potentially_blocking``; a
  ``PreloadRenderBlockingStatusChange`` overrides) that finished before the first paint;
  ``in_body_parser_blocking`` ones count only at VeryHigh priority (or a High script). Besides the
  rows: how many, by resource type, the slowest three, and when the last one finished.
- Layout shifts: session windows (a gap under 1 s, at most 5 s), the worst one is the CLS;
  culprits we detect: web fonts that finished within 500 ms before a shift, and images
  without a size (``LayoutImageUnsized``) within 500 ms before it. DevTools also detects
  iframes and non-composited animations; we do not (the answer says "not detected").
- Third parties: requests and main-thread time grouped by site (the registrable domain:
  the host's last two labels, three under a two-letter country code's ``co``/``com``/...;
  an IP address or a one-label host such as ``localhost`` is its own site). Main-thread time
  is the CPU profile's samples on the main thread by their function's script URL. DevTools
  also knows companies by name (a list of known third parties); we show the site.
"""

from __future__ import annotations

import ipaddress
import urllib.parse
from typing import TYPE_CHECKING, Any

from .records import _ms

if TYPE_CHECKING:
    from .collect import TraceCollector
    from .records import _Request

__all__ = ["build_insights", "site_of"]

_NON_BLOCKING = frozenset(("non_blocking", "dynamically_injected_non_blocking", "potentially_blocking"))
ROOT_CAUSE_WINDOW_US = 500_000
TOP = 5
#: render-blocking requests an answer names one by one
SLOWEST_BLOCKING = 3
_SECOND_LEVEL = frozenset(("co", "com", "org", "net", "gov", "ac", "edu", "or", "ne", "go"))


def site_of(url: str) -> str | None:
    """The site (registrable domain) of an http(s) URL, as third parties are grouped."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.rstrip(".").lower()
    try:
        ipaddress.ip_address(host)
        return host
    except ValueError:
        pass
    labels = host.split(".")
    if len(labels) <= 2:
        return host
    if len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def _rel(ts: float | None, origin: float) -> float | None:
    return None if ts is None else _ms(ts - origin)


def _short(url: str, limit: int = 160) -> str:
    return url if len(url) <= limit else url[: limit - 3] + "..."


def build_insights(
    c: TraceCollector, nav: dict[str, Any] | None, main: tuple[Any, Any] | None, end_ts: float
) -> dict[str, Any]:
    """The insights of navigation ``nav`` (None: only third parties over the whole trace)."""
    origin = nav["ts"] if nav else (c.window_start or 0.0)
    requests = sorted(
        (r for r in c.requests.values() if r.devtools_start is not None and r.devtools_start >= origin),
        key=lambda r: r.devtools_start or 0.0,
    )
    out: dict[str, Any] = {}
    if nav is not None:
        lcp = _lcp(c, nav, requests)
        if lcp:
            out["lcp"] = lcp
        blocking = _render_blocking(c, nav, requests)
        if blocking is not None:
            out["renderBlocking"] = blocking
    shifts = _layout_shifts(c, nav, requests, origin)
    if shifts:
        out["layoutShifts"] = shifts
    third = _third_parties(c, nav, requests, main, origin, end_ts)
    if third:
        out["thirdParties"] = third
    return out


# -- LCP -----------------------------------------------------------------------------------


def _lcp(c: TraceCollector, nav: dict[str, Any], requests: list[_Request]) -> dict[str, Any] | None:
    start, nav_id, frame = nav["ts"], nav["id"], nav["frame"]
    mine = [
        m
        for m in c.marks["lcp"]
        if (m[2].get("navigationId") == nav_id if nav_id and m[2].get("navigationId") else m[0] >= start)
        and (frame is None or m[1] is None or m[1] == frame)
    ]
    if not mine:
        return None
    ts, _, d = max(mine, key=lambda m: (m[2].get("candidateIndex") or 0, m[0]))
    out: dict[str, Any] = {"ms": _ms(ts - start)}
    element = {k: d[k] for k in ("nodeName", "type", "size") if d.get(k) is not None}
    image = c.image_paints.get((d.get("_pid"), d.get("nodeId"))) if d.get("nodeId") is not None else None
    lcp_request = None
    if image is not None:
        paint_ts, image_url = image
        element["url"] = _short(image_url)
        for r in requests:
            if (r.devtools_start or 0.0) >= paint_ts:
                break
            if r.url == image_url:
                lcp_request = r
                break
    if element:
        out["element"] = element
    doc = c.requests.get(nav_id) if nav_id else None
    first_byte = _first_byte(doc) if doc is not None else None
    if first_byte is None:
        out["note"] = "no document request with timing in the trace: no LCP breakdown"
        return out
    parts: dict[str, float | None] = {"ttfb": _ms(first_byte - start)}
    if lcp_request is not None:
        req_start = lcp_request.devtools_start or 0.0
        finish = lcp_request.devtools_finish or req_start
        parts["loadDelay"] = _ms(req_start - first_byte)
        parts["loadDuration"] = _ms(finish - req_start)
        parts["renderDelay"] = _ms(ts - finish)
        out["request"] = _short(lcp_request.url)
    else:
        parts["renderDelay"] = _ms(ts - first_byte)
    out["breakdownMs"] = parts
    return out


def _first_byte(doc: _Request) -> float | None:
    timing = doc.timing
    if not timing or not isinstance(timing.get("requestTime"), int | float):
        return None
    headers = timing.get("receiveHeadersStart")
    if not isinstance(headers, int | float):
        headers = timing.get("receiveHeadersEnd")
    if not isinstance(headers, int | float):
        return None
    return float(timing["requestTime"]) * 1e6 + float(headers) * 1000


# -- render-blocking -------------------------------------------------------------------------


def _render_blocking(c: TraceCollector, nav: dict[str, Any], requests: list[_Request]) -> dict[str, Any] | None:
    start, frame, nav_id = nav["ts"], nav["frame"], nav["id"]
    paints = [
        m[0]
        for m in c.marks["fp"]
        if m[0] >= start
        and (frame is None or m[1] is None or m[1] == frame)
        and (not nav_id or not m[2].get("navigationId") or m[2]["navigationId"] == nav_id)
    ]
    if not paints:
        return None  # no first paint: nothing can be said to have blocked it
    first_paint = min(paints)
    later_navs = [n["ts"] for n in c.navs if n["ts"] > start]
    until = min(later_navs) if later_navs else float("inf")
    picked = []
    for r in requests:
        if frame is not None and r.frame != frame:
            continue
        if r.blocking in _NON_BLOCKING or (r.devtools_start or 0.0) >= until:
            continue
        if (r.devtools_finish or 0.0) > first_paint:
            continue
        if r.blocking == "in_body_parser_blocking":
            high_script = r.resource_type == "Script" and r.priority == "High"
            if r.priority != "VeryHigh" and not high_script:
                continue
        picked.append(r)
    picked.sort(key=lambda r: (r.devtools_end or 0.0) - (r.devtools_start or 0.0), reverse=True)
    out: dict[str, Any] = {"firstPaintMs": _ms(first_paint - start)}
    if picked:
        rows = [
            {
                "url": _short(r.url),
                "durationMs": _ms((r.devtools_end or 0.0) - (r.devtools_start or 0.0)),
                "resourceType": r.resource_type,
                "blocking": r.blocking,
                "finishedMs": _rel(r.devtools_finish, start),
            }
            for r in picked
        ]
        out.update(_blocking_overview(rows))
        out["requests"] = rows
    return out


def _blocking_overview(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """How many blocked the first paint, of which kind, the slowest few, and when the last one was done.

    A page with 43 stylesheets has 43 rows: an answer carries this overview, the rows stay for
    whoever reads the summary whole (and the trace file holds them all).
    """
    kinds: dict[str, int] = {}
    for row in rows:
        kind = str(row.get("resourceType") or "other").lower()
        kinds[kind] = kinds.get(kind, 0) + 1
    done = [row["finishedMs"] for row in rows if isinstance(row.get("finishedMs"), int | float)]
    out: dict[str, Any] = {
        "count": len(rows),
        "byType": dict(sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))),
        "slowest": rows[:SLOWEST_BLOCKING],
    }
    if done:
        out["allDoneMs"] = max(done)
    return out


# -- layout shifts ---------------------------------------------------------------------------


def _layout_shifts(
    c: TraceCollector, nav: dict[str, Any] | None, requests: list[_Request], origin: float
) -> dict[str, Any]:
    shifts = sorted(s for s in c.shifts if nav is None or s[0] >= nav["ts"])
    if not shifts:
        return {}
    clusters: list[list[tuple[float, float, Any]]] = []
    for shift in shifts:
        current = clusters[-1] if clusters else None
        if current is None or shift[0] - current[-1][0] >= 1_000_000 or shift[0] - current[0][0] > 5_000_000:
            clusters.append([shift])
        else:
            current.append(shift)
    worst = max(clusters, key=lambda cl: sum(s[1] for s in cl))
    fonts = [
        r
        for r in requests
        if r.resource_type == "Font" and (r.mime or "").startswith("font") and r.devtools_finish is not None
    ]
    culprits: list[dict[str, Any]] = []
    for ts, _score, _frame in worst:
        for r in fonts:
            if 0 <= ts - (r.devtools_finish or 0.0) <= ROOT_CAUSE_WINDOW_US:
                culprits.append({"kind": "web font", "url": _short(r.url), "shiftAtMs": _ms(ts - origin)})
        for u_ts, node, url in c.unsized_images:
            if 0 <= ts - u_ts <= ROOT_CAUSE_WINDOW_US:
                item = {"kind": "unsized image", "shiftAtMs": _ms(ts - origin)}
                if url:
                    item["url"] = _short(url)
                if node is not None:
                    item["nodeId"] = node
                culprits.append(item)
    return {
        "cls": round(sum(s[1] for s in worst), 4),
        "worstWindow": {
            "startMs": _ms(worst[0][0] - origin),
            "endMs": _ms(worst[-1][0] - origin),
            "shifts": [{"atMs": _ms(ts - origin), "score": round(score, 4)} for ts, score, _ in worst[:TOP]],
        },
        "culprits": culprits[:TOP] or "none detected (DevTools also looks for iframes and animations; we do not)",
    }


# -- third parties ---------------------------------------------------------------------------


def _third_parties(
    c: TraceCollector,
    nav: dict[str, Any] | None,
    requests: list[_Request],
    main: tuple[Any, Any] | None,
    origin: float,
    end_ts: float,
) -> list[dict[str, Any]]:
    first_party = site_of(nav["url"]) if nav else None
    sites: dict[str, dict[str, Any]] = {}

    def slot(site: str) -> dict[str, Any]:
        entry = sites.get(site)
        if entry is None:
            entry = sites[site] = {"site": site, "requests": 0, "transferBytes": 0, "_us": 0.0}
        return entry

    for r in requests:
        site = site_of(r.url)
        if site is None:
            continue
        entry = slot(site)
        entry["requests"] += 1
        entry["transferBytes"] += r.encoded or 0
    if main is not None:
        for prof in c.profiles.values():
            if prof.thread != main:
                continue
            for t, fn, w in zip(prof.ts, prof.fn, prof.weight, strict=True):
                if t < origin or t > end_ts:
                    continue
                site = site_of(c.functions[fn][1])
                if site is not None:
                    slot(site)["_us"] += w
    out = []
    for entry in sorted(sites.values(), key=lambda e: (e["_us"], e["transferBytes"]), reverse=True):
        entry["mainThreadMs"] = _ms(entry.pop("_us"))
        if entry["site"] == first_party:
            entry["firstParty"] = True
        out.append(entry)
    return out[: TOP + 1]
