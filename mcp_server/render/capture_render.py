"""Console and network entries as the model reads them: one text line and one row per entry.

Both renderings come from the same fields, so the text (clients that pass only ``content``) and
``JSON(structuredContent)`` (Claude Code, Codex) say the same things at about the same size
(mcp_server/render/lean.py): the page URL and ``capturedSince`` once per list, URLs on the page's
origin as paths, no timestamps in lists (``*_get`` has them, relative to ``capturedSince``),
an entry's page or frame only where it differs from the list's.

Built along the data's path: listing_render.py (what both share: cuts, places, paging lines),
console_render.py and network_render.py; this module gathers their public names.
"""

from __future__ import annotations

from .console_render import console_line, console_listing, console_record, console_row
from .listing_render import CONSOLE_COLUMNS, NETWORK_COLUMNS, frame_text
from .network_render import network_line, network_listing, network_record, network_row

__all__ = [
    "CONSOLE_COLUMNS",
    "NETWORK_COLUMNS",
    "console_listing",
    "network_listing",
    "console_record",
    "network_record",
    "console_row",
    "network_row",
    "console_line",
    "network_line",
    "frame_text",
]
