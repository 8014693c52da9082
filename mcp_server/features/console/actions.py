"""The console timeline as the agent reads it: console_list, console_get, console_clear.

console.*, uncaught exceptions and browser-side messages arrive merged in one timeline
(cdp_core's ConsoleRecorder); stacks are mapped through source maps where the page has them,
and a clear hides entries from the lists without losing them from the recorder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from cdp_core.recorders.console.events import CONSOLE_TYPES, TYPE_ALIASES
from cdp_core.recorders.network import EntryNotFound
from mcp_server.answers.console import console_listing, console_record
from mcp_server.answers.listing import LOCATED_TYPES
from mcp_server.answers.models import ClearedAnswer, EntryAnswer, ListAnswer
from mcp_server.evidence.capture import console_of
from mcp_server.evidence.console_requests import link_requests
from mcp_server.evidence.reading import LIST_MAX, closed_note, not_found, source_map_notes, source_map_policy
from mcp_server.evidence.stacks import map_console_entries
from mcp_server.server.registry import ActionArgs, ActionResult, NoArgs, action
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from mcp_server.server.context import ToolContext


S = "browser_session"


#: Stack frames per entry in a console list with include_stack (console_get shows them all).
STACK_IN_LIST = 5


class ConsoleListArgs(ActionArgs):
    types: list[str] | None = Field(None, description="error, warning, log, pageerror, issue, logpoint, snapshot...")
    limit: int = Field(50, ge=1, le=LIST_MAX, description="Max entries (newest; with since_id: the next)")
    include_stack: bool = Field(False, description="Include stack frames")
    since_id: int | None = Field(None, ge=0, description="After this id (0: from the oldest)")


class ConsoleGetArgs(ActionArgs):
    id: int = Field(description="Entry id")
    include_stack: bool = Field(True, description="Include stack frames")


def check_console_types(types: list[str] | None) -> None:
    """Refuse a type no entry can have (``errors``, ``warn ``): it would match nothing, silently."""
    known = set(CONSOLE_TYPES) | set(TYPE_ALIASES)
    unknown = [t for t in types or [] if t not in known]
    if unknown:
        near = [t.rstrip("s") for t in unknown if t.rstrip("s") in known]
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"unknown console type{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown[:5]))[:200]}"
            + (f" (did you mean {', '.join(near)}?)" if near else ""),
            hint=f"types are: {', '.join(CONSOLE_TYPES)}",
        )


@action(S, "console_list", ConsoleListArgs, read_only=True, lock="read", result=ListAnswer)
async def console_list(ctx: ToolContext, args: ConsoleListArgs) -> ActionResult:
    """Console messages, uncaught errors and browser log entries of the selected page, oldest first."""
    check_console_types(args.types)
    page = await ctx.captured_page()
    recorder = console_of(page)
    await recorder.issues.settle()  # DevTools issues name their element a moment after they arrive
    # The recorder's own entries, not copies: the listing only reads them, and a source map's
    # ``original`` goes on a copy (map_console_entries copy=True).
    sel = recorder.query(types=args.types, limit=args.limit, since_id=args.since_id, copy=False)
    # The list shows where errors and warnings happened (every entry's place when stacks are asked).
    located = None if args.include_stack else LOCATED_TYPES
    notes = await map_console_entries(
        page, sel.entries, source_map_policy(ctx), stack=args.include_stack, copy=True, located=located
    )
    link_requests(sel.entries, page.data.get("network"))  # a load error names its own request
    text, data = console_listing(
        sel,
        page_url=page.url,
        since=recorder.captured_since,
        evicted=recorder.evicted,
        since_id=args.since_id,
        stack=STACK_IN_LIST if args.include_stack else 0,
    )
    text += source_map_notes(data, notes)
    text += closed_note(page, data)
    return ActionResult(text=text, data=data, plain=True)  # strings and numbers from the recorder


@action(S, "console_get", ConsoleGetArgs, read_only=True, lock="read", result=EntryAnswer)
async def console_get(ctx: ToolContext, args: ConsoleGetArgs) -> ActionResult:
    """One console entry in full: time, location, page and frame, arguments, stack."""
    page = await ctx.captured_page()
    recorder = console_of(page)
    try:
        entry = recorder.get(args.id, include_stack=args.include_stack)
    except EntryNotFound as exc:
        raise not_found(exc, "console") from None
    notes = await map_console_entries(page, [entry], source_map_policy(ctx))
    linked = [entry]
    link_requests(linked, page.data.get("network"))
    text, record = console_record(linked[0], page.url, recorder.captured_since)
    data = {"capturedSince": recorder.captured_since, "entry": record}
    text += source_map_notes(data, notes)
    return ActionResult(text=text + closed_note(page, data), data=data)


@action(S, "console_clear", NoArgs, lock="page", destructive=True, result=ClearedAnswer)
async def console_clear(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """Hide the selected page's console entries from this session (capture continues)."""
    cleared = console_of(await ctx.page()).clear()
    # other sessions on this server still see them (issue 46): the clear is this session's view
    return ActionResult(text=f"Cleared {cleared} console entries from this session's view", data={"cleared": cleared})
