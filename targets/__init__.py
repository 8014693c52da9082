"""Browser targets: the internal (launch) Chromium and the user's Chrome (cdp), a tab registry, policies.

manager = BrowserManager(TargetSettings())
await manager.navigate("http://127.0.0.1:8000/")      # starts the internal browser
await manager.attach_cdp("http://127.0.0.1:9222")     # the user's Chrome becomes active
page = await manager.current_page()                    # PageHandle: .session is a cdp_core session
"""

from targets.pages.page import PageHandle, SessionRecord

from .errors import ErrorCode, ToolFailure
from .manager import BrowserManager
from .settings import DEFAULT_CDP_URL, TargetSettings

__all__ = [
    "BrowserManager",
    "DEFAULT_CDP_URL",
    "ErrorCode",
    "PageHandle",
    "SessionRecord",
    "TargetSettings",
    "ToolFailure",
]
