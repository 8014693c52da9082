"""The user's own Chrome, attached on demand over its debugging port.

Attaching is read-only towards the user's browser: we attach (flattened sessions,
auto-attach for iframes/workers) and resume what auto-attach paused, nothing else. No
navigation, storage reset, interception or tab limit; tabs are opened or closed only by an
explicit ``new_page`` / ``close_page``, and emulation we set is undone before we detach.
Playwright connects (``connect_over_cdp``, its own driver process) only when an action
first needs it, and detaching stops that driver instead of calling ``Browser.close``, so
nothing can close the user's Chrome.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import re
import shutil
import tempfile
import urllib.parse
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

import cdp_core
from cdp_core import CDPException

from . import emulation
from .base import BrowserTarget
from .chrome_hints import chrome_command_hint
from .errors import ErrorCode, ToolFailure
from .hub import Listeners, SessionHub, utc_now
from .relay import LoopbackRelay

if TYPE_CHECKING:
    from playwright.async_api import Browser as PWBrowser
    from playwright.async_api import BrowserContext, Playwright

__all__ = ["CdpTarget", "check_cdp_url", "chrome_command_hint", "is_loopback_address"]

log = logging.getLogger("targets.cdp")


@contextlib.contextmanager
def _driver_tmpdir(path: str) -> Iterator[None]:
    """Start Playwright's driver process with ``path`` as its temp dir (it copies the env at spawn)."""
    tempfile.gettempdir()  # fix our own process's cached temp dir before the env changes
    saved = {name: os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")}
    os.environ.update(TMPDIR=path, TEMP=path, TMP=path)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def is_loopback_address(host: str) -> bool:
    """True for an IP literal in 127.0.0.0/8 or ``::1`` (IPv4-mapped too); names are never looked up."""
    try:
        address = ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool(address.is_loopback or (mapped is not None and mapped.is_loopback))


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

    def __init__(self, listeners: Listeners, new_stable_id: Any) -> None:
        super().__init__()
        self.listeners = listeners
        self._new_stable_id = new_stable_id
        self._pw: Playwright | None = None
        self._pw_browser: PWBrowser | None = None
        self._pw_lock = asyncio.Lock()
        #: The Playwright driver's own temp dir: its connect_over_cdp makes a
        #: ``playwright-artifacts-*`` folder there that only Browser.close would remove,
        #: which we never call on the user's Chrome. Removed with the driver on detach.
        self._pw_tmp: str | None = None
        self.ws_url: str | None = None
        #: Playwright connects through this relay, which follows no redirect (see targets.relay).
        self._relay: LoopbackRelay | None = None
        self._relay_url = ""

    @property
    def attached(self) -> bool:
        return self.browser is not None

    async def attach(self, url: str, *, allow_remote: bool = False) -> None:
        """Connect and attach to every tab; raises CDP_UNREACHABLE / NO_ACTIVE_PAGE without state change.

        The websocket URL that ``/json/version`` advertises is checked like ``url`` itself before
        anything connects to it: a loopback endpoint must not send us to another host.
        """
        try:
            ws_url = await cdp_core.discovery.resolve_browser_ws_url(url)
        except Exception as exc:  # nothing answers, or not a DevTools endpoint
            raise ToolFailure(
                ErrorCode.CDP_UNREACHABLE,
                f"No Chrome debugging endpoint answers at {url} ({exc}).",
                hint=chrome_command_hint(url),
                cdpUrl=url,
            ) from exc
        ws_url = check_cdp_url(ws_url, allow_remote=allow_remote)
        try:
            # A ws:// URL: no second discovery, and cdp_core follows no redirect.
            browser = await cdp_core.connect(ws_url)
        except Exception as exc:  # refused socket, failed websocket handshake, a redirect
            raise ToolFailure(
                ErrorCode.CDP_UNREACHABLE,
                f"No Chrome debugging endpoint answers at {url} ({exc}).",
                hint=chrome_command_hint(url),
                cdpUrl=url,
            ) from exc
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

        async def score(page: Any) -> int:
            try:
                reply = await page.session.send(
                    "Runtime.evaluate",
                    {"expression": "[document.hasFocus(), document.visibilityState]", "returnByValue": True},
                    timeout=1.0,
                )
                focused, visibility = reply["result"]["value"]
                return 2 * bool(focused) + (visibility == "visible")
            except Exception:  # a hung or closing tab simply scores nothing
                return 0

        scores = await asyncio.gather(*(score(p) for p in pages))
        order = {t["targetId"]: i for i, t in enumerate(await self.browser.pages())}
        best = max(range(len(pages)), key=lambda i: (scores[i], -order.get(pages[i].target_id, len(order))))
        self.registry.select(pages[best])

    async def detach(self) -> None:
        """Disconnect our socket and Playwright's; the user's Chrome and its tabs stay as they are.

        Emulation we set (viewport, network, user agent...) is cleared first: Chrome drops a gone
        session's overrides too, but the user must not depend on that to get their tab back.
        """
        if self.connected:
            await asyncio.gather(*(emulation.undo(page) for page in self.registry.pages))
        pw, self._pw, self._pw_browser = self._pw, None, None
        pw_tmp, self._pw_tmp = self._pw_tmp, None
        relay, self._relay = self._relay, None
        await self._drop_connection()
        if pw is not None:
            # Stopping the driver drops its websocket without sending Browser.close.
            try:
                await asyncio.wait_for(pw.stop(), 10)
            except Exception as exc:
                log.debug("stopping Playwright: %r", exc)
        if relay is not None:
            await relay.close()
        if pw_tmp is not None:
            shutil.rmtree(pw_tmp, ignore_errors=True)
        self.cdp_url = None
        self.attached_at = None
        self.lost = None

    async def _playwright_contexts(self) -> list[BrowserContext]:
        async with self._pw_lock:
            if self._pw_browser is None or not self._pw_browser.is_connected():
                if self.browser is None or self.cdp_url is None:
                    raise ToolFailure(ErrorCode.NOT_ATTACHED, "Not attached to a Chrome.", hint="Call attach_cdp.")
                from playwright.async_api import async_playwright

                if self._pw is None:
                    self._pw_tmp = self._pw_tmp or tempfile.mkdtemp(prefix="mcp-browser-playwright-")
                    with _driver_tmpdir(self._pw_tmp):
                        self._pw = await async_playwright().start()
                try:
                    # The websocket URL checked at attach, not a second discovery that could answer otherwise,
                    # through our relay: Playwright would follow a redirect of the handshake anywhere.
                    # no_defaults: without it Playwright overrides the user's default context while connected
                    # (light colour scheme and no reduced motion on their pages, their own downloads diverted
                    # to a temporary folder under a UUID name, focus emulation).
                    if self._relay is None and self.ws_url is not None:
                        relay = LoopbackRelay(self.ws_url)
                        self._relay_url = await relay.start()
                        self._relay = relay
                    self._pw_browser = await self._pw.chromium.connect_over_cdp(
                        self._relay_url if self._relay is not None else (self.ws_url or self.cdp_url),
                        no_defaults=True,
                    )
                except Exception as exc:
                    raise ToolFailure(
                        ErrorCode.BROWSER_DISCONNECTED,
                        f"Playwright could not connect to the Chrome at {self.cdp_url}: {exc}",
                        hint="Check that Chrome still runs, then call attach_cdp again.",
                    ) from exc
            return list(self._pw_browser.contexts)

    def state(self) -> dict[str, Any]:
        data = super().state()
        data["playwrightConnected"] = self._pw_browser is not None and self._pw_browser.is_connected()
        return data
