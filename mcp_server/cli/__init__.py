"""The command line: what a person or a client config starts, and nothing an agent calls.

``entry`` routes ``mcp-browser`` (hook, chromium, skill, or the server) before anything heavy is
imported; ``main`` parses flags and serves the tools on stdio (``stdio_guard`` answers the lines
the SDK would drop) or on streamable HTTP (``http``); ``chromium``, ``skill`` and ``hook`` are the
other subcommands; ``stop_signals`` and ``gc_tuning`` set up the process. ``python -m
mcp_server.cli`` runs ``main``.

May import every other room (it is the top floor); nothing imports it.
"""
