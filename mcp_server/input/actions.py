"""Element actions: click, hover, fill, press, select, check, files, drag, scroll into view.

Each waits for the element to be actionable (:mod:`.actionability`), then sends trusted input
through CDP to the session that runs the element (:mod:`.mouse`, :mod:`.keyboard`). None of
them needs an animation frame, a page timer or the tab to be in front, and none changes
which tab the user sees. They raise ToolFailure (ELEMENT_NOT_INTERACTABLE, INVALID_ARGUMENT)
with the reason; a JavaScript dialog the action opens blocks the page's answer to the last
input event, so callers race these coroutines against the page's dialog watch.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from cdp_core import CDPError, CDPEvent, CDPException
from mcp_server.input import mouse
from mcp_server.input.actionability import NotActionable, Point, actionable_point, check_state, not_interactable
from mcp_server.input.delivery import MOVE, PRESS, RELEASE, keys_reach, not_delivered, watching
from mcp_server.input.element import Element
from mcp_server.input.filling import fill
from mcp_server.input.keyboard import UnknownKey, parse_combo, press_combo
from targets.errors import ErrorCode, ToolFailure

__all__ = [
    "click",
    "hover",
    "fill",
    "press_key",
    "select_options",
    "set_checked",
    "set_input_files",
    "set_value",
    "type_text",
    "drag",
    "scroll_into_view",
    "focus",
    "focus_to_type",
]


_SELECT_JS = """function(values) {
  const el = this;
  if (el.tagName !== 'SELECT') return {error: 'is a <' + el.tagName.toLowerCase() + '>, not a <select>'};
  const options = Array.from(el.options);
  const norm = (s) => String(s).trim().replace(/\\s+/g, ' ').toLowerCase();
  const picked = [];
  for (const wanted of values) {
    const found = options.find((o) => o.value === wanted) || options.find((o) => o.label.trim() === wanted.trim())
      || options.find((o) => norm(o.label) === norm(wanted));
    if (!found) return {missing: wanted, available: options.slice(0, 30).map((o) => o.label.trim() || o.value)};
    if (found.disabled) return {error: 'has the option ' + JSON.stringify(wanted) + ' disabled'};
    picked.push(found);
  }
  if (!el.multiple && picked.length > 1) return {error: 'takes one value (it is not a multiple select)'};
  for (const o of options) o.selected = picked.includes(o);
  el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return {selected: picked.map((o) => o.value), labels: picked.map((o) => o.label.trim())};
}"""

_CHECKED_JS = """function() {
  const el = this;
  if (el.tagName === 'INPUT' && ['checkbox', 'radio'].includes((el.type || '').toLowerCase()))
    return {checked: el.checked};
  const role = el.getAttribute('role');
  if (['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio'].includes(role))
    return {checked: el.getAttribute('aria-checked') === 'true'};
  return {error: 'is not a checkbox or radio button'};
}"""

_FOCUS_JS = """function() {
  this.focus();
  const active = this.ownerDocument.activeElement;
  return active === this || this.contains(active);
}"""


async def click(
    element: Element, what: str, *, timeout_ms: int, button: mouse.Button = "left", click_count: int = 1
) -> None:
    """Wait until actionable, then move, press and release at the element's center."""
    point = await actionable_point(element, what, timeout_ms=timeout_ms)
    async with watching(element.session, element.frame_id, PRESS + RELEASE, element.object_id) as seen:
        closed = await mouse.click_at(element.session, point, button=button, click_count=click_count)
        if closed:
            return  # its click handler closed the page: the click happened, the follow-up says so
        await seen.wait(lambda s: s.got(RELEASE))
    if not seen.got(PRESS, inside=True):
        raise not_delivered(what, element.label, seen, PRESS, "click", element.session)


async def hover(element: Element, what: str, *, timeout_ms: int) -> None:
    """Move the pointer over the element (mouseover/mouseenter, :hover)."""
    point = await actionable_point(element, what, timeout_ms=timeout_ms, enabled=False)
    async with watching(element.session, element.frame_id, MOVE, element.object_id) as seen:
        await mouse.move(element.session, point)
        if await seen.wait(lambda s: s.got(MOVE, inside=True)):
            return
    # Chrome sends no new mousemove when the pointer is already there: hovered is what counts
    if not await element.call("function() { return this.matches(':hover'); }"):
        raise not_delivered(what, element.label, seen, MOVE, "pointer move", element.session)


async def scroll_into_view(element: Element, what: str, *, timeout_ms: int) -> None:
    await actionable_point(element, what, timeout_ms=timeout_ms, enabled=False, hit=False)


async def focus(element: Element, what: str) -> None:
    try:
        focused = await element.call(_FOCUS_JS)
    except CDPError as exc:
        raise ToolFailure(
            ErrorCode.ELEMENT_NOT_INTERACTABLE, f"{what}: {element.label} cannot take focus ({exc.message})"
        ) from None
    if not focused:
        raise ToolFailure(
            ErrorCode.ELEMENT_NOT_INTERACTABLE,
            f"{what}: {element.label} cannot take focus (not focusable)",
            hint="press keys in an input, a button or an element with tabindex; or click it first",
        )


async def focus_to_type(element: Element, what: str, *, timeout_ms: int) -> None:
    """Wait until the element is visible and enabled, then focus it (keys typed next go there)."""
    await _wait_state(element, what, timeout_ms, enabled=True)
    await focus(element, what)


async def press_key(element: Element | None, session: Any, key: str, what: str, *, timeout_ms: int) -> None:
    """Focus ``element`` (when given) and press ``key`` (``Enter``, ``Control+a``...) there."""
    if element is not None:
        await _wait_state(element, what, timeout_ms, enabled=True)
        await focus(element, what)
        session = element.session
    try:
        parse_combo(key)
    except UnknownKey as exc:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{what}: unknown key {str(exc)!r}",
            hint="use a key name like Enter, Tab, Escape, ArrowDown, Backspace, F5, a, or a combination like Control+a",
        ) from None
    async with keys_reach(session, element, what, f"key {key}"):
        await press_combo(session, key)


async def select_options(
    element: Element, values: Sequence[str], what: str, *, timeout_ms: int
) -> dict[str, list[str]]:
    """Pick ``values`` (option value or label) in a <select>; fires input and change like a user's pick."""
    await _wait_state(element, what, timeout_ms, enabled=True)
    result = await element.call(_SELECT_JS, list(values)) or {}
    if result.get("missing") is not None:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{what}: {element.label} has no option {result['missing']!r}",
            hint="options: " + ", ".join(repr(o) for o in result.get("available", [])[:30]),
            available=result.get("available", []),
        )
    if result.get("error"):
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{what}: {element.label} {result['error']}")
    return {"values": result.get("selected", []), "labels": result.get("labels", [])}


async def set_checked(element: Element, checked: bool, what: str, *, timeout_ms: int) -> bool:
    """Check or uncheck by clicking it when its state differs; returns whether it changed."""
    state = await element.call(_CHECKED_JS) or {}
    if state.get("error"):
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{what}: {element.label} {state['error']}")
    if bool(state.get("checked")) == checked:
        return False
    await click(element, what, timeout_ms=timeout_ms)
    after = await element.call(_CHECKED_JS) or {}
    if bool(after.get("checked")) != checked:
        raise ToolFailure(
            ErrorCode.ELEMENT_NOT_INTERACTABLE,
            f"{what}: clicking {element.label} did not {'check' if checked else 'uncheck'} it",
            hint="a script may keep it as it is (or it is a radio button, which cannot be unchecked)",
        )
    return True


#: values that check a checkbox or radio button in set_value (anything else unchecks)
CHECKED_WORDS = frozenset({"true", "on", "1", "yes", "checked", "x"})
_CHECKABLE_ROLES = ("checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio")


async def set_value(element: Element, value: str, what: str, *, timeout_ms: int, role: str = "") -> str:
    """Give a form control ``value`` the way its kind takes it; returns what was done (never the typed text).

    <select>: the option with this value or label. Checkbox, radio, switch (native or ARIA
    ``role``): checked when ``value`` is true/on/1/yes/checked/x, else unchecked. Anything else
    editable: its content replaced (:func:`fill`). A file input is refused (upload_file).
    """
    if element.tag == "SELECT":
        chosen = await select_options(element, [value], what, timeout_ms=timeout_ms)
        return f"selected {', '.join(repr(v) for v in chosen['values'])} in"
    if (element.tag == "INPUT" and element.type in ("checkbox", "radio")) or role in _CHECKABLE_ROLES:
        wanted = value.strip().lower() in CHECKED_WORDS
        changed = await set_checked(element, wanted, what, timeout_ms=timeout_ms)
        state = "checked" if wanted else "unchecked"
        return state if changed else f"already {state}:"
    if element.tag == "INPUT" and element.type == "file":
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{what}: {element.label} is a file input",
            hint="give it files with upload_file (uid, paths)",
        )
    filled = await fill(element, value, what, timeout_ms=timeout_ms)
    return f"filled ({filled.said()})"


async def type_text(session: Any, text: str, *, on_progress: Any = None) -> None:
    """Type ``text`` into the focused element key by key, as a user does (keydown, keypress, input, keyup).

    Scripts that react to keys (autocomplete, masks, keyup validation) see every character.
    ``\n`` presses Enter; a character no US key types (é, 日) goes in as a text insertion.
    """
    for index, char in enumerate(text):
        if char == "\n":
            await press_combo(session, "Enter")
        elif char == "\t":
            await press_combo(session, "Tab")
        elif char in _KEYBOARD_CHARS:
            await press_combo(session, ("Shift+" + char) if char.isupper() else char)
        else:
            await session.send("Input.insertText", {"text": char}, timeout=30)
        if on_progress is not None and index % 200 == 199:
            on_progress(index + 1)


_KEYBOARD_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -=[]\\;',./`_+{}|:\"<>?~)!@#$%^&*("
)


async def set_input_files(element: Element, paths: Sequence[str], what: str, *, timeout_ms: int) -> None:
    """Give an <input type=file> these files (absolute paths), as if the user picked them.

    Any other element is clicked with the page's file chooser intercepted: a styled "Attach"
    button that opens a hidden input's chooser gets the files the same way.
    """
    if element.tag != "INPUT" or element.type != "file":
        await _choose_files(element, paths, what, timeout_ms=timeout_ms)
        return
    if len(paths) > 1 and not element.info.get("multiple"):
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{what}: {element.label} takes one file (no multiple attribute)")
    await _wait_state(element, what, timeout_ms, visible=False, enabled=True)
    await element.session.send(
        "DOM.setFileInputFiles", {"files": list(paths), "objectId": element.object_id}, timeout=30
    )


async def _choose_files(element: Element, paths: Sequence[str], what: str, *, timeout_ms: int) -> None:
    """Click ``element`` with file choosers intercepted (only for this click) and answer the one it opens."""
    session = element.session
    opened: list[dict[str, Any]] = []
    got = asyncio.Event()

    def on_chooser(event: CDPEvent) -> None:
        opened.append(event.params)
        got.set()

    subscription = session.on("Page.fileChooserOpened", on_chooser)
    try:
        await session.send("Page.setInterceptFileChooserDialog", {"enabled": True}, timeout=10)
        await click(element, what, timeout_ms=timeout_ms)
        try:
            await asyncio.wait_for(got.wait(), 3.0)
        except TimeoutError:
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                f"{what}: {element.label} is not a file input, and clicking it opened no file chooser",
                hint="pass the uid of the <input type=file> or of the button that opens the file picker",
            ) from None
        chooser = opened[0]
        if chooser.get("mode") == "selectSingle" and len(paths) > 1:
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT, f"{what}: {element.label} takes one file (no multiple attribute)"
            )
        await session.send(
            "DOM.setFileInputFiles", {"files": list(paths), "backendNodeId": chooser["backendNodeId"]}, timeout=30
        )
    finally:
        subscription.cancel()
        try:
            await session.send("Page.setInterceptFileChooserDialog", {"enabled": False}, timeout=5)
        except CDPException:
            pass


async def drag(source: Element, target: Element, what: str, *, timeout_ms: int, steps: int = 5) -> dict[str, Any]:
    """Press on ``source``, move to ``target`` and release; HTML5 drag and drop goes through Chrome's drag events.

    Chrome starts a native drag (``draggable`` elements) outside the page; with
    ``Input.setInterceptDrags`` it hands us the drag data instead, and ``Input.dispatchDragEvent``
    delivers dragenter/dragover/drop at the target. Pointer-based drags (sortable lists)
    just see the moves. Both elements must be in the same frame process.
    """
    if source.session is not target.session:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{what}: {source.label} and {target.label} are in different frame processes",
            hint="drag within one frame",
        )
    session = source.session
    start = await actionable_point(source, what, timeout_ms=timeout_ms)
    end = await actionable_point(target, what, timeout_ms=timeout_ms, hit=False)
    intercepted: list[dict[str, Any]] = []
    got = asyncio.Event()

    def on_drag(event: CDPEvent) -> None:
        intercepted.append(event.params.get("data") or {})
        got.set()

    subscription = session.on("Input.dragIntercepted", on_drag)
    try:
        await session.send("Input.setInterceptDrags", {"enabled": True}, timeout=10)
        await mouse.move(session, start, deliver=False)
        async with watching(session, source.frame_id, PRESS, source.object_id) as seen:
            await mouse.press(session, start)
            if not await seen.wait(lambda s: s.got(PRESS, inside=True)):
                await mouse.release(session, start)
                raise not_delivered(what, source.label, seen, PRESS, "press to start the drag", session)
        for step in range(1, steps + 1):
            point = Point(start.x + (end.x - start.x) * step / steps, start.y + (end.y - start.y) * step / steps)
            await mouse.move(session, point, buttons=mouse.BUTTON_BITS["left"])
            if got.is_set():
                break
        if got.is_set():
            data = intercepted[0]
            for kind in ("dragEnter", "dragOver", "drop"):
                await session.send(
                    "Input.dispatchDragEvent", {"type": kind, "x": end.x, "y": end.y, "data": data}, timeout=10
                )
        await mouse.release(session, end)
    finally:
        subscription.cancel()
        try:
            await session.send("Input.setInterceptDrags", {"enabled": False}, timeout=5)
        except CDPException:
            pass
    return {"html5": got.is_set()}


async def _wait_state(
    element: Element,
    what: str,
    timeout_ms: int,
    *,
    visible: bool = True,
    enabled: bool = True,
    editable: bool = False,
) -> None:
    """Wait (no hit test, no scrolling) until the element is attached/visible/enabled/editable."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_ms / 1000
    delay = 0.02
    while True:
        try:
            await check_state(element, visible=visible, enabled=enabled, editable=editable)
            return
        except NotActionable as exc:
            if exc.final or loop.time() >= deadline:
                waited = None if exc.final else timeout_ms
                raise not_interactable(element, what, exc.reason, waited_ms=waited) from None
        await asyncio.sleep(min(delay, max(0.0, deadline - loop.time())))
        delay = min(delay * 2, 0.25)
