"""The MCP server: two condensed tools (``browser_session``, ``browser_interact``) and the flat
legacy tools, over stdio or streamable HTTP, on top of ``targets`` and ``cdp_core``.

The rooms, from where a call enters to what keeps it safe (docs/architecture.md draws them):
``commands`` (the command line), ``surface`` (tools/list, tools/call, the envelope),
``actions`` (the handlers: ``tabs``, ``page``, ``evidence``, ``flat``), ``facts`` (what captured
data means), ``input`` (clicks and keys through CDP), ``render`` (both renderings of an answer),
``core`` (the action table, context, locks, settings), ``guards`` (artifacts, audit, fences),
``fixtures`` (what the pytest plugin stands on). A room imports only the rooms after it.

At the root stay only the names users type: ``mcp_server.cli``, ``mcp_server.cli.entry``, the pytest
plugin ``mcp_server.pytest_plugin`` and the test helpers ``mcp_server.testing``.
"""
