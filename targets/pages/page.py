"""One tab as the rest of the server sees it: a flattened CDP session plus a registry identity.

A :class:`PageHandle` lives as long as the tab is attached. Capture and snapshot layers
keep their per-page state in :attr:`PageHandle.data`; actions (input included) go through
its CDP sessions, in both browsers alike.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from cdp_core import CDPException, CDPSession
from targets.callers import PerCaller
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from targets.base import BrowserTarget

__all__ = ["PageHandle", "SessionRecord", "SessionKind"]

SessionKind = Literal["page", "iframe", "worker"]


@dataclass(eq=False)
class SessionRecord:
    """A session of a page (its own, or an auto-attached iframe/worker) and which listeners saw it."""

    session: CDPSession
    kind: SessionKind
    target_info: dict[str, Any]
    seen_by: set[int] = field(default_factory=set)


@dataclass(eq=False)
class PageHandle:
    """A tab of the launch browser or of the user's Chrome, with a stable id ``p1``, ``p2``, ..."""

    stable_page_id: str
    target_id: str
    target: Literal["launch", "cdp"]
    session: CDPSession
    attached_at: str
    title: str = ""
    url: str = ""
    closed: bool = False
    #: Target id of the page that opened this one (``window.open``, a ``target=_blank`` link): a
    #: lookup popup that closes itself hands the agent back to it
    opener_target_id: str | None = None
    #: Frame id chosen by select_frame, per MCP session (``None``: the main frame). Selecting a page resets it.
    _frames: PerCaller[str | None] = field(default_factory=lambda: PerCaller(None, inherit=False), repr=False)
    #: Per-page slots of other layers (``"network"``, ``"console"``, snapshot state, ...).
    data: dict[str, Any] = field(default_factory=dict)
    #: Every live session of this page: its own first, then iframes and workers.
    sessions: list[SessionRecord] = field(default_factory=list, repr=False)
    #: The target that owns the page (its registry); None for a handle made outside a target (unit tests).
    _owner: BrowserTarget | None = field(default=None, repr=False)
    #: Set once the page's own listeners ran (child sessions wait for it, keeping the order page -> children).
    _ready: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def active_frame(self) -> str | None:
        """The frame the calling session chose with select_frame; None is the main frame."""
        return self._frames.get()

    @active_frame.setter
    def active_frame(self, frame_id: str | None) -> None:
        self._frames.set(frame_id)

    async def is_hidden(self, *, timeout: float = 5) -> bool:
        """The tab is in the background (``document.visibilityState`` hidden): no animation frames,
        timers woken once a second. False when the page does not answer."""
        try:
            reply = await self.session.send(
                "Runtime.evaluate", {"expression": "document.visibilityState", "returnByValue": True}, timeout=timeout
            )
        except (CDPException, TimeoutError):
            return False
        return bool(reply.get("result", {}).get("value") == "hidden")

    def opener(self) -> PageHandle | None:
        """The open page that opened this one (None: none, or it closed too)."""
        return self._owner.registry.opener_of(self) if self._owner is not None else None

    def info(self, *, page_id: int | None = None, selected: bool = False) -> dict[str, Any]:
        """The listing entry of this page (``list_pages``, ``get_current_page``)."""
        data: dict[str, Any] = {
            "page_id": page_id,
            "stable_page_id": self.stable_page_id,
            "selected": selected,
            "title": _bounded(self.title),
            "url": _bounded(self.url),
            "closed": self.closed,
            "targetId": self.target_id,
            "target": self.target,
            "attachedAt": self.attached_at,
            "capturedSince": self.attached_at,
        }
        if self.active_frame:
            data["activeFrame"] = self.active_frame
        # The dialog watch belongs to mcp_server (a floor above, so no type to name here): any
        # object that lists itself counts, and a page no watch was installed on has none.
        watch = self.data.get("dialogs")
        dialog = watch.listing() if watch is not None and hasattr(watch, "listing") else None
        if dialog:
            data["dialog"] = dialog  # a JavaScript dialog blocks the tab (the user's, in their Chrome)
        from .emulation import EmulationState  # emulation imports this module

        emulation = self.data.get("emulation")
        summary = emulation.summary() if isinstance(emulation, EmulationState) else None
        if summary:
            data["emulation"] = summary  # set by emulate; undone on detach
        return data

    def _check_open(self) -> None:
        if self.closed:
            raise ToolFailure(
                ErrorCode.PAGE_CLOSED,
                f"Page {self.stable_page_id} ({self.url or 'no url'}) was closed.",
                hint="Call list_pages and select another page.",
                stable_page_id=self.stable_page_id,
            )


#: A page sets its own URL and title (``history.pushState`` of megabytes): listings show this much.
LISTED_CHARS = 2000


def _bounded(text: str) -> str:
    return text if len(text) <= LISTED_CHARS else f"{text[:LISTED_CHARS]}…[{len(text)} chars]"
