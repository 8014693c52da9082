"""What captured data means, for every feature that reports it.

``capture`` installs the recorders on every tab and finds them again (``console_of``,
``network_of``); ``followup`` (with ``followup_text``) says what an action caused: requests,
navigation, console errors; ``server_errors`` finds a server's error printed in a body,
``body_preview`` previews a body, ``stacks`` maps stacks through source maps, ``redirects`` the
server's redirects, ``form_validation`` what a form refused, ``dialogs`` the user's open dialog,
``debug_points`` the debugger's points.

May import ``server`` (what a handler gets), ``input``, ``answers`` and ``safety``.
"""
