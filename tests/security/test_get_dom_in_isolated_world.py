"""``get_dom`` reads from an isolated world: CSP, Trusted Types and page scripts do not see it.

The attack: ``get_dom`` failed on a Trusted-Types page and made the page send a CSP violation
report. Here the page enforces Trusted Types with a report URI, patches the DOM prototypes to
spy on whoever reads it, and carries token inputs (``csrf_token``, ``authenticity_token``,
``nonce``, ``api_key``) next to plain ones. ``get_dom`` answers, no report is sent, the spy saw
nothing, token values are ``[redacted]`` (plain values stay), and the same holds inside an
iframe chosen with ``select_frame``. A 5 MB page answers with ``max_chars``.
"""

from __future__ import annotations

from typing import Any

import pytest
from httpserver import Reply
from mcp.client import Client

CSRF = "csrf-val-3e1f"
AUTHENTICITY = "authn-val-8d20"
NONCE = "nonce-val-51aa"
API_KEY = "apikey-val-77c3"
PASSWORD = "pw-val-0b9e"
META = "meta-csrf-6f2d"
FRAME_TOKEN = "frame-token-c4d1"
SECRETS = (CSRF, AUTHENTICITY, NONCE, API_KEY, PASSWORD, META, FRAME_TOKEN)

POLICY = "require-trusted-types-for 'script'; trusted-types none; report-uri /dom/csp-report"

PAGE = f"""<!doctype html><html><head><title>Strict</title>
<meta name="csrf-token" content="{META}"></head><body>
<h1 onclick="x()" style="color:red">Orders</h1>
<form action="/save" method="post">
  <input type="hidden" name="csrf_token" value="{CSRF}">
  <input type="hidden" name="authenticity_token" value="{AUTHENTICITY}">
  <input type="hidden" id="requestNonce" value="{NONCE}">
  <input name="api_key" value="{API_KEY}">
  <input type="password" name="pw" value="{PASSWORD}">
  <input type="hidden" name="order_id" value="order-4711">
  <input name="customer" value="Ada &amp; Co">
</form>
<svg width="10" height="10"><circle r="4"></circle></svg>
<script>
  window.__spied = [];
  for (const [proto, names] of [[Element.prototype, ['getAttribute', 'cloneNode', 'querySelectorAll']],
                                [Document.prototype, ['querySelector', 'createTreeWalker']]]) {{
    for (const name of names) {{
      const real = proto[name];
      proto[name] = function (...a) {{ window.__spied.push(name); return real.apply(this, a); }};
    }}
  }}
  window.__spied = [];
</script></body></html>"""

FRAME_PARENT = """<!doctype html><title>Parent</title><p>parent</p>
<iframe src="/dom/frame.html"></iframe>"""
FRAME = f"""<!doctype html><title>Child</title><form><input type="hidden" name="xsrf" value="{FRAME_TOKEN}">
<input name="qty" value="3"></form>"""


@pytest.fixture
def site(http_server) -> Any:
    http_server.route("/dom/strict.html", Reply(200, PAGE, headers={"Content-Security-Policy": POLICY}))
    http_server.route("/dom/csp-report", Reply(204, ""))
    http_server.route("/dom/parent.html", Reply(200, FRAME_PARENT))
    http_server.route("/dom/frame.html", Reply(200, FRAME, headers={"Content-Security-Policy": POLICY}))
    http_server.route("/dom/big.html", Reply(200, "<title>Big</title><pre>" + "word " * 1_000_000 + "</pre>"))
    return http_server


@pytest.fixture
async def client(app_client: Client, site) -> Client:
    return app_client


async def _s(client: Client, action: str, **args: Any) -> tuple[dict[str, Any], str]:
    result = await client.call_tool("browser_session", {"action": action, **args})
    text = "\n".join(getattr(b, "text", "") or "" for b in result.content)
    assert not result.is_error, text
    return result.structured_content or {}, text


async def test_get_dom_on_a_trusted_types_page_sends_no_report_and_shows_no_token(client, site):
    await _s(client, "navigate", url=site.url("/dom/strict.html"))
    sc, text = await _s(client, "get_dom")
    html = sc["html"]
    assert "<h1>Orders</h1>" in html and "<svg" in html and "onclick" not in html and "style=" not in html
    assert 'value="order-4711"' in html and 'value="Ada &amp; Co"' in html  # plain values stay
    assert html.count('value="[redacted]"') == 4 and sc["redactedValues"] == 5  # 4 tokens + the password
    assert "<meta" not in html and "<script" not in html
    for secret in SECRETS:
        assert secret not in text and secret not in str(sc), secret
    spied, _ = await _s(client, "evaluate_js", expression="window.__spied.length")
    assert spied["result"] == 0  # the page's patched prototypes saw no read
    await _s(client, "evaluate_js", expression="await new Promise(r => setTimeout(r, 300)); 1")
    assert not [r for r in site.requests if r.path == "/dom/csp-report"]
    # The selector form reads the same way.
    sc, _ = await _s(client, "get_dom", selector="form")
    assert sc["html"].startswith("<form") and CSRF not in sc["html"]


async def test_get_dom_in_a_selected_frame(client, site):
    await _s(client, "navigate", url=site.url("/dom/parent.html"))
    await _s(client, "wait_for", predicate="document.querySelector('iframe').offsetWidth > 0", timeout_ms=10000)
    frames, _ = await _s(client, "list_frames")
    child = next(f for f in frames["frames"] if "frame.html" in (f["url"] or ""))
    await _s(client, "select_frame", frame_id=child["frame_id"])
    sc, text = await _s(client, "get_dom")
    assert 'value="3"' in sc["html"] and 'value="[redacted]"' in sc["html"], sc["html"]
    assert FRAME_TOKEN not in text and "parent" not in sc["html"]


async def test_a_big_page_answers_within_max_chars(client, site):
    await _s(client, "navigate", url=site.url("/dom/big.html"))
    sc, text = await _s(client, "get_dom", max_chars=1000)
    assert len(sc["html"]) <= 1000 and sc["truncated"] is True and sc["length"] >= 5_000_000
    assert len(text) < 1200
