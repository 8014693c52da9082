"""The ``mcp-browser`` console script: route ``hook``, ``chromium`` and ``skill`` before anything heavy is imported.

The prompt-submit hook runs on every prompt the user types, so it must start in tens of
milliseconds; the server's CLI imports anyio, pydantic and the settings first, which
takes far longer on a loaded machine. This module imports only what each path needs (the
``chromium`` and ``skill`` subcommands load neither the MCP SDK nor Playwright).
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["hook"]:
        from mcp_server.cli.hook import main as hook_main

        return hook_main(args[1:])
    if args[:1] == ["chromium"]:
        from mcp_server.cli.chromium import main as chromium_main

        return chromium_main(args[1:])
    if args[:1] == ["skill"]:
        from mcp_server.cli.skill import main as skill_main

        return skill_main(args[1:])
    from mcp_server.cli.main import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
