"""docs/testing.md: its smoke test runs as a user's file would, with only the installed plugin.

The example is written to a directory of its own (no conftest, no pyproject of ours) and run
by a separate pytest, so it gets the fixtures exactly the way a test author does: from the
``pytest11`` entry point of the installed package.
"""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "testing.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
FIXTURES = ("chromium", "cdp_browser", "cdp_page", "mcp_client")


def _clean_env() -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy") and k != "PYTHONPATH"}
    env["NO_PROXY"] = "127.0.0.1,localhost,::1"
    return env


def test_the_page_has_one_complete_example_using_every_fixture() -> None:
    assert len(EXAMPLES) == 1
    for name in FIXTURES:
        assert re.search(rf"def test_\w+\([^)]*\b{name}: ", EXAMPLES[0]), f"the example does not use {name}"


def test_the_plugin_is_registered_by_the_installed_package() -> None:
    plugins = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert plugins.get("mcp_browser") == "mcp_server.pytest_plugin", (
        "the pytest11 entry point is missing from this virtualenv: reinstall it (make setup, or "
        ".venv/bin/pip install -e .)"
    )


def test_the_smoke_example_passes_with_no_conftest(tmp_path: Path) -> None:
    (tmp_path / "test_smoke.py").write_text(EXAMPLES[0], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_smoke.py"],
        cwd=tmp_path,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert re.search(r"\b4 passed\b", done.stdout), done.stdout[-2000:]


def test_the_plugin_options_reach_the_browser(tmp_path: Path) -> None:
    """``--chromium-arg`` flags are passed to the session's browser (seen in its command line)."""
    (tmp_path / "test_args.py").write_text(
        "from pathlib import Path\n"
        "def test_flag(chromium):\n"
        "    args = Path(f'/proc/{chromium.pid}/cmdline').read_bytes().split(b'\\0')\n"
        "    assert b'--lang=it-IT' in args\n"
        "    assert b'--remote-debugging-address=127.0.0.1' in args\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--chromium-arg=--lang=it-IT"],
        cwd=tmp_path,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


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


def test_the_fixtures_keep_their_contract(tmp_path: Path) -> None:
    """A fresh tab per test, closed after it; mcp_client attached to ``chromium``; one browser a session."""
    (tmp_path / "test_contract.py").write_text(FIXTURE_CONTRACT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=tmp_path,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert re.search(r"\b5 passed\b", done.stdout), done.stdout[-2000:]


@pytest.mark.parametrize("fixture", FIXTURES)
def test_every_fixture_is_documented(fixture: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    assert f"| `{fixture}` |" in text
