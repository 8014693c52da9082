"""Snapshot lines from Chrome's accessibility tree: the reference, and the fallback of the in-page collector.

``Accessibility.getFullAXTree`` already answers "what would a user see and use here" (roles,
computed names from labels, values, states), but it describes every node of the page: megabytes
of JSON for a large page, read and parsed whole for every snapshot. The in-page collector
(:mod:`~cdp_core.recorders.accessibility.collector`) computes the same roles and names where the DOM
is; this module is what a frame falls back to when the collector cannot run there, and what
tests compare the collector with (``SnapshotOptions(engine="ax")``).

Chrome leaves out what an agent still needs, so the tree is joined with one
``DOMSnapshot.captureSnapshot`` per renderer (:mod:`~cdp_core.recorders.accessibility.domjoin`).
The tree stops at an ``<iframe>``: each frame is read on its own and gets a
:class:`~cdp_core.recorders.accessibility.build.FramePlaceholder` there.
"""

from __future__ import annotations

import asyncio
import json

from ...connection import CDPSession
from ...errors import CDPError
from ..uids import FrameInfo, UidRegistry
from .axwalk import Builder, FrameTree, name_of, norm_text, role_of
from .build import (
    INTERACTIVE_ROLES,
    FrameLines,
    SelectorNotFound,
    SnapshotOptions,
    drop_rows_without_controls,
)
from .collector import isolated_world
from .domjoin import DomNode, parse_dom_snapshot

__all__ = ["read_ax_frames"]


async def _dom_snapshot(session: CDPSession) -> dict[int, DomNode]:
    try:
        snap = await session.send("DOMSnapshot.captureSnapshot", {"computedStyles": ["display"]})
    except CDPError:
        return {}
    return parse_dom_snapshot(snap)


async def _selector_backend(frame: FrameInfo, selector: str) -> int:
    """backendNodeId of the first element matching ``selector`` in the frame."""
    params = {"expression": f"document.querySelector({json.dumps(selector)})"}
    try:
        result = await frame.session.send("Runtime.evaluate", {**params, "contextId": await isolated_world(frame)})
    except CDPError:
        frame.world = None  # the context went away (document replaced): try once with a new world
        result = await frame.session.send("Runtime.evaluate", {**params, "contextId": await isolated_world(frame)})
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


async def read_ax_frames(
    frames: list[FrameInfo],
    registry: UidRegistry,
    options: SnapshotOptions,
    *,
    selector_frame: str | None = None,
) -> dict[str, FrameLines | BaseException]:
    """Each frame's lines from its accessibility tree (a frame that cannot be read maps to its error).

    ``options.selector`` applies in ``selector_frame`` (its lines start at the match); a frame
    read whole retires the uids of its nodes that left the tree.
    """
    sessions: list[CDPSession] = []
    for f in frames:
        if all(f.session is not s for s in sessions):
            sessions.append(f.session)
    doms_list, ax_list = await asyncio.gather(
        asyncio.gather(*(_dom_snapshot(s) for s in sessions)),
        asyncio.gather(
            *(f.session.send("Accessibility.getFullAXTree", {"frameId": f.frame_id}) for f in frames),
            return_exceptions=True,
        ),
    )
    dom_by_session = {id(s): d for s, d in zip(sessions, doms_list, strict=True)}
    trees: dict[str, FrameTree] = {}
    out: dict[str, FrameLines | BaseException] = {}
    control_names: set[str] = set()
    for f, ax in zip(frames, ax_list, strict=True):
        if isinstance(ax, BaseException):
            out[f.frame_id] = ax
            continue
        nodes = {n["nodeId"]: n for n in ax["nodes"]}
        root = next((n["nodeId"] for n in ax["nodes"] if not n.get("parentId")), None)
        trees[f.frame_id] = FrameTree(f, nodes, root, dom_by_session.get(id(f.session), {}))
        for node in nodes.values():
            if not node.get("ignored") and role_of(node) in INTERACTIVE_ROLES:
                control_names.add(norm_text(name_of(node)))
    for frame_id, tree in trees.items():
        if tree.root is None:
            out[frame_id] = LookupError("the frame's accessibility tree is empty")
            continue
        start_ids: list[str] = tree.nodes[tree.root].get("childIds") or []
        if options.selector and frame_id == selector_frame:
            backend = await _selector_backend(tree.info, options.selector)
            match = next((nid for nid, n in tree.nodes.items() if n.get("backendDOMNodeId") == backend), None)
            if match is None:
                raise SelectorNotFound(
                    f"{options.selector!r} matches an element outside the accessibility tree (hidden?)"
                )
            start_ids = [match]
        builder = Builder(registry, options, control_names)
        builder.walk(tree, start_ids)
        if not (options.selector and frame_id == selector_frame):
            present = {n["backendDOMNodeId"] for n in tree.nodes.values() if n.get("backendDOMNodeId") is not None}
            registry.prune_document(tree.info, present)
        lines = drop_rows_without_controls(builder.lines) if options.interactive_only else builder.lines
        out[frame_id] = FrameLines(tree.info, lines, title=name_of(tree.nodes[tree.root]), source="ax")
    return out
