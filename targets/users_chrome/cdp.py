"""The user's own Chrome, attached on demand over its debugging port.

Attaching is read-only towards the user's browser: we attach (flattened sessions,
auto-attach for iframes/workers) and resume what auto-attach paused, nothing else. No
navigation, storage reset, interception or tab limit; tabs are opened or closed only by an
explicit ``new_page`` / ``close_page``, and emulation we set is undone before we detach.

One websocket per attachment, and only ours: every action (input, screenshots, traces,
downloads, heap snapshots, new tabs) goes through it. With Chrome's remote-debugging toggle
each new websocket makes Chrome ask the person to Allow it, so a second connection would be
a second dialog; Playwright never connects to the user's Chrome.
"""

from __future__ import annotations

import asyncio
import logging
import re
import urllib.parse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import cdp_core
from cdp_core import CDPException
from cdp_core.discovery import is_loopback_address  # re-exported: targets.users_chrome.cdp.is_loopback_address
from targets.base import BrowserTarget
from targets.callers import DEFAULT_CALLER, acting_as
from targets.errors import ErrorCode, ToolFailure
from targets.hub import Listeners, SessionHub, utc_now
from targets.pages import emulation

from .chrome_hints import chrome_command_hint

if TYPE_CHECKING:
    from targets.pages.page import PageHandle

    from .finding import FoundChrome
    from .profile_dirs import ProfileDir

__all__ = ["CdpTarget", "check_cdp_url", "chrome_command_hint", "is_loopback_address"]

log = logging.getLogger("targets.users_chrome.cdp")


def check_cdp_url(url: str, *, allow_remote: bool) -> str:
    """Validate a CDP URL: http(s)/ws(s), with a host, loopback unless remote attach is allowed.

    Loopback means an IP literal (``127.0.0.0/8``, ``::1``) or the name ``localhost`` exactly,
    which is then connected to as ``127.0.0.1`` without any name lookup: a name that only looks
    local (``localhost.``, ``127.0.0.1.nip.io``) would be resolved through DNS, wherever it points.
    Returns the URL to connect to.
    """
    candidate = str(url).strip()
    try:
        parts = urllib.parse.urlsplit(candidate if "://" in candidate else f"http://{candidate}")
        host = parts.hostname
        port = parts.port  # ValueError for a port that is not a number or out of range
    except ValueError as exc:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{str(url)[:200]!r} is not a CDP URL ({exc}).",
            hint="Use http://127.0.0.1:9222 (or the ws://.../devtools/browser/... URL).",
        ) from None
    # A host with spaces or other characters no host name has ("not a url") is a typo, not a remote host.
    if parts.scheme not in ("http", "https", "ws", "wss") or not host or not _HOST_CHARS.fullmatch(host):
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{str(url)[:200]!r} is not a CDP URL.",
            hint="Use http://127.0.0.1:9222 (or the ws://.../devtools/browser/... URL).",
        )
    if allow_remote:
        return urllib.parse.urlunsplit(parts)
    if "@" in parts.netloc or (host != "localhost" and not is_loopback_address(host)):
        raise ToolFailure(
            ErrorCode.NOT_ALLOWED,
            f"Refusing to attach to the non-loopback CDP URL {str(url)[:200]!r}: anyone on that network could "
            "drive the browser.",
            hint="Use a loopback address (127.0.0.1, ::1), or set ALLOW_REMOTE_CDP=true if you really mean it.",
            cdpUrl=str(url)[:200],
        )
    if host == "localhost":
        parts = parts._replace(netloc="127.0.0.1" + (f":{port}" if port is not None else ""))
    return urllib.parse.urlunsplit(parts)


_HOST_CHARS = re.compile(r"[A-Za-z0-9.\-_:%\[\]]+")


class CdpTarget(BrowserTarget):
    """A Chrome we did not start; we only ever disconnect from it."""

    name: Literal["cdp"] = "cdp"

    def __init__(self, listeners: Listeners, new_stable_id: Callable[[], str]) -> None:
        super().__init__()
        self.listeners = listeners
        self._new_stable_id = new_stable_id
        self.ws_url: str | None = None
        #: How this Chrome was found (browser, profile dir, port, toggle or flag), for get_capabilities.
        self.found: dict[str, Any] | None = None

    @property
    def attached(self) -> bool:
        return self.browser is not None

    async def adopt(self, browser: cdp_core.Browser, url: str, ws_url: str, *, allow_remote: bool = False) -> None:
        """Attach to every tab over the websocket ``browser`` just opened; closes it on failure."""
        peer = browser.connection.peer
        if not allow_remote and (peer is None or not is_loopback_address(peer[0])):
            await browser.close()  # checked before, but the address connected to is what counts
            raise ToolFailure(
                ErrorCode.NOT_ALLOWED,
                f"The CDP connection for {url} reached {peer}, which is not a loopback address.",
                hint="Use a loopback address (127.0.0.1, ::1), or set ALLOW_REMOTE_CDP=true if you really mean it.",
                cdpUrl=url,
            )
        try:
            pages = await browser.pages()
            if not pages:
                raise ToolFailure(
                    ErrorCode.NO_ACTIVE_PAGE,
                    f"The Chrome at {url} has no open tab.",
                    hint="Open a tab in that Chrome, then call attach_cdp again.",
                    cdpUrl=url,
                )
            hub = SessionHub(browser, "cdp", self.registry, self.listeners, self._new_stable_id, self)
            self.browser, self.hub, self.cdp_url, self.ws_url = browser, hub, url, ws_url
            self.lost = None
            self.attached_at = utc_now()
            self._watch(browser)
            await hub.start()
            await self._select_what_the_user_sees()
        except BaseException as exc:
            self.browser, self.hub = None, None
            self.registry.clear()
            self.attached_at, self.cdp_url = None, None
            await browser.close()
            if isinstance(exc, CDPException):
                raise ToolFailure(
                    ErrorCode.CDP_UNREACHABLE,
                    f"The Chrome at {url} stopped answering while we attached ({exc}).",
                    hint="Check that Chrome still runs, then call attach_cdp again.",
                    cdpUrl=url,
                ) from exc
            raise

    async def _select_what_the_user_sees(self) -> None:
        """Start on the tab the user is looking at: focused, else visible, else Chrome's first listed.

        Two read-only expressions per tab (no ``Runtime.enable``, nothing the page can notice).
        """
        pages = self.registry.pages
        if len(pages) <= 1 or self.browser is None:
            return

        async def score(page: PageHandle) -> int:
            try:
                reply = await page.session.send(
                    "Runtime.evaluate",
                    {"expression": "[document.hasFocus(), document.visibilityState]", "returnByValue": True},
                    timeout=1.0,
                )
                focused, visibility = reply["result"]["value"]
                return 2 * bool(focused) + int(visibility == "visible")
            except Exception:  # a hung or closing tab simply scores nothing
                return 0

        scores = await asyncio.gather(*(score(p) for p in pages))
        order = {t["targetId"]: i for i, t in enumerate(await self.browser.pages())}
        best = max(range(len(pages)), key=lambda i: (scores[i], -order.get(pages[i].target_id, len(order))))
        self.registry.select(pages[best])
        with acting_as(DEFAULT_CALLER):  # a session that joins this attachment later starts there too
            self.registry.select(pages[best])

    async def detach(self) -> None:
        """Disconnect our socket; the user's Chrome and its tabs stay as they are.

        Emulation we set (viewport, network, user agent...) is cleared first: Chrome drops a gone
        session's overrides too, but the user must not depend on that to get their tab back.
        Before that the manager's ``before_detach`` listeners run (debug points remove their
        breakpoints and page binding): every way of letting go comes here (detach_cdp, server
        shutdown, attaching to another Chrome), so none leaves them behind.
        """
        if self.connected:
            pages = list(self.registry.all_pages)
            for listener in list(self.listeners.before_detach):  # each one, whatever the others do
                try:
                    await asyncio.wait_for(listener(pages), 10)
                except Exception as exc:  # noqa: BLE001 - a listener must not keep the socket open
                    log.warning("before-detach listener failed: %s", exc)
            await asyncio.gather(*(emulation.undo(page) for page in self.registry.pages))
        await self._drop_connection()
        self.cdp_url = None
        self.attached_at = None
        self.lost = None
        self.found = None


async def resolve_ws_url(
    url: str, *, allow_remote: bool, dirs: Sequence[ProfileDir] | None = None
) -> tuple[str, FoundChrome | None]:
    """The browser websocket URL of ``url``, checked like ``url`` itself before anything connects to it.

    An ``http://`` address answers ``/json/version`` in the flag flow. With Chrome's toggle it
    answers 404 (the address chrome://inspect shows): the ``DevToolsActivePort`` that names that
    port says the websocket path. The advertised URL is checked too: a loopback endpoint must not
    send us to another host. Returns ``(ws_url, FoundChrome or None)``: how that Chrome listens
    (toggle or flag, and its profile dir when a port file names it), for get_capabilities.
    """
    from .finding import FoundChrome

    found = None
    try:
        ws_url = await cdp_core.discovery.resolve_browser_ws_url(url)
    except Exception as exc:  # nothing answers, or not a DevTools endpoint
        found = await _found_by_port_file(url, dirs) if isinstance(exc, CDPException) else None
        if found is None or not url.startswith("http://"):
            raise ToolFailure(
                ErrorCode.CDP_UNREACHABLE,
                f"No Chrome debugging endpoint answers at {url} ({exc}).",
                hint=chrome_command_hint(url),
                cdpUrl=url,
            ) from exc
        ws_url = found.ws_url
    ws_url = check_cdp_url(ws_url, allow_remote=allow_remote)
    if found is None:
        found = await _found_by_port_file(ws_url, dirs)
        if found is not None and found.ws_url != ws_url:
            found = None
    if found is None and url.startswith("http"):
        port = urllib.parse.urlsplit(ws_url).port
        found = FoundChrome("Chrome", None, port, ws_url, "flag") if port else None  # /json/version answered
    return ws_url, found


async def _found_by_port_file(url: str, dirs: Sequence[ProfileDir] | None) -> FoundChrome | None:
    """The live ``DevToolsActivePort`` candidate naming the port of a loopback ``url`` (http or ws)."""
    from .finding import found_by_port
    from .profile_dirs import standard_profile_dirs

    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "ws") or not port or not is_loopback_address(parts.hostname or ""):
        return None
    return await found_by_port(port, standard_profile_dirs() if dirs is None else dirs)


def handshake_failure(url: str, exc: BaseException) -> ToolFailure:
    """The answer for a websocket handshake that did not open."""
    if isinstance(exc, cdp_core.HandshakeRejected) and exc.status == 403:
        return ToolFailure(
            ErrorCode.CDP_PERMISSION_DENIED,
            f"Chrome refused the debugging connection at {url}: the user declined (Cancel) in Chrome's "
            '"Allow remote debugging?" dialog.',
            hint='The user declined in Chrome\'s "Allow remote debugging?" dialog: ask them before calling '
            "attach_cdp again (Chrome asks them again), or use use_launch_browser for a separate browser.",
            cdpUrl=url,
        )
    if isinstance(exc.__cause__, TimeoutError):
        return ToolFailure(
            ErrorCode.CDP_UNREACHABLE,
            f"The debugging connection to {url} did not open in time: nobody answered Chrome's "
            f'"Allow remote debugging?" dialog ({exc}).',
            hint="Ask the user whether they want the agent in their Chrome; if so, call attach_cdp again and "
            "they click Allow.",
            cdpUrl=url,
        )
    return ToolFailure(
        ErrorCode.CDP_UNREACHABLE,
        f"No Chrome debugging endpoint answers at {url} ({exc}).",
        hint=chrome_command_hint(url),
        cdpUrl=url,
    )
