"""The MCP server: two condensed tools (``browser_session``, ``browser_interact``) and the flat
legacy tools, over stdio or streamable HTTP, on top of ``targets`` and ``cdp_core``.

A small kernel and one folder per feature (docs/architecture.md draws them): ``cli`` (the command
line), ``server`` (the app, routing, the action table, locks, the envelope), ``features/<feature>``
(each capability's actions and words: network, console, snapshot, interact...), and the rooms the
features share: ``page`` (scripts and loads on the tab), ``evidence`` (what captured data means),
``input`` (clicks and keys through CDP), ``answers`` (the lean rules and shared rows), ``safety``
(artifacts, audit, fences); ``fixtures`` is what the pytest plugin stands on. Features never import
each other.

At the root stay only the names users type: the pytest plugin ``mcp_server.pytest_plugin`` and the
test helpers ``mcp_server.testing``; ``python -m mcp_server.cli`` runs the server.
"""
