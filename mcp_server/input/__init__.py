"""Trusted input through our own CDP sessions: works in background tabs, iframes and both targets.

The one way uid and selector actions (and the form, typing, drag and upload actions) perform
input. API (all coroutines raise ``ToolFailure`` with a reason):

- find: :func:`element_from_uid` (snapshot uid), :func:`element_from_selector` (CSS, first
  match, count) -> :class:`Element` (``release()`` it when done);
- act: :func:`click`, :func:`hover`, :func:`fill`, :func:`press_key`, :func:`select_options`,
  :func:`set_checked`, :func:`set_input_files`, :func:`drag`, :func:`scroll_into_view`,
  :func:`focus`;
- lower level: :func:`actionable_point` (wait for visible/enabled/editable/stable/hit,
  return the press point), :mod:`.mouse` (move/press/release at a point),
  :func:`press_combo` / :func:`insert_text` (keys and text into the focused element).

Why not Playwright: its actionability waits for animation frames, which a tab the user is
not looking at never gets, and a Playwright connected to the user's Chrome answers their
dialogs.
"""

from __future__ import annotations

from cdp_core import CDPSession
from mcp_server.input import mouse
from mcp_server.input.actionability import NotActionable, Point, actionable_point, check_state
from mcp_server.input.actions import (
    click,
    drag,
    fill,
    focus,
    hover,
    press_key,
    scroll_into_view,
    select_options,
    set_checked,
    set_input_files,
)
from mcp_server.input.delivery import keys_reach
from mcp_server.input.element import Element, element_from_selector, element_from_uid
from mcp_server.input.keyboard import UnknownKey, parse_combo, press_combo

__all__ = [
    "keys_reach",
    "Element",
    "NotActionable",
    "Point",
    "UnknownKey",
    "actionable_point",
    "check_state",
    "click",
    "drag",
    "element_from_selector",
    "element_from_uid",
    "fill",
    "focus",
    "hover",
    "insert_text",
    "mouse",
    "parse_combo",
    "press_combo",
    "press_key",
    "scroll_into_view",
    "select_options",
    "set_checked",
    "set_input_files",
]


async def insert_text(session: CDPSession, text: str) -> None:
    """Type ``text`` into the focused element as one insertion (any script; fires input events)."""
    await session.send("Input.insertText", {"text": text}, timeout=30)
