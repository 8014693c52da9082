"""The stable import path of what test authors use: ``from mcp_server.testing import rows, navigate``.

The implementations may move between modules (``mcp_server`` is being split into
sub-packages); these names stay here. The fixtures themselves (``chromium``, ``cdp_browser``,
``cdp_page``, ``console_errors``, ``artifacts``, ``mcp_client``, ``mcp_client_module``,
``mcp_client_session``) come from the pytest plugin the package registers, with nothing to
import; their classes are here for type annotations.
"""

from __future__ import annotations

from cdp_core.chromium import ChromiumProcess
from cdp_core.navigation import NavigationError, navigate
from mcp_server.fixtures.answer_rows import rows
from mcp_server.fixtures.pytest_evidence import ConsoleErrors, ConsoleMessage
from mcp_server.fixtures.pytest_loops import LoopModeError
from mcp_server.pytest_plugin import CDP_URL_ENV, AttachedChrome

__all__ = [
    "AttachedChrome",
    "CDP_URL_ENV",
    "ChromiumProcess",
    "ConsoleErrors",
    "ConsoleMessage",
    "LoopModeError",
    "NavigationError",
    "navigate",
    "rows",
]
