"""The server's and its tools' icons (SEP-973): tiny inline SVGs, so no client fetches anything.

A client shows them beside the server and its tools; the model never reads them (they are
not part of what a host passes it). Inline ``data:`` URIs: an icon on the web would be a
request to a host at every listing, and a client that follows icon URLs must not be sent
off loopback by us.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import mcp_types

__all__ = ["SERVER_ICON", "TOOL_ICONS", "icons_of"]

#: a browser window with a magnifier: debugging in Chrome
SERVER_ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#1a73e8" stroke-width="2">'
    '<rect x="2" y="3" width="20" height="16" rx="2"/><path d="M2 8h20"/>'
    '<circle cx="11" cy="13" r="3"/><path d="M13.5 15.5 17 19"/></svg>'
)
#: per condensed tool: the session (a window) and acting on the page (a pointer)
TOOL_ICONS = {
    "browser_session": SERVER_ICON,
    "browser_interact": (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#1a73e8" stroke-width="2">'
        '<path d="M5 3l13 7-6 2-2 6z"/></svg>'
    ),
}


def icons_of(svg: str) -> list[mcp_types.Icon]:
    import mcp_types as types

    uri = "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode("ascii")
    return [types.Icon(src=uri, mime_type="image/svg+xml", sizes=["any"])]
