"""Page snapshots from the Accessibility tree, with stable UIDs an agent can act on.

Why the Accessibility tree: it already answers "what would a user see and use here"
(roles, computed names from labels, values, states) and drops what is decorative, so a
form reads as four lines instead of forty ``div``s. Chrome leaves out what an agent
still needs, so the tree is joined with one ``DOMSnapshot.captureSnapshot`` per
renderer: the value of a ``<select>`` (the AX value is the option's text), ``required``
on a select, classes of legacy error containers (``.alert``, ``.error``,
``.invalid-feedback``, ``.is-invalid``), CSS ``display`` (to glue inline text back into
one line) and click listeners (``<div onclick>`` buttons of legacy apps).

``Accessibility.getFullAXTree`` stops at an ``<iframe>``: every frame is fetched on its
own (``frameId``; out-of-process iframes through their own session) and rendered as an
indented section at the place of its ``<iframe>`` element (``DOM.getFrameOwner``).

No MCP or targets imports here: the MCP layer passes a :class:`CDPSession`, a
:class:`~cdp_core.recorders.uids.UidRegistry` kept per page and the options.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..connection import CDPSession
from ..errors import CDPError, CDPException
from .snapshot_format import Snapshot, SnapshotLine, apply_budget
from .uids import FrameInfo, StaleUid, UidEntry, UidRegistry

__all__ = [
    "SnapshotOptions",
    "SelectorNotFound",
    "FrameNotFound",
    "take_snapshot",
    "resolve_uid",
    "ResolvedNode",
    "oopif_sessions",
    "flatten_frame_tree",
]

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
ERROR_CLASS_EXACT = frozenset({"alert", "invalid-feedback", "text-danger", "has-error"})
INLINE_DISPLAYS = frozenset({"inline", "contents", ""})
MAX_GATHERED_TEXT = 240
MAX_CLICKABLE_TEXT = 100


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


# -- frames -------------------------------------------------------------------------------


@dataclass
class _FrameNode:
    frame_id: str
    parent_id: str | None
    loader_id: str
    url: str
    name: str
    session: CDPSession


def flatten_frame_tree(tree: dict[str, Any]) -> list[dict[str, Any]]:
    """``Page.getFrameTree``'s nested ``frameTree`` as a flat list of ``Frame`` dicts (parents first)."""
    out: list[dict[str, Any]] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        out.append(node["frame"])
        stack.extend(reversed(node.get("childFrames") or []))
    return out


def oopif_sessions(session: CDPSession) -> dict[str, CDPSession]:
    """Out-of-process iframe sessions known on this socket, by frame id (their targetId).

    Only sessions someone auto-attached (``Target.setAutoAttach``) exist; for an OOPIF
    the target id equals the frame id, which is how it is matched to the frame tree.
    """
    return {
        s.target_info["targetId"]: s
        for s in session.connection.sessions
        if s.target_info.get("type") == "iframe" and s.target_info.get("targetId") and not s.closed
    }


async def _collect_frames(session: CDPSession, children: dict[str, CDPSession]) -> list[_FrameNode]:
    """Every frame of the page with the session that owns its document."""
    frames: list[_FrameNode] = []
    seen: set[str] = set()

    async def walk(sess: CDPSession, parent_override: str | None) -> None:
        tree = (await sess.send("Page.getFrameTree"))["frameTree"]
        for frame in flatten_frame_tree(tree):
            fid = frame["id"]
            if fid in seen:
                continue
            child = children.get(fid)
            if child is not None and child is not sess:
                try:
                    await walk(child, frame.get("parentId"))
                    continue
                except CDPException:
                    pass  # the OOPIF went away: keep what the parent knows
            seen.add(fid)
            parent = frame.get("parentId")
            if parent is None and parent_override is not None:
                parent = parent_override
            frames.append(
                _FrameNode(fid, parent, frame.get("loaderId", ""), frame.get("url", ""), frame.get("name", ""), sess)
            )

    await walk(session, None)
    # The page's frame tree leaves out out-of-process iframes: add each child session whose
    # parent frame we hold (repeat for OOPIFs nested in OOPIFs). Sessions of other pages on
    # the same socket never match a parent here.
    progress = True
    while progress:
        progress = False
        for fid, child in children.items():
            parent = child.target_info.get("parentFrameId")
            if fid in seen or child.closed or (parent is not None and parent not in seen):
                continue
            try:
                tree = (await child.send("Page.getFrameTree"))["frameTree"]
            except CDPException:
                continue
            root_parent = tree["frame"].get("parentId")
            if root_parent is None or root_parent not in seen:
                continue
            await walk(child, root_parent)
            progress = True
    return frames


# -- DOM join -----------------------------------------------------------------------------


@dataclass
class _DomNode:
    name: str  # nodeName, upper case for elements
    attrs: dict[str, str]
    input_value: str | None = None
    option_selected: bool = False
    clickable: bool = False
    display: str = ""
    parent_backend: int | None = None  # for "#text": the element holding the text

    @property
    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()


def _parse_dom_snapshot(snap: dict[str, Any]) -> dict[int, _DomNode]:
    """backendNodeId -> element facts, for every element of every document in the snapshot.

    Text nodes map to their parent element's facts under the text node's own id with
    ``name == "#text"`` (so a ``<span class=error>`` that the AX tree skips is still seen).
    """
    strings: list[str] = snap.get("strings", [])

    def s(i: int) -> str:
        return strings[i] if 0 <= i < len(strings) else ""

    out: dict[int, _DomNode] = {}
    for doc in snap.get("documents", []):
        nodes = doc.get("nodes", {})
        backend = nodes.get("backendNodeId", [])
        names = nodes.get("nodeName", [])
        types = nodes.get("nodeType", [])
        attributes = nodes.get("attributes", [])
        by_index: dict[int, _DomNode] = {}
        parents = nodes.get("parentIndex", [])
        texts: list[tuple[int, int]] = []
        for i, bid in enumerate(backend):
            if i < len(types) and types[i] != 1:
                if i < len(types) and types[i] == 3 and i < len(parents):
                    texts.append((bid, parents[i]))
                continue
            flat = attributes[i] if i < len(attributes) else []
            attrs = {s(flat[k]): s(flat[k + 1]) for k in range(0, len(flat) - 1, 2)}
            node = _DomNode(s(names[i]) if i < len(names) else "", attrs)
            out[bid] = node
            by_index[i] = node
        for bid, parent in texts:
            owner = by_index.get(parent)
            if owner is not None:
                out[bid] = _DomNode("#text", owner.attrs, parent_backend=backend[parent])
        iv = nodes.get("inputValue", {})
        for idx, val in zip(iv.get("index", []), iv.get("value", []), strict=False):
            if idx in by_index:
                by_index[idx].input_value = s(val)
        for idx in nodes.get("optionSelected", {}).get("index", []):
            if idx in by_index:
                by_index[idx].option_selected = True
        for idx in nodes.get("isClickable", {}).get("index", []):
            if idx in by_index:
                by_index[idx].clickable = True
        layout = doc.get("layout", {})
        for idx, styles in zip(layout.get("nodeIndex", []), layout.get("styles", []), strict=False):
            if idx in by_index and styles:
                by_index[idx].display = s(styles[0])
    return out


def _is_error_container(dom: _DomNode | None) -> bool:
    if dom is None:
        return False
    for cls in dom.classes:
        low = cls.lower()
        if low in ERROR_CLASS_EXACT or "error" in low:
            return True
    return False


# -- AX helpers ---------------------------------------------------------------------------


def _props(node: dict[str, Any]) -> dict[str, Any]:
    return {p["name"]: p.get("value", {}).get("value") for p in node.get("properties") or []}


def _name(node: dict[str, Any]) -> str:
    return str((node.get("name") or {}).get("value") or "")


def _role(node: dict[str, Any]) -> str:
    return str((node.get("role") or {}).get("value") or "")


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


@dataclass
class _FrameTree:
    info: FrameInfo
    node: _FrameNode
    nodes: dict[str, dict[str, Any]]
    root: str | None
    dom: dict[int, _DomNode]
    owner_of_child: dict[int, str] = field(default_factory=dict)  # iframe backendNodeId -> child frame id


@dataclass
class _Ctx:
    depth: int
    frame: _FrameTree
    consumed: str | None = None  # normalized name whose text children are redundant
    drop_text: bool = False
    in_label: bool = False
    block: str = ""


class _Builder:
    """Walks the AX trees of all frames into SnapshotLines (iteratively: deep DOMs exist)."""

    def __init__(self, registry: UidRegistry, options: SnapshotOptions, trees: dict[str, _FrameTree]) -> None:
        self.registry = registry
        self.options = options
        self.trees = trees
        self.lines: list[SnapshotLine] = []
        self.text_blocks: list[str | None] = []  # parallel to lines: merge key of text lines
        self.control_names: set[str] = set()
        for tree in trees.values():
            for node in tree.nodes.values():
                if not node.get("ignored") and _role(node) in INTERACTIVE_ROLES:
                    self.control_names.add(_norm(_name(node)))

    # subtree helpers (bounded)
    def _gather_text(self, tree: _FrameTree, node_id: str, limit: int = MAX_GATHERED_TEXT) -> tuple[str, bool]:
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
            role = _role(node)
            if role == "StaticText" and not node.get("ignored"):
                text = _name(node)
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

    def _options(self, tree: _FrameTree, node_id: str) -> tuple[list[dict[str, Any]], int, str | None]:
        """A <select>'s options (bounded) and its DOM value."""
        opts: list[dict[str, Any]] = []
        total = 0
        value: str | None = None
        stack = list(reversed(tree.nodes[node_id].get("childIds") or []))
        while stack:
            node = tree.nodes.get(stack.pop())
            if node is None:
                continue
            if _role(node) == "option":
                total += 1
                dom = tree.dom.get(node.get("backendDOMNodeId") or -1)
                label = _name(node)
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

    def walk(self, start: _FrameTree, start_ids: Iterable[str], depth: int = 0) -> None:
        stack: list[tuple[str, _Ctx]] = [(nid, _Ctx(depth, start)) for nid in reversed(list(start_ids))]
        opts = self.options
        while stack:
            nid, ctx = stack.pop()
            tree = ctx.frame
            node = tree.nodes.get(nid)
            if node is None:
                continue
            children = node.get("childIds") or []
            role = _role(node)
            if role in SKIP_ROLES:
                continue
            backend = node.get("backendDOMNodeId")
            dom = tree.dom.get(backend) if backend is not None else None
            if node.get("ignored"):
                if not (_is_error_container(dom) and self._gather_text(tree, nid)[0]):
                    stack.extend((c, ctx) for c in reversed(children))
                    continue
                role = "generic"  # an error message in an element the AX tree ignores (<span class=error>)
            if role == "StaticText":
                self._text(node, ctx)
                continue
            if role in ("Iframe", "IframePresentational") or (dom is not None and dom.name in ("IFRAME", "FRAME")):
                self._frame_section(backend, ctx)
                continue
            block = ctx.block
            if dom is not None and dom.display not in INLINE_DISPLAYS:
                block = nid
            props = _props(node)
            name = _name(node)
            shown_role = role
            error_box = _is_error_container(dom) and role in ("generic", "none", "paragraph", "Section", "list", "")
            if error_box:
                shown_role = "alert" if dom is not None and "alert" in dom.classes else "error"
            clickable = False
            if (
                role in ("generic", "Section", "none", "paragraph", "listitem", "cell", "gridcell")
                and dom is not None
                and dom.clickable
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
            emit = interactive or always or named or (is_row and not opts.interactive_only)
            if opts.interactive_only and not (interactive or always):
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
                if value is not None or role in VALUE_ROLES:
                    line.value = "" if value is None else str(value)
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
                child_ctx = _Ctx(ctx.depth + 1, tree, _norm(name) or None, drop_text, False, nid)
                stack.extend((c, child_ctx) for c in reversed(children))

    def _states(self, line: SnapshotLine, props: dict[str, Any], dom: _DomNode | None, role: str) -> None:
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

    def _row_text(self, tree: _FrameTree, row_id: str) -> str:
        cells: list[str] = []
        for cid in tree.nodes[row_id].get("childIds") or []:
            cell = tree.nodes.get(cid)
            if cell is None:
                continue
            text, _ = self._gather_text(tree, cid, 80)
            if _role(cell) in CELL_ROLES or text:
                cells.append(text)
        return " | ".join(cells).rstrip(" |")

    def _text(self, node: dict[str, Any], ctx: _Ctx) -> None:
        if ctx.drop_text:
            return
        text = _name(node)
        norm = _norm(text)
        if not norm or (ctx.consumed and norm in ctx.consumed):
            return
        backend = node.get("backendDOMNodeId")
        holder = ctx.frame.dom.get(backend) if backend is not None else None
        if holder is not None and holder.parent_backend is not None and _is_error_container(holder):
            # <span class="error">: the AX tree kept the text but dropped the element
            line = SnapshotLine(role="error", name=" ".join(text.split()), frame=ctx.frame.info.ref, depth=ctx.depth)
            line.uid = self.registry.uid_for(ctx.frame.info, holder.parent_backend, "error", line.name)
            self._emit(line)
            return
        if self.options.interactive_only or (ctx.in_label and norm in self.control_names):
            return
        # merge with the previous text line of the same block (inline runs: "a <b>b</b> c")
        if self.lines and self.lines[-1].role == "text" and self.text_blocks[-1] == ctx.block:
            self.lines[-1].name += text
            return
        self._emit(SnapshotLine(role="text", name=text, frame=ctx.frame.info.ref, depth=ctx.depth), ctx.block)

    def _frame_section(self, owner_backend: int | None, ctx: _Ctx) -> None:
        child_id = ctx.frame.owner_of_child.get(owner_backend) if owner_backend is not None else None
        child = self.trees.get(child_id) if child_id else None
        if child is None or child.root is None:
            return
        title = _name(child.nodes[child.root])
        header = f"Frame {child.info.ref}"
        if title:
            header += f" {_quote_short(title)}"
        header += f" {child.info.url}"
        self._emit(SnapshotLine(role="frame", name=header + ":", frame=child.info.ref, depth=ctx.depth))
        root_children = child.nodes[child.root].get("childIds") or []
        self.walk(child, root_children, ctx.depth + 1)


def _quote_short(text: str) -> str:
    from .snapshot_format import quote

    return quote(text, 80)


# -- public entry points ------------------------------------------------------------------


async def _ax_tree(session: CDPSession, frame_id: str) -> list[dict[str, Any]]:
    return (await session.send("Accessibility.getFullAXTree", {"frameId": frame_id}))["nodes"]


async def _dom_snapshot(session: CDPSession) -> dict[int, _DomNode]:
    try:
        snap = await session.send("DOMSnapshot.captureSnapshot", {"computedStyles": ["display"]})
    except CDPError:
        return {}
    return _parse_dom_snapshot(snap)


async def _frame_owner(session: CDPSession, frame_id: str) -> int | None:
    try:
        return (await session.send("DOM.getFrameOwner", {"frameId": frame_id})).get("backendNodeId")
    except CDPError:
        return None


async def _isolated_world(frame: FrameInfo) -> int:
    """Our isolated world in the frame (created once per document: page scripts cannot see it)."""
    if frame.world is not None and frame.world[0] == frame.loader_id:
        return frame.world[1]
    world = await frame.session.send(
        "Page.createIsolatedWorld", {"frameId": frame.frame_id, "worldName": "mcp-snapshot"}
    )
    frame.world = (frame.loader_id, int(world["executionContextId"]))
    return frame.world[1]


async def _selector_backend(frame: FrameInfo, selector: str) -> int:
    """backendNodeId of the first element matching ``selector`` in the frame."""
    params = {"expression": f"document.querySelector({json.dumps(selector)})"}
    try:
        result = await frame.session.send("Runtime.evaluate", {**params, "contextId": await _isolated_world(frame)})
    except CDPError:
        frame.world = None  # the context went away (document replaced): try once with a new world
        result = await frame.session.send("Runtime.evaluate", {**params, "contextId": await _isolated_world(frame)})
    if result.get("exceptionDetails"):
        raise SelectorNotFound(f"invalid selector {selector!r}")
    obj = result.get("result", {})
    if obj.get("subtype") == "null" or "objectId" not in obj:
        raise SelectorNotFound(f"no element matches {selector!r}")
    try:
        node = (await frame.session.send("DOM.describeNode", {"objectId": obj["objectId"]}))["node"]
    finally:
        await frame.session.send("Runtime.releaseObject", {"objectId": obj["objectId"]})
    return int(node["backendNodeId"])


async def take_snapshot(
    session: CDPSession,
    registry: UidRegistry,
    options: SnapshotOptions | None = None,
    *,
    child_sessions: dict[str, CDPSession] | None = None,
) -> Snapshot:
    """Snapshot the page behind ``session`` (all frames), assigning uids through ``registry``.

    ``child_sessions`` maps out-of-process iframe frame ids to their sessions (see
    :func:`oopif_sessions`); same-process frames need nothing. Raises
    :class:`FrameNotFound` / :class:`SelectorNotFound` for bad options, CDP errors as is.
    The snapshot becomes ``registry.previous`` (the base of the next diff).
    """
    opts = options or SnapshotOptions()
    children = dict(child_sessions if child_sessions is not None else oopif_sessions(session))
    frames = await _collect_frames(session, children)
    if not frames:
        raise FrameNotFound("the page has no frame")
    registry.forget_frames_except({f.frame_id for f in frames})
    infos = {
        f.frame_id: registry.update_frame(
            f.frame_id, f.loader_id, url=f.url, name=f.name, session=f.session, parent_id=f.parent_id
        )
        for f in frames
    }
    main = frames[0]

    sessions: list[CDPSession] = []
    for f in frames:
        if all(f.session is not s for s in sessions):
            sessions.append(f.session)
    doms_list, ax_list, owners = await asyncio.gather(
        asyncio.gather(*(_dom_snapshot(s) for s in sessions)),
        asyncio.gather(*(_ax_tree(f.session, f.frame_id) for f in frames), return_exceptions=True),
        asyncio.gather(
            *(
                _frame_owner(_parent_session(f, frames), f.frame_id)
                for f in frames
                if f.parent_id is not None and _parent_session(f, frames) is not None
            )
        ),
    )
    dom_by_session = {id(s): d for s, d in zip(sessions, doms_list, strict=True)}
    trees: dict[str, _FrameTree] = {}
    notes: list[str] = []
    for f, ax in zip(frames, ax_list, strict=True):
        if isinstance(ax, BaseException):
            notes.append(f"frame {infos[f.frame_id].ref} {f.url} could not be read: {ax}")
            continue
        nodes = {n["nodeId"]: n for n in ax}
        root = next((n["nodeId"] for n in ax if not n.get("parentId")), None)
        trees[f.frame_id] = _FrameTree(infos[f.frame_id], f, nodes, root, dom_by_session.get(id(f.session), {}))
    owner_frames = [f for f in frames if f.parent_id is not None and _parent_session(f, frames) is not None]
    for f, owner in zip(owner_frames, owners, strict=True):
        parent = trees.get(f.parent_id or "")
        if parent is not None and owner is not None:
            parent.owner_of_child[owner] = f.frame_id

    # which frame, which subtree
    target = trees.get(main.frame_id)
    if opts.frame:
        info = registry.find_frame(opts.frame)
        if info is None or info.frame_id not in trees:
            known = ", ".join(f"{i.ref} ({i.url})" for i in registry.frames)
            raise FrameNotFound(f"no frame {opts.frame!r}; frames: {known}")
        target = trees[info.frame_id]
    if target is None or target.root is None:
        raise FrameNotFound("the frame's accessibility tree is empty")
    start_ids: list[str] = target.nodes[target.root].get("childIds") or []
    if opts.selector:
        backend = await _selector_backend(target.info, opts.selector)
        match = next((nid for nid, n in target.nodes.items() if n.get("backendDOMNodeId") == backend), None)
        if match is None:
            raise SelectorNotFound(f"{opts.selector!r} matches an element outside the accessibility tree (hidden?)")
        start_ids = [match]

    builder = _Builder(registry, opts, trees)
    builder.walk(target, start_ids)
    lines = builder.lines
    if opts.max_depth is not None:
        kept = [line for line in lines if line.depth <= opts.max_depth or line.essential]
        if len(kept) < len(lines):
            notes.append(f"{len(lines) - len(kept)} lines deeper than max_depth={opts.max_depth} hidden")
        lines = kept
    lines, omitted, cut_by = apply_budget(lines, max_lines=opts.max_lines, max_chars=opts.max_chars)

    if not opts.selector:
        for tree in trees.values():
            present = {n["backendDOMNodeId"] for n in tree.nodes.values() if n.get("backendDOMNodeId") is not None}
            registry.prune_document(tree.info, present)

    main_tree = trees.get(main.frame_id)
    title = ""
    if main_tree is not None and main_tree.root is not None:
        title = _name(main_tree.nodes[main_tree.root])
    snapshot = Snapshot(
        title=title or main.url,
        url=main.url,
        lines=lines,
        omitted=omitted,
        cut_by=cut_by,
        frames=[
            {"ref": i.ref, "frameId": i.frame_id, "url": i.url, "name": i.name, "parentId": i.parent_id}
            for i in infos.values()
        ],
        notes=notes,
    )
    registry.previous = snapshot
    return snapshot


def _parent_session(frame: _FrameNode, frames: list[_FrameNode]) -> CDPSession | None:
    for f in frames:
        if f.frame_id == frame.parent_id:
            return f.session
    return None


# -- acting on a uid ----------------------------------------------------------------------


@dataclass
class ResolvedNode:
    """A live uid: its entry and a remote object of the element (release with :meth:`release`)."""

    entry: UidEntry
    object_id: str

    @property
    def session(self) -> CDPSession:
        return self.entry.session

    async def call(self, function: str, *args: Any) -> Any:
        """``Runtime.callFunctionOn`` on the element, returning the value."""
        result = await self.session.send(
            "Runtime.callFunctionOn",
            {
                "objectId": self.object_id,
                "functionDeclaration": function,
                "arguments": [{"value": a} for a in args],
                "returnByValue": True,
            },
        )
        if result.get("exceptionDetails"):
            raise CDPError("Runtime.callFunctionOn", 0, str(result["exceptionDetails"].get("text", "exception")))
        return result.get("result", {}).get("value")

    async def release(self) -> None:
        try:
            await self.session.send("Runtime.releaseObject", {"objectId": self.object_id})
        except CDPException:
            pass


async def resolve_uid(registry: UidRegistry, uid: int) -> ResolvedNode:
    """The element behind ``uid``, checked to be the same node of the same live document.

    Raises :class:`StaleUid` (and retires the uid) when the frame navigated, the frame
    is gone, or the node left the document; never hands back a different element.
    """
    entry = registry.lookup(uid)
    frame = registry.frame(entry.frame_id)
    if frame is None:
        registry.retire(uid, "its frame was removed")
        raise StaleUid(uid, "its frame was removed")
    try:
        tree = (await entry.session.send("Page.getFrameTree"))["frameTree"]
    except CDPException as exc:
        registry.retire(uid, "its page or frame is gone")
        raise StaleUid(uid, "its page or frame is gone") from exc
    current = next((f for f in flatten_frame_tree(tree) if f["id"] == entry.frame_id), None)
    if current is None:
        registry.retire(uid, "its frame was removed")
        raise StaleUid(uid, "its frame was removed")
    if current.get("loaderId") != entry.loader_id:
        registry.retire_document(entry.frame_id, entry.loader_id, "the frame navigated")
        raise StaleUid(uid, "it is from an old document (the frame navigated)")
    try:
        obj = (await entry.session.send("DOM.resolveNode", {"backendNodeId": entry.backend_node_id}))["object"]
    except CDPError as exc:
        registry.retire(uid, "its element was removed from the page")
        raise StaleUid(uid, "its element was removed from the page") from exc
    node = ResolvedNode(entry, obj["objectId"])
    connected = await node.call("function() { return this.isConnected; }")
    if not connected:
        await node.release()
        registry.retire(uid, "its element was removed from the page")
        raise StaleUid(uid, "its element was removed from the page")
    return node
