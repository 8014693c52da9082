"""What took the time: a summary of a saved trace file that an agent can act on.

Everything here is read from the trace, nothing is guessed: when the trace holds no
navigation there are no FCP/LCP/DCL/load values (``None``, with a note saying to trace
with a reload), when it holds no CPU samples the long tasks still get their script from
the ``FunctionCall``/``EvaluateScript`` events nested in them.

The file is read as a stream (:func:`iter_trace_events`): one chunk and one event at a
time, so a 100 MB trace never sits in memory as a parsed JSON tree. What the summary
keeps is small: per thread compact arrays of the timed main-thread events (19 bytes per
event, for the self-time breakdown), per CPU sample 20 bytes (for the hot functions), per
request one small record, and the handful of page-load marks: a small fraction of what
``json.load`` of the same trace allocates (tests/bench/trace_bench.py measures it). Both
layouts Chrome writes are accepted: the object form
``{"traceEvents": [...], "metadata": {...}}`` (``Tracing`` stream, DevTools' "Save
trace") and the bare array form (with or without its closing bracket, as the Trace Event
format allows).

Times are in milliseconds; page-load marks and task starts are relative to the
navigation start of the last main-frame navigation in the trace (else to the trace start).
Line and column numbers are 1-based, as in ``FunctionCall`` events and editors (the CPU
profile's 0-based positions are converted).

The work is split along the data's path: :mod:`.reader` (the file as a stream of
events), :mod:`.collect` (one pass into compact arrays), :mod:`.build` and
:mod:`.insights` (the summary and DevTools-like insights); the text an agent reads is
rendered by ``mcp_server.features.trace.actions``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from .build import build_summary
from .collect import LONG_TASK_MS, TraceCollector
from .reader import TraceReader, TraceSummaryError, iter_trace_events

__all__ = ["TraceReader", "iter_trace_events", "summarize", "summarize_events", "TraceSummaryError", "LONG_TASK_MS"]


# -- entry points --------------------------------------------------------------------------


def summarize_events(events: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Summarize trace events already in memory (tests, or events from another source)."""
    analyzer = TraceCollector()
    for ev in events:
        if isinstance(ev, dict):
            analyzer.feed(ev)
    return build_summary(analyzer)


def summarize(path: str | os.PathLike[str], *, chunk_size: int = 1024 * 1024) -> dict[str, Any]:
    """Summarize a saved trace file (read in chunks; see the module docstring).

    Raises :class:`TraceSummaryError` when the file is not a trace, ``OSError`` when it
    cannot be read.
    """
    analyzer = TraceCollector()
    reader = TraceReader(path, chunk_size=chunk_size)
    for ev in reader:
        analyzer.feed(ev)
    result = build_summary(analyzer, truncated=reader.truncated)
    result["fileBytes"] = os.path.getsize(path)
    if analyzer.events == 0:
        result["notes"].append("the trace holds no events")
    return result
