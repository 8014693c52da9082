"""What the captured data means: facts an answer states, before they are put into words.

``followup`` (what an action caused: navigation, requests, console errors, dialogs),
``server_errors`` (the server's own error inside a response body), ``body_preview``,
``stacks`` (source-mapped), ``redirects``, ``form_validation``, ``dialogs`` (the user's and the
page's JavaScript dialogs) and ``capture`` (wiring the recorders to every page).

May import ``input``, ``render``, ``core`` and ``guards``; never ``actions`` or above.
"""
