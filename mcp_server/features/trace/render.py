"""Answers of the trace actions: text and data built from a trace summary, lean in both renderings.

Render step of the trace's path (collect: :mod:`cdp_core.recorders.tracing`; build:
:mod:`cdp_core.recorders.tracing.summary`; render: here for the JSON rows and the answers,
:mod:`mcp_server.features.trace.text` for the summary's text). Kept apart from the handlers in
:mod:`mcp_server.features.trace.actions` so each stays small and the shapes are testable without a browser.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp_server.features.trace.text import site_path, summary_text
from mcp_server.features.trace.visibility import notes_for, visibility_line

if TYPE_CHECKING:
    from cdp_core.recorders.tracing import TraceResult

__all__ = ["lean_summary", "stopped_answer", "summary_answer"]


def lean_summary(summary: dict[str, Any], *, path: bool = False) -> dict[str, Any]:
    """The summary as an answer carries it: the trace path said once, the main thread by its load."""
    out = {k: v for k, v in summary.items() if k != "fileBytes" and (path or k != "tracePath")}
    main = out.get("mainThread")
    if isinstance(main, dict):
        out["mainThread"] = {k: main[k] for k in ("busyMs", "taskCount") if k in main}
    out.pop("eventCount", None)
    base = out.get("navigationUrl")
    out = _rounded_dict(out)
    columns: dict[str, list[str]] = {}
    if isinstance(out.get("longestTasks"), list) and out["longestTasks"]:  # as the text names each task
        out["longestTasks"] = [_task_row(t, base) for t in out["longestTasks"] if isinstance(t, dict)]
        columns["longestTasks"] = list(_TASK_COLUMNS)
    # Requests and hot functions as rows under named columns: five of each, as the text names them,
    # without five copies of every key (the answer stays within the shared size rule).
    for key, cols in _ROW_COLUMNS.items():
        if isinstance(out.get(key), list) and out[key]:
            out[key] = [_row(item, tuple(c for c, _ in cols), base) for item in out[key] if isinstance(item, dict)]
            width = max((len(row) for row in out[key]), default=len(cols))
            columns[key] = [name for _, name in cols[:width]]
    if columns:
        out["columns"] = columns
    insights = out.get("insights")
    if isinstance(insights, dict) and insights.get("lcp") and "lcpElement" in out:
        out.pop("lcpElement")  # said once, in the LCP insight
    blocking = insights.get("renderBlocking") if isinstance(insights, dict) else None
    if isinstance(blocking, dict):
        # The overview (how many, which kinds, the slowest few, when all were done), never every file:
        # a page with 43 stylesheets would print 43 rows. The trace file holds them all.
        blocking.pop("requests", None)
        if isinstance(blocking.get("slowest"), list):
            blocking["slowest"] = [
                {**r, "url": site_path(r.get("url"), base)} for r in blocking["slowest"] if isinstance(r, dict)
            ]
    return out


#: Lists the answer gives as rows, and their columns (the trace file keeps the rest: priority, mime type).
_ROW_COLUMNS = {
    "slowestRequests": (("url", "url"), ("durationMs", "ms"), ("queuedMs", "queued"), ("transferMs", "transfer"),
                        ("statusCode", "status"), ("resourceType", "type"), ("encodedBytes", "bytes"),
                        ("method", "method"), ("connectMs", "connect")),
    "hotFunctions": (("functionName", "function"), ("selfMs", "selfMs"), ("url", "url"), ("lineNumber", "line"),
                     ("columnNumber", "column")),
}  # fmt: skip


def _row(item: dict[str, Any], columns: tuple[str, ...], base: Any) -> list[Any]:
    row = [site_path(item[c], base) if c == "url" and item.get(c) else item.get(c) for c in columns]
    if "method" in columns and item.get("method") == "GET":
        row[columns.index("method")] = None  # GET said by its absence
    while row and row[-1] is None:
        row.pop()
    return row


def _rounded(value: Any, key: str = "", depth: int = 0) -> Any:
    """Milliseconds in the lists and groups (tasks, requests, functions, main thread) to whole ones (a
    tenth under 1 ms), as the text prints them. The page's marks (``lcpMs``...) and the insights keep
    their precision: the LCP breakdown adds up to the LCP, which equals ``lcpMs``."""
    if isinstance(value, float) and depth >= 2 and (key.endswith("Ms") or key == "ms"):
        return round(value) if abs(value) >= 1 else round(value, 1)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)  # 92.0 as 92: the same number, as the text prints it
    if depth > 8:
        return value
    if isinstance(value, dict):  # under a ...Ms key (mainThreadTimeMs) every number is ms; insights keep
        # their precision (their LCP parts add up to the LCP, which equals lcpMs), as whole floats drop ".0"
        inner = depth + 1 if key != "insights" else -100
        return {k: _rounded(v, key if key.endswith("Ms") else str(k), inner) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v, key, depth + 1) for v in value]
    return value


def _rounded_dict(value: dict[str, Any]) -> dict[str, Any]:
    """:func:`_rounded` of a summary: a dict gives a dict."""
    rounded: dict[str, Any] = _rounded(value)
    return rounded


#: A long task as a row: when, how long, what ran, where (the script's function and place), and
#: the task's own hottest functions as ``[name, self ms]``.
_TASK_COLUMNS = ("startMs", "durationMs", "activity", "function", "url", "line", "column", "hottest")


def _task_row(task: dict[str, Any], base: Any) -> list[Any]:
    script: dict[str, Any] = task["script"] if isinstance(task.get("script"), dict) else {}
    hot = [[h.get("functionName"), h.get("selfMs")] for h in task.get("hotFunctions") or [] if isinstance(h, dict)]
    row = [
        task.get("startMs"),
        task.get("durationMs"),
        task.get("activity"),
        script.get("functionName"),
        site_path(script["url"], base) if script.get("url") else None,
        script.get("lineNumber"),
        script.get("columnNumber"),
        hot or None,
    ]
    while row and row[-1] is None:
        row.pop()
    return row


def stopped_answer(
    summary: dict[str, Any],
    *,
    rel: str,
    result: TraceResult,
    page: dict[str, Any],
    reloaded: bool,
    visibility: dict[str, Any] | None = None,
) -> tuple[str, dict[str, Any]]:
    """performance_stop_trace's answer: the saved file, the traced page (``page``: its brief) and the summary.

    ``visibility``: the fields of :func:`~mcp_server.features.trace.visibility.visibility_fields`; a tab
    hidden during the trace is said first, in the text and the JSON, since every number after it is
    Chrome's throttling.
    """
    summary = _told(summary, visibility)
    shown = dict(page)
    if shown.get("url") == summary.get("navigationUrl"):
        shown.pop("url")  # said once, as the summary's navigationUrl
    data: dict[str, Any] = {
        **(visibility or {}),
        # what the text says; the file is Trace Event JSON (DevTools > Performance > Load profile)
        "tracePath": rel,
        "bytes": result.bytes_written,
        "dataLossOccurred": result.data_loss_occurred,
        "page": shown,
        "reloaded": reloaded,
        "summary": lean_summary(summary),
    }
    said = ", reloaded" if reloaded else ""
    size = f"{result.bytes_written / 1e6:.1f} MB"
    text = f"Saved trace {rel} of {page['stable_page_id']} ({page['target']}{said}, {size})"
    if result.data_loss_occurred:
        text += "; Chrome reports lost events (trace buffer full): the summary may miss the end"
    text += ".\n" + summary_text(summary)
    return _first(visibility, text), data


def summary_answer(
    summary: dict[str, Any], rel: str, *, visibility: dict[str, Any] | None = None
) -> tuple[str, dict[str, Any]]:
    """performance_summary's answer: the summary, and the trace file it was read from (``visibility``: as
    the stop said it, when this server saved the trace)."""
    summary = _told(summary, visibility)
    text = summary_text(summary) + f"\nTrace file: {rel}."
    return _first(visibility, text), {**(visibility or {}), **lean_summary(summary, path=True)}


def _told(summary: dict[str, Any], visibility: dict[str, Any] | None) -> dict[str, Any]:
    """The summary with its notes saying what the tab's visibility explains."""
    if not visibility or not summary.get("notes"):
        return summary
    return {**summary, "notes": notes_for(list(summary["notes"]), visibility)}


def _first(visibility: dict[str, Any] | None, text: str) -> str:
    line = visibility_line(visibility or {})
    return f"{line}\n{text}" if line else text
