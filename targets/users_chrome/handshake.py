"""The one websocket handshake of an attachment, which may wait for a person to click Allow.

With Chrome's remote-debugging toggle on, every new websocket shows the browser-modal dialog
"Allow remote debugging?" and the handshake waits until the person answers (Cancel: HTTP 403
"Connection rejected"). A person may take longer than one tool call may last, so the
handshake runs in a task of its own that outlives the call that started it: the call answers
``waiting``, the next ``attach_cdp`` joins the same task, and Chrome asks only once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import cdp_core
from targets.hub import utc_now

from .finding import FoundChrome

__all__ = ["Handshake", "HANDSHAKE_TIMEOUT"]

log = logging.getLogger("targets.users_chrome.handshake")

#: How long a handshake may wait for the person's click before we give up on it (Chrome keeps
#: the dialog up meanwhile; closing our socket takes it away).
HANDSHAKE_TIMEOUT = 600.0


async def _open(ws_url: str) -> cdp_core.Browser:
    return await cdp_core.connect(ws_url, open_timeout=HANDSHAKE_TIMEOUT)


class Handshake:
    """A connection attempt to ``ws_url`` running in its own task, joined by every attach that wants it."""

    def __init__(self, url: str, ws_url: str, found: FoundChrome | None, via: str = "cdp_url") -> None:
        self.url = url
        self.ws_url = ws_url
        self.found = found
        #: how the Chrome was chosen: cdp_url, configured, user_data_dir, discovery
        self.via = via
        #: set once a call attached over the opened socket (a second joiner then goes on with it)
        self.adopted = False
        self.started_at = utc_now()
        self._started = asyncio.get_running_loop().time()
        self.task: asyncio.Task[cdp_core.Browser] = asyncio.get_running_loop().create_task(
            _open(ws_url), name=f"cdp handshake {ws_url}"
        )
        # A handshake nobody joins again must not log "exception never retrieved".
        self.task.add_done_callback(lambda t: t.cancelled() or t.exception())

    @property
    def asks_user(self) -> bool:
        """Chrome's toggle: the handshake waits for the person's Allow (flag flow: it opens at once)."""
        return self.found is None or self.found.how == "toggle"

    def waited(self) -> float:
        return asyncio.get_running_loop().time() - self._started

    def done(self) -> bool:
        return self.task.done()

    async def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for the handshake to end; True when it did (opened or failed).

        The task is shielded: a call that stops waiting (its bound, a cancel) leaves the
        handshake running for the next ``attach_cdp`` to join.
        """
        await asyncio.wait({self.task}, timeout=timeout)  # raises nothing: the outcome is read by finish_attach
        return self.task.done()

    async def cancel(self) -> None:
        """Give up: cancel a pending handshake, close an opened socket.

        Chrome keeps its dialog up after our socket closed (measured with Chromium 156): whatever
        the person clicks then attaches nothing.
        """
        if not self.task.done():
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task
            return
        if not self.task.cancelled() and self.task.exception() is None:
            with contextlib.suppress(Exception):
                await self.task.result().close()

    def describe(self) -> dict[str, Any]:
        data: dict[str, Any] = {"cdpUrl": self.url, "askedAt": self.started_at, "waitedS": round(self.waited(), 1)}
        if self.found is not None:
            data["found"] = self.found.to_dict()
        return data
