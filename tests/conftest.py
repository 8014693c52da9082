"""Shared fixtures: a real headless Chromium and a local HTTP server, both on 127.0.0.1.

``chromium`` (one browser for the whole session, start-up ~0.4 s), ``cdp_browser``,
``cdp_page`` and ``mcp_client`` are the public fixtures of our pytest plugin
(mcp_server/pytest_plugin.py, docs/testing.md), which the installed package registers: the
suite uses exactly what test authors get. Tests that kill or restart a browser use
``fresh_chromium`` instead. Teardown stops only what the fixtures started.
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import AsyncIterator, Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from headful import VirtualDisplay  # noqa: E402
from httpserver import TestServer  # noqa: E402

from cdp_core.chromium import ChromiumProcess  # noqa: E402

if not any(ep.value == "mcp_server.pytest_plugin" for ep in entry_points(group="pytest11")):
    # A .venv installed before the plugin had its entry point: load it by name until the
    # next `make setup` (pip install -e .) registers it.
    pytest_plugins = ["mcp_server.pytest_plugin"]


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> None:
    # Every coroutine test runs on anyio's asyncio backend without a marker per test. The
    # mark goes on the function before items are generated, so parametrized tests get it too.
    if inspect.iscoroutinefunction(obj) and collector.funcnamefilter(name):  # type: ignore[attr-defined]
        marks = getattr(obj, "pytestmark", [])
        if not any(m.name == "anyio" for m in marks):
            pytest.mark.anyio(obj)


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def fresh_chromium() -> Iterator[ChromiumProcess]:
    """A Chromium of this test's own, for tests that kill, close or restart it."""
    chrome = ChromiumProcess.start()
    yield chrome
    chrome.stop()


@pytest.fixture(scope="session")
def http_server() -> Iterator[TestServer]:
    server = TestServer().start()
    yield server
    server.stop()


@pytest.fixture
def artifacts_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An artifacts root of this test's own (MCP_ARTIFACT_DIR)."""
    path = tmp_path / "artifacts"
    monkeypatch.setenv("MCP_ARTIFACT_DIR", str(path))
    return path


@pytest.fixture(autouse=True)
def _no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # Loopback traffic must never be routed through a proxy from the environment.
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost,::1")


@pytest.fixture(scope="session")
def virtual_display() -> Iterator[VirtualDisplay]:
    """One Xvfb screen for the session's headful tests (tests/headful.py)."""
    with VirtualDisplay.start() as display:
        yield display


@pytest.fixture
def headful_chromium(virtual_display: VirtualDisplay) -> Iterator[ChromiumProcess]:
    """A Chromium with a real window on ``virtual_display`` and a fresh profile, as a person's Chrome runs.

    Headless hides what a window shows (a hidden tab gets no frames, input to a tab that loaded
    hidden can be lost): tests of the user's Chrome run against this one.
    """
    chrome = ChromiumProcess.start(headless=False, env=virtual_display.env())
    yield chrome
    chrome.stop()


@pytest.fixture
def users_chrome(request: pytest.FixtureRequest) -> Iterator[ChromiumProcess]:
    """The user's Chrome for tests of their background tabs: headful, a window on ``virtual_display``.

    A person's Chrome has a window, and input to a tab whose page loaded hidden is lost only
    there, so these tests run headful; ``@pytest.mark.parametrize("users_chrome", ["headless",
    "headful"], indirect=True)`` runs a test on both (a Chrome started with --headless exists too).
    """
    mode = getattr(request, "param", "headful")
    env = request.getfixturevalue("virtual_display").env() if mode == "headful" else None
    chrome = ChromiumProcess.start(headless=mode == "headless", env=env)
    yield chrome
    chrome.stop()


@pytest.fixture
async def app_client(tmp_path: Path) -> AsyncIterator[Any]:
    """An in-memory MCP client of a server with default settings and this test's own artifacts root.

    The server launches its internal browser on the first page call and closes it after the test.
    """
    from mcp.client import Client

    from mcp_server.cli.main import build_app
    from mcp_server.server.settings import Settings

    manager, server = build_app(Settings(artifact_dir=str(tmp_path / "artifacts")))
    try:
        async with Client(server) as client:
            yield client
    finally:
        await manager.close()


@pytest.fixture(scope="module")
async def app_client_module(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Any]:
    """``app_client`` shared by the tests of a module (the golden answers: one server and browser per feature).

    Same default settings, an artifacts root of the module's own.
    """
    from mcp.client import Client

    from mcp_server.cli.main import build_app
    from mcp_server.server.settings import Settings

    manager, server = build_app(Settings(artifact_dir=str(tmp_path_factory.mktemp("golden") / "artifacts")))
    try:
        async with Client(server) as client:
            yield client
    finally:
        await manager.close()


@pytest.fixture
def client(app_client: Any) -> Any:
    """``app_client`` under the name most MCP tests use (a test file's own ``client`` fixture wins)."""
    return app_client
