"""Element input by CSS selector or annotate label: annotate, click_by_id, click, fill, hover, scroll, press_key.

Input goes through :mod:`mcp_server.input` in the selected frame (our own actionability checks:
visible, enabled, stable, not covered, scrolled into view; trusted CDP input), so it works in a
background tab of the user's Chrome; the first match of a selector is used and the number of
matches is reported. The answer lists what the action caused. Typed values are never echoed back.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from mcp_server.answers.models import row_schema
from mcp_server.evidence.dialogs import no_dialog, race_dialog
from mcp_server.evidence.followup import Followup
from mcp_server.features.interact.selectors_find import ANNOTATE_JS, Outcome, focused_session, selector_action
from mcp_server.input import actions as inp
from mcp_server.input.actionability import ACTIONABILITY_TAKES
from mcp_server.input.calls import input_call
from mcp_server.input.element import Element, element_from_selector
from mcp_server.input.filling import Filled
from mcp_server.page.js import run_js
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action
from targets.errors import ErrorCode, ToolFailure

S = "browser_session"
I = "browser_interact"  # noqa: E741 - the tool's short name, used as a tag

#: what an input action waits for (its actionability checks), for progress messages
_ACTIONABLE = "waiting until it is visible, stable, enabled and receives events"


class Dialog(BaseModel):
    """A JavaScript dialog the action opened and that waits for handle_dialog."""

    type: str
    message: str
    url: str | None = None


ElementRow = Annotated[
    list[Any],
    row_schema(
        {"type": "integer"},
        {"type": "string"},
        {"type": "string"},
        description="[id, tag, text, {type, role, href, offscreen}?]",
    ),
]


class AnnotateResult(Answer):
    columns: list[str] = []
    elements: list[ElementRow] = []


class ClickByIdResult(Answer):
    element_id: int
    element: ElementRow | None = None
    dialog: Dialog | None = None
    followed: dict[str, Any] | None = None


class SelectorResult(Answer):
    selector: str
    matches: int
    chars: int | None = None
    #: the page's editor that took the typed text, its field emptying itself (``div.CodeMirror``)
    editor: str | None = None
    dialog: Dialog | None = None
    followed: dict[str, Any] | None = None


class ScrollPosition(BaseModel):
    x: int
    y: int
    maxY: int


class ScrollResult(Answer):
    selector: str | None = None
    matches: int | None = None
    scroll: ScrollPosition | None = None


class KeyResult(Answer):
    key: str
    selector: str | None = None
    dialog: Dialog | None = None
    followed: dict[str, Any] | None = None


# -- annotate / click_by_id -----------------------------------------------------------------


class AnnotateArgs(ActionArgs):
    clear: bool = Field(False, description="Remove the labels instead")
    max_elements: int = Field(300, ge=1, le=2000, description="Cap on labelled elements")


@action(S, "annotate", AnnotateArgs, legacy="browser_annotate", result=AnnotateResult, lock="page")
async def annotate(ctx: ToolContext, args: AnnotateArgs) -> ActionResult:
    """Overlay numbered labels on interactive elements; click one with click_by_id."""
    page = await ctx.page()
    await no_dialog(ctx, page, "annotate")
    items = await run_js(ctx, page, ANNOTATE_JS, {"clear": args.clear, "max": args.max_elements}) or []
    page.data["annotations"] = {item["id"]: item for item in items}
    if args.clear:
        return ActionResult(text="annotations removed", data={"elements": []})
    rows = [_element(i) for i in items]
    return ActionResult(
        text=f"{len(items)} interactive element(s) labelled:\n" + "\n".join(_element_line(r) for r in rows),
        data={"columns": ELEMENT_COLUMNS if rows else None, "elements": rows},
    )


#: An annotate label as a row: ``[id, tag, text, {type, role, href, offscreen}]``.
ELEMENT_COLUMNS = ["id", "tag", "text"]


def _element(item: dict[str, Any]) -> list[Any]:
    row: list[Any] = [item["id"], item["tag"], item.get("text", "")]
    more = {k: item[k] for k in ("type", "role", "href") if item.get(k)}
    if not item.get("inViewport", True):
        more["offscreen"] = True
    if more:
        row.append(more)
    return row


def _element_line(row: list[Any]) -> str:
    more = row[3] if len(row) > 3 else {}
    line = f"[{row[0]}] {row[1]}{'/' + more['type'] if more.get('type') else ''} {row[2]!r}"
    if more.get("role"):
        line += f" role={more['role']}"
    if more.get("href"):
        line += f" href={more['href']}"
    return line + (" (offscreen)" if more.get("offscreen") else "")


class ClickByIdArgs(ActionArgs):
    element_id: int = Field(ge=1, description="Label from annotate")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


@action(
    S,
    "click_by_id",
    ClickByIdArgs,
    legacy="browser_click_by_id",
    result=ClickByIdResult,
    lock="page",
    destructive=True,
    takes=ACTIONABILITY_TAKES,
)
async def click_by_id(ctx: ToolContext, args: ClickByIdArgs) -> ActionResult:
    """Click the element annotate labelled with element_id."""
    page = await ctx.page()
    selector = f'[data-mcp-annotate-id="{args.element_id}"]'
    args.timeout_ms = ctx.bound_ms(args.timeout_ms, status=f"click label {args.element_id}: {_ACTIONABLE}")
    try:
        outcome = await selector_action(
            ctx,
            page,
            selector,
            "click_by_id",
            lambda el: inp.click(el, "click_by_id", timeout_ms=args.timeout_ms),
        )
    except ToolFailure as exc:
        if exc.code == ErrorCode.ELEMENT_NOT_INTERACTABLE and exc.details.get("selector") == selector:
            raise ToolFailure(
                ErrorCode.STALE_UID,
                f"label {args.element_id} is no longer on the page",
                hint="call annotate again (labels vanish when the page navigates or re-renders)",
                element_id=args.element_id,
            ) from None
        raise
    item = page.data.get("annotations", {}).get(args.element_id, {})
    element = _element(item) if item else None
    text = _element_line(element) if element else f"[{args.element_id}]"
    result = ActionResult(
        text=f"clicked {text}",
        data={"element_id": args.element_id, "element": element},
    )
    return outcome.apply(result)


# -- browser_interact: selector actions through mcp_server.input ------------------------------


class ClickArgs(ActionArgs):
    selector: str = Field(description="CSS selector (first match)")
    button: Literal["left", "right", "middle"] = Field("left", description="Mouse button")
    click_count: int = Field(1, ge=1, le=3, description="2 = double click")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


class FillArgs(ActionArgs):
    selector: str = Field(description="CSS selector (first match)")
    value: str = Field(description="Text (replaces content)")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


class HoverArgs(ActionArgs):
    selector: str = Field(description="CSS selector (first match)")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


class ScrollArgs(ActionArgs):
    selector: str | None = Field(None, description="CSS selector (first match)")
    direction: Literal["down", "up", "left", "right"] = Field("down", description="Without selector")
    amount: int = Field(600, ge=1, le=100000, description="Pixels, without selector")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


class PressKeyArgs(ActionArgs):
    key: str = Field(description="e.g. Enter, Tab, Control+a")
    selector: str | None = Field(None, description="CSS selector (first match)")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


def _matches(count: int) -> str:
    """What the text says about the match count (the JSON has ``matches``)."""
    return " (1 match)" if count == 1 else f" (first of {count} matches)"


@action(
    I,
    "click",
    ClickArgs,
    legacy="browser_click",
    result=SelectorResult,
    lock="page",
    destructive=True,
    takes=ACTIONABILITY_TAKES,
)
async def click(ctx: ToolContext, args: ClickArgs) -> ActionResult:
    """Click the element matching a CSS selector."""
    page = await ctx.page()
    args.timeout_ms = ctx.bound_ms(args.timeout_ms, status=f"{args.selector}: {_ACTIONABLE}")  # within the call bound
    outcome = await selector_action(
        ctx,
        page,
        args.selector,
        "click",
        lambda el: inp.click(el, "click", timeout_ms=args.timeout_ms, button=args.button, click_count=args.click_count),
    )
    result = ActionResult(
        text=f"clicked {args.selector}{_matches(outcome.count)}",
        data={"selector": args.selector, "matches": outcome.count},
    )
    return outcome.apply(result)


@action(I, "fill", FillArgs, legacy="browser_fill", result=SelectorResult, lock="page", takes=ACTIONABILITY_TAKES)
async def fill(ctx: ToolContext, args: FillArgs) -> ActionResult:
    """Fill an input/textarea matching a CSS selector (the value is not echoed back)."""
    page = await ctx.page()
    args.timeout_ms = ctx.bound_ms(args.timeout_ms, status=f"{args.selector}: {_ACTIONABLE}")  # within the call bound
    held: list[Filled] = []

    async def perform(element: Element) -> None:
        held.append(await inp.fill(element, args.value, "fill", timeout_ms=args.timeout_ms))

    outcome = await selector_action(ctx, page, args.selector, "fill", perform)
    filled = held[0] if held else Filled(held=len(args.value), typed=len(args.value))
    # an editor that took the text (CodeMirror's emptied textarea): the typed count, and who took it
    chars = filled.typed if filled.editor else filled.held
    result = ActionResult(
        text=f"filled {args.selector} ({filled.said()}){_matches(outcome.count)}",
        data={"selector": args.selector, "matches": outcome.count, "chars": chars, "editor": filled.editor},
    )
    return outcome.apply(result)


@action(I, "hover", HoverArgs, legacy="browser_hover", result=SelectorResult, lock="page", takes=ACTIONABILITY_TAKES)
async def hover(ctx: ToolContext, args: HoverArgs) -> ActionResult:
    """Move the mouse over the element matching a CSS selector."""
    page = await ctx.page()
    args.timeout_ms = ctx.bound_ms(args.timeout_ms, status=f"{args.selector}: {_ACTIONABLE}")  # within the call bound
    outcome = await selector_action(
        ctx, page, args.selector, "hover", lambda el: inp.hover(el, "hover", timeout_ms=args.timeout_ms)
    )
    result = ActionResult(
        text=f"hovering {args.selector}{_matches(outcome.count)}",
        data={"selector": args.selector, "matches": outcome.count},
    )
    return outcome.apply(result)


_SCROLL_JS = """
(arg) => { window.scrollBy(arg.dx, arg.dy); return {x: Math.round(scrollX), y: Math.round(scrollY),
  maxY: Math.max(0, document.documentElement.scrollHeight - innerHeight)}; }
"""


@action(I, "scroll", ScrollArgs, legacy="browser_scroll", result=ScrollResult, lock="page", takes=ACTIONABILITY_TAKES)
async def scroll(ctx: ToolContext, args: ScrollArgs) -> ActionResult:
    """Scroll an element into view, or the page by amount pixels in direction."""
    page = await ctx.page()
    watch = await no_dialog(ctx, page, "scroll")
    if args.selector:
        element, count = await input_call(element_from_selector(page, args.selector), what="scroll")
        args.timeout_ms = ctx.bound_ms(
            args.timeout_ms, status=f"{args.selector}: waiting until it is visible and stable"
        )
        try:
            await race_dialog(inp.scroll_into_view(element, "scroll", timeout_ms=args.timeout_ms), watch, "scroll")
        finally:
            await element.release()
        return ActionResult(
            text=f"scrolled {args.selector} into view{_matches(count)}",
            data={"selector": args.selector, "matches": count},
        )
    dx = {"left": -args.amount, "right": args.amount}.get(args.direction, 0)
    dy = {"up": -args.amount, "down": args.amount}.get(args.direction, 0)
    position = await run_js(ctx, page, _SCROLL_JS, {"dx": dx, "dy": dy})
    where = f"x={position.get('x')}, y={position.get('y')} of max y={position.get('maxY')}"
    return ActionResult(text=f"scrolled {args.direction} to {where}", data={"scroll": position})


@action(
    I,
    "press_key",
    PressKeyArgs,
    legacy="browser_press_key",
    result=KeyResult,
    lock="page",
    destructive=True,
    takes=ACTIONABILITY_TAKES,
)
async def press_key(ctx: ToolContext, args: PressKeyArgs) -> ActionResult:
    """Press a key, in the element matching selector or in the focused element."""
    page = await ctx.page()
    where = args.selector or "the focused element"
    args.timeout_ms = ctx.bound_ms(args.timeout_ms, status=f"{where}: {_ACTIONABLE}")  # within the call bound
    if args.selector:
        outcome = await selector_action(
            ctx,
            page,
            args.selector,
            "press_key",
            lambda el: inp.press_key(el, None, args.key, "press_key", timeout_ms=args.timeout_ms),
        )
    else:
        watch = await no_dialog(ctx, page, "press_key")
        follow = await Followup(page, watch).start()
        session = await focused_session(page)
        dialog = await race_dialog(
            inp.press_key(None, session, args.key, "press_key", timeout_ms=args.timeout_ms), watch, "press_key"
        )
        await follow.settle()
        outcome = Outcome(0, dialog, await follow.report())
    result = ActionResult(text=f"pressed {args.key} in {where}", data={"key": args.key, "selector": args.selector})
    return outcome.apply(result)
