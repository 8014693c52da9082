"""Reading what the recorders captured: a missing entry, a closed tab's capture, source-map notes.

Shared by the console and network features (and the legacy lists): each says these facts the
same way in both renderings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cdp_core.recorders.network import EntryNotFound
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from mcp_server.server.context import ToolContext
    from targets import PageHandle
    from targets.policies.policy import UrlPolicy

__all__ = ["LIST_MAX", "closed_note", "not_found", "source_map_notes", "source_map_policy"]

#: The most entries one console or network list answers.
LIST_MAX = 5000


def not_found(exc: EntryNotFound, what: str) -> ToolFailure:
    return ToolFailure(ErrorCode.ENTRY_NOT_FOUND, str(exc), hint=f"call {what}_list for the ids that exist")


def source_map_policy(ctx: ToolContext) -> UrlPolicy:
    """The launch browser's URL policy (source maps outside ALLOWED_URLS are not fetched)."""
    return ctx.manager.launch.policy


def source_map_notes(data: dict[str, Any], notes: list[str]) -> str:
    """Maps that could not be read: said once per answer, in both renderings."""
    if not notes:
        return ""
    data["sourceMapNotes"] = notes
    return "\n" + "\n".join(f"source map: {n}" for n in notes)


def closed_note(page: PageHandle, data: dict[str, Any]) -> str:
    """Mark an answer read from a closed tab's capture (the entries stay readable after a close or crash)."""
    if not page.closed:
        return ""
    data["pageClosed"] = True
    return f"\n(page {page.stable_page_id} is closed: these entries were captured before it went away)"
