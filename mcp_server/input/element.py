"""An element to act on: the session that runs its document, a remote object of it, its frame.

Found from a snapshot uid (:func:`element_from_uid`, checked to be the same node of the same
live document) or from a CSS selector in a frame (:func:`element_from_selector`, first match,
with the number of matches). Release it with :meth:`Element.release` when done.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cdp_core import CDPError, CDPException, CDPSession
from cdp_core.recorders.uids import UidRegistry
from mcp_server.input.frames import FrameRef, find_frame, frame_document
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from targets import PageHandle

__all__ = ["Element", "element_from_uid", "element_from_selector", "registry_of"]

_DESCRIBE_JS = """function() {
  const el = this;
  const out = {tag: el.tagName || '', type: (el.getAttribute && el.getAttribute('type') || '').toLowerCase(),
               editable: !!el.isContentEditable, multiple: !!el.multiple};
  return out;
}"""

_QUERY_JS = """function(selector) {
  const all = this.querySelectorAll(selector);
  return {count: all.length};
}"""

_FIRST_JS = "function(selector) { return this.querySelector(selector); }"


@dataclass
class Element:
    """A live element of ``page``: ``session`` runs its document, ``object_id`` is a remote object of it."""

    page: PageHandle
    session: CDPSession
    object_id: str
    frame_id: str
    #: how messages name it: '[uid=5] button "Save"' or the selector
    label: str
    #: tag (upper case), type attribute (lower case), contentEditable, multiple
    info: dict[str, Any] = field(default_factory=dict)
    #: the snapshot's UidEntry when found by uid (uid, role, name)
    entry: Any = None
    #: free slot for the caller (e.g. what the action did)
    meta: dict[str, Any] = field(default_factory=dict)
    #: the page reacts to typing in it (input/key listeners on it, its form or its document), set
    #: by a fill: its follow-up then waits for a debounced handler (input/commit.py)
    typing_watched: bool = False

    async def call(self, function: str, *args: Any, timeout: float = 10.0) -> Any:
        """``Runtime.callFunctionOn`` with ``this`` = the element; returns the JSON value."""
        reply = await self.session.send(
            "Runtime.callFunctionOn",
            {
                "objectId": self.object_id,
                "functionDeclaration": function,
                "arguments": [{"value": a} for a in args],
                "returnByValue": True,
                "awaitPromise": True,
            },
            timeout=timeout,
        )
        if reply.get("exceptionDetails"):
            details = reply["exceptionDetails"]
            text = (details.get("exception") or {}).get("description") or details.get("text") or "script threw"
            raise CDPError("Runtime.callFunctionOn", 0, str(text).split("\n")[0][:300])
        return reply.get("result", {}).get("value")

    async def release(self) -> None:
        try:
            await self.session.send("Runtime.releaseObject", {"objectId": self.object_id}, timeout=5)
        except CDPException:
            pass  # gone with its document, or the page is blocked: nothing to free

    @property
    def tag(self) -> str:
        return str(self.info.get("tag") or "")

    @property
    def type(self) -> str:
        return str(self.info.get("type") or "")


async def _describe(element: Element) -> Element:
    element.info = await element.call(_DESCRIBE_JS) or {}
    return element


def registry_of(page: PageHandle) -> UidRegistry:
    """The page's uid registry (created on first use, dropped with the page handle)."""
    registry = page.data.get("snapshot")
    if not isinstance(registry, UidRegistry):
        registry = UidRegistry()
        page.data["snapshot"] = registry
    return registry


async def element_from_uid(page: PageHandle, uid: int) -> Element:
    """The element behind a snapshot uid (STALE_UID when it is gone or from an old document)."""
    from cdp_core.recorders.accessibility import resolve_uid
    from cdp_core.recorders.uids import StaleUid

    try:
        node = await resolve_uid(registry_of(page), uid)
    except StaleUid as exc:
        raise ToolFailure(
            ErrorCode.STALE_UID,
            f"uid {uid} is stale: {exc.reason}",
            hint="take a new snapshot (browser_session action=snapshot) and use its uids",
            uid=uid,
        ) from None
    entry = node.entry
    label = f'[uid={entry.uid}] {entry.role} "{entry.name[:80]}"'.replace(' ""', "")
    element = Element(page, node.session, node.object_id, entry.frame_id, label, entry=entry)
    # A text node or pseudo node stands for its element.
    reply = await element.session.send(
        "Runtime.callFunctionOn",
        {
            "objectId": element.object_id,
            "functionDeclaration": "function() { return this.nodeType === 1 ? this : this.parentElement; }",
        },
        timeout=10,
    )
    target = reply.get("result", {}).get("objectId")
    if not target:
        await element.release()
        raise ToolFailure(ErrorCode.ELEMENT_NOT_INTERACTABLE, f"{label} is not an element", uid=uid)
    if target != element.object_id:
        await element.release()
        element.object_id = target
    return await _describe(element)


async def element_from_selector(page: PageHandle, selector: str, *, frame_id: str | None = None) -> tuple[Element, int]:
    """The first element matching a CSS ``selector`` in the frame (default: the page's selected frame)."""
    wanted = frame_id if frame_id is not None else page.active_frame
    ref = await find_frame(page, wanted)
    if ref is None:
        raise ToolFailure(
            ErrorCode.FRAME_NOT_FOUND,
            f"frame {wanted} is no longer in page {page.stable_page_id}",
            hint="call list_frames and select_frame again (frame_index 0 = main frame)",
            frame_id=wanted,
        )
    document = await _document(ref)
    try:
        try:
            reply = await ref.session.send(
                "Runtime.callFunctionOn",
                {
                    "objectId": document,
                    "functionDeclaration": _QUERY_JS,
                    "arguments": [{"value": selector}],
                    "returnByValue": True,
                },
                timeout=10,
            )
        except CDPException as exc:
            raise ToolFailure(ErrorCode.ELEMENT_NOT_INTERACTABLE, f"selector {selector!r}: {exc}") from None
        if reply.get("exceptionDetails"):
            details = reply["exceptionDetails"]
            text = (details.get("exception") or {}).get("description") or details.get("text") or "invalid"
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                f"{selector!r} is not a valid CSS selector: {str(text).splitlines()[0][:200]}",
                hint="fix the CSS selector (plain CSS; no Playwright text= or >> syntax)",
                selector=selector,
            )
        count = int(reply["result"]["value"]["count"])
        if count == 0:
            raise ToolFailure(
                ErrorCode.ELEMENT_NOT_INTERACTABLE,
                f"no element matches {selector!r}",
                hint="check the selector with get_dom or snapshot (and select_frame for iframes)",
                selector=selector,
            )
        first = await ref.session.send(
            "Runtime.callFunctionOn",
            {"objectId": document, "functionDeclaration": _FIRST_JS, "arguments": [{"value": selector}]},
            timeout=10,
        )
    finally:
        try:
            await ref.session.send("Runtime.releaseObject", {"objectId": document}, timeout=5)
        except CDPException:
            pass
    object_id = first.get("result", {}).get("objectId")
    if not object_id:  # removed between the two calls
        raise ToolFailure(ErrorCode.ELEMENT_NOT_INTERACTABLE, f"no element matches {selector!r}", selector=selector)
    element = Element(page, ref.session, object_id, ref.frame_id, selector)
    return await _describe(element), count


async def _document(ref: FrameRef) -> str:
    try:
        return await frame_document(ref)
    except CDPException as exc:
        raise ToolFailure(
            ErrorCode.FRAME_NOT_FOUND,
            f"frame {ref.frame_id} has no document to search ({exc})",
            hint="the frame may still be loading or was removed; call list_frames",
            frame_id=ref.frame_id,
        ) from None
