"""``snapshot max_chars`` bounds the whole answer, page-set URL and title included.

The case: ``snapshot max_chars=100`` once answered 262,011 bytes, because the page had set a 260 KB
URL with ``history.replaceState`` (and the header line carrying it was not cut). Here a page on
127.0.0.1 sets a huge URL and title; the answer stays within a few hundred characters of max_chars
in both renderings, and says the URL was cut.
"""

from __future__ import annotations

import json

import pytest
from httpserver import Reply
from lean_util import answer_text
from mcp.client import Client

PAGE = """<!doctype html><title>t</title><p>long url page</p><button>Go</button>
<script>
history.replaceState(null, "", location.pathname + "?q=" + "u".repeat(260000));
document.title = "T".repeat(100000);
</script>"""


@pytest.fixture
async def client(app_client: Client, http_server) -> Client:
    http_server.route("/long/url.html", Reply(200, PAGE))
    return app_client


async def test_max_chars_bounds_the_header_a_page_sets(client, http_server):
    await client.call_tool("browser_session", {"action": "navigate", "url": http_server.url("/long/url.html")})
    for args in ({"max_chars": 100}, {"max_chars": 100, "diff": True}):
        result = await client.call_tool("browser_session", {"action": "snapshot", **args})
        assert not result.is_error, answer_text(result)[:500]
        text, js = answer_text(result), json.dumps(result.structured_content)
        assert len(text) < 1500 and len(js) < 2500, (args, len(text), len(js))
        assert "/long/url.html?q=uuu" in text and "chars]" in text  # the URL's start, and that it was cut
