"""``python -m mcp_server.cli``: kept where users and client configs name it.

The command line lives in :mod:`mcp_server.commands.cli`; this module only forwards to it.
"""

from __future__ import annotations

import sys

from mcp_server.commands.cli import *  # noqa: F403 - the names scripts imported from here
from mcp_server.commands.cli import main

if __name__ == "__main__":
    sys.exit(main())
