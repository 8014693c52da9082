"""Render: the text of a trace summary, for clients that read only the text.

Built from the summary dict of :mod:`cdp_core.recorders.tracing.summary` (collect -> build
there, render here): a few short lines with every number the structured answer carries
that an agent acts on, insights included.
"""

from __future__ import annotations

from typing import Any

__all__ = ["summary_text", "insights_lines", "site_path"]


def site_path(url: Any, base: Any) -> str:
    """``url`` as a path when it is on ``base``'s origin (``/trace/app.js``), else whole.

    The traced page's own URLs are most of a summary; its origin is said once (``navigationUrl``),
    in the text and the JSON alike.
    """
    text, origin = str(url or ""), _origin(base)
    if origin and text.startswith(origin + "/"):
        return text[len(origin) :]
    return text


def _origin(url: Any) -> str:
    text = str(url or "")
    scheme, sep, rest = text.partition("://")
    if not sep or scheme not in ("http", "https"):
        return ""
    return f"{scheme}://{rest.split('/', 1)[0]}"


def _fmt_ms(ms: Any) -> str:
    if ms is None:
        return "n/a"
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.0f} ms"


def _where(item: dict[str, Any], base: Any) -> str:
    """`` /app.js:1:18`` for a function with a place (a path on the page's origin), else nothing."""
    file = site_path(item.get("url"), base)
    if not file:
        return ""
    col = f":{item['columnNumber']}" if item.get("columnNumber") is not None else ""
    return f" {file}:{item.get('lineNumber', '?')}{col}"


def _task(t: dict[str, Any], base: Any) -> str:
    where = ""
    script = t.get("script")
    if script:
        where = f" in {script.get('functionName') or '(anonymous)'}{_where(script, base)}"
    hot = ", ".join(f"{h.get('functionName')} {_fmt_ms(h.get('selfMs'))}" for h in t.get("hotFunctions") or [])
    hot = f"; hottest {hot}" if hot else ""
    return f"{_fmt_ms(t.get('durationMs'))} at {_fmt_ms(t.get('startMs'))} ({t.get('activity')}{where}{hot})"


def _request(r: dict[str, Any], base: Any) -> str:
    extra = [str(x) for x in (r.get("method") if r.get("method") != "GET" else None, r.get("statusCode"),
                              r.get("resourceType")) if x]  # fmt: skip
    if r.get("encodedBytes") is not None:
        extra.append(_bytes(r["encodedBytes"]))
    url = site_path(r.get("url"), base)
    split = _split(r)
    if split:
        extra.append(split)
    return f"{_fmt_ms(r.get('durationMs'))} {url}" + (f" ({', '.join(extra)})" if extra else "")


def _split(r: dict[str, Any]) -> str:
    """``5.50 s queued, 12 ms transfer``: held back by Chrome, or slow on the network."""
    if r.get("queuedMs") is None or r.get("transferMs") is None:
        return ""
    connect = f", {_fmt_ms(r['connectMs'])} connect" if r.get("connectMs") else ""
    return f"{_fmt_ms(r['queuedMs'])} queued{connect}, {_fmt_ms(r['transferMs'])} transfer"


def summary_text(s: dict[str, Any]) -> str:
    """A few short lines with every task, request and function the structured answer names.

    Why every one: text-only clients see nothing else, so naming one slow request where the JSON
    names five loses four.
    """
    head = f"Trace of {s.get('navigationUrl') or 'the page'} over {_fmt_ms(s.get('durationMs'))}"
    lines = [f"{head}: {s.get('longTaskCount', 0)} long task(s), {s.get('requestCount', 0)} request(s)."]
    tasks = s.get("longestTasks") or []
    if tasks:
        lines.append("Longest tasks: " + "; ".join(_task(t, s.get("navigationUrl")) for t in tasks) + ".")
    slow = s.get("slowestRequests") or []
    if slow:
        of = f" {len(slow)} of {s['requestCount']}" if s.get("requestCount") else ""
        lines.append(f"Slowest{of} requests: " + "; ".join(_request(r, s.get("navigationUrl")) for r in slow) + ".")
    hot = s.get("hotFunctions") or []
    if hot:
        lines.append(
            "Hot functions (self time): "
            + ", ".join(
                f"{h.get('functionName')}{_where(h, s.get('navigationUrl'))} {_fmt_ms(h.get('selfMs'))}" for h in hot
            )
            + "."
        )
    marks = ", ".join(
        f"{label} {_fmt_ms(s.get(key))}"
        for label, key in (("FCP", "fcpMs"), ("LCP", "lcpMs"), ("DCL", "dclMs"), ("load", "loadMs"))
        if s.get(key) is not None
    )
    if s.get("cls") is not None:
        marks += f"{', ' if marks else ''}CLS {s['cls']}"
    if s.get("layoutShiftCount") is not None:
        marks += f"{', ' if marks else ''}{s['layoutShiftCount']} layout shift(s)"
    if marks:
        lines.append(marks + ".")
    main = s.get("mainThread") or {}
    cats = s.get("mainThreadTimeMs") or {}
    if main or cats:
        busy = f"busy {_fmt_ms(main.get('busyMs'))} in {main.get('taskCount')} tasks" if main else ""
        split = ", ".join(f"{k} {_fmt_ms(v)}" for k, v in cats.items())
        lines.append("Main thread: " + ": ".join(x for x in (busy, split) if x) + ".")
    lines += insights_lines(s.get("insights") or {}, s.get("navigationUrl"))
    notes = s.get("notes") or []
    if notes:  # what the numbers cannot say (no navigation, a background tab, a cut file)
        lines.append("Note: " + "; ".join(notes) + ".")
    return "\n".join(lines)


def _name(url: Any) -> str:
    text = str(url or "")
    tail = text.rstrip("/").rsplit("/", 1)[-1]
    return tail or text


def _bytes(n: Any) -> str:
    n = int(n or 0)
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.1f} KB" if n >= 1e3 else f"{n} B"


def insights_lines(ins: dict[str, Any], base: Any = None) -> list[str]:
    """One line per insight (LCP breakdown, render-blocking, layout shifts, third parties)."""
    lines = []
    lcp = ins.get("lcp")
    if lcp:
        el = lcp.get("element") or {}
        what = " ".join(str(x) for x in (el.get("type"), el.get("nodeName"), el.get("url")) if x)
        what += f", size {el['size']}" if what and el.get("size") else ""
        line = f"LCP {_fmt_ms(lcp.get('ms'))}" + (f" ({what})" if what else "")
        parts = lcp.get("breakdownMs") or {}
        labels = (
            ("ttfb", "TTFB"),
            ("loadDelay", "load delay"),
            ("loadDuration", "load duration"),
            ("renderDelay", "render delay"),
        )
        if parts:
            line += ": " + ", ".join(f"{label} {_fmt_ms(parts[k])}" for k, label in labels if k in parts)
        elif lcp.get("note"):
            line += f": {lcp['note']}"
        lines.append(line + ".")
    blocking = ins.get("renderBlocking")
    if blocking:
        lines.append(_blocking_line(blocking, base))
    shifts = ins.get("layoutShifts")
    if shifts:
        window = shifts.get("worstWindow") or {}
        culprits = shifts.get("culprits")
        if isinstance(culprits, list):
            culprits = ", ".join(f"{c['kind']} {_name(c.get('url'))}".strip() for c in culprits)
        lines.append(
            f"Layout shifts: CLS {shifts.get('cls')}, worst window {_fmt_ms(window.get('startMs'))}-"
            f"{_fmt_ms(window.get('endMs'))} ({len(window.get('shifts') or [])} shift(s)); culprits: {culprits}."
        )
    third = ins.get("thirdParties")
    if third:
        lines.append(
            "By site: "
            + ", ".join(
                f"{t['site']}{' (first party)' if t.get('firstParty') else ''} {_fmt_ms(t.get('mainThreadMs'))} main "
                f"thread, {_bytes(t.get('transferBytes'))} in {t.get('requests')} request(s)"
                for t in third
            )
            + "."
        )
    return lines


def _blocking_line(blocking: dict[str, Any], base: Any) -> str:
    """``Render-blocking before first paint (1.30 s): 43 requests (40 stylesheet, 3 script), all done at
    1.25 s; slowest /a.css 900 ms, ...``: the overview, never every file."""
    head = f"Render-blocking before first paint ({_fmt_ms(blocking.get('firstPaintMs'))}): "
    count = blocking.get("count") or 0
    if not count:
        return head + "none."
    kinds = ", ".join(f"{n} {kind}" for kind, n in (blocking.get("byType") or {}).items())
    line = head + f"{count} request(s)" + (f" ({kinds})" if kinds else "")
    if blocking.get("allDoneMs") is not None:
        line += f", all done at {_fmt_ms(blocking['allDoneMs'])}"
    slowest = blocking.get("slowest") or []
    if slowest:
        line += "; slowest " + ", ".join(
            f"{site_path(r.get('url'), base)} {_fmt_ms(r.get('durationMs'))}" for r in slowest if isinstance(r, dict)
        )
    return line + "."
