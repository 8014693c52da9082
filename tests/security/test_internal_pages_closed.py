"""Browser-internal and local pages are closed to every action on a tab, in the user's Chrome too.

The attack: attached to the user's Chrome, the agent selected a ``chrome://`` tab the user had
open and ran ``evaluate_js`` there with the page's privileged APIs (``chrome.settingsPrivate``
switched Safe Browsing off); the refusal covered only ``navigate``'s argument. With
``ALLOW_FILE_URLS=true``, backslashes (``file:///root/..\\secret``) passed the roots check in the
user's Chrome and opened files outside the roots. Here a real Chromium plays the user's Chrome,
with a ``chrome://version`` tab open; pages are served on 127.0.0.1.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from faults_util import UserTabs
from httpserver import Reply
from lean_util import session_call
from mcp.client import Client

import cdp_core
from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings
from targets.policies.file_urls import FileUrlRefused, file_url_path

MARK = "internal-tab-canary-41c7"


_call = session_call


@pytest.fixture
def start_page(http_server) -> str:
    http_server.route("/internal-tabs/start.html", Reply(200, "<title>Start</title><button>Go</button>"))
    return http_server.url("/internal-tabs/start.html")


async def _url_of(http_url: str, target_id: str) -> str:
    async with cdp_core.connect(http_url) as user:
        info = await user.send("Target.getTargetInfo", {"targetId": target_id})
        return info["targetInfo"]["url"]


async def _user_navigates(http_url: str, target_id: str, url: str) -> None:
    """The user moves their own tab (Chrome's address bar): a browser-initiated navigation."""
    async with cdp_core.connect(http_url) as user:
        session = await user.attach(target_id)
        await session.send("Page.navigate", {"url": url})
        with anyio.fail_after(15):
            while (await user.send("Target.getTargetInfo", {"targetId": target_id}))["targetInfo"]["url"] != url:
                await anyio.sleep(0.05)
        await session.detach()


@pytest.fixture
async def users_chrome(tmp_path: Path, fresh_chromium, start_page) -> AsyncIterator[tuple[Client, str, str]]:
    user = UserTabs(fresh_chromium.http_url)
    internal = await user.open("chrome://version")
    app = await user.open(start_page)
    await user.close_all_but({internal, app})
    manager, server = build_app(Settings(artifact_dir=str(tmp_path / "artifacts")))
    try:
        async with Client(server) as client:
            is_error, sc, _ = await _call(client, "attach_cdp", cdp_url=fresh_chromium.http_url)
            assert not is_error, sc
            yield client, internal, app
    finally:
        await manager.close()


async def test_a_chrome_tab_of_the_user_is_listed_but_never_selected(users_chrome, start_page):
    client, _, _ = users_chrome
    is_error, sc, _ = await _call(client, "select_page", url_contains="/internal-tabs/start.html")
    assert not is_error, sc
    _, listing, _ = await _call(client, "list_pages")
    assert any(p["url"].startswith("chrome://version") for p in listing["pages"])  # listing it is fine
    is_error, sc, text = await _call(client, "select_page", url_contains="chrome://version")
    assert is_error and sc["code"] == "BLOCKED_BY_POLICY", sc
    assert "Select another tab" in sc["hint"]
    _, current, _ = await _call(client, "get_current_page")
    assert current["page"]["url"] == start_page  # the selection stayed


ACTIONS = [
    ("evaluate_js", {"expression": f"document.title = '{MARK}'"}),
    ("snapshot", {}),
    ("get_dom", {}),
    ("screenshot", {}),
    ("console_list", {}),
    ("wait_for", {"text": "Google", "timeout_ms": 500}),
]


async def test_every_action_in_a_tab_that_became_internal_is_refused(users_chrome, fresh_chromium, start_page):
    """The selected tab moves to chrome:// under the agent (the user typed it): nothing runs in it."""
    client, _, app = users_chrome
    is_error, sc, _ = await _call(client, "select_page", url_contains="/internal-tabs/start.html")
    assert not is_error, sc
    await _user_navigates(fresh_chromium.http_url, app, "chrome://version/")
    with anyio.fail_after(15):
        while (await _call(client, "get_current_page"))[1]["page"]["url"] != "chrome://version/":
            await anyio.sleep(0.05)
    for action, args in ACTIONS:
        is_error, sc, text = await _call(client, action, **args)
        assert is_error and sc["code"] == "BLOCKED_BY_POLICY", (action, sc)
        assert "chrome://version" in sc["message"], (action, sc)
    result = await client.call_tool("browser_interact", {"action": "click", "selector": "body"})
    assert result.is_error and result.structured_content["code"] == "BLOCKED_BY_POLICY"
    result = await client.call_tool("browser_interact", {"action": "press_key", "key": "Tab"})
    assert result.is_error and result.structured_content["code"] == "BLOCKED_BY_POLICY"
    async with cdp_core.connect(fresh_chromium.http_url) as user:
        session = await user.attach(app)
        title = await session.send("Runtime.evaluate", {"expression": "document.title", "returnByValue": True})
        await session.detach()
    assert title["result"]["value"] != MARK  # the refused script never ran
    # taking the tab back to a web page is allowed: navigate runs nothing inside the internal page
    is_error, sc, _ = await _call(client, "navigate", url=start_page)
    assert not is_error, sc
    is_error, sc, _ = await _call(client, "evaluate_js", expression="document.title")
    assert not is_error and sc["result"] == "Start", sc


async def test_a_script_cannot_carry_the_tab_into_chrome(users_chrome, fresh_chromium, start_page):
    client, _, app = users_chrome
    await _call(client, "select_page", url_contains="/internal-tabs/start.html")
    await _call(client, "evaluate_js", expression="location.href = 'chrome://settings/'; 1")
    await anyio.sleep(1)  # what a navigation would need to commit
    is_error, sc, _ = await _call(client, "evaluate_js", expression="location.href")
    if is_error:
        assert sc["code"] == "BLOCKED_BY_POLICY", sc
    else:
        assert sc["result"].startswith("http://127.0.0.1"), sc  # Chrome kept the page: no chrome: script ran
    assert not (await _url_of(fresh_chromium.http_url, app)).startswith("chrome://settings") or is_error


# -- file URLs read as Chrome reads them ------------------------------------------------------------


def _hostile_file_urls(site: Path) -> list[str]:
    root = site.as_posix()
    return [
        f"file://{root}/..\\secret.txt",
        f"file://{root}\\..\\secret.txt",
        f"file://{root}/%2e%2e/secret.txt",
        f"file://{root}/.%2E/secret.txt",
        f"FILE://{root}/%2E%2e/secret.txt",
        f"file://LOCALHOST{root}/../secret.txt",
        f"file://%6Cocalhost{root}/..\\secret.txt",
        f"file:{root}/..\\secret.txt",
        f"file://{root}/sub/./..\\..\\secret.txt",
    ]


FOREIGN = [
    "file:////127.0.0.1/share/x.txt",
    "file://127.0.0.1/etc/passwd",
    "file:\\\\127.0.0.1\\share\\x.txt",
    "file:\\\\.\\C:\\x.txt",
    "file:///\\\\?\\C:\\x.txt",
    "file:///tmp/a%2F..%2F..%2Fetc/passwd",
    "file:///tmp/a%5C..%5C..%5Cetc/passwd",
]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "page.html").write_text(f"<title>Allowed</title><p>{MARK}-allowed</p>")
    (tmp_path / "secret.txt").write_text(f"{MARK}-secret")
    return {"site": site, "secret": tmp_path / "secret.txt"}


async def test_our_reading_of_file_urls_is_chromes(fresh_chromium, start_page, files):
    """Each hostile spelling is parsed by Chromium's own URL parser: our path is the one it opens."""
    user = UserTabs(fresh_chromium.http_url)
    tab = await user.open(start_page)
    urls = _hostile_file_urls(files["site"]) + FOREIGN + [(files["site"] / "page.html").as_uri()]
    async with cdp_core.connect(fresh_chromium.http_url) as browser:
        session = await browser.attach(tab)
        expression = f"{json.dumps(urls)}.map(u => {{ const x = new URL(u); return [x.host, x.pathname]; }})"
        reply = await session.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        await session.detach()
    for url, (host, pathname) in zip(urls, reply["result"]["value"], strict=True):
        try:
            ours = file_url_path(url)
        except FileUrlRefused:
            assert url in FOREIGN, url
            continue
        assert url not in FOREIGN, (url, host, pathname)
        assert host in ("", "localhost"), (url, host)  # Chrome keeps "localhost" and opens the local file
        chromes = "/".join(urllib.parse.unquote(s) for s in pathname.split("/"))
        assert ours == chromes, (url, ours, pathname)
    assert file_url_path(_hostile_file_urls(files["site"])[0]) == files["secret"].as_posix()


async def test_file_urls_with_backslashes_stay_inside_the_roots_in_the_users_chrome(
    tmp_path: Path, fresh_chromium, start_page, files
):
    user = UserTabs(fresh_chromium.http_url)
    app = await user.open(start_page)
    await user.close_all_but({app})
    settings = Settings(
        artifact_dir=str(tmp_path / "artifacts"), allow_file_urls=True, allowed_file_roots=[str(files["site"])]
    )
    manager, server = build_app(settings)
    try:
        async with Client(server) as client:
            is_error, sc, _ = await _call(client, "attach_cdp", cdp_url=fresh_chromium.http_url)
            assert not is_error, sc
            for url in _hostile_file_urls(files["site"]) + FOREIGN:
                is_error, sc, text = await _call(client, "navigate", url=url)
                assert is_error and sc["code"] == "BLOCKED_BY_POLICY", (url, sc)
                assert MARK not in text
            assert await _url_of(fresh_chromium.http_url, app) == start_page  # the tab never moved
            is_error, sc, _ = await _call(client, "navigate", url=(files["site"] / "page.html").as_uri())
            assert not is_error, sc  # the opt-in still opens its root
            _, dom, text = await _call(client, "get_dom")
            assert f"{MARK}-allowed" in text
    finally:
        await manager.close()
