"""Filling a text field: its content replaced as one text insertion, then left as a user leaves it.

Split from :mod:`.actions` (which re-exports :func:`fill`): the field kinds a value is set on
directly (date, time, color...) and the formats they take, the in-page preparation, and the
commit of :mod:`.commit`.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_server.input.actionability import actionable_point
from mcp_server.input.commit import commit_if_watched
from mcp_server.input.delivery import keys_reach
from mcp_server.input.element import Element
from mcp_server.input.keyboard import press_combo
from targets.errors import ErrorCode, ToolFailure

__all__ = ["fill", "Filled"]

_SET_VALUE_TYPES = ("date", "time", "datetime-local", "month", "week", "color", "range")
#: The value format each of those inputs takes, whatever the user's locale shows (15/03/2024 is
#: displayed, 2024-03-15 is what the field holds)
_VALUE_FORMATS = {
    "date": "YYYY-MM-DD, e.g. 2024-03-15",
    "time": "HH:MM or HH:MM:SS, 24-hour, e.g. 14:30",
    "datetime-local": "YYYY-MM-DDTHH:MM, e.g. 2024-03-15T14:30",
    "month": "YYYY-MM, e.g. 2024-03",
    "week": "YYYY-Www, e.g. 2024-W11",
    "color": "#rrggbb, e.g. #1a2b3c",
    "range": "a number between the field's min and max",
    "number": "digits with a dot for decimals, e.g. 1250.50",
}

_PREPARE_FILL_JS = """function(value, setTypes) {
  const el = this;
  if (el.tagName === 'INPUT') {
    const type = (el.getAttribute('type') || 'text').toLowerCase();
    if (setTypes.includes(type)) {
      el.focus();
      el.value = value;
      if (el.value !== value) return {error: 'cannot hold ' + JSON.stringify(value) + ' (a <input type=' + type + '>)'};
      el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
      el.dispatchEvent(new Event('change', {bubbles: true}));
      return {done: true};
    }
    if (type === 'number' && value.trim() !== '' && isNaN(Number(value)))
      return {error: 'is a number field and ' + JSON.stringify(value) + ' is not a number'};
  }
  el.focus();
  if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') {
    el.select();
  } else {
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    const selection = el.ownerDocument.defaultView.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  return {insert: true};
}"""

#: What the field holds after the insertion, and, when it kept none of the text, the editor around
#: it that took it: CodeMirror 5 types into a hidden textarea and empties it after each input, its
#: text then lives in the editor's own elements. A line of the typed text found in an ancestor's
#: text (the last lines first: an editor renders the lines near its cursor) names that ancestor.
_HELD_JS = """function(typed) {
  const own = this.isContentEditable ? this.innerText : String(this.value);
  const flat = t => String(t).replace(/\\s+/g, ' ').trim();
  if (!typed || flat(own).includes(flat(typed).slice(0, 200))) return {held: own.length};
  const lines = typed.split('\\n').map(flat).filter(Boolean).slice(-20).reverse();
  let node = this.parentElement;
  for (let depth = 0; node && depth < 6 && node !== this.ownerDocument.body; depth++, node = node.parentElement) {
    const text = flat(node.textContent || '');
    if (lines.some(line => text.includes(line.slice(0, 200)))) {
      const cls = (typeof node.className === 'string' ? node.className : '').trim().split(/\\s+/)[0];
      return {held: own.length, editor: node.tagName.toLowerCase() + (node.id ? '#' + node.id : cls ? '.' + cls : '')};
    }
  }
  return {held: own.length};
}"""


@dataclass(frozen=True, slots=True)
class Filled:
    """What a fill left: the characters the field holds, or the editor that took the typed ones."""

    #: characters the field itself holds now
    held: int
    #: characters typed
    typed: int
    #: the element around the field that took the text (``div.CodeMirror``), when the field kept none
    editor: str | None = None

    def said(self) -> str:
        """``57 chars`` or ``57 chars typed, taken by the editor div.CodeMirror (the field itself empties)``."""
        if self.editor:
            return f"{self.typed} chars typed, taken by the editor {self.editor} (the field itself empties)"
        return f"{self.held} chars"


async def fill(element: Element, value: str, what: str, *, timeout_ms: int) -> Filled:
    """Replace the field's content with ``value`` (typed as one text insertion); returns what it left."""
    await actionable_point(element, what, timeout_ms=timeout_ms, editable=True, hit=False)
    prepared = await element.call(_PREPARE_FILL_JS, value, list(_SET_VALUE_TYPES)) or {}
    if prepared.get("error"):
        kind = element.type if element.tag == "INPUT" else ""
        hint = f"a <input type={kind}> takes {_VALUE_FORMATS[kind]}" if kind in _VALUE_FORMATS else None
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{what}: {element.label} {prepared['error']}", hint=hint)
    if prepared.get("insert"):
        async with keys_reach(element.session, element, what, "text insertion"):
            if value:
                await element.session.send("Input.insertText", {"text": value}, timeout=30)
            else:
                await press_combo(element.session, "Delete")
        await commit_if_watched(element)  # the page's onchange runs now, as when a user moves on
    held = await element.call(_HELD_JS, value) or {}
    return Filled(held=int(held.get("held") or 0), typed=len(value), editor=held.get("editor") or None)
