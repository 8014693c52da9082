"""Several MCP sessions on one server, in-process: each a real SDK client whose calls run as its own caller.

How: each agent's client is entered, and each of its calls made, under ``acting_as(caller)``
(targets/callers.py); the in-memory transport hands the call to the server in that context (or
in tasks started from it), so the server serves the session as caller ``caller``, as the HTTP
transport serves each session of one ``mcp-browser --http`` server as its own. One BrowserMCP,
one BrowserManager, one capture for all of them, as in that server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from faults_util import CALL_TIMEOUT, Agent
from mcp.client import Client

from mcp_server.cli.main import build_tools
from mcp_server.server.settings import Settings
from targets.callers import acting_as


class CallerAgent(Agent):
    """An agent whose every call is made as ``caller``."""

    def __init__(self, client: Client, app: Any, caller: str) -> None:
        super().__init__(client, app)
        self.caller = caller

    async def call(self, tool: str, timeout: float = CALL_TIMEOUT, **args: Any) -> Any:
        with acting_as(self.caller):
            return await super().call(tool, timeout, **args)


@asynccontextmanager
async def sessions(artifacts: Path, *callers: str) -> AsyncIterator[list[CallerAgent]]:
    """One agent per name in ``callers``, all on the same server (its internal browser, launched on first use)."""
    manager, app = build_tools(Settings(artifact_dir=str(artifacts)))
    try:
        async with AsyncExitStack() as stack:
            agents = []
            for caller in callers:
                with acting_as(caller):  # what the server starts for this client runs as ``caller``
                    client = await stack.enter_async_context(Client(app.build()))
                agents.append(CallerAgent(client, app, caller))
            yield agents
    finally:
        with anyio.move_on_after(30, shield=True):
            await manager.close()
