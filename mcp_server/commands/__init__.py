"""The command line: what a person or a client config starts, and nothing an agent calls.

``entry`` routes ``mcp-browser`` (hook, chromium, skill, or the server) before anything heavy is
imported; ``cli`` parses flags and runs the server on stdio or streamable HTTP; ``chromium_cmd``,
``skill_cmd`` and ``hook`` are the other subcommands; ``gc_tuning`` sets the process's collector.

May import every other room (it is the top floor); nothing imports it but the shims
``mcp_server.cli`` and ``mcp_server.entry`` that users name.
"""
