"""Local files and browser-internal pages stay closed to the agent.

The attack: in the default configuration ``navigate url="view-source:file:///etc/passwd"``
opened the file and ``get_dom``/``snapshot`` returned it (the audit log and the exported state
file too); ``chrome://`` and ``devtools://`` pages opened as well. Each spelling of that attack is
tried here through the MCP client; every one answers ``BLOCKED_BY_POLICY`` and the tab stays on
the page it showed. With the documented opt-in (``ALLOW_FILE_URLS`` + ``ALLOWED_FILE_ROOTS``)
``view-source:`` of an allowed file opens and everything else stays refused, the server's own
files included even when a root contains them. The user's Chrome gets the same rule.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from httpserver import Reply
from lean_util import session_call
from mcp.client import Client

from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings

MARK = "local-file-canary-6d1e"


_call = session_call


@pytest.fixture
def start_page(http_server) -> str:
    http_server.route("/local-files/start.html", Reply(200, "<title>Start</title><p>start page</p>"))
    return http_server.url("/local-files/start.html")


@pytest.fixture
def local_files(tmp_path: Path) -> dict[str, Path]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "page.html").write_text(f"<title>Allowed file</title><p>{MARK}-allowed</p>")
    (tmp_path / "outside.txt").write_text(f"{MARK}-outside")
    return {"site": site, "outside": tmp_path / "outside.txt"}


def _attacks(artifacts: Path, outside: Path) -> list[str]:
    audit = artifacts / "audit.jsonl"
    return [
        "view-source:file:///etc/passwd",
        f"view-source:{outside.as_uri()}",
        f"view-source:{audit.as_uri()}",
        f"VIEW-SOURCE:{outside.as_uri().upper().replace('FILE', 'file', 1)}",
        f" \tview-\tsource:{outside.as_uri()}",  # a browser strips the spaces and tabs
        "view-source:view-source:file:///etc/passwd",
        outside.as_uri(),
        "file://localhost/etc/passwd",
        "chrome://version",
        "chrome://settings/passwords",
        "devtools://devtools/bundled/inspector.html",
        "chrome-extension://abcdefghijklmnopabcdefghijklmnop/x.html",
        "chrome-untrusted://terminal/",
        "filesystem:http://127.0.0.1/temporary/x",
        "javascript:document.title='pwned'",
        "about:version",
    ]


async def _assert_refused_and_unchanged(client: Client, url: str, start_url: str) -> None:
    is_error, sc, text = await _call(client, "navigate", url=url)
    assert is_error and sc["code"] == "BLOCKED_BY_POLICY", (url, sc)
    assert MARK not in text
    _, page, _ = await _call(client, "get_current_page")
    assert page["page"]["url"] == start_url, (url, page)
    _, dom, dom_text = await _call(client, "get_dom")
    assert MARK not in dom_text and "root:x:0:0" not in dom_text, url


async def test_local_files_and_internal_pages_are_refused_by_default(tmp_path, start_page, local_files):
    artifacts = tmp_path / "artifacts"
    manager, server = build_app(Settings(artifact_dir=str(artifacts)))
    try:
        async with Client(server) as client:
            is_error, sc, _ = await _call(client, "navigate", url=start_page)
            assert not is_error, sc
            for url in _attacks(artifacts, local_files["outside"]):
                await _assert_refused_and_unchanged(client, url, start_page)
            # Harmless schemes still open: the refusal is about local and privileged pages only.
            is_error, sc, _ = await _call(client, "navigate", url="data:text/html,<title>Inline</title>")
            assert not is_error and sc["title"] == "Inline", sc
            is_error, sc, _ = await _call(client, "navigate", url=f"view-source:{start_page}")
            assert not is_error, sc
    finally:
        await manager.close()


async def test_the_file_opt_in_admits_its_roots_only_and_never_the_servers_files(tmp_path, start_page, local_files):
    artifacts = tmp_path / "artifacts"
    settings = Settings(
        artifact_dir=str(artifacts),
        allow_file_urls=True,
        # A root that contains the artifacts directory: the server's own files stay closed anyway.
        allowed_file_roots=[str(tmp_path)],
    )
    manager, server = build_app(settings)
    try:
        async with Client(server) as client:
            page_uri = (local_files["site"] / "page.html").as_uri()
            is_error, sc, _ = await _call(client, "navigate", url=f"view-source:{page_uri}")
            assert not is_error, sc
            _, _, dom = await _call(client, "get_dom")
            assert f"{MARK}-allowed" in dom  # view-source of an allowed file opens
            is_error, sc, _ = await _call(client, "navigate", url=start_page)
            assert not is_error, sc
            (artifacts / "state").mkdir(parents=True, exist_ok=True)
            (artifacts / "state" / "cookies.json").write_text(f'{{"value": "{MARK}-state"}}')
            for url in (
                "view-source:file:///etc/passwd",
                "file:///etc/passwd",
                f"view-source:{(artifacts / 'audit.jsonl').as_uri()}",
                (artifacts / "audit.jsonl").as_uri(),
                (artifacts / "state" / "cookies.json").as_uri(),
                f"view-source:{(artifacts / 'state' / 'cookies.json').as_uri()}",
                "chrome://version",
            ):
                await _assert_refused_and_unchanged(client, url, start_page)
    finally:
        await manager.close()


@pytest.fixture
async def attached(tmp_path: Path, fresh_chromium, start_page) -> AsyncIterator[Client]:
    import cdp_core

    await cdp_core.new_tab(fresh_chromium.http_url, start_page)
    manager, server = build_app(Settings(artifact_dir=str(tmp_path / "artifacts")))
    try:
        async with Client(server) as client:
            is_error, sc, _ = await _call(client, "attach_cdp", cdp_url=fresh_chromium.http_url)
            assert not is_error, sc
            is_error, sc, _ = await _call(client, "select_page", url_contains="/local-files/start.html")
            assert not is_error, sc
            yield client
    finally:
        await manager.close()


async def test_the_users_chrome_gets_the_same_rule(attached, start_page, local_files, tmp_path):
    for url in ("view-source:file:///etc/passwd", local_files["outside"].as_uri(), "chrome://version"):
        await _assert_refused_and_unchanged(attached, url, start_page)


async def test_new_page_refuses_what_navigate_refuses(tmp_path, start_page, local_files):
    manager, server = build_app(Settings(artifact_dir=str(tmp_path / "artifacts")))
    try:
        async with Client(server) as client:
            is_error, sc, _ = await _call(client, "navigate", url=start_page)
            assert not is_error, sc
            _, before, _ = await _call(client, "list_pages")
            for url in ("view-source:file:///etc/passwd", local_files["outside"].as_uri(), "chrome://version"):
                is_error, sc, text = await _call(client, "new_page", url=url)
                assert is_error and sc["code"] == "BLOCKED_BY_POLICY", (url, sc)
                assert MARK not in text
            _, after, _ = await _call(client, "list_pages")
            assert len(after["pages"]) == len(before["pages"])  # no tab was opened for a refused URL
            _, page, _ = await _call(client, "get_current_page")
            assert page["page"]["url"] == start_page
    finally:
        await manager.close()


async def test_history_cannot_walk_back_into_a_local_file_of_the_users_chrome(
    tmp_path, fresh_chromium, start_page, local_files
):
    """The user opened a local file, then the app, in one tab: go_back would show the file to the agent."""
    import anyio
    from faults_util import UserTabs

    import cdp_core

    secret = tmp_path / "notes.html"
    secret.write_text(f"<title>Notes</title><p>{MARK}-history</p>")
    user = UserTabs(fresh_chromium.http_url)
    tab = await user.open(secret.as_uri())
    async with cdp_core.connect(fresh_chromium.http_url) as browser:
        session = await browser.attach(tab)
        await session.send("Page.navigate", {"url": start_page})
        with anyio.fail_after(15):
            while True:
                where = {"expression": "location.href + ' ' + document.readyState", "returnByValue": True}
                reply = await session.send("Runtime.evaluate", where)
                if reply["result"]["value"] == f"{start_page} complete":
                    break
                await anyio.sleep(0.05)
        await session.detach()
    manager, server = build_app(Settings(artifact_dir=str(tmp_path / "artifacts")))
    try:
        async with Client(server) as client:
            is_error, sc, _ = await _call(client, "attach_cdp", cdp_url=fresh_chromium.http_url)
            assert not is_error, sc
            is_error, sc, _ = await _call(client, "select_page", url_contains="/local-files/start.html")
            assert not is_error, sc
            is_error, sc, text = await _call(client, "go_back")
            assert is_error and sc["code"] == "BLOCKED_BY_POLICY", sc
            assert MARK not in text
            _, page, _ = await _call(client, "get_current_page")
            assert page["page"]["url"] == start_page
            _, _, dom = await _call(client, "get_dom")
            assert MARK not in dom
            # Nor can the agent open the file in a new tab of the user's Chrome: refused before a tab opens.
            tabs = len(await cdp_core.list_targets(fresh_chromium.http_url))
            is_error, sc, _ = await _call(client, "new_page", url=secret.as_uri())
            assert is_error and sc["code"] == "BLOCKED_BY_POLICY", sc
            assert len(await cdp_core.list_targets(fresh_chromium.http_url)) == tabs
    finally:
        await manager.close()
