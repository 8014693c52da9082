"""What both snapshot sources share (snapshot step 2): options, role tables, per-frame lines, stitching.

A snapshot is read frame by frame, by the in-page collector
(:mod:`~cdp_core.recorders.accessibility.collector`) or, where that cannot run, from Chrome's
accessibility tree (:mod:`~cdp_core.recorders.accessibility.axtree`). Each gives a
:class:`FrameLines`: its lines, with a :class:`FramePlaceholder` where an ``<iframe>`` sits.
:func:`stitch` then puts every child frame's lines, indented under a ``Frame f1 ...`` header,
at the place of its ``<iframe>``. The role tables here decide which elements become lines;
the in-page collector (``snapshot_js/*.js``) carries the same tables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..uids import FrameInfo
from .format import SnapshotLine, quote

__all__ = [
    "SnapshotOptions",
    "SelectorNotFound",
    "FrameNotFound",
    "FramePlaceholder",
    "FrameLines",
    "stitch",
    "drop_rows_without_controls",
    "INTERACTIVE_ROLES",
    "ALWAYS_ROLES",
    "NAMED_ROLES",
]


class SelectorNotFound(ValueError):
    """``selector`` matched nothing (or is not a valid CSS selector) in the chosen frame."""


class FrameNotFound(ValueError):
    """``frame`` names no frame of the page."""


@dataclass
class SnapshotOptions:
    interactive_only: bool = False
    max_depth: int | None = None
    selector: str | None = None
    frame: str | None = None
    max_lines: int | None = None
    max_chars: int | None = None
    include_urls: bool = False
    max_options: int = 12
    #: only the lines holding this text, with the lines they hold and that hold them (find.py)
    find: str | None = None
    #: only what the page tells the person now (alerts, status, toasts, errors, invalid fields), all at depth 0
    messages_only: bool = False
    #: "page": the in-page collector, Chrome's accessibility tree where it cannot run;
    #: "ax": Chrome's accessibility tree only (the reference the collector is tested against).
    engine: str = "page"


#: Roles an agent acts on: they get ``interactive`` and survive ``interactive_only``.
INTERACTIVE_ROLES = frozenset(
    {
        "button",
        "link",
        "textbox",
        "searchbox",
        "combobox",
        "listbox",
        "option",
        "checkbox",
        "radio",
        "switch",
        "slider",
        "spinbutton",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "tab",
        "treeitem",
        "clickable",
        "disclosure",
        "date",
        "datetime",
        "time",
    }
)
#: Always shown (also with interactive_only): structure and what went wrong.
ALWAYS_ROLES = frozenset({"heading", "alert", "alertdialog", "dialog", "status", "log", "tooltip", "marquee"})
#: Shown when they carry a name (a named region/table/image tells where you are).
NAMED_ROLES = frozenset(
    {
        "navigation",
        "main",
        "banner",
        "contentinfo",
        "complementary",
        "region",
        "form",
        "search",
        "group",
        "radiogroup",
        "list",
        "table",
        "grid",
        "tree",
        "tablist",
        "tabpanel",
        "menu",
        "menubar",
        "toolbar",
        "figure",
        "img",
        "image",
        "article",
        "progressbar",
        "meter",
    }
)


@dataclass
class FramePlaceholder:
    """Where a child frame's lines go: the depth of its ``<iframe>`` and how its source knows that element.

    ``owner`` is ``("b", backendNodeId)`` from the accessibility tree, ``("w", key)`` from the
    in-page collector.
    """

    depth: int
    owner: tuple[str, int]


@dataclass
class FrameLines:
    """One frame read by one source: its lines (placeholders at iframes), title and what was cut."""

    info: FrameInfo
    lines: list[SnapshotLine | FramePlaceholder]
    title: str = ""
    #: non-essential lines the source itself left out for ``max_lines``
    omitted: int = 0
    #: the source's name for this frame's ``<iframe>`` element in the parent frame (see FramePlaceholder.owner)
    owner: tuple[str, int] | None = None
    source: str = "page"
    extra: dict[str, Any] = field(default_factory=dict)


def stitch(
    root: FrameLines,
    children_of: Callable[[FrameLines], list[FrameLines]],
) -> tuple[list[SnapshotLine], int]:
    """The lines of ``root`` with each child frame's lines in place of its placeholder.

    ``children_of(frame)`` gives the frames whose parent is ``frame``; a child is matched to a
    placeholder by ``owner``. Returns (lines, non-essential lines the sources left out).
    """
    out: list[SnapshotLine] = []
    omitted = 0

    def emit(frame: FrameLines, offset: int) -> None:
        nonlocal omitted
        omitted += frame.omitted
        by_owner = {child.owner: child for child in children_of(frame) if child.owner is not None}
        for line in frame.lines:
            if isinstance(line, FramePlaceholder):
                child = by_owner.pop(line.owner, None)
                if child is None:
                    continue
                depth = line.depth + offset
                header = f"Frame {child.info.ref}"
                if child.title:
                    header += f" {quote(child.title, 80)}"
                header += f" {child.info.url}"
                out.append(SnapshotLine(role="frame", name=header + ":", frame=child.info.ref, depth=depth))
                emit(child, depth + 1)
                continue
            if offset:
                line.depth += offset
            out.append(line)

    emit(root, 0)
    return out, omitted


def drop_rows_without_controls(lines: list[SnapshotLine | FramePlaceholder]) -> list[SnapshotLine | FramePlaceholder]:
    """For ``interactive_only``: the table rows that hold no control (nor an iframe) go.

    A row stays as its controls' context: 1,500 "Edit" links say which order each edits only
    beside their rows. What was inside a dropped row moves up a level. The in-page collector
    does the same (``dropRowsWithoutControls`` in ``walk.js``).
    """
    out: list[SnapshotLine | FramePlaceholder] = []
    for i, line in enumerate(lines):
        if not isinstance(line, SnapshotLine) or line.role != "row":
            out.append(line)
            continue
        end = i + 1
        holds = False
        while end < len(lines) and lines[end].depth > line.depth:
            inner = lines[end]
            if isinstance(inner, FramePlaceholder) or inner.interactive:
                holds = True
            end += 1
        if holds:
            out.append(line)
        else:
            for inner in lines[i + 1 : end]:
                inner.depth -= 1
    return out
