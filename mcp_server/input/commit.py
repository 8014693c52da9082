"""Leaving a filled field like a user moving on, when the page listens for the field's change.

Why: a text field's ``change`` event fires when the user leaves the field, not while typing. The
forms of legacy business apps hang their work on it: a customer number's ``onchange`` looks up
the name and address, an ASP.NET AutoPostBack text box posts the page back, a quantity's
delegated jQuery handler recomputes the total. A fill that types and stays in the field ran
none of it: the answer said nothing followed, and the lookup then fired in the middle of the
next action, whose answer got its requests. So after a fill that changed the value, a field
whose page listens for ``change`` (on the field, its form or its document: inline
``onchange``, ``addEventListener``, jQuery's direct or delegated handlers) is left and entered
again: ``blur`` makes Chrome fire its own ``change`` (trusted, once), ``focus`` puts the caret
back, so Enter still submits. A field nobody watches for ``change`` is left alone: an
autocomplete listens to typing, and leaving it would close its suggestions.
"""

from __future__ import annotations

import asyncio

from cdp_core import CDPException
from mcp_server.input.element import Element

__all__ = ["commit_if_watched", "note_typing_watched", "listener_types", "TYPING_EVENTS"]

_HOLDERS_JS = "function() { return [this, this.form || null, this.ownerDocument]; }"
_LEAVE_AND_RETURN_JS = """function() {
  const doc = this.ownerDocument;
  if (doc.activeElement !== this) return false;
  this.blur();
  this.focus({ preventScroll: true });
  return true;
}"""


#: Events a page reacts to typing with (a search-as-you-type, an autocomplete, keyup validation)
TYPING_EVENTS = frozenset({"input", "keyup", "keydown", "keypress"})


async def listener_types(element: Element) -> set[str]:
    """The event types listened for on the field, its form or its document (DevTools' own view)."""
    session = element.session
    group = "mcp-commit"
    try:
        holders = await session.send(
            "Runtime.callFunctionOn",
            {"functionDeclaration": _HOLDERS_JS, "objectId": element.object_id, "objectGroup": group},
            timeout=5,
        )
        array_id = holders["result"].get("objectId")
        if not array_id:
            return set()
        props = await session.send("Runtime.getProperties", {"objectId": array_id, "ownProperties": True}, timeout=5)
        ids = [
            p["value"]["objectId"]
            for p in props.get("result", [])
            if p.get("name") in ("0", "1", "2") and (p.get("value") or {}).get("objectId")
        ]
        found = await asyncio.gather(
            *(session.send("DOMDebugger.getEventListeners", {"objectId": i, "depth": 0}, timeout=5) for i in ids)
        )
        return {str(listener.get("type")) for reply in found for listener in reply.get("listeners", [])}
    except (CDPException, TimeoutError, KeyError):
        return set()
    finally:
        try:
            await session.send("Runtime.releaseObjectGroup", {"objectGroup": group}, timeout=5)
        except (CDPException, TimeoutError):
            pass


async def note_typing_watched(element: Element) -> set[str]:
    """Note on ``element`` whether the page reacts to typing there (``typing_watched``): the follow-up
    then gives a debounced handler the time a background tab's timers take. Returns the listened types."""
    types = await listener_types(element)
    element.typing_watched = bool(types & TYPING_EVENTS)
    return types


async def commit_if_watched(element: Element) -> bool:
    """Leave the field and come back (its ``change`` fires) when the page listens for it; True when done.

    Also notes whether the page reacts to typing there (:func:`note_typing_watched`).
    """
    if "change" not in await note_typing_watched(element):
        return False
    return bool(await element.call(_LEAVE_AND_RETURN_JS))
