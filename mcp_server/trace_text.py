"""Render: the text of a trace summary, for clients that read only the text.

Built from the summary dict of :mod:`cdp_core.recorders.trace_summary` (collect -> build
there, render here): a few short lines with every number the structured answer carries
that an agent acts on, insights included.
"""

from __future__ import annotations

from typing import Any

__all__ = ["summary_text", "insights_lines"]


def _fmt_ms(ms: Any) -> str:
    if ms is None:
        return "n/a"
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.0f} ms"


def summary_text(s: dict[str, Any]) -> str:
    """Three short lines an agent can read without opening the structured data."""
    head = f"Trace of {s.get('navigationUrl') or 'the page'} over {_fmt_ms(s.get('durationMs'))}"
    parts = [f"{s.get('longTaskCount', 0)} long task(s)"]
    tasks = s.get("longestTasks") or []
    if tasks:
        t = tasks[0]
        where = ""
        script = t.get("script")
        if script:
            fn = script.get("functionName") or "(anonymous)"
            url = str(script.get("url", "")).rsplit("/", 1)[-1]
            where = f" in {fn} {url}:{script.get('lineNumber', '?')}"
        hot = next((h for h in t.get("hotFunctions") or [] if h.get("url")), None)
        if hot:  # where the task spent its time, by the CPU profile: the line to look at
            file = str(hot["url"]).rsplit("/", 1)[-1]
            where += f", hottest {hot['functionName']} {file}:{hot.get('lineNumber', '?')}"
            where += f" {_fmt_ms(hot.get('selfMs'))} self"
        parts[0] += f", longest {_fmt_ms(t.get('durationMs'))} ({t.get('activity')}{where})"
    parts.append(f"{s.get('requestCount', 0)} request(s)")
    slow = s.get("slowestRequests") or []
    if slow:
        parts[-1] += f", slowest {_fmt_ms(slow[0].get('durationMs'))} {slow[0].get('url')}"
    marks = ", ".join(
        f"{label} {_fmt_ms(s.get(key))}"
        for label, key in (("FCP", "fcpMs"), ("LCP", "lcpMs"), ("DCL", "dclMs"), ("load", "loadMs"))
        if s.get(key) is not None
    )
    if s.get("cls") is not None:
        marks += f"{', ' if marks else ''}CLS {s['cls']}"
    hot = s.get("hotFunctions") or []
    if hot:
        h = hot[0]
        where = str(h.get("url", "")).rsplit("/", 1)[-1]
        where = f" {where}:{h.get('lineNumber', '?')}" if where else ""
        parts.append(f"hottest function {h['functionName']}{where} ({_fmt_ms(h.get('selfMs'))} self)")
    cats = s.get("mainThreadTimeMs") or {}
    lines = [f"{head}: " + "; ".join(parts) + "."]
    if marks:
        lines.append(marks + ".")
    if cats:
        lines.append("Main thread: " + ", ".join(f"{k} {_fmt_ms(v)}" for k, v in cats.items()) + ".")
    lines += insights_lines(s.get("insights") or {})
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


def insights_lines(ins: dict[str, Any]) -> list[str]:
    """One line per insight (LCP breakdown, render-blocking, layout shifts, third parties)."""
    lines = []
    lcp = ins.get("lcp")
    if lcp:
        el = lcp.get("element") or {}
        what = " ".join(str(x) for x in (el.get("type"), el.get("nodeName"), el.get("url")) if x)
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
        reqs = blocking.get("requests") or []
        head = f"Render-blocking before first paint ({_fmt_ms(blocking.get('firstPaintMs'))}): "
        lines.append(
            head
            + (
                ", ".join(f"{r['url']} {_fmt_ms(r.get('durationMs'))} ({r.get('resourceType')})" for r in reqs)
                or "none"
            )
            + "."
        )
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
