"""A real phpMyAdmin whose database stops while the person browses: the body of the XHR that redirected (issue 47).

phpMyAdmin (Debian's package, ``php -S`` on loopback, MariaDB on its own datadir with
``--skip-networking``: ``bench/phpmyadmin.py``) answers the AJAX click of a person whose database
is gone with ``{"redirect_flag":"1","success":false}``, and its handler sets ``location`` at once:
the login page replaces the table. Chrome used to drop that XHR's body at the next document's
commit, before our eager read (``bodyState failed``, then ``BODY_UNAVAILABLE … No resource with
given identifier found`` with a hint that said such bodies are "kept automatically"). Durable
messages keep it. The person's Chrome has a window (Xvfb) and three tabs; the agent's tab is in
the background (a tab the person opened after the attach is in front); the person clicks on to
the table's Structure tab. The agent's first ``debug_bundle`` and ``network_get`` must show
``redirect_flag`` in both renderings.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from background_tabs import open_in_front, visibility
from headful import VirtualDisplay
from lean_util import records
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from paths import ROOT

from cdp_core import ChromiumProcess

pytestmark = pytest.mark.slow


def _peer_bench() -> Any:
    """The repository's ``bench`` package (its phpMyAdmin runner and person), which ``tests/bench`` shadows."""
    spec = importlib.util.spec_from_file_location(
        "repo_bench", ROOT / "bench" / "__init__.py", submodule_search_locations=[str(ROOT / "bench")]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["repo_bench"] = module
    spec.loader.exec_module(module)
    return module


_peer_bench()
phpmyadmin = importlib.import_module("repo_bench.phpmyadmin")
pma_person = importlib.import_module("repo_bench.pma_person")
page_targets = importlib.import_module("repo_bench.tabs").page_targets

SERVER_BIN = ROOT / ".venv" / "bin" / "mcp-browser"
CALL_TIMEOUT = 90.0


@pytest.fixture(scope="module")
def pma() -> Iterator[Any]:
    reason = phpmyadmin.missing()
    if reason:
        if os.environ.get("CI_REAL_APPS") == "1":
            pytest.fail(f"CI installs the real apps, yet phpMyAdmin cannot run: {reason}")
        pytest.skip(reason)
    with phpmyadmin.PhpMyAdmin() as app:
        yield app


@pytest.fixture
def persons_chrome(virtual_display: VirtualDisplay) -> Iterator[ChromiumProcess]:
    chrome = ChromiumProcess.start(headless=False, env=virtual_display.env())
    yield chrome
    chrome.stop()


def _server_env(artifacts: Path) -> dict[str, str]:
    drop = {"BROWSER_DEFAULT_TARGET", "PLAYWRIGHT_CDP_URL", "MCP_AUDIT_LOG"}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.lower().endswith("_proxy")}
    env.update(MCP_ARTIFACT_DIR=str(artifacts), NO_PROXY="127.0.0.1,localhost,::1")
    return env


def _target_of(cdp_url: str, tab_url: str) -> str:
    return str(next(t for t in page_targets(cdp_url) if t["url"] == tab_url)["id"])


async def test_the_body_of_the_xhr_that_redirected_when_the_database_stopped_is_readable(
    pma: Any, persons_chrome: ChromiumProcess, tmp_path: Path
) -> None:
    cdp_url = persons_chrome.http_url
    notes = "data:text/html,<title>Appunti</title><p>appunti"
    artifacts = tmp_path / "artifacts"
    params = StdioServerParameters(command=str(SERVER_BIN), args=[], env=_server_env(artifacts), cwd=str(tmp_path))
    try:
        with anyio.fail_after(300):
            tab_url = await pma_person.open_logged_in(cdp_url, pma, [notes, notes + "2"], pma_person.BROWSE_QUERY)
            agents_tab = _target_of(cdp_url, tab_url)
            with open(tmp_path / "server-stderr.log", "w") as errlog:  # noqa: ASYNC230
                async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:

                    async def session(action: str, **args: Any) -> tuple[dict[str, Any], str]:
                        res = await client.call_tool(
                            "browser_session", {"action": action, **args}, read_timeout_seconds=CALL_TIMEOUT
                        )
                        text = "".join(getattr(c, "text", "") for c in res.content)
                        assert not res.is_error, text
                        return res.structured_content or {}, text

                    await session("attach_cdp", cdp_url=cdp_url, url_contains="route=/sql")
                    # The person opens another tab: the agent's is in the background from now on.
                    front = await open_in_front(cdp_url)
                    await pma_person.stop_db_then_browse(cdp_url, tab_url, pma)
                    assert await visibility(cdp_url, agents_tab) == "hidden"
                    assert await visibility(cdp_url, front) == "visible"

                    data, text = await session("debug_bundle")
                    said = [text + json.dumps(data, ensure_ascii=False)]
                    assert "redirect_flag" in text, text
                    flagged = [r for r in records(data["network"], "appErrors") if "redirect_flag" in json.dumps(r)]
                    assert flagged, data["network"]  # counted as an app error, its text in the JSON too

                    got, got_text = await session("network_get", id=flagged[-1]["id"])
                    said.append(got_text + json.dumps(got, ensure_ascii=False))
                    assert got["entry"]["type"] == "xhr" and got["entry"].get("bodyState") == "held", got
                    assert "redirect_flag" in got_text and "redirect_flag" in json.dumps(got["entry"]), got_text
                    saved, _ = await session("network_save_body", id=flagged[-1]["id"])
                    assert "redirect_flag" in Path(saved["filePath"]).read_text()  # noqa: ASYNC240
                    for answer in said:
                        assert "BODY_UNAVAILABLE" not in answer and "kept automatically" not in answer, answer
                        assert "body lost" not in answer and "body not held" not in answer, answer
    finally:
        await anyio.to_thread.run_sync(pma.start_database)
