"""A real phpMyAdmin, the person's failed Insert, and the agent's first bundle (issue 47).

phpMyAdmin (Debian's package, served by ``php -S`` on loopback, MariaDB on its own datadir with
``--skip-networking``: ``bench/phpmyadmin.py``) answers a duplicate key with
``200 application/json {"success":false,"error":"<div class=\\"alert alert-danger\\">…"}``, the
message about 1,200 characters into the body, and every AJAX URL carries its CSRF ``token``.
The person's Chrome has a window (Xvfb) and three tabs; the person logs in through the form and
opens the Insert form; the agent attaches, and a tab the person opened afterwards is in front,
so the agent's tab is in the background. The person presses Go; the agent's first
``debug_bundle`` must quote the error the person saw, under both renderings, and the token's
value must be in no answer and no file the server wrote.
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
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from paths import ROOT

from cdp_core import ChromiumProcess, connect

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
DUPLICATE = f"#1062 - Duplicate entry '{phpmyadmin.DUP_CODE}' for key '{phpmyadmin.UNIQUE_KEY}'"


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


async def _csrf_token(cdp_url: str, target_id: str) -> str:
    """The token phpMyAdmin put into the page (and into every AJAX URL it sends)."""
    async with connect(cdp_url) as browser:
        session = await browser.attach(target_id)
        expression = "CommonParams.get('token') || sessionStorage.token"
        reply = await session.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        await session.detach()
        return str(reply["result"]["value"])


async def test_the_duplicate_key_the_person_saw_is_in_the_first_bundle(
    pma: Any, persons_chrome: ChromiumProcess, tmp_path: Path
) -> None:
    cdp_url = persons_chrome.http_url
    notes = "data:text/html,<title>Appunti</title><p>appunti"
    with anyio.fail_after(300):
        tab_url = await pma_person.open_logged_in(cdp_url, pma, [notes, notes + "2"], pma_person.INSERT_QUERY)
        agents_tab = _target_of(cdp_url, tab_url)
        token = await _csrf_token(cdp_url, agents_tab)
        assert len(token) >= 16

        artifacts = tmp_path / "artifacts"
        params = StdioServerParameters(command=str(SERVER_BIN), args=[], env=_server_env(artifacts), cwd=str(tmp_path))
        answers: list[tuple[str, str]] = []

        with open(tmp_path / "server-stderr.log", "w") as errlog:  # noqa: ASYNC230
            async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:

                async def session(action: str, **args: Any) -> tuple[dict[str, Any], str]:
                    res = await client.call_tool(
                        "browser_session", {"action": action, **args}, read_timeout_seconds=CALL_TIMEOUT
                    )
                    text = "".join(getattr(c, "text", "") for c in res.content)
                    data = res.structured_content or {}
                    answers.append((text, json.dumps(data, ensure_ascii=False)))
                    assert not res.is_error, text
                    return data, text

                await session("attach_cdp", cdp_url=cdp_url, url_contains="route=/table/change")
                # The person opens another tab: the agent's is in the background from now on.
                front = await open_in_front(cdp_url)
                await pma_person.insert_duplicate(cdp_url, tab_url, pma)
                data, text = await session("debug_bundle")

        assert DUPLICATE in text, text
        assert DUPLICATE in json.dumps(data, ensure_ascii=False)
        # the alert is on screen once, whole, even where the page shows it in two boxes
        assert [item["text"] for item in data["onScreen"]].count(
            next(item["text"] for item in data["onScreen"] if DUPLICATE in item["text"])
        ) == 1, data["onScreen"]
        assert await visibility(cdp_url, front) == "visible"
        assert await visibility(cdp_url, agents_tab) == "hidden"

    for text, js in answers:
        assert token not in text and token not in js
        assert pma.password not in text and pma.password not in js
    for path in artifacts.rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            assert token.encode() not in content, path
            assert pma.password.encode() not in content, path
