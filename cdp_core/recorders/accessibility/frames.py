"""The frames of a page, each with the CDP session that owns its document (snapshot step 1).

Same-process frames share the page's session; out-of-process iframes (OOPIFs: another site
under site isolation) live in their own renderer and are reached through the session someone
auto-attached (``Target.setAutoAttach``), matched by target id == frame id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...connection import CDPSession
from ...errors import CDPError, CDPException

__all__ = ["FrameNode", "flatten_frame_tree", "oopif_sessions", "collect_frames", "frame_owner", "parent_session"]


@dataclass
class FrameNode:
    """One frame of the page as ``Page.getFrameTree`` reports it, plus the session to read it through."""

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


async def collect_frames(session: CDPSession, children: dict[str, CDPSession]) -> list[FrameNode]:
    """Every frame of the page (main frame first) with the session that owns its document."""
    frames: list[FrameNode] = []
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
                FrameNode(fid, parent, frame.get("loaderId", ""), frame.get("url", ""), frame.get("name", ""), sess)
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


def parent_session(frame: FrameNode, frames: list[FrameNode]) -> CDPSession | None:
    """The session of ``frame``'s parent frame (where its ``<iframe>`` element lives)."""
    for f in frames:
        if f.frame_id == frame.parent_id:
            return f.session
    return None


async def frame_owner(session: CDPSession, frame_id: str) -> int | None:
    """backendNodeId of the ``<iframe>``/``<frame>`` element holding ``frame_id`` (asked of the parent's session)."""
    try:
        return (await session.send("DOM.getFrameOwner", {"frameId": frame_id})).get("backendNodeId")
    except CDPError:
        return None
