"""``browser_session`` action ``snapshot``, and the per-page state other actions share.

The snapshot itself is built in :mod:`cdp_core.recorders.accessibility`; this module keeps
the per-page state (``page.data["snapshot"]``: the :class:`UidRegistry` with the previous
snapshot for diffs) and phrases the answers. ``wait_for`` is in :mod:`.wait`,
``handle_dialog`` in :mod:`.dialog`; the dialog helpers other actions check first (an
``alert()`` freezes the page, see :mod:`mcp_server.evidence.dialogs`) are re-exported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field

from cdp_core.recorders.accessibility import SnapshotOptions
from cdp_core.recorders.accessibility.format import diff_snapshots, render_diff
from mcp_server.answers.models import SnapshotRow
from mcp_server.answers.snapshot import CUT_HINT, diff_data, snapshot_data
from mcp_server.page.snapshots import snapshot_page
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action

if TYPE_CHECKING:
    pass


S = "browser_session"


# -- snapshot ---------------------------------------------------------------------------------


class SnapshotAnswer(Answer):
    """Lines as rows (``columns``), or with ``diff`` the changed lines as text."""

    page: dict[str, str]
    columns: list[str] = []
    lines: list[SnapshotRow] = []
    baseline: bool = False
    changed: list[list[str]] = []
    added: list[str] = []
    removed: list[str] = []
    more: int | None = None
    omitted: int | None = None
    cutBy: str | None = None
    hint: str | None = None
    notes: list[str] = []


class SnapshotArgs(ActionArgs):
    interactive_only: bool = Field(False, description="Only controls (with their rows), headings, alerts")
    max_depth: int | None = Field(None, ge=0, le=200, description="Deepest level shown")
    selector: str | None = Field(None, description="CSS selector: only this subtree")
    frame: str | None = Field(None, description="Frame ref (f1), id, name or URL part")
    max_lines: int = Field(400, ge=1, le=20000, description="Cap on snapshot lines")
    max_chars: int = Field(20000, ge=100, le=500000, description="Cap on returned text")
    include_urls: bool = Field(False, description="Add href of links")
    diff: bool = Field(False, description="Changes since the last such snapshot")
    find: str | None = Field(None, max_length=200, description="Only lines holding this text")


#: Snapshot kinds (option sets) whose last snapshot is kept per page as a diff baseline.
MAX_DIFF_BASES = 4


@action(
    S,
    "snapshot",
    SnapshotArgs,
    read_only=True,
    lock="page",
    result=SnapshotAnswer,
    takes="seconds on a very large page; progress: building the snapshot",
)
async def snapshot(ctx: ToolContext, args: SnapshotArgs) -> ActionResult:
    """Page as compact lines `[uid=N] role "name" value=... states`; act on uids with browser_interact."""
    page = await ctx.page()
    options = SnapshotOptions(
        interactive_only=args.interactive_only,
        max_depth=args.max_depth,
        selector=args.selector,
        frame=args.frame,
        max_lines=args.max_lines,
        max_chars=args.max_chars,
        include_urls=args.include_urls,
        find=args.find,
    )
    # A diff compares snapshots taken with the same options: against an interactive_only
    # snapshot, every text line of a full one would be "added" though nothing changed.
    kind = (
        args.interactive_only,
        args.max_depth,
        args.selector,
        args.frame,
        args.max_lines,
        args.max_chars,
        args.include_urls,
        args.find,
    )
    bases: dict[tuple[Any, ...], Any] = page.data.setdefault("snapshot_bases", {})
    previous = bases.pop(kind, None)
    ctx.status("building the accessibility snapshot")
    snap = await snapshot_page(ctx, page, options)
    # The header is the page's to set (history.replaceState, document.title): held to max_chars too.
    snap.url, snap.title = _cut_header(snap.url, args.max_chars), _cut_header(snap.title, args.max_chars)
    bases[kind] = snap
    while len(bases) > MAX_DIFF_BASES:
        del bases[next(iter(bases))]  # the kind used least recently
    if args.diff:
        diff = diff_snapshots(previous, snap)
        header = "\n".join(snap.header())
        data = diff_data(snap, diff)
        if previous is None and len(bases) > 1:
            changes = (
                "(no earlier snapshot with these options: everything is new; a diff compares snapshots taken"
                " with the same interactive_only, selector, frame, find, max_depth, max_lines, max_chars, include_urls)"
            )
            data["notes"] = [changes[1:-1], *data.get("notes", [])]
        else:
            changes = render_diff(diff)
        text = f"{header}\nChanges since the previous snapshot:\n{changes}"
        if snap.omitted:
            text += f"\n[{snap.omitted} more lines cut by {snap.cut_by}; {CUT_HINT}]"
        text += "".join(f"\n[{note}]" for note in snap.notes)
        return ActionResult(text=text, data=data)
    return ActionResult(text=snap.text(), data=snapshot_data(snap))


def _cut_header(value: str, max_chars: int) -> str:
    """A page-set URL or title cut to what max_chars allows (at least 200, at most 2000 characters)."""
    limit = max(200, min(max_chars, 2000))
    if len(value) <= limit:
        return value
    return f"{value[:limit]}…[{len(value)} chars]"
