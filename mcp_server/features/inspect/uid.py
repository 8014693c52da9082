"""The snapshot line (and uid) of an element known only as a node: the one a person clicked, the one covering another.

A uid is given by a snapshot (:mod:`cdp_core.recorders.uids`), so the element's own snapshot
is taken: the subtree snapshot at a CSS path to the element (``html > body > div:nth-child(2)
> button:nth-child(1)``, computed in the page, unique in its document), one line. When the
element has no line of its own (a ``<span>`` inside a button, a plain ``<div>``), its parent
is tried, up to :data:`MAX_UP` levels: the line a person means is the control around what
they clicked. The line's uid is checked to be that very node (its backendNodeId), and the
snapshot does not move the base of the agent's snapshot diffs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cdp_core import CDPException, CDPSession
from cdp_core.recorders.accessibility import (
    FrameNotFound,
    SelectorNotFound,
    SnapshotOptions,
    resolve_uid,
    take_snapshot,
)
from cdp_core.recorders.accessibility.format import SnapshotLine
from cdp_core.recorders.uids import StaleUid
from mcp_server.input.element import registry_of
from mcp_server.page.snapshots import child_sessions

if TYPE_CHECKING:
    from targets import PageHandle

__all__ = ["line_of", "ancestor", "MAX_UP"]

#: how many ancestors are tried for an element without a line of its own
MAX_UP = 4

_PATHS_JS = """function(maxUp) {
  const path = (el) => {
    const parts = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      if (!n.parentElement) { parts.unshift(n.tagName.toLowerCase()); break; }
      let i = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) i++;
      parts.unshift(n.tagName.toLowerCase() + ':nth-child(' + i + ')');
    }
    return parts.join(' > ');
  };
  const out = [];
  for (let n = this; n && n.nodeType === 1 && out.length <= maxUp; n = n.parentElement) {
    if (n === n.ownerDocument.body || n === n.ownerDocument.documentElement) break;
    out.push(path(n));
  }
  return out;
}"""

_UP_JS = "function(k) { let n = this; while (k-- > 0 && n) n = n.parentElement; return n; }"


async def ancestor(session: CDPSession, object_id: str, up: int) -> str | None:
    """A remote object of the element ``up`` levels above (None: there is none); release it."""
    reply = await session.send(
        "Runtime.callFunctionOn",
        {"objectId": object_id, "functionDeclaration": _UP_JS, "arguments": [{"value": up}]},
        timeout=10,
    )
    return (reply.get("result") or {}).get("objectId")


async def _backend(session: CDPSession, object_id: str, up: int) -> int | None:
    holder = await ancestor(session, object_id, up)
    if holder is None:
        return None
    try:
        node = (await session.send("DOM.describeNode", {"objectId": holder}, timeout=10))["node"]
        return int(node["backendNodeId"])
    finally:
        try:
            await session.send("Runtime.releaseObject", {"objectId": holder}, timeout=5)
        except CDPException:
            pass


async def line_of(
    page: PageHandle,
    session: CDPSession,
    object_id: str,
    frame_id: str | None,
    *,
    engine: str = "page",
    max_up: int = MAX_UP,
) -> tuple[SnapshotLine, int] | None:
    """(the snapshot line of the element or its nearest ancestor that has one, how many levels up), or None.

    ``object_id`` is a remote object of the element in ``session``; ``frame_id`` its frame
    (None: the page's main frame); ``max_up`` bounds the ancestors tried (0: the element's own line only).
    """
    reply = await session.send(
        "Runtime.callFunctionOn",
        {
            "objectId": object_id,
            "functionDeclaration": _PATHS_JS,
            "arguments": [{"value": max_up}],
            "returnByValue": True,
        },
        timeout=10,
    )
    paths: list[str] = (reply.get("result") or {}).get("value") or []
    registry = registry_of(page)
    previous = registry.previous
    main = frame_id is None or frame_id == page.target_id
    try:
        for up, path in enumerate(paths):
            options = SnapshotOptions(selector=path, frame=None if main else frame_id, max_lines=1, max_chars=4000)
            options.engine = engine
            try:
                snap = await take_snapshot(page.session, registry, options, child_sessions=child_sessions(page))
            except (SelectorNotFound, FrameNotFound):
                continue  # not shown (no line to give), or its frame is gone
            line = next((ln for ln in snap.lines if ln.uid is not None), None)
            if line is None or line.uid is None:
                continue
            if await _is_node(registry, line.uid, await _backend(session, object_id, up)):
                line.depth = 0
                return line, up
    finally:
        registry.previous = previous  # not the agent's snapshot: its diffs keep their base
    return None


async def _is_node(registry: Any, uid: int, backend: int | None) -> bool:
    """The uid stands for the node ``backend`` (resolving it binds its backendNodeId)."""
    if backend is None:
        return False
    try:
        node = await resolve_uid(registry, uid)
    except (StaleUid, CDPException):
        return False
    await node.release()
    return node.entry.backend_node_id == backend
