"""``ALLOWED_URLS`` matches parsed origins, never substrings.

The attacks: ``http://127.0.0.1:8000`` admitted ``http://127.0.0.1:8000@otherhost/``
(a prefix match on the raw string, while the browser reads ``otherhost`` as the host) and
``https://*.example.com/*`` admitted ``https://evil.com/?.example.com/`` (a glob over the whole
URL). The unit tests try those and their cousins on the pure rule (no name is ever resolved);
the MCP test sends the loopback equivalents through the internal browser and checks with a
second test server that no request reached the host the allow-list did not name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from httpserver import Reply, TestServer
from mcp.client import Client

from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings, SettingsError
from targets.policies.policy import UrlPattern, UrlPolicy


@pytest.mark.parametrize(
    ("pattern", "url"),
    [
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000@otherhost/"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000@otherhost:8000/"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:80001/"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000.otherhost/"),
        ("http://127.0.0.1:8000", "http://user:pw@127.0.0.1:8000/"),  # userinfo is refused outright
        ("http://127.0.0.1:8000", "http://otherhost\\@127.0.0.1:8000/"),  # a browser reads otherhost
        ("http://127.0.0.1:8000/app", "http://127.0.0.1:8000/application"),
        ("http://127.0.0.1", "http://127.0.0.1:8080/"),  # no port in the pattern means the default port
        ("https://*.example.com/*", "https://evil.com/?.example.com/"),
        ("https://*.example.com/*", "https://evil.com/#.example.com/"),
        ("https://*.example.com/*", "https://evil.com\\.example.com/"),
        ("https://*.example.com/*", "https://example.com.evil.com/"),
        ("https://*.example.com/*", "https://a.example.com:8443/"),
        ("example.com", "https://example.com.evil.com/"),
        ("example.com", "https://evil.com/example.com"),
        ("example.com", "https://evilexample.com/"),
        ("http://*:8000/*", "http://127.0.0.1:9000/?:8000/"),
    ],
)
def test_substrings_never_admit_another_origin(pattern: str, url: str) -> None:
    verdict = UrlPolicy(allowed_urls=[pattern]).check_url(url)
    assert not verdict.allowed, (pattern, url)


@pytest.mark.parametrize(
    ("pattern", "url"),
    [
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000/"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000/any/path?q=1"),
        ("http://127.0.0.1:8000/app", "http://127.0.0.1:8000/app"),
        ("http://127.0.0.1:8000/app", "http://127.0.0.1:8000/app/x?y=1"),
        ("http://127.0.0.1:8000/app/", "http://127.0.0.1:8000/app/x"),
        ("http://127.0.0.1", "http://127.0.0.1:80/"),
        ("https://*.example.com/*", "https://api.example.com/v1?x=1"),
        ("https://*.example.com/*", "https://a.b.example.com/"),
        ("example.com", "https://example.com/"),
        ("example.com", "http://shop.example.com:8080/cart"),
        ("EXAMPLE.com", "https://Example.COM./"),
        ("127.0.0.1:8000", "http://127.0.0.1:8000/x"),
        ("http://*:8000/*", "http://127.0.0.1:8000/x"),
        ("http://[::1]:8000", "http://[::1]:8000/x"),
    ],
)
def test_the_named_origins_still_pass(pattern: str, url: str) -> None:
    assert UrlPolicy(allowed_urls=[pattern]).check_url(url).allowed, (pattern, url)


def test_a_pattern_that_names_no_origin_stops_the_server_at_start() -> None:
    for bad in ("http://", "user@example.com", "http://user:pw@127.0.0.1:8000/"):
        with pytest.raises(ValueError):
            UrlPattern.parse(bad)
        with pytest.raises(SettingsError) as info:
            Settings.load({"ALLOWED_URLS": bad})
        assert "ALLOWED_URLS" in str(info.value)


async def _call(client: Client, action: str, **args: Any) -> tuple[bool, dict[str, Any]]:
    result = await client.call_tool("browser_session", {"action": action, **args})
    return bool(result.is_error), result.structured_content or {}


async def test_the_internal_browser_sends_nothing_to_an_origin_the_list_does_not_name(tmp_path: Path, http_server):
    http_server.route("/allow/ok.html", Reply(200, "<title>Allowed</title>"))
    other = TestServer().start()  # the "otherhost" of the attack, on another loopback port
    other.route("/", Reply(200, "<title>Other host</title>"))
    try:
        settings = Settings(
            artifact_dir=str(tmp_path / "artifacts"),
            allowed_urls=[http_server.base, f"http://*:{http_server.port}/*"],
        )
        manager, server = build_app(settings)
        try:
            async with Client(server) as client:
                is_error, sc = await _call(client, "navigate", url=http_server.url("/allow/ok.html"))
                assert not is_error, sc
                attacks = [
                    f"http://127.0.0.1:{http_server.port}@127.0.0.1:{other.port}/?m=userinfo",
                    f"http://127.0.0.1:{other.port}/?:{http_server.port}/&m=glob",
                ]
                for url in attacks:
                    is_error, sc = await _call(client, "navigate", url=url)
                    assert is_error and sc["code"] == "BLOCKED_BY_POLICY", (url, sc)
                # The page itself tries the same: the request interception refuses it too.
                target = f"http://127.0.0.1:{other.port}/?:{http_server.port}/&m=fetch"
                script = f"await fetch({target!r}).then(() => 'sent', () => 'refused')"
                is_error, sc = await _call(client, "evaluate_js", expression=script)
                assert sc.get("result") == "refused", sc
                _, page = await _call(client, "get_current_page")
                assert page["page"]["url"] == http_server.url("/allow/ok.html")
        finally:
            await manager.close()
        assert other.requests == [], [r.path for r in other.requests]
    finally:
        other.stop()
