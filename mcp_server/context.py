"""What every action handler gets: the browser manager, the settings, the artifacts root.

Handlers never touch the MCP SDK directly; progress goes through :meth:`ToolContext.report_progress`
so a handler works the same from the condensed tool, the legacy tool and in unit tests.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from targets import BrowserManager, PageHandle

    from .artifacts import Artifacts
    from .settings import Settings

__all__ = ["ToolContext"]

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


@dataclass
class ToolContext:
    manager: BrowserManager
    settings: Settings
    artifacts: Artifacts
    #: which tool the call came through ("browser_session", "browser_navigate", ...)
    tool: str = ""
    action: str = ""
    progress: ProgressFn | None = None

    async def page(self, launch_if_needed: bool = True) -> PageHandle:
        """The selected page of the active target (launching the internal browser if allowed)."""
        return await self.manager.current_page(launch_if_needed=launch_if_needed)

    async def captured_page(self) -> PageHandle:
        """The page whose capture a read-only action shows: the selected page, or its closed handle.

        When the selected tab was closed or its browser went away, what it captured is the most
        useful thing left to read (the requests and errors before the crash), so reads of the
        capture stores fall back to that handle (``page.closed`` is then true) instead of failing.
        """
        from targets.errors import ErrorCode, ToolFailure

        if self.manager.active_target is None and self.settings.default_target != "cdp":
            # Launching the internal browser here would answer "0 entries" from a browser the agent
            # never used (e.g. right after detach_cdp), as if the user's Chrome had been quiet.
            raise ToolFailure(
                ErrorCode.NO_ACTIVE_PAGE,
                "No browser target is active, so nothing has been captured (capture starts at attach or launch).",
                hint="Call attach_cdp to read the user's Chrome, or navigate to open a page in the internal browser.",
            )
        try:
            return await self.page()
        except ToolFailure as exc:
            if exc.code not in (ErrorCode.PAGE_CLOSED, ErrorCode.BROWSER_DISCONNECTED):
                raise
            last = getattr(self.manager, "last_selected_page", None)
            page = last() if last is not None else None
            if page is None or "network" not in page.data:
                raise
            return page

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Progress notification to the caller; a no-op when the call carried no progress token."""
        if self.progress is None:
            return
        try:
            await self.progress(progress, total, message)
        except Exception:  # noqa: BLE001 - a lost progress message must never fail the action
            pass
