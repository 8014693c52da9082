"""The one object the MCP layer talks to: which target is active, its pages, switching between them.

State is explicit: :attr:`BrowserManager.active_target` plus one :class:`LaunchTarget` and
one :class:`CdpTarget`, each holding its own socket, pages, URL and attach time. Every
public method checks first and changes after, so a refused call leaves everything as it
was. Methods here take no lock: the MCP layer decides which calls may run together
(``mcp_server/core/locking.py``); :meth:`BrowserManager.ready_page` tells it, without any I/O,
whether the selected page is there or finding it would launch, attach or relaunch.
"""

from __future__ import annotations

import itertools
import logging
from typing import Any, Literal

from cdp_core import ConnectionClosed
from cdp_core.chromium import BrowserNotFound, find_chrome
from targets.internal.launch import LaunchTarget
from targets.pages.page import PageHandle
from targets.pages.tabs import TabActions
from targets.users_chrome.attaching import AttachActions
from targets.users_chrome.cdp import CdpTarget
from targets.users_chrome.handshake import Handshake

from .errors import ErrorCode, ToolFailure
from .hub import BeforeDetachListener, Listeners, PageClosedListener, SessionListener, utc_now
from .settings import DEFAULT_CDP_URL, TargetSettings

__all__ = ["BrowserManager"]

log = logging.getLogger("targets")

TargetName = Literal["launch", "cdp"]

#: DEFAULT_TARGET=cdp attaches on a page call's demand, under the state lock: it waits this long
#: for the user's Allow, then says how to go on (attach_cdp joins the request, without a lock).
ATTACH_ON_DEMAND_WAIT_S = 20.0


class BrowserManager(AttachActions, TabActions):
    """Both browser targets, the active one, and the page registry API (see CONTRACTS.md)."""

    def __init__(self, settings: TargetSettings | None = None) -> None:
        self.settings = settings or TargetSettings()
        self.active_target: TargetName | None = None
        self.listeners = Listeners()
        self._ids = itertools.count(1)
        self.launch = LaunchTarget(self.settings, self.listeners, self._new_stable_id)
        self.cdp = CdpTarget(self.listeners, self._new_stable_id)
        #: Set when the last launch-mode call had to restart a crashed internal browser.
        self.last_relaunch: dict[str, Any] | None = None
        self._emulation_hooked = False
        #: The handshake to the user's Chrome still waiting for the person's Allow (joined, never doubled).
        self.pending: Handshake | None = None
        #: Set by an explicit detach_cdp that left no target active: page reads then say so
        #: (NOT_ATTACHED) instead of starting the internal browser behind the agent's back.
        self.detached: dict[str, Any] | None = None

    @property
    def downloads(self) -> list[dict[str, Any]]:
        """Files the internal browser downloaded: url, suggestedFilename, path, size, savedAt (or error)."""
        return self.launch.downloads

    def _new_stable_id(self) -> str:
        return f"p{next(self._ids)}"

    # -- listeners --------------------------------------------------------------------

    def add_session_listener(self, cb: SessionListener) -> None:
        """Await ``cb(page, session, kind)`` for every page/iframe/worker session, existing ones included."""
        self.listeners.session.append(cb)
        for target in (self.launch, self.cdp):
            if target.hub is not None:
                target.hub.replay_listener(cb)

    def add_page_closed_listener(self, cb: PageClosedListener) -> None:
        self.listeners.page_closed.append(cb)

    def add_before_detach_listener(self, cb: BeforeDetachListener) -> None:
        """Await ``cb(pages)`` before the user's Chrome is let go, while its sessions still answer."""
        self.listeners.before_detach.append(cb)

    # -- targets ----------------------------------------------------------------------

    def _target(self, name: TargetName) -> LaunchTarget | CdpTarget:
        return self.launch if name == "launch" else self.cdp

    async def _ensure_launch(self) -> LaunchTarget:
        """The running internal browser; started lazily, restarted after a crash."""
        launch = self.launch
        if launch.context is not None and launch.connected:
            return launch
        if launch.context is not None:  # it died: clean up, then start afresh
            # What the crashed browser's selected page captured goes on in the new browser's first
            # page (same stores, ids go on), so earlier entries stay readable after the restart.
            old = launch.registry.selected or next(iter(reversed(launch.registry.all_pages)), None)
            carried = launch.keep_for_relaunch(old)
            self.last_relaunch = {"lost": launch.lost, "at": utc_now(), "carriedFrom": carried}
            await launch.close()
        await launch.start()
        return launch

    def _cdp_lost_failure(self) -> ToolFailure:
        lost = self.cdp.lost or {}
        return ToolFailure(
            ErrorCode.BROWSER_DISCONNECTED,
            f"The connection to the Chrome at {self.cdp.cdp_url} was lost at {lost.get('at', '?')} "
            f"({lost.get('reason', 'closed')}); it was probably closed or restarted.",
            hint="Start Chrome again if needed, then call attach_cdp (or use_launch_browser); with Chrome's "
            "remote-debugging toggle, attaching again makes Chrome ask the user to click Allow again.",
            cdpUrl=self.cdp.cdp_url,
        )

    def _detached_failure(self) -> ToolFailure:
        detached = self.detached or {}
        return ToolFailure(
            ErrorCode.NOT_ATTACHED,
            f"The user's Chrome was detached (detach_cdp at {detached.get('at', '?')}); no browser is active, "
            "so there is no page to read.",
            hint="Call attach_cdp to attach to the user's Chrome again, or use_launch_browser (or navigate) "
            "for the internal browser.",
            detachedAt=detached.get("at"),
        )

    async def _active(self, *, launch_if_needed: bool) -> LaunchTarget | CdpTarget:
        if self.active_target is None:
            if self.detached is not None:
                raise self._detached_failure()
            if not launch_if_needed:
                raise ToolFailure(
                    ErrorCode.NO_ACTIVE_PAGE,
                    "No browser target is active.",
                    hint="Call navigate (starts the internal browser), use_launch_browser or attach_cdp.",
                )
            if self.settings.default_target == "cdp":
                await self.attach_cdp(wait_s=ATTACH_ON_DEMAND_WAIT_S)
            else:
                await self.use_launch_browser()
        if self.active_target == "cdp":
            if self.cdp.lost is not None or not self.cdp.connected:
                raise self._cdp_lost_failure()
            return self.cdp
        if not self.launch.connected or self.launch.context is None:
            if not launch_if_needed and self.launch.context is None:
                raise ToolFailure(ErrorCode.NO_ACTIVE_PAGE, "The internal browser is not running.")
            await self._ensure_launch()
        return self.launch

    async def current_page(self, *, launch_if_needed: bool = True) -> PageHandle:
        """The selected page of the active target (see CONTRACTS.md for the failure cases)."""
        target = await self._active(launch_if_needed=launch_if_needed)
        page = target.registry.selected
        if page is None:
            if target is self.launch and launch_if_needed:
                return await self.launch.new_page()
            if target.hub is not None:
                try:
                    await target.hub.sync()
                except ConnectionClosed as exc:
                    raise self._lost_now(target, exc) from exc
                target.registry.listing()
                page = target.registry.selected
            if page is None:
                raise ToolFailure(
                    ErrorCode.NO_ACTIVE_PAGE,
                    f"The {target.name} browser has no open page.",
                    hint="Open a tab in Chrome, then call list_pages."
                    if target is self.cdp
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
        if self.active_target == "cdp":
            if self.cdp.lost is not None or not self.cdp.connected:
                return None
            page = self.cdp.registry.selected
        elif self.active_target == "launch":
            if self.launch.context is None or not self.launch.connected:
                return None
            page = self.launch.registry.selected
        else:
            return None
        return page if page is not None and not page.closed else None

    def last_selected_page(self) -> PageHandle | None:
        """The selected page of the active target as it is, even closed or lost (to read what it captured)."""
        if self.active_target is None:
            return None
        return self._target(self.active_target).registry.selected

    # -- switching --------------------------------------------------------------------

    async def detach_cdp(self) -> dict[str, Any]:
        """Disconnect from the user's Chrome; it keeps running with all its tabs."""
        cdp, pending = self.cdp, self.pending
        if not cdp.attached and cdp.lost is None and pending is None:
            raise ToolFailure(
                ErrorCode.NOT_ATTACHED, "Not attached to a Chrome.", hint="Call attach_cdp to attach first."
            )
        url = cdp.cdp_url or (pending.url if pending is not None else None)
        if pending is not None:
            self.pending = None
            await pending.cancel()  # Chrome's dialog may stay up; what the user clicks then attaches nothing
        was_attached = cdp.attached or cdp.lost is not None
        await cdp.detach()
        if self.active_target == "cdp":
            self.active_target = "launch" if self.launch.context is not None else None
        if self.active_target is None and was_attached:
            self.detached = {"at": utc_now(), "cdpUrl": url}
        data = {"detached": True, "cdpUrl": url, "activeTarget": self.active_target, "chromeClosed": False}
        if pending is not None:
            data["withdrewRequest"] = True
        return data

    async def use_launch_browser(self) -> dict[str, Any]:
        """Make the internal browser active (starting it if needed); the cdp attachment stays."""
        launch = await self._ensure_launch()
        self.active_target = "launch"
        self.detached = None
        return {"target": "launch", "startedAt": launch.attached_at, "pages": await self.list_pages()}

    async def close_browser_target(self, target: str, *, close_chrome: bool = False) -> dict[str, Any]:
        """Close the internal browser, or detach from the user's Chrome; closing that Chrome is refused."""
        if close_chrome:
            raise ToolFailure(
                ErrorCode.NOT_ALLOWED,
                "Closing the user's Chrome is never done by this server.",
                hint="Close Chrome yourself; use close_browser_target target=cdp to detach.",
            )
        if target == "cdp":
            return await self.detach_cdp()
        if target != "launch":
            raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"target must be 'launch' or 'cdp', not {target!r}.")
        was_running = self.launch.context is not None
        await self.launch.close()
        if self.active_target == "launch":
            self.active_target = "cdp" if self.cdp.attached else None
        return {"closed": was_running, "target": "launch", "activeTarget": self.active_target}

    # -- registry ---------------------------------------------------------------------

    async def list_pages(self) -> list[dict[str, Any]]:
        """The tabs of the active target (closed ones dropped first); empty when nothing is active."""
        if self.active_target is None:
            return []
        target = await self._active(launch_if_needed=False)
        if target.hub is not None:
            try:
                await target.hub.sync()
            except ConnectionClosed as exc:
                raise self._lost_now(target, exc) from exc
        return target.registry.listing()

    def _lost_now(self, target: LaunchTarget | CdpTarget, exc: BaseException) -> ToolFailure:
        """The socket died during this very call: say so like the next call would."""
        if target is self.cdp:
            if self.cdp.lost is None:
                self.cdp.lost = {"at": utc_now(), "reason": str(exc)}
            return self._cdp_lost_failure()
        return ToolFailure(
            ErrorCode.BROWSER_DISCONNECTED,
            f"The internal browser went away during the call ({exc}).",
            hint="Call again: the internal browser is restarted on the next call.",
        )

    async def select_page(
        self,
        *,
        page_id: int | None = None,
        stable_page_id: str | None = None,
        url_contains: str | None = None,
        title_contains: str | None = None,
        bring_to_front: bool = False,
    ) -> dict[str, Any]:
        """Select a tab of the active target; never navigates. Refusals leave the selection as it was."""
        target = await self._active(launch_if_needed=False)
        if target.hub is not None:
            await target.hub.settle()
        page = target.registry.resolve(
            page_id=page_id, stable_page_id=stable_page_id, url_contains=url_contains, title_contains=title_contains
        )
        self.check_tab(page, doing="select it or act")  # before anything changes: the selection stays
        if bring_to_front:
            try:
                await page.session.send("Page.bringToFront")
            except Exception as exc:
                log.debug("bringToFront failed: %s", exc)
        target.registry.select(page)
        return {"selected": page.info(page_id=target.registry.index_of(page), selected=True)}

    # -- status -----------------------------------------------------------------------

    def capabilities(self) -> dict[str, Any]:
        """The ``browser {...}`` object of get_capabilities."""
        try:
            launch_available = bool(self.settings.chrome_path or find_chrome())
        except BrowserNotFound:
            launch_available = False
        cdp = self.cdp
        return {
            "supportsLaunch": launch_available,
            "supportsCdpAttach": True,
            "activeTarget": self.active_target,
            "defaultTarget": self.settings.default_target,
            "launch": {
                "available": launch_available,
                "active": self.active_target == "launch",
                "running": self.launch.context is not None and self.launch.connected,
                "headless": self.settings.headless,
                "startedAt": self.launch.attached_at,
                "policies": {
                    "allowedUrls": list(self.settings.allowed_urls),
                    "allowFileUrls": self.settings.allow_file_urls,
                    "allowedFileRoots": list(self.settings.allowed_file_roots),
                    "blockMedia": self.settings.block_media,
                    "maxTabs": self.settings.max_launch_tabs,
                },
            },
            "cdp": {
                "available": True,
                "active": self.active_target == "cdp",
                "attached": cdp.attached and cdp.connected,
                "cdpUrl": cdp.cdp_url or self.settings.cdp_url or DEFAULT_CDP_URL,
                "attachedAt": cdp.attached_at,
                "lost": cdp.lost,
                "allowRemote": self.settings.allow_remote_cdp,
                #: how the attached Chrome was found: browser, profileDir, port, how (toggle/flag), via
                "found": cdp.found if cdp.attached else None,
                #: an attach_cdp waiting for the user's Allow in Chrome's dialog
                "waitingForAllow": self.pending.describe() if self.pending and not self.pending.done() else None,
                "detachedAt": (self.detached or {}).get("at"),
            },
        }

    def state(self) -> dict[str, Any]:
        """The explicit state: the active target and, per target, connection, pages, URL, attach time."""
        return {"activeTarget": self.active_target, "launch": self.launch.state(), "cdp": self.cdp.state()}

    async def status(self) -> dict[str, Any]:
        """Capabilities plus the current page, without starting anything."""
        data = self.capabilities()
        page_info: dict[str, Any] | None = None
        error: dict[str, Any] | None = None
        if self.active_target == "launch" and self.launch.context is not None and not self.launch.connected:
            error = ToolFailure(
                ErrorCode.BROWSER_DISCONNECTED,
                f"The internal browser went away ({(self.launch.lost or {}).get('reason', 'closed')}).",
                hint="The next call that needs a page restarts it.",
            ).to_dict()
        elif self.active_target is not None:
            try:
                page = await self.current_page(launch_if_needed=False)
                target = self._target(page.target)
                page_info = page.info(page_id=target.registry.index_of(page), selected=True)
            except ToolFailure as exc:
                error = exc.to_dict()
        data["currentPage"] = page_info
        if error is not None:
            data["currentPageError"] = error
        pages = self._target(self.active_target).registry.pages if self.active_target else []
        data["pageCount"] = len(pages)
        # JavaScript dialogs open in any tab (the user's own, in their Chrome): said without any I/O
        dialogs = [{"stable_page_id": p.stable_page_id, **d} for p in pages if (d := p.info().get("dialog"))]
        if dialogs:
            data["dialogs"] = dialogs
        return data

    async def close(self) -> None:
        """Server shutdown: close the internal browser, detach from the user's Chrome (never close it)."""
        try:
            await self.launch.close(stop_driver=True)
        finally:
            pending, self.pending = self.pending, None
            if pending is not None:
                await pending.cancel()
            await self.cdp.detach()
            self.active_target = None
