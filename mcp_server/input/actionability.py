"""Actionability checks done across CDP round trips: no page timer, no animation frame.

Why our own: Playwright's checks wait for ``requestAnimationFrame``, and a tab the user is
not looking at gets none (measured on Chromium 156: rAF never fires in a hidden tab, so a
Playwright click there times out whatever the timeout). Each check here is one CDP command
that Chrome answers at once whether the tab is shown or not:

- attached and visible: ``checkVisibility()``, ``visibility``, a non-empty box;
- enabled: not ``:disabled`` (fieldsets included), no ``aria-disabled=true`` ancestor;
- editable (fill): a text field, textarea or contenteditable that is not read-only;
- scrolled into view: ``DOM.scrollIntoViewIfNeeded`` (crosses out-of-process frames);
- stable: ``DOM.getContentQuads`` twice, one frame's time apart, give the same box;
- receives the click: ``elementFromPoint`` at the click point, in the element's document
  and in every ancestor document up to the page, hits the element (or its owner frames).

Failures that waiting can cure (hidden, disabled, covered, moving) are retried until the
timeout, then reported with the last reason; the others (not editable) fail at once.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cdp_core import CDPError, CDPException, CDPSession
from mcp_server.input.frames import frame_tree, owner_origin, parent_of
from targets.errors import ErrorCode, ToolFailure

#: What an action that waits for actionability says of its length (docs/tools.md, progress).
ACTIONABILITY_TAKES = (
    "up to timeout_ms waiting for actionability (visible, stable, enabled), at most the call bound; "
    "progress: which element and what it waits for"
)

if TYPE_CHECKING:
    from mcp_server.input.element import Element

__all__ = ["Point", "NotActionable", "actionable_point", "check_state"]

#: Seconds between the two box reads of the stability check (about one frame).
STABLE_GAP = 0.016
_BACKOFF = (0.0, 0.02, 0.05, 0.1, 0.1, 0.25, 0.5)


@dataclass(frozen=True)
class Point:
    """Where to press, in the coordinates of ``element.session`` (its local root)."""

    x: float
    y: float


class NotActionable(Exception):
    """Why the element cannot take the action now; ``final`` when waiting would not help."""

    def __init__(self, reason: str, *, final: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.final = final


_STATE_JS = """function(needs) {
  const el = this;
  if (!el.isConnected) return {retry: 'is no longer attached to the document'};
  const style = getComputedStyle(el);
  if (needs.visible) {
    if (el.checkVisibility && !el.checkVisibility({visibilityProperty: true}))
      return {retry: 'is not visible (display:none, visibility or content-visibility hides it or an ancestor)'};
    if (style.visibility !== 'visible') return {retry: 'is not visible (visibility:' + style.visibility + ')'};
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return {retry: 'is not visible (its box is empty)'};
  }
  if (needs.enabled) {
    const controls = ['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP', 'FIELDSET'];
    const formControl = controls.includes(el.tagName);
    if (formControl && el.matches(':disabled')) return {retry: 'is disabled'};
    if (el.closest('[aria-disabled="true"]')) return {retry: 'is disabled (aria-disabled)'};
  }
  if (needs.editable) {
    const tag = el.tagName;
    const noText = ['checkbox', 'radio', 'file', 'submit', 'button', 'image', 'reset', 'hidden'];
    const type = (el.getAttribute('type') || 'text').toLowerCase();
    if (tag === 'INPUT' && noText.includes(type))
      return {final: 'is an <input type=' + type + '>, not a text field'};
    if (tag !== 'INPUT' && tag !== 'TEXTAREA' && !el.isContentEditable)
      return {final: 'is a <' + tag.toLowerCase() + '>, not an input, textarea or contenteditable element'};
    if ((tag === 'INPUT' || tag === 'TEXTAREA') && el.readOnly) return {retry: 'is read-only'};
    if (tag !== 'INPUT' && tag !== 'TEXTAREA' && el.closest('[aria-readonly="true"]'))
      return {retry: 'is read-only (aria-readonly)'};
  }
  return {};
}"""

_HIT_JS = """function(x, y) {
  const target = this;
  const doc = target.ownerDocument;
  let hit = doc.elementFromPoint(x, y);
  if (!hit) return 'nothing is there (the point is outside the visible part of the page)';
  while (hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  for (let n = hit; n; n = n.parentNode || n.host) if (n === target) return null;
  let name = '<' + hit.tagName.toLowerCase();
  if (hit.id) name += ' id="' + hit.id + '"';
  const cls = (typeof hit.className === 'string') ? hit.className.trim() : '';
  if (cls) name += ' class="' + cls.slice(0, 60) + '"';
  name += '>';
  const text = (hit.innerText || '').trim().replace(/\\s+/g, ' ').slice(0, 40);
  return 'is covered by ' + name + (text ? ' "' + text + '"' : '') + ', which would get the pointer event';
}"""


async def check_state(element: Element, *, visible: bool = True, enabled: bool = True, editable: bool = False) -> None:
    """Raise :class:`NotActionable` unless the element is attached, visible, enabled (and editable)."""
    try:
        verdict = await element.call(_STATE_JS, {"visible": visible, "enabled": enabled, "editable": editable})
    except CDPError as exc:
        raise NotActionable(f"cannot be checked ({exc.message})") from None
    verdict = verdict or {}
    if verdict.get("final"):
        raise NotActionable(verdict["final"], final=True)
    if verdict.get("retry"):
        raise NotActionable(verdict["retry"])


async def _quad(element: Element) -> list[float]:
    try:
        reply = await element.session.send("DOM.getContentQuads", {"objectId": element.object_id}, timeout=10)
    except CDPError as exc:
        raise NotActionable(f"has no box to click ({exc.message})") from None
    for quad in reply.get("quads") or []:
        xs, ys = quad[0::2], quad[1::2]
        if max(xs) - min(xs) >= 1 and max(ys) - min(ys) >= 1:
            return [round(v, 2) for v in quad]
    raise NotActionable("is not visible (its box is empty)")


async def _scroll_into_view(element: Element) -> None:
    try:
        await element.session.send("DOM.scrollIntoViewIfNeeded", {"objectId": element.object_id}, timeout=10)
    except CDPError as exc:
        raise NotActionable(f"cannot be scrolled into view ({exc.message})") from None


async def _hit_check(element: Element, point: Point) -> None:
    """Raise NotActionable unless a press at ``point`` reaches the element through every frame above it."""
    page = element.page
    session, frame_id, expected = element.session, element.frame_id, element.object_id
    x, y = point.x, point.y
    owned: list[tuple[CDPSession, str]] = []  # remote objects we created, to release
    try:
        for _ in range(16):  # frame depth bound
            ref_parent = await _parent_in_session(session, frame_id)
            while True:
                ox, oy = 0.0, 0.0
                if ref_parent is not None:
                    _, ox, oy = await owner_origin(session, frame_id)
                reply = await session.send(
                    "Runtime.callFunctionOn",
                    {
                        "objectId": expected,
                        "functionDeclaration": _HIT_JS,
                        "arguments": [{"value": x - ox}, {"value": y - oy}],
                        "returnByValue": True,
                    },
                    timeout=10,
                )
                verdict = reply.get("result", {}).get("value")
                if verdict:
                    raise NotActionable(verdict)
                if ref_parent is None:
                    break
                owner = await session.send("DOM.getFrameOwner", {"frameId": frame_id}, timeout=10)
                resolved = await session.send("DOM.resolveNode", {"backendNodeId": owner["backendNodeId"]}, timeout=10)
                expected = resolved["object"]["objectId"]
                owned.append((session, expected))
                frame_id = ref_parent
                ref_parent = await _parent_in_session(session, frame_id)
            if session is page.session:
                return
            parent = await parent_of(page, session)
            if parent is None:
                return  # the frame's owner is not reachable: the checks inside the frame stand
            root = str(session.target_info.get("targetId") or "")
            backend, ox, oy = await owner_origin(parent.session, root)
            resolved = await parent.session.send("DOM.resolveNode", {"backendNodeId": backend}, timeout=10)
            expected = resolved["object"]["objectId"]
            owned.append((parent.session, expected))
            session, frame_id = parent.session, parent.frame_id
            x, y = x + ox, y + oy
    except CDPError as exc:
        raise NotActionable(f"cannot be hit-tested ({exc.message})") from None
    finally:
        for owner_session, object_id in owned:
            try:
                await owner_session.send("Runtime.releaseObject", {"objectId": object_id}, timeout=5)
            except CDPException:
                pass


async def _parent_in_session(session: CDPSession, frame_id: str) -> str | None:
    return (await frame_tree(session)).get(frame_id)


async def actionable_point(
    element: Element,
    what: str,
    *,
    timeout_ms: int,
    enabled: bool = True,
    editable: bool = False,
    hit: bool = True,
) -> Point:
    """Wait until the element can take a pointer action; return where to press.

    Raises ToolFailure ELEMENT_NOT_INTERACTABLE with the reason (TIMEOUT-free: the reason is
    what the agent needs) when the element does not become actionable within ``timeout_ms``.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms / 1000
    attempt = 0
    reason = "was not checked"
    while True:
        try:
            await check_state(element, enabled=enabled, editable=editable)
            await _scroll_into_view(element)
            first = await _quad(element)
            await asyncio.sleep(STABLE_GAP)
            second = await _quad(element)
            if first != second:
                raise NotActionable("is moving (not stable)")
            point = Point(sum(second[0::2]) / 4, sum(second[1::2]) / 4)
            if hit:
                await _hit_check(element, point)
            return point
        except NotActionable as exc:
            reason = exc.reason
            if exc.final:
                raise not_interactable(element, what, reason, waited_ms=None) from None
        except CDPException as exc:
            reason = f"could not be checked ({exc})"
        if loop.time() >= deadline:
            waited = round((loop.time() - (deadline - timeout_ms / 1000)) * 1000)
            raise not_interactable(element, what, reason, waited_ms=waited)
        delay = _BACKOFF[min(attempt, len(_BACKOFF) - 1)]
        attempt += 1
        await asyncio.sleep(max(0.0, min(delay, deadline - loop.time())))


def not_interactable(element: Element, what: str, reason: str, *, waited_ms: int | None) -> ToolFailure:
    waited = f" (waited {waited_ms} ms)" if waited_ms is not None else ""
    return ToolFailure(
        ErrorCode.ELEMENT_NOT_INTERACTABLE,
        f"{what}: {element.label} {reason}{waited}",
        hint=_hint(reason),
        reason=reason,
    )


def _hint(reason: str) -> str:
    if "is covered by" in reason:
        return "close the overlay or dialog covering it (snapshot shows it), or act on the covering element"
    if "disabled" in reason:
        return "something must enable it first (fill the required fields?); take a snapshot"
    if "read-only" in reason:
        return "the field is read-only; use evaluate_js to set it if you really must"
    if "not a text field" in reason or "not an input" in reason:
        return "fill works on inputs, textareas and contenteditable elements; use click for others"
    if "not visible" in reason or "no box" in reason:
        return "open the menu, tab or section that shows it first (snapshot), or raise timeout_ms"
    if "attached" in reason:
        return "the page re-rendered: take a new snapshot and use its uids"
    return "take a snapshot to see the page, or raise timeout_ms"
