"""Trusted input through our own CDP sessions: works in background tabs, iframes and both targets.

The one way uid and selector actions (and the form, typing, drag and upload actions) perform
input. API (all coroutines raise ``ToolFailure`` with a reason):

- find (``element``): ``element_from_uid`` (snapshot uid), ``element_from_selector`` (CSS, first
  match, count) -> ``Element`` (``release()`` it when done);
- act (``actions``): ``click``, ``hover``, ``fill``, ``press_key``, ``select_options``,
  ``set_checked``, ``set_input_files``, ``drag``, ``scroll_into_view``, ``focus``;
- lower level: ``actionability.actionable_point`` (wait for visible/enabled/editable/stable/hit,
  return the press point), ``mouse`` (move/press/release at a point), ``keyboard.press_combo``
  (keys into the focused element), ``calls.input_call`` (CDP failures as stable codes).

Why not Playwright: its actionability waits for animation frames, which a tab the user is
not looking at never gets, and a Playwright connected to the user's Chrome answers their
dialogs.
"""
