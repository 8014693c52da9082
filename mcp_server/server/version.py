"""The server's name and version, as clients see them in ``initialize`` and ``get_capabilities``.

Apart from :mod:`mcp_server.server.app` so that an action (``get_capabilities``) can name the
server without importing the room above it.
"""

from __future__ import annotations

__all__ = ["SERVER_NAME", "server_version"]

SERVER_NAME = "mcp-browser-debug"


def server_version() -> str:
    try:
        from importlib.metadata import version

        return version("mcp-browser-debug")
    except Exception:  # noqa: BLE001 - running from a source tree without metadata
        return "0.0.0"
