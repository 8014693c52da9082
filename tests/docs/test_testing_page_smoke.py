"""docs/testing.md: its smoke test runs as a user's file would, with only the installed plugin.

The example, a check of the fixtures' contract and a check of the plugin's options are written
to a directory of their own (no conftest, no pyproject of ours) and run by one separate pytest,
so they get the fixtures exactly the way a test author does: from the ``pytest11`` entry point
of the installed package.
"""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import entry_points
from xml.etree import ElementTree

import pytest
from paths import ROOT

DOC = ROOT / "docs" / "testing.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
FIXTURES = ("chromium", "cdp_browser", "cdp_page", "mcp_client")
#: The fixtures beyond the smoke test's four, used by the page's second example (test_orders.py).
MORE_FIXTURES = ("console_errors", "mcp_client_module")


def _clean_env() -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy") and k != "PYTHONPATH"}
    env["NO_PROXY"] = "127.0.0.1,localhost,::1"
    return env


def test_the_page_has_two_complete_examples_using_every_fixture() -> None:
    """The smoke test (run here) and test_orders.py (run under every runner by tests/project/test_user_project.py)."""
    assert len(EXAMPLES) == 2
    for name in FIXTURES:
        assert re.search(rf"def test_\w+\([^)]*\b{name}: ", EXAMPLES[0]), f"the smoke example does not use {name}"
    for name in MORE_FIXTURES:
        assert re.search(rf"def test_\w+\([^)]*\b{name}: ", EXAMPLES[1]), f"test_orders.py does not use {name}"


def test_the_plugin_is_registered_by_the_installed_package() -> None:
    plugins = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert plugins.get("mcp_browser") == "mcp_server.pytest_plugin", (
        "the pytest11 entry point is missing from this virtualenv: reinstall it (make setup, or "
        ".venv/bin/pip install -e .)"
    )


#: Checks that ``--chromium-arg`` flags reach the session's browser (seen in its command line).
ARGS_CHECK = """
from pathlib import Path


def test_flag(chromium):
    args = Path(f"/proc/{chromium.pid}/cmdline").read_bytes().split(b"\\0")
    assert b"--lang=it-IT" in args
    assert b"--remote-debugging-address=127.0.0.1" in args
"""

FIXTURE_CONTRACT = """
import pytest

pytestmark = pytest.mark.anyio
OPENED: list[str] = []


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def test_cdp_page_is_a_fresh_tab(cdp_page, cdp_browser):
    assert cdp_page.target_info["url"] == "about:blank"
    OPENED.append(cdp_page.target_info["targetId"])
    assert OPENED[0] in [p["targetId"] for p in await cdp_browser.pages()]


async def test_the_tab_was_closed_after_the_test(cdp_page, cdp_browser):
    assert OPENED[0] not in [p["targetId"] for p in await cdp_browser.pages()]
    assert cdp_page.target_info["targetId"] != OPENED[0]


async def test_mcp_client_drives_the_chromium_fixture(mcp_client, chromium, cdp_browser):
    url = chromium.cdp_url + "/json/version"
    result = await mcp_client.call_tool("browser_session", {"action": "navigate", "url": url})
    assert not result.is_error, result.content
    assert url in [p["url"] for p in await cdp_browser.pages()]


def test_chromium_is_one_browser_for_the_session(chromium):
    OPENED.append(str(chromium.pid))


def test_same_browser_later(chromium):
    assert str(chromium.pid) == OPENED[-1]
"""


@pytest.fixture(scope="module")
def user_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """One pytest run of a test author's directory: the smoke example, the fixture contract, a flag.

    A separate process, in a directory with no conftest and no pyproject of ours, so the
    fixtures come only from the plugin's entry point. One run for the three files saves two
    pytest and Chromium start-ups. Answers ``{file: [one line per test: "name outcome ..."]}``.
    """
    work = tmp_path_factory.mktemp("user")
    files = {"test_smoke.py": EXAMPLES[0], "test_contract.py": FIXTURE_CONTRACT, "test_args.py": ARGS_CHECK}
    for name, code in files.items():
        (work / name).write_text(code, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--junitxml=report.xml"]
        + ["--chromium-arg=--lang=it-IT"],
        cwd=work,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode in (0, 1), done.stdout[-4000:] + done.stderr[-2000:]
    outcomes: dict[str, list[str]] = {}
    for case in ElementTree.parse(work / "report.xml").iter("testcase"):
        problems = [child for child in case if child.tag in ("failure", "error", "skipped")]
        said = " ".join(f"{p.tag}: {p.get('message', '')}\n{p.text or ''}" for p in problems)
        line = f"{case.get('name')} {'passed' if not problems else said}"
        outcomes.setdefault(f"{case.get('classname')}.py", []).append(line)
    if done.returncode:
        outcomes["output"] = [done.stdout[-4000:]]
    return outcomes


def _all_passed(outcomes: dict[str, list[str]], file: str, count: int) -> None:
    lines = outcomes.get(file, [])
    failed = [line for line in lines if not line.endswith(" passed")]
    assert len(lines) == count and not failed, "\n".join(lines + outcomes.get("output", []))


def test_the_smoke_example_passes_with_no_conftest(user_run: dict[str, list[str]]) -> None:
    _all_passed(user_run, "test_smoke.py", 4)


def test_the_plugin_options_reach_the_browser(user_run: dict[str, list[str]]) -> None:
    """``--chromium-arg`` flags are passed to the session's browser."""
    _all_passed(user_run, "test_args.py", 1)


def test_the_fixtures_keep_their_contract(user_run: dict[str, list[str]]) -> None:
    """A fresh tab per test, closed after it; mcp_client attached to ``chromium``; one browser a session."""
    _all_passed(user_run, "test_contract.py", 5)


@pytest.mark.parametrize("fixture", FIXTURES + MORE_FIXTURES + ("mcp_client_session", "artifacts"))
def test_every_fixture_is_documented(fixture: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    assert f"| `{fixture}` |" in text
