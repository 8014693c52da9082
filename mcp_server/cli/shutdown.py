"""How the server process ends, on either transport: the audit log flushed, the browsers closed.

The internal browser and its temporary profile go; the user's Chrome is only detached from.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from targets import BrowserManager

__all__ = ["close_browsers"]

log = logging.getLogger("mcp_server")


async def close_browsers(manager: BrowserManager) -> None:
    """Close the internal browser and detach from the user's Chrome (never close it), bounded in time."""
    import anyio

    from mcp_server.safety.audit import flush_all

    flush_all()  # the count of refused calls not yet written
    with anyio.CancelScope(shield=True), anyio.move_on_after(15):
        try:
            await manager.close()
        except Exception:  # noqa: BLE001 - shutdown goes on whatever the browser does
            log.exception("closing the browser manager failed")
