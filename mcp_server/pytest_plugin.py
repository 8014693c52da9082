"""pytest fixtures for tests against a real Chromium (docs/testing.md).

Installing the package is enough: pytest loads this module through the ``pytest11`` entry
point ``mcp_browser`` (``-p no:mcp_browser`` turns it off). The fixtures:

===================== ======== =====================================================
``chromium``          session  a headless Chromium on 127.0.0.1 with a fresh profile
                               (:class:`cdp_core.ChromiumProcess`), or the Chrome of
                               ``--cdp-url`` / ``$MCP_BROWSER_CDP_URL``
``cdp_browser``       function a connected :class:`cdp_core.Browser`
``cdp_page``          function a :class:`cdp_core.CDPSession` on a fresh tab, closed after
``console_errors``    function fails the test at teardown on console errors of ``cdp_page``
``artifacts``         function this test's own folder for files (evidence goes there too)
``mcp_client``        function an MCP client session to ``mcp-browser`` over stdio,
                               attached to ``chromium``; ``mcp_client_module`` and
                               ``mcp_client_session`` share one server per module/session
===================== ======== =====================================================

The async fixtures are sync fixtures that open their objects on the test's own event loop,
whichever plugin runs the test (anyio, or pytest-asyncio in strict or auto mode): see
:mod:`mcp_server.fixtures.pytest_loops`. When a test fails, the tabs of ``cdp_page`` leave a
screenshot, their DOM and their console in the test's artifacts folder, named in the report.

Nothing heavy is imported here: pytest loads this module in every run of a virtualenv the
package is installed in, so ``cdp_core`` and ``mcp`` are imported by the fixtures that use them.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import AsyncIterator, Generator, Iterator
from contextlib import ExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from mcp_server.fixtures.pytest_loops import Hosted, LoopModeError, TestLoop, loop_of_test

if TYPE_CHECKING:
    from pluggy import Result

    from cdp_core import Browser, CDPSession, ChromiumProcess
    from mcp_server.fixtures.pytest_evidence import ConsoleErrors, PageWatch

__all__ = [
    "AttachedChrome",
    "LoopModeError",
    "artifacts",
    "cdp_browser",
    "cdp_page",
    "chromium",
    "console_errors",
    "mcp_client",
    "mcp_client_module",
    "mcp_client_session",
    "mcp_server_args",
    "mcp_server_env",
]

CDP_URL_ENV = "MCP_BROWSER_CDP_URL"
_PAGES = pytest.StashKey[list[tuple[TestLoop, "CDPSession", "PageWatch"]]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcp_browser", "Chromium fixtures (mcp-browser-debug)")
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
    group.addoption(
        "--cdp-url",
        default=None,
        metavar="URL",
        help=f"use the Chrome already listening there (http://127.0.0.1:PORT or ws://...) instead of "
        f"starting one (default ${CDP_URL_ENV})",
    )
    group.addoption(
        "--cdp-screenshot",
        choices=("off", "on", "only-on-failure"),
        default="only-on-failure",
        help="screenshot of each cdp_page tab at the end of a test (default only-on-failure)",
    )
    group.addoption(
        "--cdp-dump",
        choices=("off", "only-on-failure"),
        default="only-on-failure",
        help="save the DOM and console of each cdp_page tab when a test fails (default only-on-failure)",
    )
    group.addoption(
        "--cdp-tracing",
        choices=("off", "retain-on-failure"),
        default="off",
        help="record a performance trace of each cdp_page tab, kept as trace.json when the test fails",
    )
    group.addoption(
        "--cdp-artifacts",
        default=None,
        metavar="DIR",
        help="folder of the tests' artifacts, one subfolder per test (default .mcp-browser-artifacts/tests)",
    )


# -- the browser ---------------------------------------------------------------------------


class AttachedChrome:
    """A Chrome that was already running (``--cdp-url``): the ``chromium`` fixture's attributes, no process.

    ``pid`` and ``profile_dir`` are None (not ours); :meth:`stop` does nothing: the fixtures
    never close a browser they did not start.
    """

    pid: int | None = None
    profile_dir: Path | None = None

    def __init__(self, url: str) -> None:
        from urllib.parse import urlsplit

        from cdp_core.discovery import is_loopback_address

        parts = urlsplit(url)
        host = parts.hostname or ""
        try:
            port = parts.port or 80
        except ValueError:
            port = None
        # The server's rule: an IP literal in 127.0.0.0/8 or ::1; the name localhost is 127.0.0.1,
        # never looked up (a hosts file or DNS could point it elsewhere).
        if (
            parts.scheme not in ("http", "ws")
            or port is None
            or "@" in parts.netloc
            or not (host == "localhost" or is_loopback_address(host))
        ):
            raise pytest.UsageError(f"--cdp-url {url!r}: give a loopback endpoint, http://127.0.0.1:PORT or ws://...")
        address = "127.0.0.1" if host == "localhost" else (f"[{host}]" if ":" in host else host)
        self.port = port
        self.cdp_url = f"http://{address}:{port}"
        if parts.scheme == "ws":
            self.ws_url = parts._replace(netloc=f"{address}:{port}").geturl()
        else:
            import json
            import urllib.request

            try:
                with urllib.request.urlopen(f"{self.cdp_url}/json/version", timeout=5) as answer:  # noqa: S310
                    self.ws_url = str(json.load(answer)["webSocketDebuggerUrl"])
            except (OSError, ValueError, KeyError) as exc:
                raise pytest.UsageError(f"--cdp-url {url}: no Chrome answers there ({exc})") from None
        self.http_url = self.cdp_url

    @property
    def alive(self) -> bool:
        return True

    def stop(self) -> None:
        """Nothing to stop: the browser is not ours."""

    def __repr__(self) -> str:
        return f"<AttachedChrome {self.cdp_url}>"


@pytest.fixture(scope="session")
def chromium(pytestconfig: pytest.Config) -> Iterator[ChromiumProcess]:
    """One headless Chromium for the whole session, on 127.0.0.1 with a temporary profile.

    Started with ``--remote-debugging-port=0`` (Chrome picks a free port), stopped and its
    profile removed when the session ends (or by its watchdog if pytest is killed).
    With ``--cdp-url`` (or ``$MCP_BROWSER_CDP_URL``) it is that running Chrome instead.
    """
    url = pytestconfig.getoption("cdp_url", None) or os.environ.get(CDP_URL_ENV)
    if url:
        yield AttachedChrome(url)  # type: ignore[misc]  # same attributes, no process
        return
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
def cdp_browser(chromium: ChromiumProcess, request: pytest.FixtureRequest) -> Iterator[Browser]:
    """A :class:`cdp_core.Browser` connected to ``chromium`` on the test's loop (closed after the test)."""
    import cdp_core

    with ExitStack() as stack:
        hosted = Hosted(loop_of_test(request, "cdp_browser", stack), lambda: cdp_core.connect(chromium.cdp_url))
        try:
            yield hosted.open()
        finally:
            hosted.close()


@pytest.fixture
def cdp_page(cdp_browser: Browser, request: pytest.FixtureRequest, pytestconfig: pytest.Config) -> Iterator[CDPSession]:
    """A flattened session on a new ``about:blank`` tab of ``chromium``; the tab is closed after the test.

    Its console is recorded from the start (``console_errors``, and the failure evidence).
    """
    from mcp_server.fixtures.pytest_evidence import PageWatch, collect_evidence, write_evidence

    watch = PageWatch()
    trace = pytestconfig.getoption("cdp_tracing", "off") != "off"

    @asynccontextmanager
    async def open_page() -> AsyncIterator[CDPSession]:
        async with cdp_browser.new_page("about:blank") as page:
            await watch.start(page, trace=trace)
            try:
                yield page
            finally:
                await watch.stop()

    if _PAGES not in request.node.stash:
        _clear_evidence(_artifacts_dir(request.node))  # a previous run's, which would read as this one's
    with ExitStack() as stack:
        loop = loop_of_test(request, "cdp_page", stack)
        hosted = Hosted(loop, open_page)
        page = hosted.open()
        request.node.stash.setdefault(_PAGES, []).append((loop, page, watch))
        try:
            yield page
            if pytestconfig.getoption("cdp_screenshot", "off") == "on" and not page.closed:
                files = loop.run(lambda: collect_evidence(page, None, screenshot=True))
                write_evidence(_artifacts_dir(request.node), files, _page_prefix(request.node, page))
        finally:
            hosted.close()


@pytest.fixture
def console_errors(cdp_page: CDPSession, request: pytest.FixtureRequest) -> Iterator[ConsoleErrors]:
    """Console errors and uncaught exceptions of ``cdp_page``; unexpected ones fail the test at teardown.

    ``console_errors.allow(regex)`` accepts some, ``console_errors.expect(regex)`` requires one.
    """
    from mcp_server.fixtures.pytest_evidence import ConsoleErrors

    (_, _, watch) = next(entry for entry in request.node.stash[_PAGES] if entry[1] is cdp_page)
    check = ConsoleErrors(watch)
    yield check
    problems = check.problems()
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


# -- artifacts and evidence ----------------------------------------------------------------


def _artifacts_root(config: pytest.Config) -> Path:
    chosen = config.getoption("cdp_artifacts", None)
    return Path(chosen) if chosen else config.rootpath / ".mcp-browser-artifacts" / "tests"


def _artifacts_dir(item: pytest.Item) -> Path:
    """The test's own folder: its id made file-safe; a long id is cut and ends in a hash of the whole id.

    Why the hash: two long parametrised ids share their first 150 characters, and one test's
    set-up clears stale evidence from its folder, so a shared folder lost the other's evidence.
    """
    name = re.sub(r"[^\w.\-]+", "-", item.nodeid).strip("-")
    if len(name) > 150:
        name = name[:140] + "-" + hashlib.sha256(item.nodeid.encode()).hexdigest()[:9]
    return _artifacts_root(item.config) / name


_EVIDENCE = re.compile(r"^(tab\d+-)?(screenshot\.png|dom\.html|console\.txt|trace\.json)$")


def _clear_evidence(folder: Path) -> None:
    if folder.is_dir():
        for path in folder.iterdir():
            if _EVIDENCE.match(path.name):
                path.unlink(missing_ok=True)


def _page_prefix(item: pytest.Item, page: CDPSession) -> str:
    pages = item.stash.get(_PAGES, [])
    index = next((i for i, entry in enumerate(pages) if entry[1] is page), 0)
    return "" if index == 0 else f"tab{index + 1}-"


@pytest.fixture
def artifacts(request: pytest.FixtureRequest) -> Path:
    """This test's own folder under ``--cdp-artifacts`` (created), where failure evidence goes too."""
    folder = _artifacts_dir(request.node)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Result[pytest.TestReport], None]:
    outcome = yield
    report = outcome.get_result()
    pages = item.stash.get(_PAGES, None)
    if not pages or report.when != "call" or not report.failed:
        return
    config = item.config
    screenshot = config.getoption("cdp_screenshot", "off") != "off"
    dump = config.getoption("cdp_dump", "off") != "off"
    if not (screenshot or dump or any(watch.tracer for _, _, watch in pages)):
        return
    from mcp_server.fixtures.pytest_evidence import collect_evidence, write_evidence

    saved: list[Path] = []
    for loop, page, watch in pages:
        if page.closed:
            continue
        try:
            files = loop.run(functools.partial(collect_evidence, page, watch, screenshot=screenshot))
        except Exception as exc:  # evidence must never hide the test's own failure
            report.sections.append(("mcp-browser evidence", f"could not collect evidence: {exc!r}"))
            continue
        if not dump:
            files = {k: v for k, v in files.items() if k == "screenshot.png"}
        saved += write_evidence(_artifacts_dir(item), files, _page_prefix(item, page))
        if watch.tracer is not None:
            dest = _artifacts_dir(item) / f"{_page_prefix(item, page)}trace.json"
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                if loop.run(functools.partial(watch.save_trace, dest)) is not None:
                    saved.append(dest)
            except Exception as exc:  # noqa: BLE001 - the test's own failure comes first
                report.sections.append(("mcp-browser evidence", f"could not save the trace: {exc!r}"))
    if saved:
        listing = "\n".join(str(path) for path in saved)
        report.sections.append(("mcp-browser evidence", listing))
        report.user_properties.append(("mcp_browser_evidence", listing))


# -- the MCP server: its fixtures live in pytest_clients; imported so pytest sees them here -----

from mcp_server.fixtures.pytest_clients import (  # noqa: E402, F401 - fixtures are found in the plugin's namespace
    _mcp_browser_module_clients,
    _mcp_browser_session_clients,
    mcp_client,
    mcp_client_module,
    mcp_client_session,
    mcp_server_args,
    mcp_server_env,
)
