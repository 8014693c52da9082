"""Frames through our own CDP sessions: which session holds a frame, its document, its place in the parent.

Why not Playwright's frames: Playwright would have to connect to the user's Chrome, and a
connected Playwright answers the user's JavaScript dialogs itself (and hangs on a tab whose
dialog was open before it connected). Everything here is a CDP command on a session the
hub already holds, so it works the same on both targets, in out-of-process iframes and in a
tab the user is not looking at.

Coordinates: ``DOM.getContentQuads`` / ``DOM.getBoxModel`` answer in the coordinates of the
session's *local root* (the page for in-process frames, the iframe itself for an
out-of-process one); input events go to that same session in those coordinates (measured:
an out-of-process iframe of a hidden tab ignores input routed through the page's session,
and takes it on its own session).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cdp_core import CDPError, CDPException, CDPSession

if TYPE_CHECKING:
    from targets import BrowserManager, PageHandle

__all__ = [
    "FrameRef",
    "frame_sessions",
    "frame_tree",
    "find_frame",
    "frame_document",
    "owner_origin",
    "parent_of",
    "all_frames",
]


@dataclass(frozen=True)
class FrameRef:
    """A frame and the session that runs its document (its local root's session)."""

    session: CDPSession
    frame_id: str
    #: parent frame id inside the same session, or None for the session's root frame
    parent_id: str | None


def frame_sessions(page: PageHandle) -> list[CDPSession]:
    """The page's own session first, then its out-of-process iframe sessions (live ones)."""
    sessions = [page.session]
    for record in list(page.sessions):
        if record.kind == "iframe" and not record.session.closed and record.session is not page.session:
            sessions.append(record.session)
    return sessions


def session_root_id(page: PageHandle, session: CDPSession) -> str:
    """The frame id of a session's root frame (a target's id is its main frame's id)."""
    if session is page.session:
        return page.target_id
    return str(session.target_info.get("targetId") or "")


async def frame_tree(session: CDPSession) -> dict[str, str | None]:
    """frame id -> parent id (None for the root) of the frames this session runs."""
    tree = (await session.send("Page.getFrameTree", timeout=10))["frameTree"]
    out: dict[str, str | None] = {}

    def walk(node: dict[str, Any], parent: str | None) -> None:
        frame_id = node["frame"]["id"]
        out[frame_id] = parent
        for child in node.get("childFrames") or []:
            walk(child, frame_id)

    walk(tree, None)
    return out


async def find_frame(page: PageHandle, frame_id: str | None) -> FrameRef | None:
    """The session that runs ``frame_id`` (None = the main frame), or None when no session has it.

    An out-of-process iframe is its own target (target id = frame id), so its session wins over
    the parent's tree, which lists the frame too but cannot run script in it.
    """
    if not frame_id or frame_id == page.target_id:
        return FrameRef(page.session, page.target_id, None)
    sessions = frame_sessions(page)
    for session in sessions[1:]:
        if session_root_id(page, session) == frame_id:
            return FrameRef(session, frame_id, None)
    for session in sessions:
        try:
            tree = await frame_tree(session)
        except CDPException:
            continue
        if frame_id in tree:
            return FrameRef(session, frame_id, tree[frame_id])
    return None


async def frame_document(ref: FrameRef) -> str:
    """A remote object id of the frame's ``document`` in its main world (release it when done)."""
    if ref.parent_id is None:
        reply = await ref.session.send("Runtime.evaluate", {"expression": "document"}, timeout=10)
        return str(reply["result"]["objectId"])
    owner = await ref.session.send("DOM.getFrameOwner", {"frameId": ref.frame_id}, timeout=10)
    node = (await ref.session.send("DOM.describeNode", {"backendNodeId": owner["backendNodeId"]}, timeout=10))["node"]
    document = node.get("contentDocument") or {}
    if not document.get("backendNodeId"):
        raise CDPError("DOM.describeNode", -32000, f"frame {ref.frame_id} has no document yet")
    resolved = await ref.session.send("DOM.resolveNode", {"backendNodeId": document["backendNodeId"]}, timeout=10)
    return str(resolved["object"]["objectId"])


async def owner_origin(session: CDPSession, frame_id: str) -> tuple[int, float, float]:
    """(backendNodeId, x, y) of a frame's owner element: its content box's top-left, in session coordinates."""
    owner = await session.send("DOM.getFrameOwner", {"frameId": frame_id}, timeout=10)
    backend = int(owner["backendNodeId"])
    model = (await session.send("DOM.getBoxModel", {"backendNodeId": backend}, timeout=10))["model"]
    content = model["content"]
    return backend, float(content[0]), float(content[1])


def _target_info(page: PageHandle, session: CDPSession) -> dict[str, Any]:
    for record in list(page.sessions):
        if record.session is session:
            return {**record.target_info, **session.target_info}
    return dict(session.target_info)


async def parent_of(page: PageHandle, session: CDPSession) -> FrameRef | None:
    """Where an out-of-process iframe session sits: the session and frame that hold its owner element.

    The parent's ``Page.getFrameTree`` does not list an out-of-process child; the child's target
    info names its parent frame (``parentFrameId``).
    """
    parent_frame = _target_info(page, session).get("parentFrameId")
    if not parent_frame:
        return None
    ref = await find_frame(page, str(parent_frame))
    if ref is None or ref.session is session:
        return None
    return ref


async def all_frames(page: PageHandle) -> list[dict[str, Any]]:
    """Every frame of the page, out-of-process ones included, parents before children.

    Each: ``frame_id``, ``parent_id``, ``name``, ``url``, ``outOfProcess``.
    """
    trees: list[tuple[CDPSession, dict[str, Any]]] = []
    for session in frame_sessions(page):
        try:
            trees.append((session, (await session.send("Page.getFrameTree", timeout=10))["frameTree"]))
        except CDPException:
            continue
    children: dict[str | None, list[dict[str, Any]]] = {}
    for session, tree in trees:
        oop = session is not page.session
        root_parent = _target_info(page, session).get("parentFrameId") if oop else None

        def walk(node: dict[str, Any], parent: str | None, oop: bool = oop) -> None:
            frame = node.get("frame") or {}
            entry = {
                "frame_id": frame.get("id"),
                "parent_id": parent,
                "name": frame.get("name") or "",
                "url": str(frame.get("url") or "") + str(frame.get("urlFragment") or ""),
                "outOfProcess": oop,
            }
            children.setdefault(parent, []).append(entry)
            for child in node.get("childFrames") or []:
                walk(child, frame.get("id"))

        walk(tree, root_parent)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()

    def emit(parent: str | None) -> None:
        for entry in children.get(parent, []):
            if entry["frame_id"] in seen:
                continue
            seen.add(entry["frame_id"])
            out.append(entry)
            emit(entry["frame_id"])

    emit(None)
    for entries in children.values():  # children of a frame we could not read: keep them, at the end
        for entry in entries:
            if entry["frame_id"] not in seen:
                seen.add(entry["frame_id"])
                out.append(entry)
                emit(entry["frame_id"])
    return out


# -- main-world execution contexts of frames (for evaluating in a selected frame) ----------------

_CONTEXT_EVENTS = (
    "Runtime.executionContextCreated",
    "Runtime.executionContextDestroyed",
    "Runtime.executionContextsCleared",
)


class FrameContexts:
    """frame id -> id of its main-world execution context, for one session (fed by Runtime events).

    Chrome announces every context on ``Runtime.enable`` and each new one after; subscribing
    before capture enables Runtime (see :func:`install`) therefore sees them all.
    """

    def __init__(self) -> None:
        self.by_frame: dict[str, int] = {}

    def on_event(self, event: Any) -> None:
        if event.method == "Runtime.executionContextCreated":
            context = event.params.get("context") or {}
            aux = context.get("auxData") or {}
            if aux.get("isDefault") and aux.get("frameId") and context.get("id") is not None:
                self.by_frame[str(aux["frameId"])] = int(context["id"])
        elif event.method == "Runtime.executionContextDestroyed":
            gone = event.params.get("executionContextId")
            for frame_id in [f for f, c in self.by_frame.items() if c == gone]:
                del self.by_frame[frame_id]
        else:
            self.by_frame.clear()


def _contexts_of(page: PageHandle) -> dict[str, FrameContexts]:
    table: dict[str, FrameContexts] = page.data.setdefault("frame_contexts", {})
    return table


def track_contexts(page: PageHandle, session: CDPSession) -> None:
    """Start recording the frames' main-world contexts of ``session`` (before Runtime.enable)."""
    table = _contexts_of(page)
    key = session.session_id or ""
    if key in table:
        return
    contexts = FrameContexts()
    table[key] = contexts
    session.on(_CONTEXT_EVENTS, contexts.on_event)


def main_world(page: PageHandle, ref: FrameRef) -> int | None:
    """The main-world context id of a frame, when we saw it created (None: unknown)."""
    contexts = _contexts_of(page).get(ref.session.session_id or "")
    return contexts.by_frame.get(ref.frame_id) if contexts is not None else None


def install(manager: BrowserManager) -> None:
    """Track frame contexts on every page and iframe session (register before capture's Runtime.enable)."""

    async def on_session(page: PageHandle, session: CDPSession, kind: str) -> None:
        if kind in ("page", "iframe"):
            track_contexts(page, session)

    manager.add_session_listener(on_session)
