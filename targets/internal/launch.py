"""The internal browser: Chromium started through Playwright, captured through ``cdp_core``.

``launch_persistent_context`` lets us choose the profile directory, so
``--remote-debugging-port=0`` makes Chromium pick a free port and write it to
``DevToolsActivePort`` there; ``cdp_core`` then connects to that port for capture while
Playwright keeps its own pipe for actions. Policies are enforced here (and only here)
by a browser-wide ``Fetch`` interceptor and, with ``ALLOWED_URLS``, a loopback proxy for what
``Fetch`` never pauses (``policy_proxy.py``); downloads are saved under ``downloads_dir``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import cdp_core
from cdp_core import DiscoveryError, read_devtools_active_port
from cdp_core.chromium import HEADLESS_FLAGS, BrowserNotFound, find_chrome
from cdp_core.cleanup import remove_tree, running_as_root
from cdp_core.lifetime import new_profile_dir, sweep_profiles
from targets.base import BrowserTarget
from targets.errors import ErrorCode, ToolFailure
from targets.hub import Listeners, SessionHub, utc_now
from targets.pages.emulation import Viewport
from targets.pages.page import PageHandle
from targets.policies.policy import PolicyInterceptor, UrlPolicy
from targets.policies.policy_proxy import PolicyProxy, proxy_flags
from targets.settings import TargetSettings

from .downloads import Downloads

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Dialog, Playwright

__all__ = ["LaunchTarget", "LAUNCH_VIEWPORT"]

#: The internal browser's viewport (Playwright sets it); ``emulate viewport=none`` returns to it.
LAUNCH_VIEWPORT = Viewport(1280, 800, 1.0)

log = logging.getLogger("targets.internal.launch")

#: The internal browser's temporary profiles are ``<PROFILE_PREFIX><server pid>-*``: a profile holds
#: what the pages stored (cookies, tokens), so the first launch of a server sweeps those whose
#: server was killed (``cdp_core.lifetime.sweep_profiles``), never one of a server still running.
PROFILE_PREFIX = "mcp-browser-launch-"

#: Whether this server process already swept stale profiles (the first launch does it).
_swept: list[bool] = []

#: Quiet flags of the test harness that Playwright does not already set (it handles
#: --headless itself, and a second --disable-features would override its own list).
_QUIET_FLAGS = tuple(f for f in HEADLESS_FLAGS if f not in ("--headless",) and not f.startswith("--disable-features"))


class LaunchTarget(BrowserTarget):
    """Chromium launched by us; closing it is ours to do."""

    name: Literal["launch"] = "launch"

    def __init__(self, settings: TargetSettings, listeners: Listeners, new_stable_id: Callable[[], str]) -> None:
        super().__init__()
        self.settings = settings
        self.listeners = listeners
        self._new_stable_id = new_stable_id
        self.policy = UrlPolicy.from_settings(settings)
        self.interceptor: PolicyInterceptor | None = None
        self.proxy: PolicyProxy | None = None
        self._pw: Playwright | None = None
        self.context: BrowserContext | None = None
        self.profile_dir: Path | None = None
        self.saved = Downloads(settings)
        self.launches = 0
        #: ``page.data`` keys a relaunch after a crash hands on to the new browser's first page
        #: (the capture stores; set by whoever installs them), so what was captured stays readable.
        self.carry_keys: tuple[str, ...] = ()
        self._inherit: dict[str, Any] | None = None

    def keep_for_relaunch(self, page: PageHandle | None) -> str | None:
        """Remember ``page``'s carried data for the first page of the next start; returns its id."""
        if page is None or not self.carry_keys:
            return None
        kept = {key: page.data[key] for key in self.carry_keys if key in page.data}
        if not kept:
            return None
        self._inherit = kept
        return page.stable_page_id

    def take_inheritance(self) -> dict[str, Any] | None:
        """The data a crashed browser's page left for this browser's first page (once)."""
        inherit, self._inherit = self._inherit, None
        return inherit

    @property
    def running(self) -> bool:
        return self.context is not None and self.connected

    # -- life cycle -------------------------------------------------------------------

    async def start(self) -> None:
        """Launch Chromium and attach the capture hub to it (raises ToolFailure BROWSER_NOT_FOUND)."""
        from playwright.async_api import async_playwright

        try:
            executable = self.settings.chrome_path or find_chrome()
        except BrowserNotFound as exc:
            raise ToolFailure(ErrorCode.BROWSER_NOT_FOUND, str(exc)) from exc
        if not _swept:
            _swept.append(True)  # once per server: profiles left by servers that were killed
            await asyncio.to_thread(sweep_profiles, PROFILE_PREFIX)
        profile = new_profile_dir(PROFILE_PREFIX)
        args = ["--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1", *_QUIET_FLAGS]
        if self.policy.patterns:
            # WebSockets, prefetch, prerender, preconnect, loadNetworkResource: what Fetch never
            # pauses goes through our loopback proxy, which holds ALLOWED_URLS (policy_proxy.py).
            self.proxy = self.proxy or PolicyProxy(self.policy)
            args += proxy_flags(await self.proxy.start())
        if running_as_root():
            args.append("--no-sandbox")
        # One Playwright driver per manager: a relaunch after a crash then costs only the browser start.
        pw = self._pw or await async_playwright().start()
        self._pw = pw
        try:
            context = await pw.chromium.launch_persistent_context(
                str(profile),
                executable_path=executable,
                headless=self.settings.headless,
                args=args,
                accept_downloads=True,
                viewport={"width": LAUNCH_VIEWPORT.width, "height": LAUNCH_VIEWPORT.height},
            )
        except Exception as exc:
            await asyncio.to_thread(remove_tree, profile)
            await self._close_proxy()  # no browser to serve: it must not keep listening
            raise ToolFailure(
                ErrorCode.LAUNCH_FAILED,
                f"The internal browser ({executable}) did not start: {_first_line(str(exc))}",
                hint="Check CHROME_PATH; a headed browser (BROWSER_HEADLESS=false) needs a display.",
            ) from exc
        try:
            port = await _wait_for_port(profile)
            browser = await cdp_core.connect(f"http://127.0.0.1:{port}")
        except BaseException:
            await _close_quietly(context)
            await asyncio.to_thread(remove_tree, profile)
            await self._close_proxy()
            raise
        self.context, self.profile_dir, self.browser = context, profile, browser
        self.cdp_url = f"http://127.0.0.1:{port}"
        self.lost = None
        self.attached_at = utc_now()
        self.launches += 1
        self._watch(browser)
        # Playwright answers (dismisses) every dialog of a context nobody listens to: listen and do
        # nothing, so a dialog stays open for the page's DialogWatch and handle_dialog. Registered
        # before any page of ours can run script.
        context.on("dialog", _leave_dialog_open)
        context.on("close", lambda _c: self._on_context_closed(context))
        context.on("page", self.saved.watch)
        for pw_page in context.pages:
            self.saved.watch(pw_page)
        try:
            if self.policy.active:
                self.interceptor = PolicyInterceptor(browser, self.policy)
                await self.interceptor.install()
            self.hub = SessionHub(browser, "launch", self.registry, self.listeners, self._new_stable_id, self)
            await self.hub.start()
        except BaseException:
            await self.close()
            raise

    def _on_context_closed(self, context: BrowserContext) -> None:
        if self.context is context and self.lost is None:
            self.lost = {"at": utc_now(), "reason": "the internal browser closed or crashed"}
            if self.hub is not None:
                self.hub.close_all()

    async def close(self, *, stop_driver: bool = False) -> None:
        """Close the internal browser; with ``stop_driver`` also Playwright's driver process (shutdown)."""
        context, profile = self.context, self.profile_dir
        pw = self._pw if stop_driver else None
        if stop_driver:
            self._pw = None
        self.context, self.profile_dir, self.interceptor = None, None, None
        await self._drop_connection()
        if context is not None:
            await _close_quietly(context)
        if pw is not None:
            await _stop_quietly(pw)
        if profile is not None:
            # Retries: on Windows the browser's helpers hold files in it for a moment after exit.
            await asyncio.to_thread(remove_tree, profile)
        await self._close_proxy()
        self.lost = None
        self.attached_at = None
        self.cdp_url = None

    async def _close_proxy(self) -> None:
        proxy, self.proxy = self.proxy, None
        if proxy is not None:
            await proxy.close()

    # -- pages ------------------------------------------------------------------------

    async def new_page(self, *, background: bool = False) -> PageHandle:
        """Open a tab (our socket; Playwright sees it too), keeping at most ``max_launch_tabs`` (the oldest close)."""
        assert self.context is not None and self.hub is not None
        await self.hub.settle()
        limit = max(1, self.settings.max_launch_tabs)
        for old in self.registry.pages[: max(0, len(self.registry.pages) - limit + 1)]:
            await self.close_page(old)
        return await self.open_tab(background=background)

    async def close_page(self, page: PageHandle) -> None:
        """Close one of *our* tabs (the launch browser only)."""
        try:
            await self.close_tab(page)
        except cdp_core.CDPException as exc:
            log.debug("closing %s: %s", page.stable_page_id, exc)

    # -- downloads --------------------------------------------------------------------

    @property
    def downloads(self) -> list[dict[str, Any]]:
        """Files this browser downloaded: url, suggestedFilename, path, size, savedAt (or error)."""
        return self.saved.entries

    def downloads_dir(self) -> Path:
        return self.saved.directory()

    async def wait_downloads(self) -> None:
        """Wait for downloads being saved (tests, read_downloaded_file)."""
        await self.saved.wait()

    async def settle_downloads(self, begun: list[str], timeout: float = 30.0) -> list[str]:
        """Wait, bounded, until the downloads the pages began (their URLs) are saved; those still not."""
        return await self.saved.settle(begun, timeout)


def _leave_dialog_open(_dialog: Dialog) -> None:
    """Dialogs are answered only by handle_dialog (through our own CDP session), never by Playwright."""


async def _wait_for_port(profile: Path, timeout: float = 15.0) -> int:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        try:
            return read_devtools_active_port(profile)[0]
        except DiscoveryError:
            if asyncio.get_running_loop().time() > deadline:
                raise ToolFailure(
                    ErrorCode.INTERNAL_ERROR, "The internal browser did not open its debugging port."
                ) from None
            await asyncio.sleep(0.02)


async def _close_quietly(context: BrowserContext) -> None:
    try:
        await asyncio.wait_for(context.close(), 10)
    except Exception as exc:  # already dead (crash): nothing to close
        log.debug("closing the launch context: %r", exc)


def _first_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else text


async def _stop_quietly(pw: Playwright) -> None:
    try:
        await asyncio.wait_for(pw.stop(), 10)
    except Exception as exc:
        log.debug("stopping Playwright: %r", exc)
