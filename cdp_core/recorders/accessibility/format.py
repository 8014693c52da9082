"""Snapshot lines as data and as text; budgets (max_lines/max_chars) and diffs.

Pure logic, no CDP: :mod:`cdp_core.recorders.accessibility` produces
:class:`SnapshotLine` objects from the browser, this module turns them into the compact
text an agent reads (``[uid=12] textbox "Ragione sociale" value="ACME SRL"``), cuts it to
a budget while always keeping alerts and errors, and compares two snapshots of a page.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "SnapshotLine",
    "Snapshot",
    "render_line",
    "apply_budget",
    "budget_rendered",
    "diff_snapshots",
    "quote",
    "clip",
    "clip_message",
    "shown_name",
    "MESSAGE_ROLES",
    "MAX_MESSAGE_CHARS",
]

MAX_NAME_CHARS = 120
MAX_VALUE_CHARS = 120
MAX_TEXT_CHARS = 240
#: A form field's name shown for a control without an accessible name.
MAX_FIELD_CHARS = 60

#: Roles whose lines survive every budget: what went wrong must always be visible.
ESSENTIAL_ROLES = frozenset({"alert", "alertdialog", "error", "toast", "notice"})
#: Lines that say what the page tells the person (an alert, a status, a toast, an error message):
#: their text is shown whole up to MAX_MESSAGE_CHARS, since the words that matter ("#1062 -
#: Duplicate entry …") often come after a heading and the statement that failed.
MESSAGE_ROLES = frozenset({"alert", "alertdialog", "error", "status", "log", "toast", "notice"})
#: A message's cap: long enough for a database error after its boilerplate, short of a page.
MAX_MESSAGE_CHARS = 600
#: What the in-page collector sends of a message at most (its length is known up to here).
_MESSAGE_SENT = 2000


def clip(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clip_message(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """A message on one line, cut to ``limit`` saying how long it was (the agent knows it is not whole)."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    total = f"{_MESSAGE_SENT}+" if len(text) >= _MESSAGE_SENT else str(len(text))
    return f"{text[: limit - 1]}…[cut at {limit} of {total} chars]"


def quote(text: str, limit: int = MAX_NAME_CHARS, *, message: bool = False) -> str:
    """A double-quoted, single-line, bounded rendering of ``text`` (``message``: cut as :func:`clip_message`)."""
    text = clip_message(text, limit) if message else clip(text, limit)
    if "\\" in text or '"' in text:
        text = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + text + '"'


@dataclass
class SnapshotLine:
    """One line of a snapshot. ``uid`` is None for plain text and frame headers."""

    role: str
    name: str = ""
    uid: int | None = None
    value: str | None = None
    states: list[str] = field(default_factory=list)
    frame: str = "main"
    depth: int = 0
    level: int | None = None
    href: str | None = None
    options: list[dict[str, Any]] | None = None  # [{value, label, selected}]
    options_total: int = 0
    interactive: bool = False
    #: the form field's ``name`` (or id) when the control has no accessible name: a bare input of a
    #: legacy table form, whose label is a text in the cell beside it, still says which field it is
    field: str | None = None
    #: a text inside a message (an alertdialog's): shown whole like the message
    whole: bool = False
    #: what an invalid field says is wrong (its aria-errormessage, the browser's validation message)
    error: str | None = None
    #: ``find``: the matched text with its context, when the line's shown name does not show it
    match: str | None = None

    @property
    def essential(self) -> bool:
        return self.role in ESSENTIAL_ROLES or "invalid" in self.states

    @property
    def message(self) -> bool:
        """Shown whole (up to MAX_MESSAGE_CHARS): a message line, or a text inside one."""
        return self.whole or self.role in MESSAGE_ROLES

    @property
    def on_screen(self) -> bool:
        """What the page tells the person now: a message with text, or an invalid field."""
        return (self.role in MESSAGE_ROLES and bool(self.name.strip())) or "invalid" in self.states

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "uid": self.uid,
            "role": self.role,
            "name": self.name,
            "value": self.value,
            "states": list(self.states),
            "frame": self.frame,
            "depth": self.depth,
        }
        if self.level is not None:
            data["level"] = self.level
        if self.href is not None:
            data["href"] = self.href
        if self.field is not None:
            data["field"] = self.field
        if self.error is not None:
            data["error"] = self.error
        if self.match is not None:
            data["match"] = self.match
        if self.options is not None:
            data["options"] = self.options
            data["optionsTotal"] = self.options_total
        return data


def shown_name(line: SnapshotLine) -> str:
    """The line's name as its text shows it (cut where the text cuts it), without the quotes."""
    if line.role == "frame":
        return line.name
    if line.message:
        return clip_message(line.name)
    return clip(line.name, MAX_TEXT_CHARS if line.role == "text" else MAX_NAME_CHARS)


def render_line(line: SnapshotLine) -> str:
    """The text of one line, indented two spaces per depth; options go on a second line."""
    pad = "  " * line.depth
    if line.role == "frame":
        return f"{pad}{line.name}"
    if line.role == "text":
        shown = quote(line.name, MAX_MESSAGE_CHARS, message=True) if line.whole else quote(line.name, MAX_TEXT_CHARS)
        matched = f" match={quote(line.match, MAX_MESSAGE_CHARS)}" if line.match is not None else ""
        return f"{pad}text {shown}{matched}"
    parts: list[str] = []
    if line.uid is not None:
        parts.append(f"[uid={line.uid}]")
    parts.append(line.role)
    if line.name:
        parts.append(quote(line.name, MAX_MESSAGE_CHARS, message=True) if line.message else quote(line.name))
    elif line.field:
        parts.append(f"field={quote(line.field, MAX_FIELD_CHARS)}")
    if line.value is not None:
        parts.append(f"value={quote(line.value, MAX_VALUE_CHARS)}")
    if line.level is not None:
        parts.append(f"level={line.level}")
    parts.extend(line.states)
    if line.error:
        parts.append(f"error={quote(line.error, MAX_MESSAGE_CHARS, message=True)}")
    if line.href is not None:
        parts.append(f"href={quote(line.href, 300)}")
    if line.match is not None:
        parts.append(f"match={quote(line.match, MAX_MESSAGE_CHARS)}")
    text = pad + " ".join(parts)
    if line.options:
        option_texts: list[str] = []
        for opt in line.options:
            label = quote(opt.get("label", ""), 60)
            value = opt.get("value")
            item = label if value is None or value == opt.get("label") else f"{label} (value={quote(value, 60)})"
            if opt.get("selected"):
                item += " selected"
            option_texts.append(item)
        more = line.options_total - len(line.options)
        tail = f" | …{more} more" if more > 0 else ""
        text += f"\n{pad}  options: " + " | ".join(option_texts) + tail
    return text


@dataclass
class Snapshot:
    """A page snapshot: header, lines, what the budget cut, and the text form."""

    title: str
    url: str
    lines: list[SnapshotLine]
    omitted: int = 0
    cut_by: str | None = None
    frames: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: the lines' texts when the budget rendered them already: each line is rendered once
    #: (a 4000-line page took three renderings, tens of milliseconds, before)
    rendered: list[str] | None = field(default=None, repr=False, compare=False)

    def header(self) -> list[str]:
        return [f"Page: {self.title}", f"URL: {self.url}"]

    def body_lines(self) -> list[str]:
        if self.rendered is None or len(self.rendered) != len(self.lines):
            self.rendered = [render_line(line) for line in self.lines]
        return self.rendered

    def text(self) -> str:
        out = self.header() + self.body_lines()
        if self.omitted:
            out.append(
                f"[{self.omitted} more lines cut by {self.cut_by}; narrow with find (a text the lines hold), "
                "selector, frame, interactive_only or max_depth, or raise the limit]"
            )
        out.extend(f"[{note}]" for note in self.notes)
        return "\n".join(out)

    def stats(self) -> dict[str, Any]:
        text = self.text()
        return {
            "lines": len(self.lines),
            "chars": len(text),
            "uids": sum(1 for line in self.lines if line.uid is not None),
            "interactive": sum(1 for line in self.lines if line.interactive),
            "omittedLines": self.omitted,
            "cutBy": self.cut_by,
        }


def apply_budget(
    lines: list[SnapshotLine], *, max_lines: int | None, max_chars: int | None
) -> tuple[list[SnapshotLine], int, str | None]:
    """Keep lines in document order within the budget; alerts and errors are always kept.

    Returns (kept lines, number omitted, which limit cut). Essential lines past the budget
    are kept too (they are few, and an agent that misses "Provincia obbligatoria" is lost).
    """
    kept, _, omitted, cut_by = budget_rendered(lines, max_lines=max_lines, max_chars=max_chars)
    return kept, omitted, cut_by


def budget_rendered(
    lines: list[SnapshotLine], *, max_lines: int | None, max_chars: int | None
) -> tuple[list[SnapshotLine], list[str] | None, int, str | None]:
    """:func:`apply_budget`, plus the kept lines' texts when it had to render them (else None)."""
    if max_lines is None and max_chars is None:
        return lines, None, 0, None
    kept: list[SnapshotLine] = []
    texts: list[str] = []
    used_chars = 0
    cut_by: str | None = None
    omitted = 0
    for line in lines:
        over_lines = max_lines is not None and len(kept) >= max_lines
        if over_lines and not line.essential:
            omitted += 1  # over the line cap: no need to render what is left out
            cut_by = cut_by or f"max_lines={max_lines}"
            continue
        text = render_line(line)
        size = len(text) + 1
        over_chars = max_chars is not None and used_chars + size > max_chars
        if (over_lines or over_chars) and not line.essential:
            omitted += 1
            if cut_by is None:
                cut_by = f"max_lines={max_lines}" if over_lines else f"max_chars={max_chars}"
            continue
        kept.append(line)
        texts.append(text)
        used_chars += size
    return kept, texts, omitted, cut_by


def _line_key(line: SnapshotLine) -> tuple[Any, ...]:
    if line.uid is not None:
        return ("uid", line.uid)
    return ("text", line.frame, render_line(line).strip())


def diff_snapshots(old: Snapshot | None, new: Snapshot) -> dict[str, Any]:
    """Lines added, removed and changed from ``old`` to ``new`` (uid lines match by uid).

    A line with a uid that is in both with different text is "changed" (a value typed, a
    state toggled); text lines have no identity, so they are compared as a multiset.
    """
    if old is None:
        return {
            "baseline": False,
            "added": [render_line(line).strip() for line in new.lines],
            "removed": [],
            "changed": [],
        }
    old_by_uid = {line.uid: line for line in old.lines if line.uid is not None}
    new_by_uid = {line.uid: line for line in new.lines if line.uid is not None}
    added: list[str] = []
    removed: list[str] = []
    changed: list[dict[str, str]] = []
    for line in new.lines:
        if line.uid is None:
            continue
        before = old_by_uid.get(line.uid)
        now = render_line(line).strip()
        if before is None:
            added.append(now)
        elif render_line(before).strip() != now:
            changed.append({"before": render_line(before).strip(), "after": now})
    for line in old.lines:
        if line.uid is not None and line.uid not in new_by_uid:
            removed.append(render_line(line).strip())
    old_text = Counter(_line_key(line) for line in old.lines if line.uid is None and line.role != "frame")
    new_text = Counter(_line_key(line) for line in new.lines if line.uid is None and line.role != "frame")
    for key, count in (new_text - old_text).items():
        added.extend([key[2]] * count)
    for key, count in (old_text - new_text).items():
        removed.extend([key[2]] * count)
    if old.url != new.url:
        changed.insert(0, {"before": f"URL: {old.url}", "after": f"URL: {new.url}"})
    if old.title != new.title:
        changed.insert(0, {"before": f"Page: {old.title}", "after": f"Page: {new.title}"})
    return {"baseline": True, "added": added, "removed": removed, "changed": changed}


def render_diff(diff: dict[str, Any], *, limit: int = 200) -> str:
    """The diff as text: ``+ line``, ``- line``, ``~ before -> after``."""
    if not diff["baseline"]:
        return "(no previous snapshot of this page: everything is new)"
    out: list[str] = []
    out += [f"~ {c['before']}  ->  {c['after']}" for c in diff["changed"]]
    out += [f"+ {line}" for line in diff["added"]]
    out += [f"- {line}" for line in diff["removed"]]
    if not out:
        return "(no change since the previous snapshot)"
    if len(out) > limit:
        out = out[:limit] + [f"[{len(out) - limit} more diff lines]"]
    return "\n".join(out)
