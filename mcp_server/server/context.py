"""What every action handler gets: the browser manager, the settings, the artifacts root, its locks.

Handlers never touch the MCP SDK directly; progress goes through :meth:`ToolContext.status`
(or :meth:`ToolContext.report_progress`) so a handler works the same from the condensed tool,
the legacy tool and in unit tests.

Locks (:mod:`mcp_server.server.locking`): the server takes what the action declared before the
handler runs; :meth:`ToolContext.page` also takes the page's mutex for ``page`` actions, and
takes the state lock exclusively for the moment it has to launch, attach or relaunch to find
the page. ``poll`` actions wrap each step in ``async with ctx.step(page)``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp_server.safety.artifacts import Artifacts
    from mcp_server.server.locking import CallHold
    from mcp_server.server.progress import Progress
    from mcp_server.server.settings import Settings
    from targets import BrowserManager, PageHandle

__all__ = ["ToolContext"]

#: "no timeout of the caller's own" (timeout_ms 0): the call bound still applies
_NO_TIMEOUT_S = 24 * 3600.0

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


#: Actions that may run while the selected tab shows a browser-internal or local page: they
#: say which page it is or take the tab to a web page, and run nothing inside it.
ACTIONS_ON_ANY_TAB = frozenset({"navigate", "get_current_page"})


@dataclass
class ToolContext:
    manager: BrowserManager
    settings: Settings
    artifacts: Artifacts
    #: which tool the call came through ("browser_session", "browser_navigate", ...)
    tool: str = ""
    action: str = ""
    progress: ProgressFn | None = None
    #: what this call holds (None in unit tests without a server: no locking)
    hold: CallHold | None = None
    #: this call's progress heartbeat (None: progress goes straight to ``progress``)
    reporter: Progress | None = None
    #: ``loop.time()`` by which the call must answer (``max_call_seconds`` after it arrived)
    deadline: float | None = None
    #: set by :meth:`bound` when it cut a wait short of the caller's timeout
    cut: bool = False
    #: what features keep between calls, by name (the capture marks: ``mcp_server.evidence.marks``);
    #: one dict the server owns, so a server with several MCP sessions can hand each its own
    state: dict[str, Any] = field(default_factory=dict)

    def remaining(self) -> float | None:
        """Seconds left before the call must answer (None: unbounded, unit tests)."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - asyncio.get_running_loop().time())

    def bound(self, timeout_s: float, *, reserve_s: float = 1.0) -> tuple[float, bool]:
        """``timeout_s`` cut to what the call has left (less ``reserve_s`` to phrase the answer) -> (s, cut).

        Long waits use this so no call outlives a client's request timeout: when ``cut`` is true
        the wait ended at the call bound, not at the caller's timeout, and the answer says how to
        continue.
        """
        left = self.remaining()
        if left is None:
            return timeout_s, False
        room = max(0.1, left - reserve_s)
        if room < timeout_s:
            self.cut = True
            return room, True
        return timeout_s, False

    def bound_ms(self, timeout_ms: int, *, status: str | None = None) -> int:
        """A caller's ``timeout_ms`` (0: none) cut to the call bound, for a wait handed to Playwright or CDP.

        ``status`` says what the wait is for, in the progress messages. A TIMEOUT or
        ELEMENT_NOT_INTERACTABLE that follows a cut wait tells the caller it was the call bound
        (the server rewrites the hint): call again to keep waiting.
        """
        wait_s, _ = self.bound(timeout_ms / 1000 if timeout_ms else _NO_TIMEOUT_S)
        if status is not None:
            self.status(status, total_s=wait_s)
        return max(1, int(wait_s * 1000))

    async def page(self, launch_if_needed: bool = True) -> PageHandle:
        """The selected page of the active target (launching the internal browser if allowed).

        A ``page`` action holds the page's mutex from here to the end of the call. When the
        page is not simply there (nothing active, browser gone, no tab selected), finding it
        may launch, attach or relaunch: that part runs under the exclusive state lock.

        A tab that shows a browser-internal or local page (``chrome://``, ``file:`` unless
        allowed...) is refused here, for every action but those that only name it or take it
        elsewhere (:data:`ACTIONS_ON_ANY_TAB`), whichever browser it is in.
        """
        page = await self._page(launch_if_needed)
        if self.action not in ACTIONS_ON_ANY_TAB and not page.closed:
            self.manager.check_tab(page)
        return page

    async def _page(self, launch_if_needed: bool) -> PageHandle:
        hold = self.hold
        if hold is None or hold.exclusive:
            return await self.manager.current_page(launch_if_needed=launch_if_needed)
        for _ in range(5):
            page = self.manager.ready_page()
            if page is None:
                async with hold.exclusively():
                    await self.manager.current_page(launch_if_needed=launch_if_needed)  # raises what is wrong
                continue  # found (launched, attached...): take it under this call's own hold
            await hold.hold_page(page)
            if self.manager.ready_page() is page:
                return page
            # closed or deselected while we waited for its mutex: look again
        return await self.manager.current_page(launch_if_needed=launch_if_needed)

    def ready_page(self) -> PageHandle | None:
        """The selected page if it is simply there (no launch, attach or lookup needed), else None."""
        return self.manager.ready_page()

    def exclusively(self) -> contextlib.AbstractAsyncContextManager[None]:
        """The state lock exclusively for the block (an action that must launch or attach to do its work)."""
        if self.hold is None:
            return contextlib.nullcontext()
        return self.hold.exclusively()

    def step(self, page: PageHandle) -> contextlib.AbstractAsyncContextManager[None]:
        """One step of a ``poll`` action: the page to itself for the block (a no-op in other modes)."""
        if self.hold is None:
            return contextlib.nullcontext()
        return self.hold.step(page)

    def status(self, text: str | None, *, total_s: float | None = None) -> None:
        """Say what the call is doing now; progress heartbeats carry it (``total_s``: seconds it may take)."""
        if self.reporter is not None:
            self.reporter.status(text, total=total_s)

    async def captured_page(self) -> PageHandle:
        """The page whose capture a read-only action shows: the selected page, or its closed handle.

        When the selected tab was closed or its browser went away, what it captured is the most
        useful thing left to read (the requests and errors before the crash), so reads of the
        capture stores fall back to that handle (``page.closed`` is then true) instead of failing.
        """
        from targets.errors import ErrorCode, ToolFailure

        if self.manager.active_target is None and self.manager.detached is not None:
            raise self.manager.detached_failure()  # the user's Chrome was detached: say so, launch nothing
        if self.manager.active_target is None and self.settings.default_target != "cdp":
            # Launching the internal browser here would answer "0 entries" from a browser the agent
            # never used (e.g. right after detach_cdp), as if the user's Chrome had been quiet.
            raise ToolFailure(
                ErrorCode.NO_ACTIVE_PAGE,
                "No browser target is active, so nothing has been captured (capture starts at attach or launch).",
                hint="Call attach_cdp to read the user's Chrome, or navigate to open a page in the internal browser.",
            )
        selected = self.manager.last_selected_page()
        if selected is not None and selected.closed and "network" in selected.data:
            return selected  # said at once, without waiting for a lock to find out
        try:
            return await self.page()
        except ToolFailure as exc:
            if exc.code not in (ErrorCode.PAGE_CLOSED, ErrorCode.BROWSER_DISCONNECTED):
                raise
            page = self.manager.last_selected_page()
            if page is None or "network" not in page.data:
                raise
            return page

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Say how far the call is, and send it now; a no-op when the call carried no progress token.

        The numbers go into the message ("2 of 3", or the handler's ``message``): on the wire the
        progress value is the call's elapsed seconds for every notification (see :mod:`.progress`).
        """
        if self.reporter is not None:
            text = message or (f"{progress:g} of {total:g}" if total else f"{progress:g}")
            self.reporter.status(text)
            await self.reporter.emit()
            return
        if self.progress is None:
            return
        try:
            await self.progress(progress, total, message)
        except Exception:  # noqa: BLE001 - a lost progress message must never fail the action
            pass
