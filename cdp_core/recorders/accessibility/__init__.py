"""Page snapshots an agent can read and act on: lines of roles and names, with stable UIDs.

Why roles and accessible names: they answer "what would a user see and use here" (roles,
names from labels, values, states) and drop what is decorative, so a form reads as four lines
instead of forty ``div``s. How a snapshot is made, along the data's path:

1. frames (:mod:`~cdp_core.recorders.accessibility.frames`): every frame of the page with the
   session that owns its document (out-of-process iframes through their own sessions);
2. lines per frame: by the in-page collector (:mod:`~cdp_core.recorders.accessibility.collector`,
   our own role and name computation in an isolated world, so only the answer crosses the
   wire), or from Chrome's accessibility tree where the collector cannot run
   (:mod:`~cdp_core.recorders.accessibility.axtree`, also the reference in tests);
3. stitching and budgets (:mod:`~cdp_core.recorders.accessibility.build`,
   :mod:`~cdp_core.recorders.accessibility.format`): child frames indented at their ``<iframe>``,
   ``max_depth``/``max_lines``/``max_chars``, then text.

No MCP or targets imports here: the MCP layer passes a :class:`CDPSession`, a
:class:`~cdp_core.recorders.uids.UidRegistry` kept per page and the options.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from ...connection import CDPSession
from ...errors import CDPError, CDPException
from ..uids import FrameInfo, StaleUid, UidEntry, UidRegistry
from .axtree import read_ax_frames
from .build import (
    FrameLines,
    FrameNotFound,
    SelectorNotFound,
    SnapshotOptions,
    stitch,
)
from .collector import (
    CollectorFailed,
    Prefetch,
    element_backend,
    isolated_world,
    owner_key,
    prefetch,
    read_frame,
)
from .find import find_lines
from .format import Snapshot, budget_rendered
from .frames import (
    FrameNode,
    collect_frames,
    flatten_frame_tree,
    frame_owner,
    oopif_sessions,
    parent_session,
)

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
    early = None
    if opts.engine != "ax" and not opts.frame:
        early = prefetch(registry, session, opts, selector=opts.selector, max_lines=_in_page_cap(opts))
    try:
        return await _take(session, registry, opts, children, early)
    finally:
        if early is not None:
            early.drop()


def _in_page_cap(opts: SnapshotOptions) -> int | None:
    """The line cap the page applies itself (not with max_depth: lines past it are dropped here first)."""
    if opts.messages_only:
        return None
    return opts.max_lines if opts.max_depth is None and not opts.find else None


async def _take(
    session: CDPSession,
    registry: UidRegistry,
    opts: SnapshotOptions,
    children: dict[str, CDPSession],
    early: Prefetch | None,
) -> Snapshot:
    nodes = await collect_frames(session, children)
    if not nodes:
        raise FrameNotFound("the page has no frame")
    registry.forget_frames_except({f.frame_id for f in nodes})
    infos = {
        f.frame_id: registry.update_frame(
            f.frame_id, f.loader_id, url=f.url, name=f.name, session=f.session, parent_id=f.parent_id
        )
        for f in nodes
    }
    main = nodes[0]
    target_id = main.frame_id
    if opts.frame:
        info = registry.find_frame(opts.frame)
        if info is None or info.frame_id not in infos:
            known = ", ".join(f"{i.ref} ({i.url})" for i in registry.frames)
            raise FrameNotFound(f"no frame {opts.frame!r}; frames: {known}")
        target_id = info.frame_id

    # the target frame and the frames inside it, parents first
    kids: dict[str, list[str]] = {}
    for f in nodes:
        if f.parent_id is not None:
            kids.setdefault(f.parent_id, []).append(f.frame_id)
    wanted = [target_id]
    for frame_id in wanted:
        wanted.extend(kids.get(frame_id, []))
    node_of = {f.frame_id: f for f in nodes}
    owners = await _owner_backends([node_of[fid] for fid in wanted[1:]], nodes)

    notes: list[str] = []
    if opts.engine == "ax":
        results = await read_ax_frames([infos[fid] for fid in wanted], registry, opts, selector_frame=target_id)
    else:
        results = await _read_pages([infos[fid] for fid in wanted], registry, opts, target_id, owners, notes, early)

    for fid in wanted[1:]:
        parent = results.get(node_of[fid].parent_id or "")
        frame = results.get(fid)
        backend = owners.get(fid)
        if isinstance(frame, FrameLines) and isinstance(parent, FrameLines) and backend is not None:
            frame.owner = ("b", backend) if parent.source == "ax" else parent.extra.get("owner_keys", {}).get(fid)
    for fid in wanted:
        error = results.get(fid)
        if isinstance(error, BaseException):
            notes.append(f"frame {infos[fid].ref} {infos[fid].url} could not be read: {error}")
    target = results.get(target_id)
    if not isinstance(target, FrameLines):
        raise FrameNotFound(f"the frame could not be read: {target}")

    def children_of(frame: FrameLines) -> list[FrameLines]:
        return [r for fid in kids.get(frame.info.frame_id, []) if isinstance(r := results.get(fid), FrameLines)]

    lines, omitted_in_page = stitch(target, children_of)
    if opts.messages_only:
        # the frames were kept to stitch; from the accessibility tree every line came back
        lines = [line for line in lines if line.role != "frame" and line.on_screen]
        for line in lines:
            line.depth = 0
    elif opts.max_depth is not None:
        kept = [line for line in lines if line.depth <= opts.max_depth or line.essential]
        if len(kept) < len(lines):
            notes.append(f"{len(lines) - len(kept)} lines deeper than max_depth={opts.max_depth} hidden")
        lines = kept
    if opts.find and not opts.messages_only:
        lines, matched = find_lines(lines, opts.find)
        shown = " ".join(opts.find.split())[:100]
        notes.append(
            f"find {shown!r}: {matched} line(s) hold it, shown with the lines they hold and that hold them"
            if matched
            else f"find {shown!r}: no line holds it (names, values, field names and option labels are searched)"
        )
    lines, rendered, omitted, cut_by = budget_rendered(lines, max_lines=opts.max_lines, max_chars=opts.max_chars)
    if omitted_in_page:
        omitted += omitted_in_page
        cut_by = cut_by or f"max_lines={opts.max_lines}"

    main_result = results.get(main.frame_id)
    title = main_result.title if isinstance(main_result, FrameLines) else await _page_title(session)
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
        rendered=rendered,
    )
    registry.previous = snapshot
    return snapshot


async def _owner_backends(frames: list[FrameNode], nodes: list[FrameNode]) -> dict[str, int]:
    """frame id -> backendNodeId of its ``<iframe>`` element, asked of each parent's session."""
    asks: list[tuple[str, CDPSession]] = []
    for f in frames:
        session = parent_session(f, nodes)
        if session is not None:
            asks.append((f.frame_id, session))
    found = await asyncio.gather(*(frame_owner(s, fid) for fid, s in asks))
    return {fid: backend for (fid, _), backend in zip(asks, found, strict=True) if backend is not None}


async def _read_pages(
    frames: list[FrameInfo],
    registry: UidRegistry,
    opts: SnapshotOptions,
    target_id: str,
    owners: dict[str, int],
    notes: list[str],
    early: Prefetch | None = None,
) -> dict[str, FrameLines | BaseException]:
    """Each frame through the in-page collector; the ones it cannot read from the accessibility tree."""
    # One isolated world per document, made before anything runs in it (two calls at once would make two).
    worlds = await asyncio.gather(*(isolated_world(f) for f in frames), return_exceptions=True)
    ready = [f for f, w in zip(frames, worlds, strict=True) if not isinstance(w, BaseException)]
    by_id = {f.frame_id: f for f in frames}
    cap = _in_page_cap(opts)
    ready_ids = {f.frame_id for f in ready}
    asks: list[tuple[str, FrameInfo]] = []  # (child frame, parent frame read in the page): its <iframe>'s key
    for fid in owners:
        parent_id = by_id[fid].parent_id if fid in by_id else None
        if parent_id in ready_ids:
            asks.append((fid, by_id[parent_id]))
    reads, keys = await asyncio.gather(
        asyncio.gather(
            *(
                read_frame(
                    f,
                    registry,
                    opts,
                    selector=opts.selector if f.frame_id == target_id else None,
                    max_lines=cap,
                    prefetched=early,
                )
                for f in ready
            ),
            return_exceptions=True,
        ),
        asyncio.gather(*(owner_key(parent, owners[fid]) for fid, parent in asks), return_exceptions=True),
    )
    results: dict[str, FrameLines | BaseException] = {}
    failed: list[FrameInfo] = [f for f in frames if f not in ready]
    for f, read in zip(ready, reads, strict=True):
        if isinstance(read, SelectorNotFound):
            raise read
        if isinstance(read, CollectorFailed | CDPError):
            failed.append(f)
            continue
        results[f.frame_id] = read
    for (fid, parent), key in zip(asks, keys, strict=True):
        result = results.get(parent.frame_id)
        if isinstance(result, FrameLines) and isinstance(key, int):
            result.extra.setdefault("owner_keys", {})[fid] = ("w", key)
    if failed:
        selector_frame = target_id if any(f.frame_id == target_id for f in failed) else None
        results.update(await read_ax_frames(failed, registry, opts, selector_frame=selector_frame))
        for f in failed:
            if isinstance(results.get(f.frame_id), FrameLines):
                notes.append(f"frame {f.ref} read from Chrome's accessibility tree")
    return results


async def _page_title(session: CDPSession) -> str:
    try:
        return str((await session.send("Target.getTargetInfo"))["targetInfo"].get("title") or "")
    except (CDPException, KeyError):
        return ""


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


def _stale(registry: UidRegistry, uid: int, reason: str) -> StaleUid:
    registry.retire(uid, reason)
    return StaleUid(uid, reason)


async def resolve_uid(registry: UidRegistry, uid: int) -> ResolvedNode:
    """The element behind ``uid``, checked to be the same node of the same live document.

    Raises :class:`StaleUid` (and retires the uid) when the frame navigated, the frame
    is gone, or the node left the document; never hands back a different element. The
    object lives in the page's main world (``entry.backend_node_id`` is set once resolved).
    """
    entry = registry.lookup(uid)
    frame = registry.frame(entry.frame_id)
    if frame is None:
        raise _stale(registry, uid, "its frame was removed")
    try:
        tree = (await entry.session.send("Page.getFrameTree"))["frameTree"]
    except CDPException as exc:
        raise _stale(registry, uid, "its page or frame is gone") from exc
    current = next((f for f in flatten_frame_tree(tree) if f["id"] == entry.frame_id), None)
    if current is None:
        raise _stale(registry, uid, "its frame was removed")
    if current.get("loaderId") != entry.loader_id:
        registry.retire_document(entry.frame_id, entry.loader_id, "the frame navigated")
        raise StaleUid(uid, "it is from an old document (the frame navigated)")
    if entry.world is not None:
        context_id, key = entry.world
        if frame.world != (entry.loader_id, context_id):
            raise _stale(registry, uid, "it is from an old document (the page's document was replaced)")
        try:
            backend = await element_backend(frame, context_id, key)
        except CDPError as exc:
            raise _stale(registry, uid, "it is from an old document (the page's document was replaced)") from exc
        if backend is None:
            raise _stale(registry, uid, "its element was removed from the page")
        entry = registry.bind_backend(uid, backend)
    try:
        obj = (await entry.session.send("DOM.resolveNode", {"backendNodeId": entry.backend_node_id}))["object"]
    except CDPError as exc:
        raise _stale(registry, uid, "its element was removed from the page") from exc
    node = ResolvedNode(entry, obj["objectId"])
    connected = await node.call("function() { return this.isConnected; }")
    if not connected:
        await node.release()
        raise _stale(registry, uid, "its element was removed from the page")
    return node
