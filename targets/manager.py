"""The one object the MCP layer talks to: which target is active, its pages, switching between them.

State is explicit and held by collaborators, one concept each: :class:`LaunchTarget` (the
internal browser), :class:`ChromeAttachment` (the user's Chrome and its pending handshake),
:class:`ActiveTarget` (which one is active, finding its selected page), :class:`TabActions`
(navigation, tabs, emulation) and :class:`PolicyGate` (what may not be opened). Every public
method checks first and changes after, so a refused call leaves everything as it was. Methods
here take no lock: the MCP layer decides which calls may run together
(``mcp_server/server/locking.py``); :meth:`BrowserManager.ready_page` tells it, without any I/O,
whether the selected page is there or finding it would launch, attach or relaunch.

Several MCP sessions share one manager (:mod:`targets.callers`): the browsers, the attachment
to the user's Chrome and the capture are theirs together; the active target and the selection
are each one's own. A session's detach_cdp ends its own use of the attachment; the websocket
closes when the last session using it leaves (:meth:`BrowserManager.forget_caller` on disconnect).
"""

from __future__ import annotations

import inspect
import itertools
import logging
from typing import Any

from cdp_core.chromium import BrowserNotFound, find_chrome
from targets.internal.launch import LaunchTarget
from targets.pages.navigation import StatusFn
from targets.pages.page import PageHandle
from targets.pages.tabs import TabActions
from targets.policies.gate import PolicyGate
from targets.users_chrome.attaching import AttachPlan, ChromeAttachment
from targets.users_chrome.cdp import CdpTarget
from targets.users_chrome.handshake import HANDSHAKE_TIMEOUT
from targets.users_chrome.profile_dirs import ProfileDir

from .active import ActiveTarget, TargetName
from .callers import acting_as, current_caller, forget_caller
from .errors import ErrorCode, ToolFailure
from .hub import BeforeDetachListener, Listeners, PageClosedListener, SessionListener, utc_now
from .settings import DEFAULT_CDP_URL, TargetSettings

__all__ = ["BrowserManager"]

log = logging.getLogger("targets")

#: DEFAULT_TARGET=cdp attaches on a page call's demand, under the state lock: it waits this long
#: for the user's Allow, then says how to go on (attach_cdp joins the request, without a lock).
ATTACH_ON_DEMAND_WAIT_S = 20.0


class BrowserManager:
    """Both browser targets, the active one, and the page registry API."""

    def __init__(self, settings: TargetSettings | None = None) -> None:
        self.settings = settings or TargetSettings()
        self.listeners = Listeners()
        self._ids = itertools.count(1)
        self.launch = LaunchTarget(self.settings, self.listeners, self._new_stable_id)
        self.chrome = ChromeAttachment(self.settings, self.listeners, self._new_stable_id)
        self.active = ActiveTarget(self.settings, self.launch, self.chrome, self._start_default)
        self.gate = PolicyGate(self.launch.policy)
        self.tabs = TabActions(self.active, self.gate, self.add_session_listener)
        #: the callers (MCP sessions) that attached to the user's Chrome and have not left it
        self._chrome_users: set[str] = set()

    # -- state the MCP layer reads (and, for the relaunch notice, clears) --------------------

    @property
    def cdp(self) -> CdpTarget:
        """The user's Chrome as attached now (a new object after attaching to another Chrome)."""
        return self.chrome.target

    @property
    def active_target(self) -> TargetName | None:
        return self.active.name

    @active_target.setter
    def active_target(self, name: TargetName | None) -> None:
        self.active.name = name

    @property
    def detached(self) -> dict[str, Any] | None:
        """When and from where detach_cdp let the user's Chrome go, leaving no target active."""
        return self.active.detached

    @property
    def last_relaunch(self) -> dict[str, Any] | None:
        """Set when the last launch-mode call had to restart a crashed internal browser (said once)."""
        return self.active.last_relaunch

    @last_relaunch.setter
    def last_relaunch(self, value: dict[str, Any] | None) -> None:
        self.active.last_relaunch = value

    @property
    def downloads(self) -> list[dict[str, Any]]:
        """Files the internal browser downloaded: url, suggestedFilename, path, size, savedAt (or error)."""
        return self.launch.downloads

    async def settle_downloads(self, begun: list[str], timeout: float = 30.0) -> list[str]:
        """Wait, bounded, until the internal browser saved the downloads its pages began (``begun``:
        their URLs); the URLs still not saved. The user's Chrome saves its own: nothing to wait for."""
        if self.active_target != "launch" or not begun:
            return []
        return await self.launch.settle_downloads(begun, timeout)

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

    # -- the selected page ------------------------------------------------------------

    async def current_page(self, *, launch_if_needed: bool = True) -> PageHandle:
        """The selected page of the active target (see :meth:`ActiveTarget.current_page` for the failure cases)."""
        return await self.active.current_page(launch_if_needed=launch_if_needed)

    def ready_page(self) -> PageHandle | None:
        """The selected page when it is simply there, without any I/O (see :meth:`ActiveTarget.ready_page`)."""
        return self.active.ready_page()

    def last_selected_page(self) -> PageHandle | None:
        """The selected page of the active target as it is, even closed or lost (to read what it captured)."""
        return self.active.last_selected_page()

    def detached_failure(self) -> ToolFailure:
        """NOT_ATTACHED after detach_cdp (``mcp_server.server.context`` raises it for capture reads)."""
        return self.active.detached_failure()

    def check_tab(self, page: PageHandle, *, doing: str = "act") -> None:
        """Refuse to act in a tab showing a browser-internal or local page (see :meth:`PolicyGate.check_tab`)."""
        self.gate.check_tab(page, doing=doing)

    # -- attaching to the user's Chrome -----------------------------------------------

    def profile_dirs(self) -> list[ProfileDir]:
        """Where attach_cdp looks for ``DevToolsActivePort`` (settings, else this system's standard dirs)."""
        return self.chrome.profile_dirs()

    async def attach_cdp(
        self,
        cdp_url: str | None = None,
        *,
        close_inactive: bool = False,
        user_data_dir: str | None = None,
        wait_s: float = HANDSHAKE_TIMEOUT,
    ) -> dict[str, Any]:
        """Attach to the user's Chrome (no navigation, no new tab) and make it the active target.

        Waits up to ``wait_s`` for the handshake (a person's Allow); past it the request stays
        open and NOT_ATTACHED says so. The MCP action uses :meth:`prepare_attach` /
        :meth:`finish_attach` instead, to answer ``waiting`` without holding any lock meanwhile.
        """
        plan = await self.prepare_attach(cdp_url, user_data_dir=user_data_dir)
        if plan.handshake is not None and not await plan.handshake.wait(wait_s):
            raise ToolFailure(
                ErrorCode.NOT_ATTACHED,
                f'Chrome is still asking the user "Allow remote debugging?" for {plan.url} '
                f"(since {plan.handshake.started_at}).",
                hint="Ask the user to click Allow in their Chrome, then call attach_cdp: it joins this request.",
                cdpUrl=plan.url,
            )
        return await self.finish_attach(plan, close_inactive=close_inactive)

    async def prepare_attach(self, cdp_url: str | None = None, *, user_data_dir: str | None = None) -> AttachPlan:
        """Choose the Chrome and start (or join) the one handshake to it (see :meth:`ChromeAttachment.prepare`)."""
        return await self.chrome.prepare(cdp_url, user_data_dir=user_data_dir)

    async def finish_attach(self, plan: AttachPlan, *, close_inactive: bool = False) -> dict[str, Any]:
        """Attach over the websocket ``plan``'s handshake opened (or go on with the attachment there is)."""
        reused = await self.chrome.adopt(plan)
        cdp = self.cdp
        self.active.name = "cdp"
        self.active.detached = None
        self._chrome_users.add(current_caller())
        if close_inactive and self.launch.context is not None:
            await self.launch.close()
        return {
            "target": "cdp",
            "cdpUrl": cdp.cdp_url or plan.url,
            "attachedAt": cdp.attached_at,
            "capturedSince": cdp.attached_at,
            "alreadyAttached": reused,
            "launchClosed": bool(close_inactive),
            "found": cdp.found,
            "pages": await self.list_pages(),
        }

    async def _start_default(self) -> None:
        """What a page call starts when no target is active: DEFAULT_TARGET's browser."""
        if self.settings.default_target == "cdp":
            await self.attach_cdp(wait_s=ATTACH_ON_DEMAND_WAIT_S)
        else:
            await self.use_launch_browser()

    # -- tabs -------------------------------------------------------------------------

    async def navigate(
        self, url: str, *, wait_until: str = "load", timeout_ms: int = 30000, on_status: StatusFn | None = None
    ) -> dict[str, Any]:
        """Go to ``url`` in the current page (the internal browser starts if nothing is active)."""
        return await self.tabs.navigate(url, wait_until=wait_until, timeout_ms=timeout_ms, on_status=on_status)

    async def go_history(
        self, delta: int, *, wait_until: str = "load", timeout_ms: int = 30000, on_status: StatusFn | None = None
    ) -> dict[str, Any]:
        """Back (-1) or forward (+1) in the selected tab's history; the same report as :meth:`navigate`."""
        return await self.tabs.go_history(delta, wait_until=wait_until, timeout_ms=timeout_ms, on_status=on_status)

    async def reload(
        self,
        *,
        ignore_cache: bool = False,
        wait_until: str = "load",
        timeout_ms: int = 30000,
        on_status: StatusFn | None = None,
    ) -> dict[str, Any]:
        """Reload the selected tab; the same report as :meth:`navigate`."""
        return await self.tabs.reload(
            ignore_cache=ignore_cache, wait_until=wait_until, timeout_ms=timeout_ms, on_status=on_status
        )

    async def new_page(
        self, url: str | None = None, *, background: bool = False, explicit: bool = False, **navigation: Any
    ) -> PageHandle:
        """Open a tab and select it; in the user's Chrome only when the call asked for a new tab (``explicit``)."""
        return await self.tabs.new_page(url, background=background, explicit=explicit, **navigation)

    async def close_page(self, stable_page_id: str) -> dict[str, Any]:
        """Close one tab of the active target; the last tab of the user's Chrome is refused (it would close Chrome)."""
        return await self.tabs.close_page(stable_page_id)

    async def emulate(self, **changes: Any) -> dict[str, Any]:
        """Set or clear emulation settings of the selected tab (see :mod:`targets.pages.emulation`)."""
        return await self.tabs.emulate(**changes)

    # -- switching --------------------------------------------------------------------

    def chrome_users(self) -> set[str]:
        """The sessions using the attachment to the user's Chrome: attached and not left, or active on it."""
        return (self._chrome_users | self.active.sessions_on("cdp")) if self.cdp.attached else set()

    async def detach_cdp(self) -> dict[str, Any]:
        """End this session's use of the user's Chrome; the last one to leave disconnects (Chrome keeps running)."""
        cdp, pending, active = self.cdp, self.chrome.pending, self.active
        if not cdp.attached and cdp.lost is None and pending is None:
            raise ToolFailure(
                ErrorCode.NOT_ATTACHED, "Not attached to a Chrome.", hint="Call attach_cdp to attach first."
            )
        url = cdp.cdp_url or (pending.url if pending is not None else None)
        me = current_caller()
        others = self.chrome_users() - {me}
        if others and cdp.connected:  # the others go on over the same websocket: only this session leaves
            self._chrome_users.discard(me)
            await self._release_own(cdp.registry.all_pages, me)
            if active.name == "cdp":
                active.name = "launch" if self.launch.context is not None else None
            if active.name is None:
                active.detached = {"at": utc_now(), "cdpUrl": url}
            return {
                "detached": True,
                "cdpUrl": url,
                "activeTarget": active.name,
                "chromeClosed": False,
                "otherSessions": len(others),
            }
        self._chrome_users.clear()
        await self.chrome.withdraw()  # Chrome's dialog may stay up; what the user clicks then attaches nothing
        was_attached = cdp.attached or cdp.lost is not None
        await cdp.detach()
        for caller in self.active.sessions_on("cdp") - {me}:
            with acting_as(caller):  # a session that was on it (a lost connection) is off it now too
                active.name = "launch" if self.launch.context is not None else None
        if active.name == "cdp":
            active.name = "launch" if self.launch.context is not None else None
        if active.name is None and was_attached:
            active.detached = {"at": utc_now(), "cdpUrl": url}
        data: dict[str, Any] = {"detached": True, "cdpUrl": url, "activeTarget": active.name, "chromeClosed": False}
        if pending is not None:
            data["withdrewRequest"] = True
        return data

    async def use_launch_browser(self) -> dict[str, Any]:
        """Make the internal browser active (starting it if needed); the cdp attachment stays."""
        launch = await self.active.ensure_launch()
        self.active.name = "launch"
        self.active.detached = None
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
        others = self.active.sessions_on("launch") - {current_caller()}
        if was_running and others:  # another session works in it: this one only leaves it
            if self.active.name == "launch":
                self.active.name = "cdp" if self.cdp.attached else None
            return {"closed": False, "target": "launch", "activeTarget": self.active.name, "otherSessions": len(others)}
        await self.launch.close()
        if self.active.name == "launch":
            self.active.name = "cdp" if self.cdp.attached else None
        return {"closed": was_running, "target": "launch", "activeTarget": self.active.name}

    # -- registry ---------------------------------------------------------------------

    async def list_pages(self) -> list[dict[str, Any]]:
        """The tabs of the active target (closed ones dropped first); empty when nothing is active."""
        if self.active.name is None:
            return []
        target = await self.active.resolve(launch_if_needed=False)
        await self.active.sync(target)
        return target.registry.listing()

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
        target = await self.active.resolve(launch_if_needed=False)
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
        cdp, pending, active = self.cdp, self.chrome.pending, self.active.name
        return {
            "supportsLaunch": launch_available,
            "supportsCdpAttach": True,
            "activeTarget": active,
            "defaultTarget": self.settings.default_target,
            "launch": {
                "available": launch_available,
                "active": active == "launch",
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
                "active": active == "cdp",
                "attached": cdp.attached and cdp.connected,
                "cdpUrl": cdp.cdp_url or self.settings.cdp_url or DEFAULT_CDP_URL,
                "attachedAt": cdp.attached_at,
                "lost": cdp.lost,
                "allowRemote": self.settings.allow_remote_cdp,
                #: how the attached Chrome was found: browser, profileDir, port, how (toggle/flag), via
                "found": cdp.found if cdp.attached else None,
                #: an attach_cdp waiting for the user's Allow in Chrome's dialog
                "waitingForAllow": pending.describe() if pending and not pending.done() else None,
                "detachedAt": (self.active.detached or {}).get("at"),
            },
        }

    def state(self) -> dict[str, Any]:
        """The explicit state: the active target and, per target, connection, pages, URL, attach time."""
        return {"activeTarget": self.active.name, "launch": self.launch.state(), "cdp": self.cdp.state()}

    async def status(self) -> dict[str, Any]:
        """Capabilities plus the current page, without starting anything."""
        data = self.capabilities()
        page_info: dict[str, Any] | None = None
        error: dict[str, Any] | None = None
        active = self.active
        if active.name == "launch" and self.launch.context is not None and not self.launch.connected:
            error = ToolFailure(
                ErrorCode.BROWSER_DISCONNECTED,
                f"The internal browser went away ({(self.launch.lost or {}).get('reason', 'closed')}).",
                hint="The next call that needs a page restarts it.",
            ).to_dict()
        elif active.name is not None:
            try:
                page = await active.current_page(launch_if_needed=False)
                target = active.target(page.target)
                page_info = page.info(page_id=target.registry.index_of(page), selected=True)
            except ToolFailure as exc:
                error = exc.to_dict()
        data["currentPage"] = page_info
        if error is not None:
            data["currentPageError"] = error
        pages = active.target(active.name).registry.pages if active.name else []
        data["pageCount"] = len(pages)
        # JavaScript dialogs open in any tab (the user's own, in their Chrome): said without any I/O
        dialogs = [{"stable_page_id": p.stable_page_id, **d} for p in pages if (d := p.info().get("dialog"))]
        if dialogs:
            data["dialogs"] = dialogs
        return data

    async def forget_caller(self, caller: str) -> None:
        """A session ended: its use of the user's Chrome ends (the last one disconnects), what it set
        in pages (debug points, clears) is released, and everything it chose is forgotten."""
        with acting_as(caller):
            if caller in self.chrome_users():
                try:
                    await self.detach_cdp()
                except ToolFailure as exc:
                    log.debug("detach of a leaving session: %s", exc)
            pages = [*self.launch.registry.all_pages, *self.cdp.registry.all_pages]
            await self._release_own(pages, caller)
        forget_caller(caller)

    @staticmethod
    async def _release_own(pages: list[PageHandle], caller: str) -> None:
        """Let every per-page layer drop what ``caller`` set there (a ``forget_caller`` method in ``page.data``)."""
        for page in pages:
            for value in list(page.data.values()):
                forget = getattr(value, "forget_caller", None)
                if forget is None:
                    continue
                try:
                    done = forget(caller)
                    if inspect.isawaitable(done):
                        await done
                except Exception as exc:  # noqa: BLE001 - a closed tab must not stop the others' release
                    log.debug("forget_caller on %s failed: %s", page.stable_page_id, exc)

    async def close(self) -> None:
        """Server shutdown: close the internal browser, detach from the user's Chrome (never close it)."""
        try:
            await self.launch.close(stop_driver=True)
        finally:
            await self.chrome.withdraw()
            await self.cdp.detach()
            self.active.name = None
