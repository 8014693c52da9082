"""pytest fixtures for smoke tests against a real headless Chromium (docs/testing.md).

Installing the package is enough: pytest loads this module through the ``pytest11`` entry
point ``mcp_browser`` (``-p no:mcp_browser`` turns it off). The fixtures:

=============== ======== ===========================================================
``chromium``    session  a headless Chromium on 127.0.0.1 with a fresh profile
                         (:class:`cdp_core.ChromiumProcess`: ``cdp_url``, ``port``,
                         ``ws_url``, ``pid``); ``CHROME_PATH`` picks the executable
``cdp_browser`` function a connected :class:`cdp_core.Browser`
``cdp_page``    function a :class:`cdp_core.CDPSession` on a fresh tab, closed after the test
``mcp_client``  function an initialized ``mcp.client.Client`` talking to ``mcp-browser``
                         over stdio, already attached to ``chromium`` (``attach_cdp``)
=============== ======== ===========================================================

The async fixtures run under anyio's pytest plugin (mark tests ``@pytest.mark.anyio``);
``cdp_browser`` and ``cdp_page`` need its asyncio backend. ``mcp_server_args`` and
``mcp_server_env`` are fixtures a test module may override to start the server otherwise.

Nothing heavy is imported here: pytest loads this module in every run of a virtualenv the
package is installed in, so ``cdp_core`` and ``mcp`` are imported by the fixtures that use them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from mcp.client import Client

    from cdp_core import Browser, CDPSession, ChromiumProcess

__all__ = ["chromium", "cdp_browser", "cdp_page", "mcp_client", "mcp_server_args", "mcp_server_env"]

_PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcp_browser", "headless Chromium fixtures (mcp-browser-debug)")
    group.addoption(
        "--chromium-headed",
        action="store_true",
        default=False,
        help="show the window of the `chromium` fixture's browser (needs a display)",
    )
    group.addoption(
        "--chromium-arg",
        action="append",
        default=[],
        metavar="FLAG",
        help="extra command-line flag for the `chromium` fixture's browser (repeatable)",
    )


def _backend_name(anyio_backend: object) -> str:
    if isinstance(anyio_backend, str):
        return anyio_backend
    if isinstance(anyio_backend, tuple) and anyio_backend:
        return str(anyio_backend[0])
    return str(anyio_backend)


def _require_asyncio(anyio_backend: object) -> None:
    name = _backend_name(anyio_backend)
    if name != "asyncio":
        pytest.skip(f"cdp_core runs on asyncio, not {name}: return 'asyncio' from an `anyio_backend` fixture")


@pytest.fixture(scope="session")
def chromium(pytestconfig: pytest.Config) -> Iterator[ChromiumProcess]:
    """One headless Chromium for the whole session, on 127.0.0.1 with a temporary profile.

    Started with ``--remote-debugging-port=0`` (Chrome picks a free port), stopped and its
    profile removed when the session ends. ``--no-sandbox`` is added only when running as root.
    """
    from cdp_core.chromium import ChromiumProcess

    chrome = ChromiumProcess.start(
        headless=not pytestconfig.getoption("chromium_headed", False),
        extra_args=tuple(pytestconfig.getoption("chromium_arg", None) or ()),
    )
    try:
        yield chrome
    finally:
        chrome.stop()


@pytest.fixture
async def cdp_browser(chromium: ChromiumProcess, anyio_backend: object) -> AsyncIterator[Browser]:
    """A :class:`cdp_core.Browser` connected to ``chromium`` (our socket closes after the test)."""
    _require_asyncio(anyio_backend)
    import cdp_core

    async with cdp_core.connect(chromium.cdp_url) as browser:
        yield browser


@pytest.fixture
async def cdp_page(cdp_browser: Browser) -> AsyncIterator[CDPSession]:
    """A flattened session on a new ``about:blank`` tab of ``chromium``; the tab is closed after the test."""
    page = await cdp_browser.new_page("about:blank")
    try:
        yield page
    finally:
        if not cdp_browser.closed:
            await _close_tab(cdp_browser, page.target_info["targetId"])


async def _close_tab(browser: Browser, target_id: str, timeout: float = 10.0) -> None:
    """Close the tab and wait until the browser no longer lists it (closing is asynchronous in Chrome)."""
    import anyio

    from cdp_core import CDPException

    try:
        await browser.close_target(target_id)
        with anyio.move_on_after(timeout):
            while any(info.get("targetId") == target_id for info in await browser.targets(None)):
                await anyio.sleep(0.05)
    except CDPException:
        pass  # the test closed the tab (or the browser) itself


@pytest.fixture
def mcp_server_args() -> list[str]:
    """Extra command-line arguments for the ``mcp_client`` fixture's server (override to change)."""
    return []


@pytest.fixture
def mcp_server_env() -> dict[str, str]:
    """Extra environment variables for the ``mcp_client`` fixture's server (override to change)."""
    return {}


def _server_environment(artifacts: Path, extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _PROXY_VARIABLES}
    env["NO_PROXY"] = "127.0.0.1,localhost,::1"
    env["MCP_ARTIFACT_DIR"] = str(artifacts)
    env.update(extra)
    return env


@pytest.fixture
async def mcp_client(
    chromium: ChromiumProcess,
    tmp_path_factory: pytest.TempPathFactory,
    mcp_server_args: list[str],
    mcp_server_env: dict[str, str],
    anyio_backend: object,
) -> AsyncIterator[Client]:
    """An initialized MCP client session to ``mcp-browser`` over stdio, attached to ``chromium``.

    The server runs as a child process (``python -m mcp_server.entry``) with its artifacts
    in a temporary directory; ``browser_session action=attach_cdp`` has already been called
    with ``chromium.cdp_url``. Leaving the test closes the session, which detaches from
    ``chromium`` without closing it.
    """
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    work = tmp_path_factory.mktemp("mcp-browser")
    artifacts = work / "artifacts"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_server.entry", *mcp_server_args],
        env=_server_environment(artifacts, mcp_server_env),
        cwd=str(work),
    )
    async with Client(params) as client:
        arguments: dict[str, Any] = {"action": "attach_cdp", "cdp_url": chromium.cdp_url}
        result = await client.call_tool("browser_session", arguments)
        if result.is_error:
            text = " ".join(getattr(block, "text", "") for block in result.content)
            raise RuntimeError(f"mcp_client: attach_cdp to {chromium.cdp_url} failed: {text}")
        yield client
