"""Which browser target is active, and finding its selected page: launching, restarting, or saying why not.

Every page call of the manager comes through :meth:`ActiveTarget.current_page`: it starts the
default target when none is active (unless the user's Chrome was just detached), restarts a
crashed internal browser, and turns a lost connection into the same ToolFailure wherever it is
noticed. How the default target starts (attach or launch, with their answers) is the manager's
to say, so it hands that in as ``start_default``.

Which target is active, and the notices about it, are each MCP session's own
(:mod:`targets.callers`): one agent using the internal browser never moves another off the
user's Chrome.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

from cdp_core import ConnectionClosed
from targets.internal.launch import LaunchTarget
from targets.pages.page import PageHandle
from targets.users_chrome.attaching import ChromeAttachment
from targets.users_chrome.cdp import CdpTarget

from .callers import PerCaller, acting_as, current_caller
from .errors import ErrorCode, ToolFailure
from .hub import utc_now
from .settings import TargetSettings

__all__ = ["ActiveTarget", "TargetName"]

TargetName = Literal["launch", "cdp"]


class ActiveTarget:
    """The active target's name, what the agent must be told about it (detach, relaunch), its page."""

    def __init__(
        self,
        settings: TargetSettings,
        launch: LaunchTarget,
        chrome: ChromeAttachment,
        start_default: Callable[[], Awaitable[object]],
    ) -> None:
        self.settings = settings
        self.launch = launch
        self.chrome = chrome
        self._start_default = start_default
        self._names: PerCaller[TargetName | None] = PerCaller(None)
        self._relaunches: PerCaller[dict[str, Any] | None] = PerCaller(None, inherit=False)
        self._detaches: PerCaller[dict[str, Any] | None] = PerCaller(None)

    @property
    def name(self) -> TargetName | None:
        """The calling session's active target (None: none yet, or detached)."""
        return self._names.get()

    @name.setter
    def name(self, value: TargetName | None) -> None:
        self._names.set(value)

    @property
    def last_relaunch(self) -> dict[str, Any] | None:
        """Set when a launch-mode call had to restart a crashed internal browser (each session told once)."""
        return self._relaunches.get()

    @last_relaunch.setter
    def last_relaunch(self, value: dict[str, Any] | None) -> None:
        self._relaunches.set(value)

    @property
    def detached(self) -> dict[str, Any] | None:
        """Set by this session's detach_cdp that left no target active: page reads then say so
        (NOT_ATTACHED) instead of starting the internal browser behind the agent's back."""
        return self._detaches.get()

    @detached.setter
    def detached(self, value: dict[str, Any] | None) -> None:
        self._detaches.set(value)

    def sessions_on(self, name: TargetName) -> set[str]:
        """The callers whose active target is ``name``."""
        return {caller for caller in self._names.callers() if self._names.of(caller) == name}

    def target(self, name: TargetName) -> LaunchTarget | CdpTarget:
        return self.launch if name == "launch" else self.chrome.target

    async def ensure_launch(self) -> LaunchTarget:
        """The running internal browser; started lazily, restarted after a crash."""
        launch = self.launch
        if launch.context is not None and launch.connected:
            return launch
        if launch.context is not None:  # it died: clean up, then start afresh
            # What the crashed browser's selected page captured goes on in the new browser's first
            # page (same stores, ids go on), so earlier entries stay readable after the restart.
            old = launch.registry.selected or next(iter(reversed(launch.registry.all_pages)), None)
            carried = launch.keep_for_relaunch(old)
            relaunch = {"lost": launch.lost, "at": utc_now(), "carriedFrom": carried}
            for caller in self.sessions_on("launch") - {current_caller()}:
                with acting_as(caller):  # every session on the internal browser is told once
                    self.last_relaunch = relaunch
            self.last_relaunch = relaunch
            await launch.close()
        await launch.start()
        return launch

    def detached_failure(self) -> ToolFailure:
        detached = self.detached or {}
        return ToolFailure(
            ErrorCode.NOT_ATTACHED,
            f"The user's Chrome was detached (detach_cdp at {detached.get('at', '?')}); no browser is active, "
            "so there is no page to read.",
            hint="Call attach_cdp to attach to the user's Chrome again, or use_launch_browser (or navigate) "
            "for the internal browser.",
            detachedAt=detached.get("at"),
        )

    def lost_now(self, target: LaunchTarget | CdpTarget, exc: BaseException) -> ToolFailure:
        """The socket died during this very call: say so like the next call would."""
        if isinstance(target, CdpTarget):
            if target.lost is None:
                target.lost = {"at": utc_now(), "reason": str(exc)}
            return self.chrome.lost_failure()
        return ToolFailure(
            ErrorCode.BROWSER_DISCONNECTED,
            f"The internal browser went away during the call ({exc}).",
            hint="Call again: the internal browser is restarted on the next call.",
        )

    async def sync(self, target: LaunchTarget | CdpTarget) -> None:
        """Bring ``target``'s registry up to date with its browser (a lost socket says so)."""
        if target.hub is None:
            return
        try:
            await target.hub.sync()
        except ConnectionClosed as exc:
            raise self.lost_now(target, exc) from exc

    async def resolve(self, *, launch_if_needed: bool) -> LaunchTarget | CdpTarget:
        """The active target, connected: started, restarted, or a ToolFailure saying why not."""
        if self.name is None:
            if self.detached is not None:
                raise self.detached_failure()
            if not launch_if_needed:
                raise ToolFailure(
                    ErrorCode.NO_ACTIVE_PAGE,
                    "No browser target is active.",
                    hint="Call navigate (starts the internal browser), use_launch_browser or attach_cdp.",
                )
            await self._start_default()
        if self.name == "cdp":
            cdp = self.chrome.target
            if cdp.lost is not None or not cdp.connected:
                raise self.chrome.lost_failure()
            return cdp
        if not self.launch.connected or self.launch.context is None:
            if not launch_if_needed and self.launch.context is None:
                raise ToolFailure(ErrorCode.NO_ACTIVE_PAGE, "The internal browser is not running.")
            await self.ensure_launch()
        return self.launch

    async def current_page(self, *, launch_if_needed: bool = True) -> PageHandle:
        """The selected page of the active target.

        Fails with NO_ACTIVE_PAGE when nothing is active (and no launch is allowed) or the target
        has no open page, and with what :meth:`resolve` raises for a lost or detached target.
        """
        target = await self.resolve(launch_if_needed=launch_if_needed)
        page = target.registry.selected
        if page is None:
            if target is self.launch and launch_if_needed:
                return await self.launch.new_page()
            if target.hub is not None:
                await self.sync(target)
                target.registry.listing()
                page = target.registry.selected
            if page is None:
                raise ToolFailure(
                    ErrorCode.NO_ACTIVE_PAGE,
                    f"The {target.name} browser has no open page.",
                    hint="Open a tab in Chrome, then call list_pages."
                    if isinstance(target, CdpTarget)
                    else "Call navigate to open one.",
                )
        if page.closed:
            opener = target.registry.opener_of(page)
            hint = "Call list_pages and select another page."
            if opener is not None:
                hint = (
                    f"It was opened by {opener.stable_page_id} ({opener.title or opener.url}), still open:"
                    f' select_page stable_page_id="{opener.stable_page_id}" to go back there.'
                )
            raise ToolFailure(
                ErrorCode.PAGE_CLOSED,
                f"The selected page {page.stable_page_id} ({page.url}) was closed.",
                hint=hint,
                stable_page_id=page.stable_page_id,
            )
        return page

    def ready_page(self) -> PageHandle | None:
        """The selected page when it is simply there: active target connected, page open (no I/O).

        None means :meth:`current_page` would have to do something first (launch, attach,
        relaunch, look for a tab) or would fail; the MCP layer then calls it under the
        exclusive state lock.
        """
        if self.name == "cdp":
            cdp = self.chrome.target
            if cdp.lost is not None or not cdp.connected:
                return None
            page = cdp.registry.selected
        elif self.name == "launch":
            if self.launch.context is None or not self.launch.connected:
                return None
            page = self.launch.registry.selected
        else:
            return None
        return page if page is not None and not page.closed else None

    def last_selected_page(self) -> PageHandle | None:
        """The selected page of the active target as it is, even closed or lost (to read what it captured)."""
        if self.name is None:
            return None
        return self.target(self.name).registry.selected
