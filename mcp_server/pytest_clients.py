"""The ``mcp_client`` fixtures of the pytest plugin: an ``mcp-browser`` server over stdio per test, module or session.

Split from :mod:`mcp_server.pytest_plugin` (which imports these fixtures into its namespace, where
pytest looks for them: ``-p mcp_server.pytest_plugin`` and the ``pytest11`` entry point both
give every fixture). Each client is opened on the test's own event loop
(:mod:`mcp_server.pytest_loops`) and attached to the ``chromium`` fixture's browser.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .pytest_loops import Hosted, TestLoop, loop_of_test

if TYPE_CHECKING:
    from mcp.client import Client

    from cdp_core import ChromiumProcess

__all__ = ["mcp_client", "mcp_client_module", "mcp_client_session", "mcp_server_args", "mcp_server_env"]

_PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


# -- the MCP server --------------------------------------------------------------------------


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


@asynccontextmanager
async def _client(cdp_url: str, work: Path, args: list[str], env: dict[str, str]) -> AsyncIterator[Client]:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_server.entry", *args],
        env=_server_environment(work / "artifacts", env),
        cwd=str(work),
    )
    async with Client(params) as client:
        arguments: dict[str, Any] = {"action": "attach_cdp", "cdp_url": cdp_url}
        result = await client.call_tool("browser_session", arguments)
        if result.is_error:
            text = " ".join(getattr(block, "text", "") for block in result.content)
            raise RuntimeError(f"mcp_client: attach_cdp to {cdp_url} failed: {text}")
        yield client


class _ClientPool:
    """One MCP client per event loop, kept for a module or the session (``mcp_client_module``...)."""

    def __init__(self, scope: str, factory: pytest.TempPathFactory) -> None:
        self.scope = scope
        self._factory = factory
        self._stack = ExitStack()
        self._clients: dict[int, tuple[Hosted[Client], Client, TestLoop]] = {}  # the loop kept: ids stay unique

    def get(self, request: pytest.FixtureRequest, name: str, cdp_url: str) -> Client:
        loop = loop_of_test(request, name, self._stack, needs=self.scope)
        known = self._clients.get(id(loop.key))
        if known is not None:
            return known[1]
        args = request.getfixturevalue("mcp_server_args")
        env = request.getfixturevalue("mcp_server_env")
        work = self._factory.mktemp("mcp-browser")
        hosted: Hosted[Client] = Hosted(loop, lambda: _client(cdp_url, work, list(args), dict(env)))
        client = hosted.open()
        self._clients[id(loop.key)] = (hosted, client, loop)
        if loop.kind == "pytest-asyncio":  # close it before pytest-asyncio closes that loop
            runner = request._get_active_fixturedef(f"_{loop.scope}_scoped_runner")  # type: ignore[attr-defined]
            runner.addfinalizer(lambda: self._close(id(loop.key)))
        return client

    def _close(self, key: int) -> None:
        entry = self._clients.pop(key, None)
        if entry is not None:
            entry[0].close()

    def close(self) -> None:
        for key in list(self._clients):
            self._close(key)
        self._stack.close()


@pytest.fixture
def mcp_client(
    chromium: ChromiumProcess,
    tmp_path_factory: pytest.TempPathFactory,
    mcp_server_args: list[str],
    mcp_server_env: dict[str, str],
    request: pytest.FixtureRequest,
) -> Iterator[Client]:
    """An initialized MCP client session to ``mcp-browser`` over stdio, attached to ``chromium``.

    The server runs as a child process (``python -m mcp_server.entry``) with its artifacts
    in a temporary directory; ``browser_session action=attach_cdp`` has already been called
    with ``chromium.cdp_url``. Leaving the test closes the session, which detaches from
    ``chromium`` without closing it. One server per test (~2.5 s): ``mcp_client_module``
    and ``mcp_client_session`` share one.
    """
    work = tmp_path_factory.mktemp("mcp-browser")
    with ExitStack() as stack:
        loop = loop_of_test(request, "mcp_client", stack)
        hosted = Hosted(loop, lambda: _client(chromium.cdp_url, work, mcp_server_args, mcp_server_env))
        try:
            yield hosted.open()
        finally:
            hosted.close()


@pytest.fixture(scope="module")
def _mcp_browser_module_clients(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_ClientPool]:
    pool = _ClientPool("module", tmp_path_factory)
    yield pool
    pool.close()


@pytest.fixture(scope="session")
def _mcp_browser_session_clients(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_ClientPool]:
    pool = _ClientPool("session", tmp_path_factory)
    yield pool
    pool.close()


@pytest.fixture
def mcp_client_module(
    chromium: ChromiumProcess, _mcp_browser_module_clients: _ClientPool, request: pytest.FixtureRequest
) -> Client:
    """``mcp_client``, one server for all the tests of a module (they share its tabs and capture).

    Under pytest-asyncio the module's tests must share a loop: ``@pytest.mark.asyncio(loop_scope="module")``.
    """
    return _mcp_browser_module_clients.get(request, "mcp_client_module", chromium.cdp_url)


@pytest.fixture
def mcp_client_session(
    chromium: ChromiumProcess, _mcp_browser_session_clients: _ClientPool, request: pytest.FixtureRequest
) -> Client:
    """``mcp_client``, one server for the whole session (under pytest-asyncio: ``loop_scope="session"``)."""
    return _mcp_browser_session_clients.get(request, "mcp_client_session", chromium.cdp_url)
