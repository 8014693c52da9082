"""Finding what a selector action acts on: the element a CSS selector (or annotate label) names, in
the selected frame, and the session of the focused frame; then acting on it and reporting what followed.

The collect step of :mod:`mcp_server.features.interact.selectors` (find -> act -> answer), apart so the action
module stays small: the handlers there say what each action does, this says how an element is reached.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mcp_server.evidence.dialogs import no_dialog, race_dialog, with_dialog
from mcp_server.evidence.followup import Followup
from mcp_server.evidence.followup_text import then_line
from mcp_server.input.calls import input_call
from mcp_server.input.element import Element, element_from_selector
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionResult

if TYPE_CHECKING:
    from targets import PageHandle

__all__ = ["ANNOTATE_JS", "Outcome", "focused_session", "selector_action"]

#: Labels the page's interactive elements (visible ones, up to ``max``) and returns them as items.
ANNOTATE_JS = r"""
(arg) => {
  const LAYER = '__mcp_annotations';
  document.getElementById(LAYER)?.remove();
  document.querySelectorAll('[data-mcp-annotate-id]').forEach((e) => e.removeAttribute('data-mcp-annotate-id'));
  if (arg.clear) return [];
  const sel = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[role=button],[role=link],' +
    '[role=checkbox],[role=radio],[role=tab],[role=menuitem],[role=option],[onclick],[contenteditable=""],' +
    '[contenteditable=true],[tabindex]:not([tabindex="-1"])';
  const layer = document.createElement('div');
  layer.id = LAYER;
  layer.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;z-index:2147483647;pointer-events:none';
  const out = [];
  let n = 0;
  for (const el of document.querySelectorAll(sel)) {
    if (n >= arg.max) break;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || cs.display === 'none') continue;
    n += 1;
    el.setAttribute('data-mcp-annotate-id', String(n));
    const tag = document.createElement('div');
    tag.textContent = String(n);
    tag.style.cssText = `position:absolute;left:${r.left + scrollX}px;top:${r.top + scrollY}px;` +
      'background:#c00;color:#fff;font:bold 11px/14px monospace;padding:0 3px;border-radius:3px;pointer-events:none';
    layer.appendChild(tag);
    const isField = ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
    const label = isField
      ? (el.getAttribute('aria-label') || el.getAttribute('placeholder') || el.name || el.id || '')
      : (el.innerText || el.getAttribute('aria-label') || el.title || '').trim().replace(/\s+/g, ' ');
    const item = {id: n, tag: el.tagName.toLowerCase(), text: label.slice(0, 80)};
    if (el.type && isField) item.type = el.type;
    if (el.getAttribute('role')) item.role = el.getAttribute('role');
    if (el.getAttribute('href')) item.href = el.getAttribute('href').slice(0, 200);
    item.inViewport = r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth;
    out.push(item);
  }
  document.body.appendChild(layer);
  return out;
}
"""


class Outcome:
    """What a selector action led to: the dialog it opened, what followed it, the match count."""

    def __init__(self, count: int, dialog: dict[str, Any] | None, followed: dict[str, Any]) -> None:
        self.count = count
        self.dialog = dialog
        self.followed = followed

    def apply(self, result: ActionResult) -> ActionResult:
        if self.dialog and "dialog" not in self.followed:
            result = with_dialog(result, self.dialog)
        elif self.dialog:
            result.data["dialog"] = self.dialog
        result.text += then_line(self.followed)
        if self.followed:
            result.data["followed"] = self.followed
        return result


async def selector_action(
    ctx: ToolContext, page: PageHandle, selector: str, what: str, perform: Callable[[Element], Awaitable[Any]]
) -> Outcome:
    """Find the first match in the selected frame, act (racing a dialog), release, report what followed."""
    watch = await no_dialog(ctx, page, what)
    element, count = await input_call(element_from_selector(page, selector), what=what)
    try:
        follow = await Followup(page, watch).start()
        dialog = await race_dialog(perform(element), watch, what)
    finally:
        if watch is not None and watch.open is not None:
            watch.cleanups.append(element.release)
        else:
            await element.release()
    await follow.settle(typing=element.typing_watched)
    return Outcome(count, dialog, await follow.report())


async def focused_session(page: PageHandle) -> Any:
    """The session whose frame has focus (an out-of-process iframe takes keys on its own session)."""
    from mcp_server.input.frames import find_frame

    if page.active_frame:
        ref = await find_frame(page, page.active_frame)
        if ref is not None:
            return ref.session
    return page.session
