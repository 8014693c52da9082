"""Element input by CSS selector or annotate label: annotate, click_by_id, click, fill, hover, scroll, press_key.

Input goes through Playwright on the selected frame for its actionability checks (visible,
stable, enabled, scrolled into view); the first match of a selector is used and the number
of matches is reported. Typed values are never echoed back.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from targets.errors import ErrorCode, ToolFailure

from ..context import ToolContext
from ..registry import ActionArgs, ActionResult, action
from .pagejs import act, no_dialog, playwright_call, run_js, with_dialog

S = "browser_session"
I = "browser_interact"  # noqa: E741 - the tool's short name, used as a tag


class Dialog(BaseModel):
    """A JavaScript dialog the action opened and that waits for handle_dialog."""

    type: str
    message: str
    url: str | None = None


class Labelled(BaseModel):
    id: int
    tag: str
    text: str
    type: str | None = None
    role: str | None = None
    href: str | None = None
    inViewport: bool


class AnnotateResult(BaseModel):
    elements: list[Labelled]


class ClickByIdResult(BaseModel):
    element_id: int
    element: dict[str, Any] | None
    dialog: Dialog | None = None


class SelectorResult(BaseModel):
    selector: str
    matches: int
    chars: int | None = None
    dialog: Dialog | None = None


class ScrollPosition(BaseModel):
    x: int
    y: int
    maxY: int


class ScrollResult(BaseModel):
    selector: str | None = None
    scroll: ScrollPosition | None = None


class KeyResult(BaseModel):
    key: str
    selector: str | None
    dialog: Dialog | None = None


# -- annotate / click_by_id -----------------------------------------------------------------

_ANNOTATE_JS = r"""
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


class AnnotateArgs(ActionArgs):
    clear: bool = Field(False, description="Remove the labels instead")
    max_elements: int = Field(300, ge=1, le=2000, description="Cap on labelled elements")


@action(S, "annotate", AnnotateArgs, legacy="browser_annotate", result=AnnotateResult, lock="page")
async def annotate(ctx: ToolContext, args: AnnotateArgs) -> ActionResult:
    """Overlay numbered labels on interactive elements; click one with click_by_id."""
    page = await ctx.page()
    await no_dialog(ctx, page, "annotate")
    items = await run_js(ctx, page, _ANNOTATE_JS, {"clear": args.clear, "max": args.max_elements}) or []
    page.data["annotations"] = {item["id"]: item for item in items}
    if args.clear:
        return ActionResult(text="annotations removed", data={"elements": []})
    lines = [f"[{i['id']}] {i['tag']}{'/' + i['type'] if i.get('type') else ''} {i['text']!r}" for i in items]
    return ActionResult(
        text=f"{len(items)} interactive element(s) labelled:\n" + "\n".join(lines), data={"elements": items}
    )


class ClickByIdArgs(ActionArgs):
    element_id: int = Field(ge=1, description="Label number from annotate")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


@action(S, "click_by_id", ClickByIdArgs, legacy="browser_click_by_id", result=ClickByIdResult, lock="page")
async def click_by_id(ctx: ToolContext, args: ClickByIdArgs) -> ActionResult:
    """Click the element annotate labelled with element_id."""
    page = await ctx.page()
    await no_dialog(ctx, page, "click_by_id")
    frame = await page.playwright_frame()
    locator = frame.locator(f'[data-mcp-annotate-id="{args.element_id}"]')
    if await playwright_call(locator.count(), what="click_by_id") == 0:
        raise ToolFailure(
            ErrorCode.STALE_UID,
            f"label {args.element_id} is no longer on the page",
            hint="call annotate again (labels vanish when the page navigates or re-renders)",
            element_id=args.element_id,
        )
    dialog = await act(ctx, page, f"click label {args.element_id}", locator.first.click(timeout=args.timeout_ms))
    item = page.data.get("annotations", {}).get(args.element_id, {})
    return with_dialog(
        ActionResult(
            text=f"clicked [{args.element_id}] {item.get('tag', '')} {item.get('text', '')!r}".rstrip(),
            data={"element_id": args.element_id, "element": item or None},
        ),
        dialog,
    )


# -- browser_interact: selector actions through Playwright ----------------------------------


class ClickArgs(ActionArgs):
    selector: str = Field(description="CSS selector (first match is used)")
    button: Literal["left", "right", "middle"] = Field("left", description="Mouse button")
    click_count: int = Field(1, ge=1, le=3, description="2 = double click")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


class FillArgs(ActionArgs):
    selector: str = Field(description="CSS selector (first match is used)")
    value: str = Field(description="Text to type (replaces the field's content)")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


class HoverArgs(ActionArgs):
    selector: str = Field(description="CSS selector (first match is used)")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


class ScrollArgs(ActionArgs):
    selector: str | None = Field(None, description="CSS selector (first match is used)")
    direction: Literal["down", "up", "left", "right"] = Field("down", description="Without selector")
    amount: int = Field(600, ge=1, le=100000, description="Pixels, without selector")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


class PressKeyArgs(ActionArgs):
    key: str = Field(description="Key, e.g. Enter, Tab, ArrowDown, Control+a")
    selector: str | None = Field(None, description="CSS selector (first match is used)")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


async def _locate(ctx: ToolContext, page: Any, selector: str, what: str) -> tuple[Any, int]:
    await no_dialog(ctx, page, what)  # counting matches runs script: it would hang behind a dialog
    frame = await page.playwright_frame()
    locator = frame.locator(selector)
    count = await playwright_call(locator.count(), what=what)
    if count == 0:
        raise ToolFailure(
            ErrorCode.ELEMENT_NOT_INTERACTABLE,
            f"{what}: no element matches {selector!r}",
            hint="check the selector with get_dom or snapshot (and select_frame for iframes)",
            selector=selector,
        )
    return locator.first, count


@action(I, "click", ClickArgs, legacy="browser_click", result=SelectorResult, lock="page")
async def click(ctx: ToolContext, args: ClickArgs) -> ActionResult:
    """Click the element matching a CSS selector."""
    page = await ctx.page()
    target, count = await _locate(ctx, page, args.selector, "click")
    dialog = await act(
        ctx, page, "click", target.click(button=args.button, click_count=args.click_count, timeout=args.timeout_ms)
    )
    result = ActionResult(text=f"clicked {args.selector}", data={"selector": args.selector, "matches": count})
    return with_dialog(result, dialog)


@action(I, "fill", FillArgs, legacy="browser_fill", result=SelectorResult, lock="page")
async def fill(ctx: ToolContext, args: FillArgs) -> ActionResult:
    """Fill an input/textarea matching a CSS selector (the value is not echoed back)."""
    page = await ctx.page()
    target, count = await _locate(ctx, page, args.selector, "fill")
    dialog = await act(ctx, page, "fill", target.fill(args.value, timeout=args.timeout_ms))
    result = ActionResult(
        text=f"filled {args.selector} ({len(args.value)} chars)",
        data={"selector": args.selector, "matches": count, "chars": len(args.value)},
    )
    return with_dialog(result, dialog)


@action(I, "hover", HoverArgs, legacy="browser_hover", result=SelectorResult, lock="page")
async def hover(ctx: ToolContext, args: HoverArgs) -> ActionResult:
    """Move the mouse over the element matching a CSS selector."""
    page = await ctx.page()
    target, count = await _locate(ctx, page, args.selector, "hover")
    dialog = await act(ctx, page, "hover", target.hover(timeout=args.timeout_ms))
    result = ActionResult(text=f"hovering {args.selector}", data={"selector": args.selector, "matches": count})
    return with_dialog(result, dialog)


_SCROLL_JS = """
(arg) => { window.scrollBy(arg.dx, arg.dy); return {x: Math.round(scrollX), y: Math.round(scrollY),
  maxY: Math.max(0, document.documentElement.scrollHeight - innerHeight)}; }
"""


@action(I, "scroll", ScrollArgs, legacy="browser_scroll", result=ScrollResult, lock="page")
async def scroll(ctx: ToolContext, args: ScrollArgs) -> ActionResult:
    """Scroll an element into view, or the page by amount pixels in direction."""
    page = await ctx.page()
    await no_dialog(ctx, page, "scroll")
    if args.selector:
        target, count = await _locate(ctx, page, args.selector, "scroll")
        await playwright_call(target.scroll_into_view_if_needed(timeout=args.timeout_ms), what="scroll")
        return ActionResult(text=f"scrolled {args.selector} into view", data={"selector": args.selector})
    dx = {"left": -args.amount, "right": args.amount}.get(args.direction, 0)
    dy = {"up": -args.amount, "down": args.amount}.get(args.direction, 0)
    position = await run_js(ctx, page, _SCROLL_JS, {"dx": dx, "dy": dy})
    return ActionResult(text=f"scrolled {args.direction} to y={position.get('y')}", data={"scroll": position})


@action(I, "press_key", PressKeyArgs, legacy="browser_press_key", result=KeyResult, lock="page")
async def press_key(ctx: ToolContext, args: PressKeyArgs) -> ActionResult:
    """Press a key, in the element matching selector or in the focused element."""
    page = await ctx.page()
    if args.selector:
        target, _ = await _locate(ctx, page, args.selector, "press_key")
        call = target.press(args.key, timeout=args.timeout_ms)
    else:
        pw_page = await page.playwright_page()
        call = pw_page.keyboard.press(args.key)
    dialog = await act(ctx, page, "press_key", call)
    where = args.selector or "the focused element"
    result = ActionResult(text=f"pressed {args.key} in {where}", data={"key": args.key, "selector": args.selector})
    return with_dialog(result, dialog)
