"""cdp_core: a small, typed, async client for the Chrome DevTools Protocol.

    async with cdp_core.connect("http://127.0.0.1:9222") as browser:
        page = await browser.attach((await browser.pages())[0]["targetId"])
        result = await page.send("Runtime.evaluate", {"expression": "1+1", "returnByValue": True})
        typed = await page.cdp.Runtime.evaluate(expression="1+1", returnByValue=True)  # TypedDicts

See ``docs/cdp_core.md`` for the guide.
"""

from .browser import Browser, connect, connect_target
from .chromium import BrowserNotFound, ChromiumProcess, LaunchError
from .connection import DEFAULT_TIMEOUT, MAX_MESSAGE_SIZE, CDPSession, Connection
from .discovery import (
    BrowserVersion,
    TargetDescription,
    get_version,
    list_targets,
    new_tab,
    read_devtools_active_port,
)
from .errors import (
    CDPError,
    CDPException,
    CDPTimeout,
    ConnectionClosed,
    DiscoveryError,
    HandshakeRejected,
    SessionClosed,
)
from .events import CDPEvent, EventName, EventStream, Subscription, TypedEvent
from .navigation import NavigationError, navigate

__version__ = "0.1.0"

__all__ = [
    "Browser",
    "BrowserNotFound",
    "BrowserVersion",
    "CDPError",
    "CDPEvent",
    "CDPException",
    "CDPSession",
    "CDPTimeout",
    "ChromiumProcess",
    "Connection",
    "ConnectionClosed",
    "DEFAULT_TIMEOUT",
    "DiscoveryError",
    "EventName",
    "EventStream",
    "HandshakeRejected",
    "LaunchError",
    "MAX_MESSAGE_SIZE",
    "NavigationError",
    "SessionClosed",
    "Subscription",
    "TargetDescription",
    "TypedEvent",
    "connect",
    "connect_target",
    "get_version",
    "list_targets",
    "navigate",
    "new_tab",
    "read_devtools_active_port",
]
