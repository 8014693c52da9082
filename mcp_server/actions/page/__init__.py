"""Actions inside the selected page: snapshot and uids, reading the DOM, scripts, selectors,
clicks and keys (through ``mcp_server.input``), forms, waits.

May import ``facts``, ``input``, ``render``, ``core``, ``guards`` and the sibling action rooms.
"""
