"""The walk of one frame's accessibility tree into snapshot lines (the build step of the AX engine).

:mod:`~cdp_core.recorders.accessibility.axtree` reads the trees and the DOM snapshots from Chrome;
this module turns one frame's tree, joined with its DOM nodes, into
:class:`~cdp_core.recorders.accessibility.format.SnapshotLine` s with the same rules as the in-page
collector's walk (``snapshot_js/walk.js``): which nodes become lines, their shown role, name,
value and states, and the uid each gets. Separate because it is pure: no CDP call, so the rules
can be read (and changed) beside walk.js without the I/O around them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..redact import REDACTED, is_secret_field, redact_credentials
from ..uids import FrameInfo, UidRegistry
from .build import ALWAYS_ROLES, INTERACTIVE_ROLES, NAMED_ROLES, FramePlaceholder, SnapshotOptions
from .domjoin import DomNode, is_error_container
from .format import SnapshotLine

__all__ = ["FrameTree", "Builder", "name_of", "role_of", "norm_text"]

#: Leaves: their subtree (inner editor, option text, image parts) says nothing more.
LEAF_ROLES = frozenset(
    {"textbox", "searchbox", "spinbutton", "slider", "checkbox", "radio", "switch", "img", "image", "meter"}
)
#: Roles whose text content is their message: the name is taken from the text.
TEXT_AS_NAME_ROLES = frozenset({"alert", "status", "log", "tooltip", "marquee", "error", "clickable"})
VALUE_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "slider"})
#: Native controls are leaves whatever their role: their shadow DOM (date fields, file
#: buttons) is an implementation detail, not something to act on.
FORM_CONTROL_TAGS = frozenset({"INPUT", "TEXTAREA", "SELECT"})
#: Chrome-internal roles shown under a readable name.
INTERNAL_ROLE_NAMES = {"DisclosureTriangle": "disclosure", "Date": "date", "DateTime": "datetime", "InputTime": "time"}
SKIP_ROLES = frozenset({"InlineTextBox", "LineBreak", "ListMarker"})
CELL_ROLES = frozenset({"cell", "gridcell", "columnheader", "rowheader"})
INLINE_DISPLAYS = frozenset({"inline", "contents", ""})
MAX_GATHERED_TEXT = 240
MAX_CLICKABLE_TEXT = 100


def _props(node: dict[str, Any]) -> dict[str, Any]:
    return {p["name"]: p.get("value", {}).get("value") for p in node.get("properties") or []}


def name_of(node: dict[str, Any]) -> str:
    return str((node.get("name") or {}).get("value") or "")


def role_of(node: dict[str, Any]) -> str:
    return str((node.get("role") or {}).get("value") or "")


def norm_text(text: str) -> str:
    return " ".join(text.split()).lower()


@dataclass
class FrameTree:
    info: FrameInfo
    nodes: dict[str, dict[str, Any]]
    root: str | None
    dom: dict[int, DomNode]


@dataclass
class _Ctx:
    depth: int
    frame: FrameTree
    consumed: str | None = None  # normalized name whose text children are redundant
    drop_text: bool = False
    in_label: bool = False
    block: str = ""


class Builder:
    """Walks one frame's AX tree into lines (iteratively: deep DOMs exist); iframes become placeholders.

    ``control_names`` are the names of the controls of every frame read (a label's text that
    repeats its control's name is left out).
    """

    def __init__(self, registry: UidRegistry, options: SnapshotOptions, control_names: set[str]) -> None:
        self.registry = registry
        self.options = options
        self.lines: list[SnapshotLine | FramePlaceholder] = []
        self.text_blocks: list[str | None] = []  # parallel to lines: merge key of text lines
        self.control_names = control_names

    # subtree helpers (bounded)
    def _gather_text(self, tree: FrameTree, node_id: str, limit: int = MAX_GATHERED_TEXT) -> tuple[str, bool]:
        """Text content of a subtree and whether it holds an interactive descendant."""
        parts: list[str] = []
        size = 0
        interactive = False
        stack = list(reversed(tree.nodes[node_id].get("childIds") or []))
        visited = 0
        while stack and visited < 400:
            nid = stack.pop()
            node = tree.nodes.get(nid)
            visited += 1
            if node is None:
                continue
            role = role_of(node)
            if role == "StaticText" and not node.get("ignored"):
                text = name_of(node)
                parts.append(text)
                size += len(text)
                if size > limit:
                    break
                continue
            if role in SKIP_ROLES:
                continue
            if not node.get("ignored") and role in INTERACTIVE_ROLES:
                interactive = True
            stack.extend(reversed(node.get("childIds") or []))
        return " ".join("".join(parts).split())[:limit], interactive

    def _options(self, tree: FrameTree, node_id: str) -> tuple[list[dict[str, Any]], int, str | None]:
        """A <select>'s options (bounded) and its DOM value."""
        opts: list[dict[str, Any]] = []
        total = 0
        value: str | None = None
        stack = list(reversed(tree.nodes[node_id].get("childIds") or []))
        while stack:
            node = tree.nodes.get(stack.pop())
            if node is None:
                continue
            if role_of(node) == "option":
                total += 1
                dom = tree.dom.get(node.get("backendDOMNodeId") or -1)
                label = name_of(node)
                opt_value = dom.attrs.get("value", label) if dom else label
                selected = bool(_props(node).get("selected")) or bool(dom and dom.option_selected)
                if selected and value is None:
                    value = opt_value
                if len(opts) < self.options.max_options:
                    opts.append({"value": opt_value, "label": label, "selected": selected})
                continue
            stack.extend(reversed(node.get("childIds") or []))
        return opts, total, value

    def _emit(self, line: SnapshotLine, block: str | None = None) -> None:
        self.lines.append(line)
        self.text_blocks.append(block)

    def walk(self, start: FrameTree, start_ids: Iterable[str], depth: int = 0) -> None:
        stack: list[tuple[str, _Ctx]] = [(nid, _Ctx(depth, start)) for nid in reversed(list(start_ids))]
        opts = self.options
        while stack:
            nid, ctx = stack.pop()
            tree = ctx.frame
            node = tree.nodes.get(nid)
            if node is None:
                continue
            children = node.get("childIds") or []
            role = role_of(node)
            if role in SKIP_ROLES:
                continue
            backend = node.get("backendDOMNodeId")
            dom = tree.dom.get(backend) if backend is not None else None
            if node.get("ignored"):
                if not ((is_error_container(dom) or _drag_end(dom)) and self._gather_text(tree, nid)[0]):
                    if dom is not None and dom.display not in INLINE_DISPLAYS:
                        # an ignored <div> still ends a line of text
                        ctx = _Ctx(ctx.depth, tree, ctx.consumed, ctx.drop_text, ctx.in_label, nid)
                    stack.extend((c, ctx) for c in reversed(children))
                    continue
                # an error message or a drag-and-drop card the AX tree ignores (<span class=error>, <div draggable>)
                role = "generic"
            if role == "StaticText":
                self._text(node, ctx)
                continue
            if role in ("Iframe", "IframePresentational") or (dom is not None and dom.name in ("IFRAME", "FRAME")):
                if backend is not None:
                    self.lines.append(FramePlaceholder(ctx.depth, ("b", backend)))
                    self.text_blocks.append(None)
                continue
            block = ctx.block
            if dom is not None and dom.display not in INLINE_DISPLAYS:
                block = nid
            props = _props(node)
            name = name_of(node)
            shown_role = role
            error_box = is_error_container(dom) and role in ("generic", "none", "paragraph", "Section", "list", "")
            if error_box:
                shown_role = "alert" if dom is not None and "alert" in dom.classes else "error"
            clickable = False
            if (
                role in ("generic", "Section", "none", "paragraph", "listitem", "cell", "gridcell")
                and dom is not None
                and (dom.clickable or _drag_end(dom))
                and not error_box
            ):
                text, has_inner = self._gather_text(tree, nid, MAX_CLICKABLE_TEXT + 1)
                if text and len(text) <= MAX_CLICKABLE_TEXT and not has_inner:
                    clickable = True
                    shown_role = "clickable"
                    name = name or text
            form_control = dom is not None and dom.name in FORM_CONTROL_TAGS
            if role in INTERNAL_ROLE_NAMES:
                shown_role = INTERNAL_ROLE_NAMES[role]
            interactive = shown_role in INTERACTIVE_ROLES or form_control
            always = shown_role in ALWAYS_ROLES or error_box
            named = shown_role in NAMED_ROLES and bool(name.strip())
            is_row = role == "row"
            emit = interactive or always or named or is_row  # a row: its controls' context
            if opts.interactive_only and not (interactive or always or is_row):
                emit = False
            if shown_role == "LabelText":
                child_ctx = _Ctx(ctx.depth, tree, ctx.consumed, ctx.drop_text, True, block)
                stack.extend((c, child_ctx) for c in reversed(children))
                continue
            if not emit:
                child_ctx = _Ctx(ctx.depth, tree, ctx.consumed, ctx.drop_text, ctx.in_label, block)
                stack.extend((c, child_ctx) for c in reversed(children))
                continue
            drop_text = ctx.drop_text
            if shown_role in TEXT_AS_NAME_ROLES or clickable:
                if not name.strip():
                    name, _ = self._gather_text(tree, nid)
                drop_text = True
            if is_row:
                name = self._row_text(tree, nid)
                drop_text = True
            if shown_role in ("status", "log", "tooltip", "marquee") and not name.strip():
                stack.extend((c, ctx) for c in reversed(children))
                continue
            line = SnapshotLine(
                role=shown_role, name=name.strip(), frame=tree.info.ref, depth=ctx.depth, interactive=interactive
            )
            if backend is not None:
                line.uid = self.registry.uid_for(tree.info, backend, shown_role, line.name)
            self._states(line, props, dom, role)
            if role == "heading" and props.get("level") is not None:
                line.level = int(props["level"])
            if opts.include_urls and role == "link" and props.get("url"):
                line.href = str(props["url"])
            descend = role not in LEAF_ROLES and not form_control
            if role in VALUE_ROLES or (form_control and dom is not None and dom.input_value is not None):
                value = (node.get("value") or {}).get("value")
                if (
                    value is None
                    and dom is not None
                    and role not in ("checkbox", "radio", "switch", "button")
                    and dom.attrs.get("type", "").lower() != "password"  # never print a password
                ):
                    value = dom.input_value
                if value and dom is not None and _secret_field(dom) and set(str(value)) != {"•"}:
                    value = REDACTED  # a token-looking field (csrf, api_key...), as in post-data previews
                if value is not None or role in VALUE_ROLES:
                    line.value = "" if value is None else redact_credentials(str(value))
            if role in ("combobox", "listbox") and dom is not None and dom.name == "SELECT":
                options, total, value = self._options(tree, nid)
                line.options, line.options_total = options, total
                if dom.input_value is not None:
                    value = dom.input_value
                if role == "combobox":
                    line.value = value or ""
                descend = False
            self._emit(line)
            if descend:
                child_ctx = _Ctx(ctx.depth + 1, tree, norm_text(name) or None, drop_text, False, nid)
                stack.extend((c, child_ctx) for c in reversed(children))

    def _states(self, line: SnapshotLine, props: dict[str, Any], dom: DomNode | None, role: str) -> None:
        states = line.states
        checked = props.get("checked")
        if checked in ("true", True):
            states.append("checked")
        elif checked == "mixed":
            states.append("mixed")
        if props.get("pressed") in ("true", True):
            states.append("pressed")
        if props.get("selected") is True:
            states.append("selected")
        if props.get("expanded") is True:
            states.append("expanded")
        if props.get("disabled") is True:
            states.append("disabled")
        if props.get("readonly") is True:
            states.append("readonly")
        required = props.get("required") is True
        invalid = props.get("invalid") not in (None, "false", False)
        if dom is not None:
            required = required or "required" in dom.attrs or dom.attrs.get("aria-required") == "true"
            invalid = invalid or "is-invalid" in dom.classes or dom.attrs.get("aria-invalid") in ("true", "grammar")
        if required:
            states.append("required")
        if invalid and line.role not in ("alert", "error"):
            states.append("invalid")
        if props.get("focused") is True and role != "RootWebArea":
            states.append("focused")
        if dom is not None and dom.attrs.get("draggable") == "true":
            states.append("draggable")

    def _row_text(self, tree: FrameTree, row_id: str) -> str:
        cells: list[str] = []
        for cid in tree.nodes[row_id].get("childIds") or []:
            cell = tree.nodes.get(cid)
            if cell is None:
                continue
            text, _ = self._gather_text(tree, cid, 80)
            if role_of(cell) in CELL_ROLES or text:
                cells.append(text)
        return " | ".join(cells).rstrip(" |")

    def _text(self, node: dict[str, Any], ctx: _Ctx) -> None:
        if ctx.drop_text:
            return
        text = name_of(node)
        norm = norm_text(text)
        if not norm or (ctx.consumed and norm in ctx.consumed):
            return
        backend = node.get("backendDOMNodeId")
        holder = ctx.frame.dom.get(backend) if backend is not None else None
        if holder is not None and holder.parent_backend is not None and is_error_container(holder):
            # <span class="error">: the AX tree kept the text but dropped the element
            line = SnapshotLine(role="error", name=" ".join(text.split()), frame=ctx.frame.info.ref, depth=ctx.depth)
            line.uid = self.registry.uid_for(ctx.frame.info, holder.parent_backend, "error", line.name)
            self._emit(line)
            return
        if (
            holder is not None
            and holder.parent_backend is not None
            and _drag_end(holder)
            and len(text.strip()) <= MAX_CLICKABLE_TEXT
        ):
            # <div draggable="true">Card</div>: the AX tree keeps the text and drops the element, as above
            name = " ".join(text.split())
            line = SnapshotLine(
                role="clickable", name=name, frame=ctx.frame.info.ref, depth=ctx.depth, interactive=True
            )
            if holder.attrs.get("draggable") == "true":
                line.states.append("draggable")
            line.uid = self.registry.uid_for(ctx.frame.info, holder.parent_backend, "clickable", name)
            self.control_names.add(norm)
            self._emit(line)
            return
        if self.options.interactive_only or (ctx.in_label and norm in self.control_names):
            return
        # merge with the previous text line of the same block (inline runs: "a <b>b</b> c")
        last = self.lines[-1] if self.lines else None
        if isinstance(last, SnapshotLine) and last.role == "text" and self.text_blocks[-1] == ctx.block:
            last.name += text
            return
        self._emit(SnapshotLine(role="text", name=text, frame=ctx.frame.info.ref, depth=ctx.depth), ctx.block)


def _drag_end(dom: DomNode | None) -> bool:
    """A drag-and-drop card (``draggable="true"``) or lane (``ondrop``): a uid for ``drag``, as walk.js gives it."""
    return dom is not None and (dom.attrs.get("draggable") == "true" or "ondrop" in dom.attrs)


def _secret_field(dom: DomNode) -> bool:
    """An input or textarea whose name or id says it carries a secret (the values are masked)."""
    if dom.name not in ("INPUT", "TEXTAREA"):
        return False
    field = dom.attrs.get("name") or dom.attrs.get("id") or ""
    return bool(field) and is_secret_field(field)
