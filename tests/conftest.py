"""Shared fixtures: a real headless Chromium and a local HTTP server, both on 127.0.0.1.

``chromium`` is one browser for the whole session (start-up costs ~0.4 s); tests that
kill or restart a browser use ``fresh_chromium`` instead. Teardown stops only what the
fixtures started.
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from httpserver import TestServer  # noqa: E402

from targets.process import ChromiumProcess  # noqa: E402


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


@pytest.fixture(scope="session")
def chromium() -> Iterator[ChromiumProcess]:
    """One headless Chromium for the session, with a fresh profile."""
    chrome = ChromiumProcess.start()
    yield chrome
    chrome.stop()


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
