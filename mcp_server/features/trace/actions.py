"""Performance traces: start, stop (the file goes under ``<artifacts>/traces/``), summarize.

The trace runs on the selected page's own session (see :mod:`cdp_core.recorders.tracing`
for why), and its state lives in ``page.data["trace"]``. ``performance_stop_trace``
stops the trace wherever it runs on the active browser (Chrome runs one at a time), even
when the agent selected another tab meanwhile. The page is reloaded only when the call
says ``reload=true``; on the user's Chrome that is the one thing these actions ever do
to a tab.

The summary is computed from the saved file (streamed, in a worker thread so the server
keeps answering) and is what ``performance_summary`` returns; ``performance_stop_trace``
includes it too, so one call answers "what took the time".
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field

from cdp_core.errors import CDPException
from cdp_core.recorders.tracing import NoTraceRunning, TraceAlreadyRunning, Tracer
from cdp_core.recorders.tracing.summary import TraceSummaryError, summarize
from mcp_server.features.trace.render import stopped_answer, summary_answer
from mcp_server.features.trace.visibility import VisibilityMark, mark, over_trace, visibility_fields
from mcp_server.page.hidden import hidden_first
from mcp_server.server.registry import ActionArgs, ActionResult, action
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from mcp_server.server.context import ToolContext
    from targets import PageHandle

__all__ = ["StartTraceArgs", "StopTraceArgs", "SummaryArgs", "TraceState"]

TRACE_KIND = "traces"
RELOAD_TIMEOUT_S = 30.0


@dataclass
class TraceState:
    """``page.data["trace"]``: the page's tracer and where its trace will be / was saved."""

    tracer: Tracer
    save_path: Path | None = None  # chosen at start, used by stop unless stop names another
    reloaded: bool = False
    last_path: Path | None = None
    #: the tab's visibility when the trace started (a hidden tab's timings are Chrome's throttling)
    visibility_start: VisibilityMark | None = None


@dataclass
class _BrowserTraces:
    """Per manager: which page is tracing (Chrome allows one) and the last saved trace."""

    tracing: PageHandle | None = None
    last_path: Path | None = None
    summaries: dict[tuple[str, float, int], dict[str, Any]] = field(default_factory=dict)
    #: per saved trace (its path): the answer's visibility fields, for performance_summary of it later
    visibility: dict[str, dict[str, Any]] = field(default_factory=dict)


_BY_MANAGER: weakref.WeakKeyDictionary[Any, _BrowserTraces] = weakref.WeakKeyDictionary()


def _traces(ctx: ToolContext) -> _BrowserTraces:
    return _BY_MANAGER.setdefault(ctx.manager, _BrowserTraces())


def _state_of(page: PageHandle) -> TraceState:
    state = page.data.get("trace")
    if not isinstance(state, TraceState) or state.tracer.session is not page.session:
        state = TraceState(tracer=Tracer(page.session))
        page.data["trace"] = state
    return state


def _resolve_save_path(ctx: ToolContext, raw: str | None) -> Path | None:
    """An agent's save_path, inside the artifacts root (relative paths: under traces/)."""
    if not raw:
        return None
    path = ctx.artifacts.resolve_inside(raw, kind=TRACE_KIND)
    if path.is_dir():
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"save_path {raw!r} is a directory",
            hint="give a file name such as traces/report-page.json",
            save_path=raw,
        )
    return path


def _default_path(ctx: ToolContext) -> Path:
    directory = ctx.artifacts.dir(TRACE_KIND)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    path = directory / f"trace-{stamp}.json"
    n = 2
    while path.exists() or path.with_name(path.name + ".part").exists():
        path = directory / f"trace-{stamp}-{n}.json"
        n += 1
    return path


def _page_brief(page: PageHandle) -> dict[str, Any]:
    return {"stable_page_id": page.stable_page_id, "url": page.url, "target": page.target}


async def _summary_of(ctx: ToolContext, path: Path) -> dict[str, Any]:
    """The summary of a trace file, cached per (path, mtime, size): traces never change."""
    try:
        stat = await asyncio.to_thread(path.stat)
    except FileNotFoundError:
        raise ToolFailure(
            ErrorCode.FILE_NOT_FOUND,
            f"no trace file at {ctx.artifacts.relative(path)}",
            hint="call performance_summary without a path for the last saved trace",
            path=ctx.artifacts.relative(path),
        ) from None
    key = (str(path), stat.st_mtime, stat.st_size)
    cache = _traces(ctx).summaries
    if key not in cache:
        try:
            summary = await asyncio.to_thread(summarize, path)
        except (TraceSummaryError, OSError) as exc:  # not JSON, not a trace, a directory...
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                f"{ctx.artifacts.relative(path)} is not a readable trace: {exc}",
                hint="pass a trace saved by performance_stop_trace (or DevTools' Save profile)",
                path=ctx.artifacts.relative(path),
            ) from None
        if len(cache) > 16:
            cache.clear()
        cache[key] = summary
    return {**cache[key], "tracePath": ctx.artifacts.relative(path)}


# -- actions -------------------------------------------------------------------------------


class StartTraceArgs(ActionArgs):
    reload: bool = Field(False, description="Reload to trace the load")
    save_path: str | None = Field(None, description="Trace file (default traces/)")


class StopTraceArgs(ActionArgs):
    save_path: str | None = Field(None, description="Trace file (default traces/)")


class SummaryArgs(ActionArgs):
    trace_path: str | None = Field(None, description="Trace file (default: last)")


@action(
    "browser_session",
    "performance_start_trace",
    StartTraceArgs,
    description="Start a performance trace of the selected page (optionally reloading it); stop to save it",
    experimental=True,
    lock="page",
    takes="with reload=true up to 30 s for the load event; progress: reloading",
)
async def performance_start_trace(ctx: ToolContext, args: StartTraceArgs) -> ActionResult:
    """Start a performance trace of the selected page (optionally reloading it)."""
    page = await ctx.page()
    if args.reload:
        from mcp_server.evidence.dialogs import no_dialog

        await no_dialog(ctx, page, "performance_start_trace")  # a reload waits for an open dialog
    browser = _traces(ctx)
    other = browser.tracing
    if other is not None and not other.closed and _state_of(other).tracer.running:
        raise ToolFailure(
            ErrorCode.TRACE_ALREADY_RUNNING,
            f"a trace is already running on page {other.stable_page_id} ({other.url})",
            hint="call performance_stop_trace first",
            **_page_brief(other),
        )
    save_path = _resolve_save_path(ctx, args.save_path)
    state = _state_of(page)
    try:
        await state.tracer.start()
    except TraceAlreadyRunning as exc:
        raise ToolFailure(
            ErrorCode.TRACE_ALREADY_RUNNING,
            str(exc),
            hint="stop the other trace (another page, or DevTools' Performance panel recording) and retry",
        ) from None
    state.save_path = save_path
    state.reloaded = False
    state.visibility_start = await mark(page)
    browser.tracing = page
    load_fired: bool | None = None
    if args.reload:
        ctx.status("tracing; reloading the page and waiting for its load event")
        try:
            load_fired = await _reload(page)
        except BaseException:
            await state.tracer.abort()
            browser.tracing = None
            raise
        state.reloaded = True
    data: dict[str, Any] = {
        "tracing": True,
        "page": _page_brief(page),
        "reloaded": state.reloaded,
        # the categories are the tracer's fixed set (docs/tools.md); the saved trace records them
        "savePath": ctx.artifacts.relative(save_path) if save_path else None,
    }
    text = f"Tracing page {page.stable_page_id} ({page.url})"
    if args.reload:
        data["loadEventFired"] = load_fired
        text += ", reloaded it" + ("" if load_fired else f" (no load event within {RELOAD_TIMEOUT_S:.0f} s)")
    text += ". Reproduce the slow part, then call performance_stop_trace."
    if state.visibility_start is not None and state.visibility_start.state == "hidden":
        text, data = hidden_first(visibility_fields({"start": "hidden", "changes": []}), text, data)
    return ActionResult(text=text, data=data)


async def _reload(page: PageHandle) -> bool:
    """``Page.reload`` and wait for the main frame's load event; False when it did not come in time."""
    session = page.session
    await session.send("Page.enable")
    async with session.events("Page.loadEventFired") as loads:
        await session.send("Page.reload", {"ignoreCache": False})
        try:
            await loads.get(timeout=RELOAD_TIMEOUT_S)
            return True
        except TimeoutError:
            return False


@action(
    "browser_session",
    "performance_stop_trace",
    StopTraceArgs,
    description="Stop the running trace, save it under artifacts/traces/ and summarize it",
    experimental=True,
    lock="page",
    takes=(
        "seconds: Chrome flushes (within the call bound), then the file is saved chunk by chunk; "
        "progress: MB saved, then summarizing"
    ),
)
async def performance_stop_trace(ctx: ToolContext, args: StopTraceArgs) -> ActionResult:
    """Stop the running trace, save it (DevTools/Perfetto format) and summarize it."""
    browser = _traces(ctx)
    page = await _tracing_page(ctx, browser)
    state = _state_of(page)
    dest = _resolve_save_path(ctx, args.save_path) or state.save_path or _default_path(ctx)
    seen = visibility_fields(await over_trace(page, state.visibility_start))

    async def progress(written: int, message: str) -> None:
        await ctx.report_progress(written, None, message)

    try:
        # Chrome's flush waits within the call bound; reading the stream (progress every chunk) is not cut,
        # since cutting it would lose the trace.
        with ctx.hold.overrun_allowed() if ctx.hold is not None else contextlib.nullcontext():
            result = await state.tracer.stop(dest, progress_cb=progress, complete_timeout=ctx.bound(120)[0])
    except NoTraceRunning:  # pragma: no cover - _tracing_page checked; kept for safety
        raise ToolFailure(
            ErrorCode.NO_TRACE_RUNNING, "no trace is running", hint="call performance_start_trace"
        ) from None
    except CDPException as exc:
        lost = page.closed or page.session.closed
        raise ToolFailure(
            ErrorCode.PAGE_CLOSED if lost else ErrorCode.CDP_ERROR,
            f"the trace could not be saved: {exc}",
            hint="start a new trace with performance_start_trace",
            **_page_brief(page),
        ) from None
    finally:
        if browser.tracing is page:
            browser.tracing = None
    state.last_path = result.path
    browser.last_path = result.path
    if len(browser.visibility) > 64:
        browser.visibility.clear()
    browser.visibility[str(result.path)] = seen
    ctx.status(f"saved {result.bytes_written / 1e6:.1f} MB; summarizing the trace")
    summary = await _summary_of(ctx, result.path)
    text, data = stopped_answer(
        summary,
        rel=ctx.artifacts.relative(result.path),
        result=result,
        page=_page_brief(page),
        reloaded=state.reloaded,
        visibility=seen,
    )
    return ActionResult(text=text, data=data)


async def _tracing_page(ctx: ToolContext, browser: _BrowserTraces) -> PageHandle:
    """The page whose trace is running: the selected one, else the one this server started."""
    try:
        page: PageHandle | None = await ctx.page(launch_if_needed=False)
    except ToolFailure:
        page = None
    if page is not None and isinstance(page.data.get("trace"), TraceState) and page.data["trace"].tracer.running:
        return page
    other = browser.tracing
    if other is not None and _state_of(other).tracer.running:
        if other.closed or other.session.closed:
            await _state_of(other).tracer.abort()
            browser.tracing = None
            raise ToolFailure(
                ErrorCode.PAGE_CLOSED,
                f"page {other.stable_page_id} closed while it was being traced; the trace is lost",
                hint="start a new trace with performance_start_trace",
                **_page_brief(other),
            )
        return other
    raise ToolFailure(
        ErrorCode.NO_TRACE_RUNNING,
        "no trace is running",
        hint="call performance_start_trace (reload=true to trace a page load), then stop it",
    )


@action(
    "browser_session",
    "performance_summary",
    SummaryArgs,
    description="Summarize a saved trace: long tasks, FCP/LCP/CLS, slowest requests, main-thread time",
    read_only=True,
    experimental=True,
    lock="read",
    takes="seconds for a large trace (parsed in a worker thread); progress: summarizing",
)
async def performance_summary(ctx: ToolContext, args: SummaryArgs) -> ActionResult:
    """Summarize the last saved trace (or one inside the artifacts dir)."""
    browser = _traces(ctx)
    path: Path | None
    if args.trace_path:
        path = ctx.artifacts.resolve_inside(args.trace_path)
        if not await asyncio.to_thread(path.exists):  # a bare file name means one in traces/
            in_traces = ctx.artifacts.resolve_inside(args.trace_path, kind=TRACE_KIND)
            path = in_traces if await asyncio.to_thread(in_traces.exists) else path
    else:
        path = browser.last_path or _newest_trace(ctx)
        if path is None:
            running = browser.tracing is not None and _state_of(browser.tracing).tracer.running
            raise ToolFailure(
                ErrorCode.NO_TRACE,
                "a trace is running but none has been saved yet" if running else "no trace has been saved yet",
                hint="call performance_stop_trace first"
                if running
                else "call performance_start_trace, reproduce the slow part, then performance_stop_trace",
            )
    ctx.status(f"summarizing {ctx.artifacts.relative(path)}")
    summary = await _summary_of(ctx, path)
    text, data = summary_answer(summary, ctx.artifacts.relative(path), visibility=browser.visibility.get(str(path)))
    return ActionResult(text=text, data=data)


def _newest_trace(ctx: ToolContext) -> Path | None:
    """The most recent trace file of an earlier server run (summary survives a restart)."""
    directory = ctx.artifacts.root / TRACE_KIND
    if not directory.is_dir():
        return None
    files = [p for p in directory.glob("*.json") if p.is_file()]
    return max(files, key=os.path.getmtime) if files else None
