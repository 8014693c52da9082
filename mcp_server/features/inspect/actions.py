"""Looking together with the person: ``css_styles``, ``pick_element``, ``highlight`` (browser_session).

Half of the questions about a form are about what the person sees ("the Cancel button is
gone", "Save does nothing", "this field, not that one"). ``css_styles`` explains why an element
is hidden, covered or unclickable, with the CSS rule's file:line; ``pick_element`` lets the
person point at the element in their Chrome (Chrome's own inspect mode), so the agent need not
guess among hundreds of snapshot lines; ``highlight`` shows an element with Chrome's overlay
so the person can say "yes, that one". None of them changes the page: the overlay is Chrome's
(the Overlay domain, not injected DOM) and the DOM, CSS and Overlay domains are enabled only
for the call.
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from typing import TYPE_CHECKING, Any

from pydantic import Field

from cdp_core import CDPException, CDPSession
from cdp_core.recorders.accessibility.format import render_line
from mcp_server.answers.snapshot import line_row
from mcp_server.evidence.dialogs import no_dialog
from mcp_server.evidence.reading import source_map_policy
from mcp_server.evidence.stacks import resolver_of
from mcp_server.features.inspect.probe import Look, look_at
from mcp_server.features.inspect.render import look_data, look_text, reason_text, verdict_of
from mcp_server.features.inspect.uid import ancestor, line_of
from mcp_server.input.element import Element, element_from_selector, element_from_uid
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from targets import PageHandle

S = "browser_session"

#: Chrome's inspect colours (DevTools' own): content blue, padding green, margin orange
HIGHLIGHT = {
    "showInfo": True,
    "contentColor": {"r": 111, "g": 168, "b": 220, "a": 0.66},
    "paddingColor": {"r": 147, "g": 196, "b": 125, "a": 0.55},
    "marginColor": {"r": 246, "g": 178, "b": 107, "a": 0.66},
}


class LookAnswer(Answer):
    element: str
    verdict: str
    uid: int | None = None
    text: str | None = None
    reasons: list[dict[str, Any]] = []
    box: list[int] = []
    computed: dict[str, str] = {}
    rules: list[list[str]] = []
    notes: list[str] = []


class PickAnswer(Answer):
    uid: int | None = None
    line: list[Any] | None = None
    element: str | None = None
    verdict: str | None = None
    reasons: list[dict[str, Any]] = []
    cancelled: bool | None = None
    hint: str | None = None


class HighlightAnswer(Answer):
    element: str
    seconds: float
    uid: int | None = None


class ElementArgs(ActionArgs):
    uid: int | None = Field(None, ge=1, description="Snapshot uid")
    selector: str | None = Field(None, description="CSS selector (first match), e.g. for a hidden element")


class HighlightArgs(ElementArgs):
    seconds: float = Field(3.0, ge=0.2, le=60, description="How long it shows")


class PickArgs(ActionArgs):
    timeout_ms: int = Field(40000, ge=1000, le=600000, description="How long the person has to click")


async def _element(ctx: ToolContext, page: PageHandle, args: ElementArgs, what: str) -> Element:
    if (args.uid is None) == (args.selector is None):
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{what} needs uid or selector (one of them)",
            hint="a uid from snapshot, or a CSS selector for an element without one (a hidden element)",
        )
    await no_dialog(ctx, page, what)
    if args.uid is not None:
        return await element_from_uid(page, args.uid)
    element, _count = await element_from_selector(page, str(args.selector))
    return element


async def _own_uid(ctx: ToolContext, page: PageHandle, frame_id: str, session: Any, object_id: str) -> int | None:
    """The uid of the node's own snapshot line (max_up=0: never an ancestor's); None when it has none."""
    found = await line_of(page, session, object_id, frame_id, engine=ctx.settings.snapshot_engine, max_up=0)
    return found[0].uid if found is not None else None


async def _look(ctx: ToolContext, page: PageHandle, element: Element) -> Look:
    uid_of = functools.partial(_own_uid, ctx, page, element.frame_id)  # of a covering element
    resolver = resolver_of(page, source_map_policy(ctx))
    try:
        return await look_at(element, load_map=resolver.load_map, uid_of=uid_of)
    except CDPException as exc:
        raise ToolFailure(ErrorCode.CDP_ERROR, f"could not read the element's styles: {exc}") from None


@action(S, "css_styles", ElementArgs, read_only=True, lock="page", result=LookAnswer)
async def css_styles(ctx: ToolContext, args: ElementArgs) -> ActionResult:
    """Why an element is hidden, covered or unclickable (verdict, computed values, CSS rules at file:line)."""
    page = await ctx.page()
    element = await _element(ctx, page, args, "css_styles")
    uid = args.uid
    try:
        look = await _look(ctx, page, element)
        if uid is None and not look.reasons:
            # found by selector and shown: its uid, so the agent can act on it (a hidden one has none)
            uid = await _own_uid(ctx, page, element.frame_id, element.session, element.object_id)
    finally:
        await element.release()
    return ActionResult(text=look_text(look, uid), data=look_data(look, uid))


@action(S, "highlight", HighlightArgs, read_only=True, lock="page", result=HighlightAnswer)
async def highlight(ctx: ToolContext, args: HighlightArgs) -> ActionResult:
    """Show an element with Chrome's own overlay for a few seconds, so the person can confirm "this one?"."""
    page = await ctx.page()
    element = await _element(ctx, page, args, "highlight")
    session = element.session
    try:
        node = (await session.send("DOM.describeNode", {"objectId": element.object_id}, timeout=10))["node"]
        name, place = await element.call(_NAME_JS) or ["element", ""]
        if place == "none":
            raise ToolFailure(
                ErrorCode.ELEMENT_NOT_INTERACTABLE,
                f"{name} has no box to show (it is not rendered)",
                hint="css_styles says why it is hidden",
            )
        seconds = args.seconds
        await _show(ctx, page, session, node["backendNodeId"], seconds)
    finally:
        await element.release()
    shown = round(seconds, 1)
    where = f" [uid={args.uid}]" if args.uid is not None else ""
    text = f"showing {name}{where} for {shown:g} s with Chrome's overlay (it goes by itself; the page is unchanged)"
    data: dict[str, Any] = {"element": name, "seconds": shown}
    if args.uid is not None:
        data["uid"] = args.uid
    if place == "outside":
        text += "; it is outside the visible part of the page (scroll to it first)"
        data["hint"] = "outside the visible part of the page: the person does not see it"
    elif await page.is_hidden():
        text += "; the tab is in the background, so the person does not see it (pick_element brings it to front)"
        data["hint"] = "the tab is in the background: the person does not see it"
    return ActionResult(text=text, data=data)


#: [the element's short name, where its box is: "" (in view), "outside" (scrolled away), "none" (no box)]
_NAME_JS = """function() {
  let s = this.tagName.toLowerCase();
  if (this.id) s += '#' + this.id;
  const cls = typeof this.className === 'string' ? this.className.trim().split(/\\s+/).filter(Boolean) : [];
  if (cls.length) s += '.' + cls.slice(0, 3).join('.');
  const r = this.getBoundingClientRect();
  const view = this.ownerDocument.defaultView;
  const place = !r.width && !r.height ? 'none'
    : r.bottom <= 0 || r.right <= 0 || r.top >= view.innerHeight || r.left >= view.innerWidth ? 'outside' : '';
  return [s.slice(0, 100), place];
}"""


#: the pending removal of each session's overlay (a new highlight replaces it)
_removals: weakref.WeakKeyDictionary[Any, asyncio.Task[None]] = weakref.WeakKeyDictionary()


async def _show(ctx: ToolContext, page: PageHandle, session: Any, backend_node_id: int, seconds: float) -> None:
    """Show the overlay and answer at once; a background task removes it after ``seconds``.

    Holding the call for the whole display kept the page's lock (and the agent) waiting for
    nothing. The removal takes the page's lock, so it never disables DOM under another call,
    and a second highlight of the same tab replaces the first one's removal.
    """
    pending = _removals.pop(session, None)
    if pending is not None:
        pending.cancel()
    await session.send("DOM.enable", timeout=10)
    await session.send("Overlay.enable", timeout=10)
    try:
        await session.send("Overlay.highlightNode", {"highlightConfig": HIGHLIGHT, "backendNodeId": backend_node_id})
    except BaseException:
        await _hide(session)
        raise
    lock = ctx.hold.locks.page_lock(page) if ctx.hold is not None else None

    async def remove_later() -> None:
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            return  # a newer highlight owns the overlay now
        if _removals.get(session) is task:
            del _removals[session]
        if lock is None:
            await _hide(session)
            return
        async with lock:
            await _hide(session)

    task = asyncio.get_running_loop().create_task(remove_later(), name="highlight removal")
    _removals[session] = task


async def _hide(session: Any) -> None:
    await _quietly(session, "Overlay.hideHighlight")
    await _quietly(session, "Overlay.disable")
    await _quietly(session, "DOM.disable")


class _overlay:  # noqa: N801 - used like a function
    """DOM + Overlay enabled on the session for the block, disabled after (nothing left behind)."""

    def __init__(self, session: Any) -> None:
        self.session = session

    async def __aenter__(self) -> None:
        await self.session.send("DOM.enable", timeout=10)
        await self.session.send("Overlay.enable", timeout=10)

    async def __aexit__(self, *exc: object) -> None:
        await _quietly(self.session, "Overlay.disable")
        await _quietly(self.session, "DOM.disable")


async def _quietly(session: Any, method: str, params: dict[str, Any] | None = None) -> None:
    try:
        await session.send(method, params, timeout=5)
    except CDPException:
        pass  # the page went away: nothing left to undo


async def _require_headful(page: PageHandle) -> None:
    """A person can click only in a window: refuse on a headless browser."""
    try:
        version = await page.session.connection.send("Browser.getVersion", timeout=10)
    except CDPException:
        return  # cannot tell: let the inspect mode try
    agent = f"{version.get('product', '')} {version.get('userAgent', '')}"
    if "HeadlessChrome" in agent:
        raise ToolFailure(
            ErrorCode.NOT_ALLOWED,
            "pick_element needs a Chrome window a person looks at; this browser is headless",
            hint="attach_cdp to the person's Chrome (or launch with headless off); css_styles and snapshot work here",
        )


@action(
    S,
    "pick_element",
    PickArgs,
    lock="page",
    result=PickAnswer,
    takes="until the person clicks (timeout_ms); progress: click the element in Chrome",
)
async def pick_element(ctx: ToolContext, args: PickArgs) -> ActionResult:
    """Ask the person to click the element they mean in Chrome, rather than guess: its uid, line and verdict."""
    page = await ctx.page()
    await no_dialog(ctx, page, "pick_element")
    await _require_headful(page)
    session = page.session
    outcome: asyncio.Future[tuple[str, dict[str, Any]]] = asyncio.get_running_loop().create_future()

    def seen(event: Any) -> None:
        if not outcome.done():
            outcome.set_result((event.method, event.params))

    wait_s, _ = ctx.bound(args.timeout_ms / 1000)
    subscription = session.on(("Overlay.inspectNodeRequested", "Overlay.inspectModeCanceled"), seen)
    try:
        async with _overlay(session):
            await session.send("Page.bringToFront", timeout=10)
            await session.send("Overlay.setInspectMode", {"mode": "searchForNode", "highlightConfig": HIGHLIGHT})
            try:
                await ctx.report_progress(
                    0, None, "the tab is in front: ask the person to click the element in Chrome (Escape cancels)"
                )
                ctx.status("waiting for the person to click the element in Chrome (Escape cancels)", total_s=wait_s)
                try:
                    method, params = await asyncio.wait_for(outcome, wait_s)
                except TimeoutError:
                    raise ToolFailure(
                        ErrorCode.TIMEOUT,
                        f"nobody clicked an element in Chrome within {wait_s:.0f} s; inspect mode is off again",
                        hint="ask the person to click the element, then call pick_element again",
                    ) from None
            finally:
                await _quietly(session, "Overlay.setInspectMode", {"mode": "none", "highlightConfig": HIGHLIGHT})
    finally:
        subscription.cancel()
    if method == "Overlay.inspectModeCanceled":
        hint = "the person pressed Escape: ask again and call pick_element again"
        return ActionResult(
            text=f"the person cancelled the pick (tab brought to front; inspect mode is off); {hint}",
            data={"cancelled": True, "hint": hint},
        )
    return await _picked(ctx, page, int(params["backendNodeId"]))


async def _picked(ctx: ToolContext, page: PageHandle, backend: int) -> ActionResult:
    """The answer for the clicked node: its snapshot line (uid) and its css_styles verdict."""
    session = page.session
    try:
        obj = (await session.send("DOM.resolveNode", {"backendNodeId": backend}, timeout=10))["object"]
    except CDPException:
        raise ToolFailure(
            ErrorCode.STALE_UID,
            "the clicked element left the page before it could be read",
            hint="call pick_element again",
        ) from None
    frame_id = await _frame_of(session, obj["objectId"]) or page.target_id
    element = Element(page, session, obj["objectId"], frame_id, "the picked element")
    try:
        found = await line_of(page, session, element.object_id, frame_id, engine=ctx.settings.snapshot_engine)
        if found is not None and found[1]:
            # the caption inside a button: the verdict is the button's, the control the person means
            holder = await ancestor(session, element.object_id, found[1])
            if holder is not None:
                await element.release()
                element = Element(page, session, holder, frame_id, "the picked element")
        look = await _look(ctx, page, element)
    finally:
        await element.release()
    data: dict[str, Any] = {}
    if found is not None:
        line, _up = found
        head = render_line(line)
        data.update(uid=line.uid, line=line_row(line))
    else:
        head = f"{look.element} (no snapshot line: not an element an agent acts on)"
    verdict = verdict_of(look)
    text = f"the person picked (tab brought to front): {head}\n{look.element}: {verdict}"
    text += "".join(f"\n- {reason_text(r, look.box)}" for r in look.reasons)
    styles = look_data(look)
    data.update(element=look.element, verdict=verdict)
    if "reasons" in styles:
        data["reasons"] = styles["reasons"]
    return ActionResult(text=text, data=data)


_FRAME_OWNER_JS = "function() { return this.ownerDocument.defaultView.frameElement; }"


async def _frame_of(session: CDPSession, object_id: str) -> str | None:
    """The frame id of a node inside a same-process iframe (None: the main frame, or not readable)."""
    try:
        reply = await session.send(
            "Runtime.callFunctionOn", {"objectId": object_id, "functionDeclaration": _FRAME_OWNER_JS}, timeout=10
        )
        owner = (reply.get("result") or {}).get("objectId")
        if owner is None:
            return None
        try:
            node = (await session.send("DOM.describeNode", {"objectId": owner}, timeout=10))["node"]
        finally:
            await _quietly(session, "Runtime.releaseObject", {"objectId": owner})
    except CDPException:
        return None
    frame: str | None = node.get("frameId")
    return frame
