"""The entry point most users want: ``async with cdp_core.connect(url) as browser``.

A :class:`Browser` wraps the browser-level websocket and hands out flattened sessions
for targets (``Target.attachToTarget {flatten: true}``), so one socket serves many
tabs, iframes and workers. Per-target sockets remain available through
:func:`connect_target` for code that wants isolation.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from .connection import DEFAULT_TIMEOUT, MAX_MESSAGE_SIZE, CDPSession, Connection
from .discovery import TargetDescription, resolve_browser_ws_url

if TYPE_CHECKING:
    from .protocol import CDP

__all__ = ["Browser", "connect", "connect_target"]


class Browser:
    """A browser-level connection; an async context manager that closes the socket."""

    def __init__(self, connection: Connection, endpoint: str) -> None:
        self.connection = connection
        self.endpoint = endpoint

    @property
    def session(self) -> CDPSession:
        """The browser target itself (``Browser.*``, ``Target.*`` commands)."""
        return self.connection.root

    @property
    def cdp(self) -> CDP:
        """The browser target's typed commands and events: ``await browser.cdp.Target.getTargets()``."""
        return self.connection.root.cdp

    async def send(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = DEFAULT_TIMEOUT
    ) -> dict[str, Any]:
        """Send a browser-level command."""
        return await self.connection.root.send(method, params, timeout=timeout)

    async def version(self) -> dict[str, Any]:
        """``Browser.getVersion``."""
        return await self.send("Browser.getVersion")

    async def targets(self, types: tuple[str, ...] | None = ("page",)) -> list[dict[str, Any]]:
        """``Target.getTargets``, filtered by type (default: pages only)."""
        infos = (await self.send("Target.getTargets"))["targetInfos"]
        return [t for t in infos if types is None or t.get("type") in types]

    async def pages(self) -> list[dict[str, Any]]:
        """The page targets (tabs), as ``Target.TargetInfo`` dicts."""
        return await self.targets(("page",))

    async def attach(self, target: str | TargetDescription) -> CDPSession:
        """Attach to a target (its id, or what :func:`new_tab` / :func:`list_targets` gave) with a
        flattened session on this socket."""
        target_id = target.id if isinstance(target, TargetDescription) else target
        result = await self.send("Target.attachToTarget", {"targetId": target_id, "flatten": True})
        session_id = result["sessionId"]
        session = self.connection._ensure_session(session_id, None)
        if not session.target_info:
            try:
                info = await session.send("Target.getTargetInfo")
                session.target_info.update(info.get("targetInfo", {}))
            except Exception:
                session.target_info["targetId"] = target_id
        return session

    def new_page(self, url: str = "about:blank") -> _NewPage:
        """Open a tab (``Target.createTarget``) and attach to it.

        ``page = await browser.new_page(url)`` keeps the tab until ``await page.close()``;
        ``async with browser.new_page(url) as page:`` closes it when the block ends.
        """
        return _NewPage(self, url)

    async def _open_page(self, url: str) -> CDPSession:
        result = await self.send("Target.createTarget", {"url": url})
        return await self.attach(result["targetId"])

    async def close_target(self, target_id: str) -> bool:
        """Close one target. Callers decide whether that is allowed (never the user's tabs)."""
        result = await self.send("Target.closeTarget", {"targetId": target_id})
        return bool(result.get("success", True))

    @property
    def closed(self) -> bool:
        return self.connection.closed

    async def close(self) -> None:
        """Close our socket. The browser keeps running."""
        await self.connection.close()

    async def __aenter__(self) -> Browser:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class _NewPage:
    """Awaitable and async context manager: ``await browser.new_page()`` or ``async with``."""

    def __init__(self, browser: Browser, url: str) -> None:
        self._browser = browser
        self._url = url
        self._page: CDPSession | None = None

    def __await__(self) -> Generator[Any, None, CDPSession]:
        return self._browser._open_page(self._url).__await__()

    async def __aenter__(self) -> CDPSession:
        self._page = await self._browser._open_page(self._url)
        return self._page

    async def __aexit__(self, *exc: object) -> None:
        if self._page is not None and not self._browser.closed:
            await self._page.close()


class _Connector:
    """Awaitable and async context manager, so both ``await connect()`` and ``async with`` work."""

    def __init__(self, endpoint: str, max_size: int, open_timeout: float) -> None:
        self._endpoint = endpoint
        self._max_size = max_size
        self._open_timeout = open_timeout
        self._browser: Browser | None = None

    async def _open(self) -> Browser:
        ws_url = await resolve_browser_ws_url(self._endpoint)
        connection = await Connection.open(ws_url, max_size=self._max_size, open_timeout=self._open_timeout)
        return Browser(connection, self._endpoint)

    def __await__(self) -> Generator[Any, None, Browser]:
        return self._open().__await__()

    async def __aenter__(self) -> Browser:
        self._browser = await self._open()
        return self._browser

    async def __aexit__(self, *exc: object) -> None:
        if self._browser is not None:
            await self._browser.close()


def connect(endpoint: str, *, max_size: int = MAX_MESSAGE_SIZE, open_timeout: float = 10.0) -> _Connector:
    """Connect to a browser at ``http://host:port`` or its ``ws://.../devtools/browser/...`` URL.

    Use as ``async with connect(url) as browser`` or ``browser = await connect(url)``.
    ``open_timeout``: seconds the websocket handshake may take (a Chrome whose remote-debugging
    toggle is on waits for the person to click Allow; a 403 then raises :class:`HandshakeRejected`).
    """
    return _Connector(endpoint, max_size, open_timeout)


async def connect_target(ws_url: str, *, max_size: int = MAX_MESSAGE_SIZE) -> Connection:
    """Open a dedicated socket to one target (``webSocketDebuggerUrl`` of ``/json/list``)."""
    return await Connection.open(ws_url, max_size=max_size)
