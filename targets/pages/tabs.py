"""What the agent does to a tab: navigate, back/forward/reload, open and close tabs, emulation.

A collaborator of :class:`targets.manager.BrowserManager`: the :class:`ActiveTarget` it is given
says which target is active and which page is selected, this module turns those pages' moves
into answers and stable errors. In the user's Chrome every one of these runs only because the call
asked for it; closing its last tab is refused (it would close Chrome).
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from cdp_core import CDPException, ConnectionClosed, SessionClosed
from targets.errors import ErrorCode, ToolFailure
from targets.internal.launch import LAUNCH_VIEWPORT
from targets.policies.gate import PolicyGate
from targets.users_chrome.cdp import CdpTarget

from . import emulation
from .navigation import (
    NO_PAGE,
    WAIT_UNTIL,
    NavigationError,
    NavigationInterrupted,
    StatusFn,
    brought_no_page,
    go_history,
    navigate_page,
    reload_page,
)
from .page import PageHandle

if TYPE_CHECKING:
    from targets.active import ActiveTarget
    from targets.hub import SessionListener

__all__ = ["TabActions"]

_WAIT_UNTIL = tuple(WAIT_UNTIL)


def _interrupted(what: str, exc: NavigationInterrupted, details: dict[str, Any]) -> ToolFailure:
    """NAVIGATION_FAILED naming the page's own navigation that replaced each of our attempts.

    The page navigates by itself (a timer's ``location.replace``, a refresh) at the moment ours
    arrives; from about:blank there is no page script left to do that.
    """
    return ToolFailure(
        ErrorCode.NAVIGATION_FAILED,
        f"{what} was {exc.error_text}, each time before it reached its wait_until event.",
        hint="The page navigates by itself (a script or a refresh); navigate to about:blank first, then to the URL.",
        interruptedBy=exc.interrupted_by,
        attempts=len(exc.interrupted_by),
        **details,
    )


def _check_wait_until(wait_until: str) -> None:
    if wait_until not in _WAIT_UNTIL:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT, f"wait_until must be one of {', '.join(_WAIT_UNTIL)}, not {wait_until!r}."
        )


class TabActions:
    """Navigation, tabs and emulation of the active target's selected page."""

    def __init__(
        self, active: ActiveTarget, gate: PolicyGate, add_session_listener: Callable[[SessionListener], None]
    ) -> None:
        self.active = active
        self.gate = gate
        self._add_session_listener = add_session_listener
        self._emulation_hooked = False

    async def navigate(
        self, url: str, *, wait_until: str = "load", timeout_ms: int = 30000, on_status: StatusFn | None = None
    ) -> dict[str, Any]:
        """Go to ``url`` in the current page (the internal browser starts if nothing is active).

        ``on_status(text)`` hears the steps of the load (progress messages); so do go_history and reload.
        """
        _check_wait_until(wait_until)
        url = (url or "").strip()
        if not urllib.parse.urlsplit(url).scheme:
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                f"{url!r} is not an absolute URL.",
                hint="Include the scheme, e.g. http://127.0.0.1:8000/.",
            )
        active = self.active
        will_launch = active.name in (None, "launch") and not (
            active.name is None and active.settings.default_target == "cdp"
        )
        self.gate.check_url(url, local_only=not will_launch)
        after_detach = active.name is None and active.detached is not None
        if after_detach:
            active.detached = None  # navigate starts the internal browser (documented), and says so
        page = await active.current_page()
        self.gate.check_url(url, local_only=page.target != "launch")
        move = navigate_page(page, url, wait_until=wait_until, timeout_ms=timeout_ms, on_status=on_status)
        result = await self._moving(page, move, f"Navigation to {url}", url)
        if after_detach and page.target == "launch":
            result["launchedAfterDetach"] = True
        return result

    async def go_history(
        self, delta: int, *, wait_until: str = "load", timeout_ms: int = 30000, on_status: StatusFn | None = None
    ) -> dict[str, Any]:
        """Back (-1) or forward (+1) in the selected tab's history; the same report as :meth:`navigate`."""
        _check_wait_until(wait_until)
        page = await self.active.current_page(launch_if_needed=False)
        local_only = page.target != "launch"

        def check(url: str) -> None:
            self.gate.check_url(url, local_only=local_only)

        move = go_history(
            page, delta, wait_until=wait_until, timeout_ms=timeout_ms, check_url=check, on_status=on_status
        )
        return await self._moving(page, move, "Going back" if delta < 0 else "Going forward", None)

    async def reload(
        self,
        *,
        ignore_cache: bool = False,
        wait_until: str = "load",
        timeout_ms: int = 30000,
        on_status: StatusFn | None = None,
    ) -> dict[str, Any]:
        """Reload the selected tab; the same report as :meth:`navigate`."""
        _check_wait_until(wait_until)
        page = await self.active.current_page(launch_if_needed=False)
        move = reload_page(
            page, ignore_cache=ignore_cache, wait_until=wait_until, timeout_ms=timeout_ms, on_status=on_status
        )
        return await self._moving(page, move, f"Reload of {page.url}", page.url)

    async def _moving(
        self, page: PageHandle, move: Awaitable[dict[str, Any]], what: str, url: str | None
    ) -> dict[str, Any]:
        """Run a navigation coroutine of ``page`` and turn what can go wrong into ToolFailures."""
        active = self.active
        interceptor = active.launch.interceptor if page.target == "launch" else None
        blocked_before = interceptor.blocked_total if interceptor is not None else 0
        details = {"url": url} if url else {}
        try:
            facts = await move
        except NavigationInterrupted as exc:
            raise _interrupted(what, exc, details) from exc
        except NavigationError as exc:
            if exc.nowhere:
                raise ToolFailure(
                    ErrorCode.NAVIGATION_FAILED,
                    f"{what} is not possible: {exc.error_text}.",
                    hint="Call navigate with a URL instead.",
                ) from exc
            if interceptor is not None and interceptor.blocked_total > blocked_before:
                where = url or page.url
                raise ToolFailure(
                    ErrorCode.BLOCKED_BY_POLICY,
                    f"{what} was blocked: {interceptor.reason_for(where)}.",
                    hint="Adjust ALLOWED_URLS / ALLOW_FILE_URLS / ALLOWED_FILE_ROOTS, or use an allowed URL.",
                    **details,
                ) from exc
            if brought_no_page(exc.error_text):
                raise ToolFailure(
                    ErrorCode.NAVIGATION_FAILED,
                    f"{what} brought no page ({exc.error_text}: {NO_PAGE}); the tab stays on {page.url}.",
                    hint="A download of the internal browser lands in artifacts/downloads: read_downloaded_file "
                    "lists them (the user's Chrome saves to its own folder).",
                    **details,
                ) from exc
            if "AUTH_CREDENTIALS" in exc.error_text:
                raise ToolFailure(
                    ErrorCode.NAVIGATION_FAILED,
                    f"{what} failed: {exc.error_text}: the server asks for a sign-in of its own (HTTP "
                    f"authentication), which {'the internal browser' if page.target == 'launch' else 'Chrome'} "
                    "did not answer.",
                    hint="Ask the user to sign in to that site in their Chrome (Chrome shows its sign-in prompt to "
                    "them), then attach_cdp and work there.",
                    **details,
                ) from exc
            raise ToolFailure(ErrorCode.NAVIGATION_FAILED, f"{what} failed: {exc.error_text}", **details) from exc
        except ConnectionClosed as exc:
            if isinstance(exc, SessionClosed) and page.closed and active.target(page.target).connected:
                page._check_open()  # only the tab closed: PAGE_CLOSED
            raise active.lost_now(active.target(page.target), exc) from exc
        except CDPException as exc:
            raise ToolFailure(ErrorCode.NAVIGATION_FAILED, f"{what} failed: {exc}", **details) from exc
        failed = facts.get("clientRedirectFailed")
        if failed and interceptor is not None and interceptor.blocked_total > blocked_before:
            failed["blocked"] = interceptor.reason_for(failed["url"])  # the launch browser's ALLOWED_URLS refused it
        page.active_frame = None
        result: dict[str, Any] = {
            **facts,
            "target": page.target,
            "stable_page_id": page.stable_page_id,
        }
        if active.last_relaunch is not None and page.target == "launch":
            result["relaunched"] = True
            active.last_relaunch = None
        return result

    async def new_page(
        self, url: str | None = None, *, background: bool = False, explicit: bool = False, **navigation: Any
    ) -> PageHandle:
        """Open a tab and select it; in the user's Chrome only when the call asked for a new tab (``explicit``).

        The internal browser keeps at most ``max_launch_tabs`` (the oldest close). ``navigation``
        (``wait_until``, ``timeout_ms``) applies to loading ``url``.
        """
        active = self.active
        if active.name == "cdp":
            if not explicit:
                raise ToolFailure(
                    ErrorCode.NOT_ALLOWED,
                    "New tabs are only opened in the internal browser, never in your Chrome.",
                    hint="Call use_launch_browser first, or open the tab in Chrome yourself and call list_pages.",
                )
            if url:
                self.gate.check_url(url, local_only=True)  # before a tab opens in the user's Chrome
            cdp = await active.resolve(launch_if_needed=False)
            assert isinstance(cdp, CdpTarget)
            try:
                page = await cdp.open_tab(background=background)
            except ConnectionClosed as exc:
                raise active.lost_now(cdp, exc) from exc
        else:
            if url:
                self.gate.check_url(url)
            launch = await active.ensure_launch()
            active.name = "launch"
            page = await launch.new_page(background=background)
        if url:
            await self.navigate(url, **navigation)
        return page

    async def close_page(self, stable_page_id: str) -> dict[str, Any]:
        """Close one tab of the active target; the last tab of the user's Chrome is refused (it would close Chrome)."""
        target = await self.active.resolve(launch_if_needed=False)
        if target.hub is not None:
            await target.hub.settle()
        page = target.registry.resolve(stable_page_id=stable_page_id)
        was_selected = target.registry.selected is page
        try:
            if isinstance(target, CdpTarget):
                assert target.browser is not None
                tabs = await target.browser.pages()
                if len(tabs) <= 1:
                    raise ToolFailure(
                        ErrorCode.NOT_ALLOWED,
                        f"{stable_page_id} is the last tab of your Chrome; closing it would close Chrome.",
                        hint="Open another tab first (new_page), or leave it open.",
                        stable_page_id=stable_page_id,
                    )
            await target.close_tab(page)
        except ConnectionClosed as exc:
            raise self.active.lost_now(target, exc) from exc
        pages = target.registry.listing()
        selected = next((p for p in pages if p.get("selected")), None)
        return {
            "closed": {"stable_page_id": page.stable_page_id, "url": page.url, "title": page.title},
            "wasSelected": was_selected,
            "selected": selected,
            "pageCount": len(pages),
            "target": target.name,
        }

    async def emulate(self, **changes: Any) -> dict[str, Any]:
        """Set or clear emulation settings of the selected tab (see :mod:`targets.pages.emulation`)."""
        active = self.active
        page = await active.current_page(launch_if_needed=False)
        if not self._emulation_hooked:
            # After the capture listener: a new iframe's Network domain is enabled when its overrides arrive.
            self._add_session_listener(emulation.on_session)
            self._emulation_hooked = True
        try:
            own = LAUNCH_VIEWPORT if page.target == "launch" else None
            state = await emulation.apply(page, own_viewport=own, **changes)
        except ConnectionClosed as exc:
            if isinstance(exc, SessionClosed) and page.closed and active.target(page.target).connected:
                page._check_open()
            raise active.lost_now(active.target(page.target), exc) from exc
        return {"stable_page_id": page.stable_page_id, "target": page.target, "emulation": state.summary()}
