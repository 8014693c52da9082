"""Debugging with values (``browser_session``): sources, logpoints, snapshot points, exception locals.

Nothing here freezes the page: logpoints record inside their breakpoint's condition and
never pause; snapshot points and exceptions pause only while the capture is read, then
resume (cdp_core/recorders/debugger/__init__.py says how, and what happens to a ``debugger;``
statement while points exist). Hits are console entries (``logpoint``, ``snapshot``): read
them with console_list / console_get. The Debugger domain is on only while a point exists.

Points are the session's own (issue 46): each remembers the caller that set it; debug_list shows
the caller's points and counts the others' (they still act on the page), debug_clear removes only
the caller's, and refuses another session's point by id. Their hits are shared console entries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from cdp_core.errors import CDPException
from cdp_core.recorders.debugger import Point
from cdp_core.sourcemap.scopes import split_top_level, translate_identifiers
from mcp_server.answers import debug_lines as render
from mcp_server.evidence.reading import source_map_policy
from mcp_server.evidence.stacks import BUDGET_S
from mcp_server.safety.read_only_expressions import refuse_code_in
from mcp_server.server.registry import ActionArgs, ActionResult, action
from targets.callers import current_caller
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from cdp_core.recorders.debugger import DebugPoints
    from mcp_server.server.context import ToolContext
    from targets import PageHandle

S = "browser_session"
#: Lines source_get shows before and after the line asked (a function's worth, not the file).
AROUND = 8


class NoArgs(ActionArgs):
    pass


class SourceGetArgs(ActionArgs):
    source: str = Field(min_length=1, description="Script URL or original path part")
    line: int | None = Field(None, ge=1, description="Line (1-based)")


class PointArgs(ActionArgs):
    source: str = Field(min_length=1, description="Original path or script URL part")
    line: int = Field(ge=1, description="Line (1-based)")
    condition: str | None = Field(None, max_length=2000, description="JS condition")


class LogpointArgs(PointArgs):
    expression: str = Field(min_length=1, max_length=2000, description="JS to log (a, b: both)")
    max_hits: int = Field(100, ge=1, le=10_000, description="Hit cap")


class SnapshotArgs(PointArgs):
    max_hits: int = Field(10, ge=1, le=1000, description="Hit cap")


class ExceptionsArgs(ActionArgs):
    mode: Literal["uncaught", "all", "off"] = Field(description="Exceptions to capture")


class ClearArgs(ActionArgs):
    id: int | None = Field(None, ge=1, description="Point id (omit: all yours)")


async def _points(ctx: ToolContext) -> tuple[PageHandle, DebugPoints]:
    from mcp_server.evidence.debug_points import debug_of, sync_sessions

    page = await ctx.captured_page()
    points = debug_of(page)
    await sync_sessions(page, points)
    return page, points


async def _scripts(ctx: ToolContext, page: PageHandle) -> list[tuple[str, Any]]:
    """(script URL, the resolver of the session that has it) for the page and its iframes."""
    from mcp_server.evidence.debug_points import page_scripts, page_sessions, resolver_for

    out: list[tuple[str, Any]] = []
    for session in page_sessions(page):
        resolver = resolver_for(page, session, source_map_policy(ctx))
        out += [(url, resolver) for url in await page_scripts(session) if url not in {u for u, _ in out}]
    return out


@action(S, "source_list", NoArgs, read_only=True, lock="page")
async def source_list(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """Page scripts and the original sources their maps name."""
    page = await ctx.captured_page()
    scripts = []
    for url, resolver in (await _scripts(ctx, page))[: render.SCRIPTS_MAX]:
        _text, smap, error = await resolver.script_and_map(url, budget_s=BUDGET_S)
        scripts.append(render.script_row(url, smap, error))
    text, data = render.source_listing(scripts, page.url)
    return ActionResult(text=text, data=data)


@action(S, "source_get", SourceGetArgs, read_only=True, lock="page")
async def source_get(ctx: ToolContext, args: SourceGetArgs) -> ActionResult:
    """Numbered lines of a script or original source."""
    page = await ctx.captured_page()
    found: tuple[str, str, str | None] | None = None
    for url, resolver in await _scripts(ctx, page):
        text, smap, _ = await resolver.script_and_map(url, budget_s=BUDGET_S)
        if smap is not None and not smap._sections:
            for i, name in enumerate(smap.sources):
                if args.source in name and i < len(smap.sources_content) and smap.sources_content[i] is not None:
                    found = (name, smap.sources_content[i] or "", smap.map_url or url)
                    break
        if found is None and args.source in url and text:
            found = (url, text, None)
        if found is not None:
            break
    if found is None:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"no script or embedded original source matches {args.source!r}",
            hint="source_list shows what the page has (an original without sourcesContent cannot be shown)",
        )
    text, data = render.source_lines(found[0], found[1], args.line, AROUND, page.url, map_url=found[2])
    return ActionResult(text=text, data=data)


async def _add_point(ctx: ToolContext, args: LogpointArgs | SnapshotArgs, kind: str) -> ActionResult:
    from mcp_server.evidence.debug_points import locate, original_to_generated

    expression = getattr(args, "expression", None)
    refuse_code_in(expression, "expression", evaluate_enabled=ctx.settings.evaluate_enabled)
    refuse_code_in(args.condition, "condition", evaluate_enabled=ctx.settings.evaluate_enabled)
    page, points = await _points(ctx)
    where = await locate(page, args.source, args.line, source_map_policy(ctx))
    same = next(
        (p for p in points.points.values() if (p.url, p.line, p.column) == (where.url, where.line, where.column)), None
    )
    if same is not None and same.owner != current_caller():
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"point {same.id} ({same.kind}) of another session is already on this line: one point per place",
            hint="its hits are console entries here too (console_list); or pick another line",
            id=same.id,
        )
    if same is not None:
        # Chrome keeps one breakpoint per place: the second one would fail with its raw text
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"point {same.id} ({same.kind}) is already on this line: one point per place",
            hint=f'debug_clear id={same.id} first, or log several values in one logpoint (expression="a, b")',
            id=same.id,
        )
    renamed = original_to_generated(where, " ".join(filter(None, (expression, args.condition))))
    point = Point(
        id=points.next_id(),
        kind=kind,
        url=where.url,
        line=where.line,
        column=where.column,
        max_hits=args.max_hits,
        original=where.original,
        expression=expression,
        condition=args.condition,
        generated_expression=translate_identifiers(expression, renamed) if expression else None,
        generated_condition=translate_identifiers(args.condition, renamed) if args.condition else None,
        labels=split_top_level(expression) if expression else [],
        owner=current_caller(),
    )
    try:
        await points.add(point)
    except CDPException as exc:
        raise ToolFailure(ErrorCode.CDP_ERROR, f"the point could not be set: {exc}", hint="debug_list") from None
    text, data = render.point_added(point, renamed, page.url)
    return ActionResult(text=text, data=data)


@action(S, "debug_logpoint", LogpointArgs, lock="page")
async def debug_logpoint(ctx: ToolContext, args: LogpointArgs) -> ActionResult:
    """Log values each time a line runs, never pausing (console type logpoint)."""
    return await _add_point(ctx, args, "logpoint")


@action(S, "debug_snapshot", SnapshotArgs, lock="page")
async def debug_snapshot(ctx: ToolContext, args: SnapshotArgs) -> ActionResult:
    """Capture stack and locals when a line runs, resuming at once (type snapshot)."""
    return await _add_point(ctx, args, "snapshot")


@action(S, "debug_exceptions", ExceptionsArgs, lock="page")
async def debug_exceptions(ctx: ToolContext, args: ExceptionsArgs) -> ActionResult:
    """Capture locals where exceptions are thrown (on their pageerror)."""
    _page, points = await _points(ctx)
    mode = "none" if args.mode == "off" else args.mode
    try:
        await points.set_exceptions(mode, owner=current_caller())
    except CDPException as exc:
        raise ToolFailure(ErrorCode.CDP_ERROR, f"could not set the exception mode: {exc}") from None
    text, data = render.exceptions_set(args.mode, points)
    return ActionResult(text=text, data=data)


@action(S, "debug_list", NoArgs, read_only=True, lock="read")
async def debug_list(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """Debug points of the page and their hits."""
    from mcp_server.evidence.debug_points import existing

    page = await ctx.captured_page()
    text, data = render.point_listing(existing(page), page.url, current_caller())
    return ActionResult(text=text, data=data)


@action(S, "debug_clear", ClearArgs, lock="page", destructive=True)
async def debug_clear(ctx: ToolContext, args: ClearArgs) -> ActionResult:
    """Remove a debug point (no id: all of this session's)."""
    from mcp_server.evidence.debug_points import existing

    page = await ctx.captured_page()
    points = existing(page)
    caller = current_caller()
    if args.id is not None:
        point = points.points.get(args.id) if points is not None else None
        if point is None:
            raise ToolFailure(ErrorCode.ENTRY_NOT_FOUND, f"no debug point {args.id}", hint="debug_list shows the ids")
        if point.owner != caller:
            raise ToolFailure(
                ErrorCode.NOT_ALLOWED,
                f"debug point {args.id} belongs to another session: only that session can remove it",
                hint="debug_list shows this session's points",
                id=args.id,
            )
    if points is None:
        removed = 0
    elif args.id is not None:
        removed = await points.remove(args.id)
    else:
        removed = await points.remove_owned(caller)
    text, data = render.points_removed(removed, points, caller)
    return ActionResult(text=text, data=data)
