"""The ``mcp-browser`` console script's entry point (pyproject names ``mcp_server.entry:main``).

The routing lives in :mod:`mcp_server.commands.entry`; importing this module stays as light as it
(the prompt hook runs on every prompt and must not load the MCP SDK).
"""

from __future__ import annotations

import sys

from mcp_server.commands.entry import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
