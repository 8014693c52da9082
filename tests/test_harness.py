"""The harness itself: the browser listens on loopback and the server serves pages."""

import httpx

import cdp_core


async def test_chromium_listens_on_loopback(chromium):
    version = await cdp_core.get_version(chromium.http_url)
    assert version.browser.startswith(("Chrome/", "HeadlessChrome/"))
    assert version.web_socket_debugger_url.startswith("ws://127.0.0.1:")


def test_http_server_serves_pages_and_routes(http_server):
    from httpserver import Reply

    http_server.route("/echo", lambda req: Reply(201, req.body, "text/plain"))
    with httpx.Client(trust_env=False) as client:
        assert "Page A" in client.get(http_server.url("/a.html")).text
        r = client.post(http_server.url("/echo"), content=b"hello")
        assert (r.status_code, r.text) == (201, "hello")
        assert client.get(http_server.url("/missing")).status_code == 404
