"""A secret-named URL parameter is masked in every answer and every file; its neighbours are shown.

The case: phpMyAdmin puts its CSRF ``token=<32 hex>`` in every link and AJAX URL, beside
``session_max_rows=25`` (a row count). The token was shown in 11 answers (lists, ``network_get``,
the click's follow-up), in the HAR's ``url`` and ``queryString``, in ``bundle.json`` and in a saved
trace, while the audit log masked ``session_max_rows`` because its name holds "session". The page
here does what phpMyAdmin does: its links carry the token, a click sends an AJAX GET and a POST with
it, a script loaded with it logs the URL, throws, and one of its requests fails. Every answer (text
and JSON: what either kind of client shows the model) and every file under the artifacts root is
scanned for the token, and the row count is checked to be shown where the URL is.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from httpserver import Reply
from lean_util import records
from mcp.client import Client

from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings

TOKEN = "6b3e9f0a1c2d4e5f6a7b8c9d0e1f2a3b"
Q = f"token={TOKEN}&session_max_rows=25"

PAGE = f"""<!doctype html><title>phpMyAdmin</title>
<a id=home href="index.php?route=/&amp;{Q.replace("&", "&amp;")}">Home</a>
<button id=save>Save</button>
<script src="app.js?v=5.2.1&amp;{Q.replace("&", "&amp;")}"></script>"""

APP = """
const params = new URL(document.getElementById("home").href).searchParams;
const common = "token=" + params.get("token") + "&session_max_rows=" + params.get("session_max_rows");
console.log("loaded " + location.origin + "/pma/index.php?route=/sql&" + common);
document.getElementById("save").addEventListener("click", async () => {
  await (await fetch("index.php?route=/sql&ajax_request=true&" + common)).text();
  await (await fetch("index.php?route=/table/replace&" + common, {method: "POST",
    headers: {"Content-Type": "application/x-www-form-urlencoded"}, body: "db=shop&table=t&" + common})).text();
  await fetch("missing.php?" + common).catch(() => null);
  setTimeout(() => { throw new Error("save failed"); }, 0);
});
"""


@pytest.fixture
def site(http_server) -> Any:
    saved = Reply(200, '{"success":true,"message":"saved"}', "application/json")
    http_server.route("/pma/index.php", lambda req: saved if req.method == "POST" else Reply(200, PAGE))
    http_server.route("/pma/app.js", Reply(200, APP, "application/javascript"))
    http_server.route("/pma/missing.php", Reply(404, "not here", "text/plain"))
    return http_server


@pytest.fixture
async def served(tmp_path: Path, site) -> AsyncIterator[tuple[Client, Path]]:
    root = tmp_path / "artifacts"
    manager, server = build_app(Settings(artifact_dir=str(root)))
    try:
        async with Client(server) as client:
            yield client, root
    finally:
        await manager.close()


async def test_a_token_in_urls_is_in_no_answer_and_no_file_while_the_row_count_is_shown(served, site):
    client, root = served
    answers: list[str] = []

    async def call(tool: str, action: str, ok: bool = True, **args: Any) -> tuple[str, dict[str, Any]]:
        result = await client.call_tool(tool, {"action": action, **args})
        text = "\n".join(getattr(b, "text", "") or "" for b in result.content)
        data = result.structured_content or {}
        answers.append(f"{tool}.{action}: {text}\n{json.dumps(data, ensure_ascii=False)}")
        assert result.is_error is not ok, text
        return text, data

    await call("browser_session", "navigate", url=site.url("/pma/index.php?route=/"))
    await call("browser_session", "performance_start_trace")
    click_text, click_data = await call("browser_interact", "click", selector="#save")
    for _ in range(300):
        _, listed = await call("browser_session", "network_list", limit=100)
        rows = [r for r in records(listed) if "/pma/" in str(r.get("url"))]
        if sum(1 for r in rows if isinstance(r.get("status"), int)) >= 5:
            break
        await anyio.sleep(0.05)
    await call("browser_session", "wait_for", network_idle=True)
    list_text, _ = await call("browser_session", "network_list", limit=100)
    for row in rows:
        await call("browser_session", "network_get", id=row["id"])
    post = next(r for r in rows if r.get("method") == "POST")
    await call("browser_session", "network_save_body", id=post["id"], body="request")
    await call("browser_session", "network_save_body", id=post["id"], body="response")
    await call("browser_session", "performance_stop_trace")
    await call("browser_session", "console_list")
    await call("browser_session", "debug_bundle", save_artifacts=True)
    await call("browser_session", "network_export_har", include_bodies=True)
    await call("browser_session", "list_pages")
    await call("browser_session", "snapshot")
    # The page's own URL carries it too (a link followed), and an error names a URL that failed.
    await call("browser_session", "navigate", url=site.url(f"/pma/index.php?route=/&{Q}"))
    await call("browser_session", "get_current_page")
    await call("browser_session", "navigate", ok=False, url=f"http://127.0.0.1:9/pma/index.php?{Q}", timeout_ms=5000)

    leaks = [text[:300] for text in answers if TOKEN in text]
    assert not leaks, leaks
    files = [p for p in root.rglob("*") if p.is_file()]
    kinds = {p.parent.name for p in files} | {p.suffix for p in files}
    assert {"traces", ".har", "bundle.json", "audit.jsonl"} <= kinds | {p.name for p in files}, sorted(kinds)
    assert not [p for p in files if TOKEN.encode() in p.read_bytes()], "the token is in a file"

    # What the person would check: the row count and the route are still there, in both renderings.
    assert "session_max_rows=25" in list_text and "route=/sql" in list_text, list_text
    assert "token=[redacted]" in list_text, list_text
    assert "session_max_rows=25" in click_text + json.dumps(click_data), click_text
    har = json.loads(next(root.rglob("*.har")).read_text())
    queries = [q for e in har["log"]["entries"] for q in e["request"]["queryString"]]
    assert {"name": "session_max_rows", "value": "25"} in queries
    assert {"name": "token", "value": "[redacted]"} in queries
    trace = json.loads(next(root.glob("traces/*")).read_text())  # still the JSON DevTools loads
    assert "traceEvents" in trace and "session_max_rows=25" in json.dumps(trace)
    audit = (root / "audit.jsonl").read_text()
    assert "session_max_rows=25" in audit and "token=[redacted]" in audit, audit[-2000:]
