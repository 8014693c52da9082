"""Models of what actions answer, for the tools' ``outputSchema``: the real fields, rows included.

Clients validate ``structuredContent`` against ``outputSchema`` (the model never reads it), so
these models say what the lean answers really carry: optional keys are absent rather than
null (mcp_server/answers/lean.py), lists are rows whose positions are typed with ``prefixItems``.
Each action declares its model next to its code (``@action(..., result=Model)``); the shared
pieces live here.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import WithJsonSchema

from mcp_server.server.registry import Answer

__all__ = [
    "row_schema",
    "ConsoleRow",
    "NetworkRow",
    "SnapshotRow",
    "PageBrief",
    "ListAnswer",
    "BrowserState",
]

_INT = {"type": "integer"}
_STR = {"type": "string"}
_REST = {"type": "object", "description": "the row's other, sparse fields"}


def row_schema(*columns: dict[str, Any], required: int | None = None, description: str = "") -> WithJsonSchema:
    """The schema of a row type, ``Annotated[list[Any], row_schema(...)]``: ``columns`` in order (the
    first ``required`` always there), then an optional object."""
    n = len(columns) if required is None else required
    schema = {
        "type": "array",
        "prefixItems": list(columns),
        "items": _REST,
        "minItems": n,
        "maxItems": len(columns) + 1,
    }
    if description:
        schema["description"] = description
    return WithJsonSchema(schema)


ConsoleRow = Annotated[
    list[Any],
    row_schema(_INT, _STR, _STR, description="[id, type, text, {at, request, page, frame, replayed, stack}?]"),
]
NetworkRow = Annotated[
    list[Any],
    row_schema(
        _INT,
        _STR,
        {"type": ["integer", "string"], "description": "HTTP status, or FAILED <reason>, or pending"},
        _STR,
        _STR,
        description="[id, method, status, type, url, {postDataPreview, redirectedFrom, failed, page, ws}?]",
    ),
]
SnapshotRow = Annotated[
    list[Any],
    row_schema(
        _STR,
        _STR,
        {"type": ["integer", "null"]},
        required=2,
        description="[role, name, uid?, {value, states, level, href, options, optionsMore, depth}?]",
    ),
]


class PageBrief(Answer):
    page_id: int | None = None
    stable_page_id: str
    title: str = ""
    url: str = ""
    selected: bool = False
    closed: bool = False
    capturedSince: str | None = None
    target: str | None = None
    activeFrame: str | None = None
    emulation: dict[str, Any] | None = None
    #: a JavaScript dialog blocks the tab: ``{type, message, byUser?, beforeAttach?}``
    dialog: dict[str, Any] | None = None


class ListAnswer(Answer):
    """A console or network listing: one page of rows and what lies around it."""

    page: str | None = None
    capturedSince: str | None = None
    total: int
    earlier: int = 0
    after: int = 0
    evicted: int = 0
    #: values every listed row shares (console ``type``; network ``method``, ``status``, ``type``),
    #: left out of ``columns``
    shared: dict[str, str | int] = {}
    columns: list[str] = []
    entries: list[Any] = []
    hint: str | None = None
    pageClosed: bool = False


class BrowserState(Answer):
    activeTarget: str | None = None
    defaultTarget: str | None = None
    launch: dict[str, Any] = {}
    cdp: dict[str, Any] = {}
    currentPage: PageBrief | None = None
    currentPageError: dict[str, Any] | None = None
    pageCount: int | None = None
    #: JavaScript dialogs open in the active browser's tabs: ``{stable_page_id, type, message, byUser?}``
    dialogs: list[dict[str, Any]] = []


class EntryAnswer(Answer):
    """One console or network record in full (``*_get``)."""

    capturedSince: str | None = None
    entry: dict[str, Any]
    hint: str | None = None
    pageClosed: bool = False


class ClearedAnswer(Answer):
    cleared: int


class PagesAnswer(Answer):
    """A tab list (list_pages, use_launch_browser): target and capture start said once."""

    target: str | None = None
    capturedSince: str | None = None
    pages: list[PageBrief] = []
    startedAt: str | None = None
