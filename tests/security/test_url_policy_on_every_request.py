"""URL policies through the MCP client: enforced on every request of the internal browser, never on the user's Chrome.

``ALLOWED_URLS`` admits one path prefix of the test server; everything else on the same server
is refused, whether navigated to, redirected to (document or fetch), loaded as a subresource,
fetched by the page, or navigated to by the page itself. The test server's request log shows
what really left the browser. ``ALLOW_FILE_URLS`` + ``ALLOWED_FILE_ROOTS`` admit files under the
root only (``..`` and symlinks resolved). Attached to a separate Chromium (the "user's Chrome"),
the same server lets requests outside ``ALLOWED_URLS`` through untouched.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from httpserver import Reply
from mcp.client import Client

import cdp_core
from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings

ALLOWED_PAGE = """<!doctype html><title>Allowed</title>
<img src="/sec-no/img.png?m=img"><iframe src="/sec-no/frame.html?m=frame"></iframe>
<script>
fetch("/sec-no/api?m=fetch").catch(() => {});
fetch("/sec-ok/hop-fetch").catch(() => {});
new Image().src = "/sec-ok/pixel.png?m=allowed-sub";
</script>"""


def _seen(http_server, marker: str) -> bool:
    return any(marker in values for r in http_server.requests for values in r.query.get("m", []))


def _paths(http_server) -> list[str]:
    return [r.path for r in http_server.requests]


@pytest.fixture
def routes(http_server) -> Any:
    http_server.route("/sec-ok/page.html", Reply(200, ALLOWED_PAGE))
    http_server.route("/sec-ok/plain.html", Reply(200, "<title>Plain</title><p>ok</p>"))
    http_server.route("/sec-ok/hop", Reply(302, "", headers={"Location": "/sec-no/redirected.html?m=doc-hop"}))
    http_server.route("/sec-ok/hop-fetch", Reply(302, "", headers={"Location": "/sec-no/api?m=fetch-hop"}))
    http_server.route("/sec-ok/pixel.png", Reply(200, b"", content_type="image/png"))
    for path in ("/sec-no/redirected.html", "/sec-no/direct.html", "/sec-no/frame.html", "/sec-no/by-page.html"):
        http_server.route(path, Reply(200, "<title>Refused page</title>"))
    http_server.route("/sec-no/api", Reply(200, '{"ok": true}', content_type="application/json"))
    http_server.route("/sec-no/img.png", Reply(200, b"", content_type="image/png"))
    http_server.route("/sec-no/user.html", Reply(200, "<title>User tab</title>"))
    return http_server


@pytest.fixture
async def policed(tmp_path: Path, routes) -> AsyncIterator[tuple[Client, Path, Any]]:
    files = tmp_path / "files"
    files.mkdir()
    (files / "ok.html").write_text("<title>Local file</title>")
    (tmp_path / "secret.html").write_text("<title>Outside</title>")
    (files / "link.html").symlink_to(tmp_path / "secret.html")
    settings = Settings(
        artifact_dir=str(tmp_path / "artifacts"),
        allowed_urls=[routes.url("/sec-ok/")],
        allow_file_urls=True,
        allowed_file_roots=[str(files)],
    )
    manager, server = build_app(settings)
    try:
        async with Client(server) as client:
            yield client, files, manager
    finally:
        await manager.close()


async def _call(client: Client, action: str, **args: Any) -> tuple[bool, dict[str, Any]]:
    result = await client.call_tool("browser_session", {"action": action, **args})
    return bool(result.is_error), result.structured_content or {}


async def _settle(client: Client, marker_url: str) -> None:
    """Wait until the page's own late requests are done: one more allowed request has been answered."""
    is_error, sc = await _call(client, "evaluate_js", expression=f"(await fetch({marker_url!r})).status")
    assert not is_error and sc["result"] == 200, sc


async def test_launch_browser_refuses_every_request_outside_the_allow_list(policed, routes):
    client, files, _ = policed
    is_error, sc = await _call(client, "navigate", url=routes.url("/sec-ok/page.html"))
    assert not is_error, sc
    is_error, sc = await _call(client, "wait_for", network_idle=True, idle_ms=300, timeout_ms=10000)
    assert not is_error, sc
    await _settle(client, routes.url("/sec-ok/pixel.png?m=settled"))
    assert _seen(routes, "allowed-sub")  # the page's allowed subresource went out
    for marker in ("img", "frame", "fetch", "fetch-hop"):
        assert not _seen(routes, marker), marker
    assert "/sec-ok/hop-fetch" in _paths(routes)  # the allowed first hop did go out, the redirect did not

    is_error, sc = await _call(client, "navigate", url=routes.url("/sec-no/direct.html?m=direct"))
    assert is_error and sc["code"] == "BLOCKED_BY_POLICY" and "ALLOWED_URLS" in sc["message"]
    is_error, sc = await _call(client, "navigate", url=routes.url("/sec-ok/hop"))
    assert is_error and sc["code"] == "BLOCKED_BY_POLICY", sc
    assert not _seen(routes, "direct") and not _seen(routes, "doc-hop")
    _, page = await _call(client, "get_current_page")
    assert page["page"]["url"].endswith("/sec-ok/page.html")  # the refused navigations left the tab where it was

    # The page itself: a script navigation and a fetch, both refused.
    await _call(client, "evaluate_js", expression="location.href = '/sec-no/by-page.html?m=by-page'; 1")
    is_error, sc = await _call(
        client, "evaluate_js", expression="await fetch('/sec-no/api?m=eval').then(() => 'sent', () => 'refused')"
    )
    assert sc.get("result") == "refused", sc
    await _settle(client, routes.url("/sec-ok/pixel.png?m=settled-2"))
    assert not _seen(routes, "by-page") and not _seen(routes, "eval")

    # File URLs: under the allowed root only, with .. and symlinks resolved.
    is_error, sc = await _call(client, "navigate", url=(files / "ok.html").as_uri())
    assert not is_error and sc["title"] == "Local file", sc
    for url in (
        (files.parent / "secret.html").as_uri(),
        f"file://{files}/../secret.html",
        (files / "link.html").as_uri(),
        "file:///etc/hostname",
    ):
        is_error, sc = await _call(client, "navigate", url=url)
        assert is_error and sc["code"] == "BLOCKED_BY_POLICY", (url, sc)
        assert "ALLOWED_FILE_ROOTS" in sc["message"]


async def test_a_page_moving_by_itself_outside_the_allow_list_is_refused_and_answered_at_once(policed, routes):
    """An allowed page that sends itself, by script, to a URL outside ALLOWED_URLS: the request never
    goes out, the tab stays on the allowed page, and navigate says so at once (it used to wait its
    whole timeout for a 'load' the refused navigation had stopped, then say TIMEOUT)."""
    client, _, _ = policed
    script = "<title>Moves</title><script>location.replace('/sec-no/moved.html?m=moved')</script>"
    routes.route("/sec-ok/moves.html", Reply(200, script))
    with anyio.fail_after(10):  # the navigate's own timeout is 20 s
        result = await client.call_tool(
            "browser_session", {"action": "navigate", "url": routes.url("/sec-ok/moves.html"), "timeout_ms": 20000}
        )
    sc, text = result.structured_content or {}, result.content[0].text
    assert not result.is_error, text
    assert sc["url"] == routes.url("/sec-ok/moves.html") and sc["title"] == "Moves"
    refused = sc["clientRedirectFailed"]
    assert refused["url"] == routes.url("/sec-no/moved.html?m=moved") and "not in ALLOWED_URLS" in refused["blocked"]
    assert f"tried to move on by itself to {refused['url']}, which was refused: it is not in ALLOWED_URLS" in text
    await _settle(client, routes.url("/sec-ok/pixel.png?m=settled-moves"))
    assert not _seen(routes, "moved")


async def test_file_urls_are_off_by_default(tmp_path: Path, routes):
    (tmp_path / "page.html").write_text("<title>Local</title>")
    manager, server = build_app(Settings(artifact_dir=str(tmp_path / "artifacts")))
    try:
        async with Client(server) as client:
            is_error, sc = await _call(client, "navigate", url=(tmp_path / "page.html").as_uri())
            assert is_error and sc["code"] == "BLOCKED_BY_POLICY" and "ALLOW_FILE_URLS" in sc["message"]
            is_error, sc = await _call(client, "navigate", url=routes.url("/sec-no/direct.html?m=no-list"))
            assert not is_error  # without ALLOWED_URLS every http(s) URL is allowed
    finally:
        await manager.close()


async def test_policies_never_apply_to_the_users_chrome(policed, routes, fresh_chromium):
    client, _, manager = policed
    await cdp_core.new_tab(fresh_chromium.http_url, routes.url("/sec-no/user.html?m=user-open"))
    for _ in range(200):
        if _seen(routes, "user-open"):
            break
        await anyio.sleep(0.02)
    is_error, sc = await _call(client, "attach_cdp", cdp_url=fresh_chromium.http_url)
    assert not is_error, sc
    is_error, sc = await _call(client, "evaluate_js", expression="(await fetch('/sec-no/api?m=user-fetch')).status")
    assert not is_error and sc["result"] == 200, sc
    is_error, sc = await _call(client, "navigate", url=routes.url("/sec-no/direct.html?m=user-nav"))
    assert not is_error and sc["title"] == "Refused page", sc
    assert _seen(routes, "user-fetch") and _seen(routes, "user-nav")
    assert manager.cdp.lost is None
    # Back on the internal browser, the policy still holds.
    is_error, sc = await _call(client, "use_launch_browser")
    assert not is_error, sc
    is_error, sc = await _call(client, "navigate", url=routes.url("/sec-no/direct.html?m=launch-again"))
    assert is_error and sc["code"] == "BLOCKED_BY_POLICY"
    assert not _seen(routes, "launch-again")
    await _call(client, "detach_cdp")
    assert fresh_chromium.alive
