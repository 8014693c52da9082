"""A stand-in MCP server that answers with answers recorded from ours: it builds nothing.

Run by :mod:`bench.answer_floor` as ``python -m bench.replay_server FILE``. ``FILE`` holds one
recorded tool (its listing, output schema included or not) and one recorded result per action;
``tools/call`` returns the result of the call's ``action`` as it is. What such a server measures
is the cost of the answer's form alone: the SDK's plumbing on both ends, the bytes, and the
client's checks of the structured content, with our server's own work taken out.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    import anyio
    import mcp_types as types
    from mcp.server import Server
    from mcp.server.stdio import stdio_server

    recorded = json.loads(Path((argv or sys.argv[1:])[0]).read_text())
    tool = types.Tool.model_validate(recorded["tool"])
    results: dict[str, Any] = recorded["results"]

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool])

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> dict[str, Any]:
        return results[(params.arguments or {})["action"]]

    server = Server("replay", on_list_tools=on_list_tools, on_call_tool=on_call_tool)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
