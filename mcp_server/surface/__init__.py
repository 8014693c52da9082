"""The MCP surface: where a call enters and where its answer leaves, in both renderings.

``server`` runs ``tools/call`` on the SDK's lowlevel server (locks, progress, call bound),
``tool_catalog``/``schema``/``schema_output`` build ``tools/list`` from the action table,
``envelope`` turns a handler's result or exception into the answer (``content`` text and
``structuredContent``) in the light form of ``tool_answer``, ``answer_cap`` is the last byte
cap over every answer, ``stdio_guard`` answers stdio lines the SDK would drop,
``client_log`` the server's log notifications.

May import ``actions`` (to load them), ``facts``, ``render``, ``core`` and ``guards``; never
``commands``.
"""
