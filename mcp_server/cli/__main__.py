"""``python -m mcp_server.cli``: the server, as client configs and scripts name it."""

from __future__ import annotations

import sys

from mcp_server.cli.main import main

sys.exit(main())
