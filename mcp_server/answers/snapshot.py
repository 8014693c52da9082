"""A snapshot as the model reads it in JSON: one row per text line, the same facts at the same size.

The text line ``[uid=12] textbox "Ragione sociale" value="ACME SRL" required`` becomes the row
``["textbox", "Ragione sociale", 12, {"value": "ACME SRL", "states": ["required"]}]``: role,
name, uid (absent for plain text and frame headers), then what the line has beyond them
(``field``, ``value``, ``states``, ``level``, ``href``, ``options``, ``depth`` when indented). Names,
values and texts are cut exactly where the text cuts them, so neither rendering says more.
"""

from __future__ import annotations

from typing import Any

from cdp_core.recorders.accessibility.format import (
    MAX_FIELD_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_VALUE_CHARS,
    Snapshot,
    SnapshotLine,
    clip_message,
    shown_name,
)

__all__ = ["LINE_COLUMNS", "snapshot_data", "diff_data", "line_row"]

LINE_COLUMNS = ["role", "name", "uid"]
#: Where the text cuts an option's label and value, and a link's href (accessibility.format.render_line).
OPTION_CHARS = 60
HREF_CHARS = 300
DIFF_LINES = 200
CUT_HINT = (
    "narrow with find (a text the lines hold), selector, frame, interactive_only or max_depth,"
    " or raise max_lines/max_chars"
)


def _clip(text: str, limit: int) -> str:
    """The text as ``accessibility.format.quote`` shows it, without the quotes."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _option(opt: dict[str, Any]) -> Any:
    label = _clip(opt.get("label", ""), OPTION_CHARS)
    value = opt.get("value")
    if (value is None or value == opt.get("label")) and not opt.get("selected"):
        return label
    out: dict[str, Any] = {"label": label}
    if value is not None and value != opt.get("label"):
        out["value"] = _clip(value, OPTION_CHARS)
    if opt.get("selected"):
        out["selected"] = True
    return out


def line_row(line: SnapshotLine) -> list[Any]:
    """One snapshot line as ``[role, name, uid?, {more}?]``."""
    row: list[Any] = [line.role, shown_name(line)]
    if line.uid is not None:
        row.append(line.uid)
    more: dict[str, Any] = {}
    if line.field is not None:
        more["field"] = _clip(line.field, MAX_FIELD_CHARS)
    if line.value is not None:
        more["value"] = _clip(line.value, MAX_VALUE_CHARS)
    if line.level is not None:
        more["level"] = line.level
    if line.states:
        more["states"] = list(line.states)
    if line.error:
        more["error"] = clip_message(line.error)
    if line.href is not None:
        more["href"] = _clip(line.href, HREF_CHARS)
    if line.match is not None:
        more["match"] = _clip(line.match, MAX_MESSAGE_CHARS)
    if line.options:
        more["options"] = [_option(opt) for opt in line.options]
        if line.options_total > len(line.options):
            more["optionsMore"] = line.options_total - len(line.options)
    if line.depth:
        more["depth"] = line.depth
    if more:
        if line.uid is None:
            row.append(None)  # placeholder: the object after it is not a uid
        row.append(more)
    return row


def _cut(snap: Snapshot) -> dict[str, Any]:
    """What the text says after the lines: the cut, its hint, and the notes."""
    out: dict[str, Any] = {}
    if snap.omitted:
        out["omitted"] = snap.omitted
        out["cutBy"] = snap.cut_by
        out["hint"] = CUT_HINT
    if snap.notes:
        out["notes"] = list(snap.notes)
    return out


def snapshot_data(snap: Snapshot) -> dict[str, Any]:
    """The structured answer of a snapshot: page, rows of lines, what was cut."""
    return {
        "page": {"title": snap.title, "url": snap.url},
        "columns": LINE_COLUMNS,
        "lines": [line_row(line) for line in snap.lines],
        **_cut(snap),
    }


def diff_data(snap: Snapshot, diff: dict[str, Any]) -> dict[str, Any]:
    """The structured answer of ``diff=true``: the same lines ``render_diff`` prints, in the same cap."""
    out: dict[str, Any] = {"page": {"title": snap.title, "url": snap.url}, "baseline": diff["baseline"]}
    if not diff["baseline"]:
        return {**out, **_cut(snap)}
    budget = DIFF_LINES
    changed = [[c["before"], c["after"]] for c in diff["changed"]][:budget]
    budget -= len(changed)
    added = diff["added"][:budget]
    budget -= len(added)
    removed = diff["removed"][: max(0, budget)]
    more = len(diff["changed"]) + len(diff["added"]) + len(diff["removed"]) - DIFF_LINES
    out.update(changed=changed, added=added, removed=removed)
    if more > 0:
        out["more"] = more
    return {**out, **_cut(snap)}
