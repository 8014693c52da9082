"""``browser_interact`` form actions on snapshot uids: fill_form, type_text, select_option, drag, upload_file.

Built like the uid actions of :mod:`.interact`: uids resolved through CDP (a stale uid is
refused, never retargeted), input through :mod:`mcp_server.input` on the session that runs
each element (background tabs, out-of-process iframes, both targets), a dialog the input
opens answered at once, and the answer says what followed (the POST a submit sent).

Typed values are never echoed (a password field looks like any other field from here):
answers give lengths, chosen option values and checkbox states. ``upload_file`` takes
only files under ``<artifacts>/uploads/`` or ``MCP_UPLOAD_ROOTS`` (:mod:`mcp_server.safety.uploads`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mcp_server.evidence.dialogs import dialog_watch, race_dialog, require_no_dialog
from mcp_server.evidence.followup import Followup
from mcp_server.evidence.followup_text import then_line
from mcp_server.features.interact.uids import UidArgs
from mcp_server.input import actions as inp
from mcp_server.input.actionability import ACTIONABILITY_TAKES
from mcp_server.input.calls import input_call
from mcp_server.input.commit import note_typing_watched
from mcp_server.input.delivery import keys_reach
from mcp_server.input.element import Element, element_from_uid
from mcp_server.input.keyboard import UnknownKey, parse_combo, press_combo
from mcp_server.safety.uploads import resolve_upload
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, action
from targets.errors import ErrorCode, ToolFailure

__all__ = ["FillFormArgs", "TypeTextArgs", "SelectOptionArgs", "DragArgs", "UploadFileArgs"]

I = "browser_interact"  # noqa: E741 - the tool's short name, used as a tag
_TIMEOUT = Field(5000, ge=0, le=120000, description="Timeout in ms")


class FormField(BaseModel):
    model_config = ConfigDict(extra="forbid")

    uid: int = Field(ge=1)
    value: str


class FillFormArgs(ActionArgs):
    fields: list[FormField] = Field(
        min_length=1,
        max_length=200,
        description="checkbox/radio: true/false",
        # the agent needs the shape, not the bounds: the model validates those (tools/list is read every turn)
        json_schema_extra={"items": {"properties": {"uid": {"type": "integer"}, "value": {"type": "string"}}}},
    )
    timeout_ms: int = _TIMEOUT


class TypeTextArgs(ActionArgs):
    text: str = Field(max_length=20000, description="Typed key by key")
    submit_key: str | None = Field(None, description="Key pressed after")
    uid: int | None = Field(None, ge=1, description="Snapshot uid")
    timeout_ms: int = _TIMEOUT


class SelectOptionArgs(UidArgs):
    values: list[str] = Field(min_length=1, max_length=200, description="Option values or labels")


class DragArgs(ActionArgs):
    from_uid: int = Field(ge=1, description="uid dragged")
    to_uid: int = Field(ge=1, description="uid dropped on")
    timeout_ms: int = _TIMEOUT


class UploadFileArgs(UidArgs):
    paths: list[str] = Field(min_length=1, max_length=50, description="Files under <artifacts>/uploads")


Perform = Callable[[list[Element]], Awaitable[None]]


async def _act_on(
    ctx: ToolContext, uids: list[int], what: str, perform: Perform
) -> tuple[list[Element], dict[str, Any], bool]:
    """Resolve every uid first (nothing is touched if one is stale), act racing a dialog, report what followed.

    Returns (the elements, what followed, whether a dialog opened). ``perform`` records what
    it did in each element's ``meta``.
    """
    page = await ctx.page()
    watch = await dialog_watch(ctx, page)
    require_no_dialog(watch, what)
    elements: list[Element] = []
    dialog = None
    try:
        for uid in uids:
            elements.append(await element_from_uid(page, uid))
        follow = await Followup(page, watch).start()
        dialog = await race_dialog(perform(elements), watch, what)
        if dialog is not None:
            elements[0].meta["halted"] = True  # the rest of a multi-field action stops once the dialog is answered
    finally:
        for element in elements:
            if watch.open is None:
                await element.release()
            else:
                watch.cleanups.append(element.release)  # the page is blocked: free it after handle_dialog
    await follow.settle(typing=any(element.typing_watched for element in elements))
    return elements, await follow.report(), dialog is not None


def _bounded(ctx: ToolContext, args: Any, what: str) -> None:
    """Each element's wait for actionability within the call bound (the performs read args.timeout_ms)."""
    args.timeout_ms = ctx.bound_ms(
        args.timeout_ms, status=f"{what}: waiting until each element is visible, stable, enabled and receives events"
    )


@action(I, "fill_form", FillFormArgs, lock="page", takes=ACTIONABILITY_TAKES)
async def fill_form(ctx: ToolContext, args: FillFormArgs) -> ActionResult:
    """Fill several fields by uid in one call: text, <select> (value or label), checkbox and radio (true/false)."""
    _bounded(ctx, args, "fill_form")
    what = "fill_form"

    async def perform(elements: list[Element]) -> None:
        for index, (element, field) in enumerate(zip(elements, args.fields, strict=True)):
            if elements[0].meta.get("halted"):
                return  # a field's dialog: the answer said the rest were not filled, and they are not
            element.meta["state"] = "busy"
            ctx.status(f"field {index + 1} of {len(elements)}")
            role = element.entry.role if element.entry is not None else ""
            try:
                element.meta["did"] = await inp.set_value(
                    element, field.value, f"{what} field {index + 1}", timeout_ms=args.timeout_ms, role=role
                )
            except ToolFailure as exc:
                if index:
                    exc.message += f" (fields 1-{index} were filled; the rest were not touched)"
                    exc.details["filled"] = index
                raise
            element.meta["state"] = "done"

    elements, followed, dialog = await _act_on(ctx, [f.uid for f in args.fields], what, perform)
    lines = []
    entries = []
    for element in elements:
        did = element.meta.get("did") or (
            "started (a dialog opened):" if element.meta.get("state") == "busy" else "not filled (a dialog is open):"
        )
        lines.append(f"{did} {element.label}")
        entries.append([element.entry.uid, did.removesuffix(" in").rstrip(":")])
    filled = sum(1 for e in elements if e.meta.get("state") == "done")
    head = f"filled {filled} of {len(elements)} fields" if dialog else f"filled {len(elements)} fields"
    text = head + ": " + "; ".join(lines) + then_line(followed)
    data = {"fields": {"columns": ["uid", "did"], "entries": entries}, "followed": followed}
    return ActionResult(text=text, data=data)


@action(I, "select_option", SelectOptionArgs, lock="page", takes=ACTIONABILITY_TAKES)
async def select_option(ctx: ToolContext, args: SelectOptionArgs) -> ActionResult:
    """Pick options of a <select> by value or label (several for a multiple select); the rest are unselected."""
    _bounded(ctx, args, "select_option")
    what = "select_option"

    async def perform(elements: list[Element]) -> None:
        elements[0].meta["picked"] = await inp.select_options(
            elements[0], args.values, what, timeout_ms=args.timeout_ms
        )

    elements, followed, dialog = await _act_on(ctx, [args.uid], what, perform)
    picked = elements[0].meta.get("picked") or {}
    values, labels = picked.get("values", []), picked.get("labels", [])
    pairs = zip(values, labels, strict=False)
    chosen = ", ".join(f"{label!r} ({value})" if label != value else repr(value) for value, label in pairs)
    did = f"selected {chosen}" if picked else "selecting started (a dialog opened)"
    text = f"{did} in {elements[0].label}" + then_line(followed)
    data: dict[str, Any] = {"uid": args.uid, "values": values, "followed": followed}
    if labels != values:
        data["labels"] = labels
    return ActionResult(text=text, data=data)


_FOCUSED_JS = """(() => {
  let el = document.activeElement;
  while (el && el.tagName === 'IFRAME') {
    try { el = el.contentDocument.activeElement; } catch (e) { return {frame: true}; }
  }
  if (!el) return null;
  const body = el === el.ownerDocument.body && !el.isContentEditable && el.ownerDocument.designMode !== 'on';
  if (body) return null;
  const id = el.id ? '#' + el.id : (el.name ? '[name=' + el.name + ']' : '');
  return {tag: el.tagName.toLowerCase() + id};
})()"""

_CARET_END_JS = """function() {
  const end = typeof this.value === 'string' ? this.value.length : -1;
  try { if (end >= 0 && this.setSelectionRange) this.setSelectionRange(end, end); } catch (e) {}
}"""


@action(I, "type_text", TypeTextArgs, lock="page", takes=ACTIONABILITY_TAKES)
async def type_text(ctx: ToolContext, args: TypeTextArgs) -> ActionResult:
    """Type text key by key into the focused element (or the uid's, at its end), then press submit_key."""
    _bounded(ctx, args, "type_text")
    what = "type_text"
    if args.submit_key:
        try:
            parse_combo(args.submit_key)
        except UnknownKey:
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                f"{what}: unknown submit_key {args.submit_key!r}",
                hint="use a key name like Enter, Tab, Escape, or a combination like Control+Enter",
            ) from None

    def progress(done: int) -> None:
        ctx.status(f"typed {done} of {len(args.text)} chars")

    async def keys(session: Any, element: Element | None = None) -> None:
        if args.text:
            async with keys_reach(session, element, what, "typing"):
                await inp.type_text(session, args.text, on_progress=progress)
        if args.submit_key:
            async with keys_reach(session, element, what, f"key {args.submit_key}"):
                await press_combo(session, args.submit_key)

    if args.uid is not None:

        async def perform(elements: list[Element]) -> None:
            element = elements[0]
            await inp.focus_to_type(element, what, timeout_ms=args.timeout_ms)
            await element.call(_CARET_END_JS)
            await note_typing_watched(element)
            await keys(element.session, element)

        elements, followed, dialog = await _act_on(ctx, [args.uid], what, perform)
        into = elements[0].label
    else:
        page = await ctx.page()
        watch = await dialog_watch(ctx, page)
        require_no_dialog(watch, what)
        reply = await input_call(
            page.session.send("Runtime.evaluate", {"expression": _FOCUSED_JS, "returnByValue": True}, timeout=10),
            what=what,
        )
        focused = reply.get("result", {}).get("value")
        if not focused:
            raise ToolFailure(
                ErrorCode.ELEMENT_NOT_INTERACTABLE,
                f"{what}: nothing on the page has focus to type into",
                hint="pass uid (the field from the latest snapshot), or click the field first",
            )
        into = "the focused " + (f"<{focused['tag']}>" if focused.get("tag") else "element (in an iframe)")
        follow = await Followup(page, watch).start()
        dialog = await race_dialog(keys(page.session), watch, what) is not None
        await follow.settle(typing=True)  # typed into whatever has focus: its listeners are not looked up
        followed = await follow.report()
    typed = f"typed {len(args.text)} chars into {into}"
    if args.submit_key:
        typed += f", then pressed {args.submit_key}"
    if dialog:
        typed += " (a dialog opened)"
    data: dict[str, Any] = {"chars": len(args.text), "followed": followed}
    if args.uid is not None:
        data["uid"] = args.uid
    if args.submit_key:
        data["submit_key"] = args.submit_key
    return ActionResult(text=typed + then_line(followed), data=data)


@action(I, "drag", DragArgs, lock="page", takes=ACTIONABILITY_TAKES)
async def drag(ctx: ToolContext, args: DragArgs) -> ActionResult:
    """Drag one element onto another by uid (HTML5 drag and drop, or mouse-driven sortable lists)."""
    _bounded(ctx, args, "drag")
    what = "drag"

    async def perform(elements: list[Element]) -> None:
        source, target = elements
        result = await inp.drag(source, target, what, timeout_ms=args.timeout_ms)
        source.meta["html5"] = result.get("html5")

    elements, followed, dialog = await _act_on(ctx, [args.from_uid, args.to_uid], what, perform)
    source, target = elements
    how = "HTML5 drop" if source.meta.get("html5") else "mouse drag, no HTML5 drag started"
    if dialog:
        how = "a dialog opened"
    text = f"dragged {source.label} onto {target.label} ({how})" + then_line(followed)
    html5 = bool(source.meta.get("html5"))
    data = {"from_uid": args.from_uid, "to_uid": args.to_uid, "html5": html5, "followed": followed}
    return ActionResult(text=text, data=data)


@action(I, "upload_file", UploadFileArgs, lock="page", takes=ACTIONABILITY_TAKES)
async def upload_file(ctx: ToolContext, args: UploadFileArgs) -> ActionResult:
    """Give a file input (or the button that opens its picker) files from <artifacts>/uploads/ or MCP_UPLOAD_ROOTS."""
    _bounded(ctx, args, "upload_file")
    what = "upload_file"
    files = [resolve_upload(ctx.artifacts, ctx.settings.upload_roots, raw) for raw in args.paths]

    async def perform(elements: list[Element]) -> None:
        await inp.set_input_files(elements[0], [str(f) for f in files], what, timeout_ms=args.timeout_ms)

    elements, followed, dialog = await _act_on(ctx, [args.uid], what, perform)
    shown = [ctx.artifacts.relative(f) for f in files]
    sizes = [f.stat().st_size for f in files]
    listed = ", ".join(f"{name} ({_size(n)})" for name, n in zip(shown, sizes, strict=True))
    text = f"gave {elements[0].label} {len(files)} file(s): {listed}" + then_line(followed)
    data = {"uid": args.uid, "files": [[name, n] for name, n in zip(shown, sizes, strict=True)], "followed": followed}
    return ActionResult(text=text, data=data)


def _size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.0f} KB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MB"
