"""The issue-35 diagnosis, our three calls, o200k tokens of each answer under both client rules.

A user's Chrome (headless, own profile) has a customer form open whose Save POSTs by AJAX to a
URL answering 500 with a PHP-style error line in the body, then logs ``console.error`` of an
Error thrown in a script file. The agent attaches (``attach_cdp``), selects the tab
(``select_page_by_url``), reads ``debug_bundle``. Printed: per answer, tokens of the text (what
text-only clients pass) and of ``JSON(structuredContent)`` (what Claude Code and Codex pass).

Run: ``.venv/bin/python -m tests.bench.diagnosis_tokens`` (needs bench/peers for o200k counts;
without it, chars/4). A steering tool; the official rows are ``make bench-peers``'s.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from httpserver import Reply, TestServer  # noqa: E402
from mcp.client import Client  # noqa: E402

from cdp_core import connect  # noqa: E402
from cdp_core.chromium import ChromiumProcess  # noqa: E402
from mcp_server.cli.main import build_app  # noqa: E402
from mcp_server.server.settings import Settings  # noqa: E402

FORM = """<!doctype html><html><head><meta charset="utf-8"><title>Edit customer</title>
<script src="/app/save.js"></script></head><body>
<form id="f" onsubmit="saveCustomer(event)"><label>Name <input name="name" value="ACME"></label>
<label>City <input name="city" value="Rome"></label><button id="save">Save</button></form>
<p id="msg"></p></body></html>"""

SAVE_JS = """function saveCustomer(ev) {
  ev.preventDefault();
  const body = new URLSearchParams(new FormData(document.getElementById("f")));
  fetch("/app/save.php", {method: "POST", body}).then(r => r.text().then(t => {
    if (!r.ok) {
      try { throw new Error("save failed: HTTP " + r.status); } catch (e) { console.error(e); }
    }
  }));
}
"""

PHP_500 = (
    "<br />\n<b>Fatal error</b>:  Uncaught PDOException: SQLSTATE[23000]: Integrity constraint violation: "
    "1048 Column 'province' cannot be null in /var/www/app/save.php:42\nStack trace:\n#0 {main}\n  thrown in "
    "<b>/var/www/app/save.php</b> on line <b>42</b><br />\n"
)


def _tokens(texts: list[str]) -> tuple[list[int], str]:
    spec = importlib.util.spec_from_file_location("bench_tokens", ROOT / "bench" / "tokens.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    counted = module.bpe_tokens(texts, ROOT / "bench" / "peers")
    if counted:
        return counted, "o200k"
    return [module.approx_tokens(t) for t in texts], "chars/4"


async def _user_saves(chrome: ChromiumProcess) -> None:
    async with connect(chrome.http_url) as browser:
        target = next(t for t in await browser.pages() if "/app/edit" in t["url"])
        session = await browser.attach(target["targetId"])
        await session.send("Runtime.evaluate", {"expression": "document.getElementById('save').click()"}, timeout=10)
        await session.detach()


async def main() -> None:
    server = TestServer().start()
    server.route("/app/edit.php", Reply(200, FORM))
    server.route("/app/save.js", Reply(200, SAVE_JS, "application/javascript"))
    server.route("/favicon.ico", Reply(204, b"", "image/x-icon"))
    server.route("/app/save.php", Reply(500, PHP_500, "text/html; charset=UTF-8"))
    chrome = ChromiumProcess.start(urls=[server.url("/app/edit.php?id=7")])
    manager, app = build_app(Settings(artifact_dir=str(ROOT / ".mcp-browser-artifacts" / "bench-diagnosis")))
    answers: list[tuple[str, str, str]] = []
    try:
        async with Client(app) as client:

            async def call(action: str, **args: object) -> None:
                result = await client.call_tool("browser_session", {"action": action, **args})
                text = "\n".join(b.text for b in result.content if b.type == "text")
                js = json.dumps(result.structured_content, separators=(",", ":"), ensure_ascii=False)
                answers.append((action, text, js))

            await call("attach_cdp", cdp_url=chrome.http_url)
            await _user_saves(chrome)
            await asyncio.sleep(1.5)
            await call("select_page_by_url", url_contains="/app/edit")
            await call("debug_bundle")
    finally:
        await manager.close()
        chrome.stop()
        server.stop()
    counts, how = _tokens([t for _, text, js in answers for t in (text, js)])
    total_text = total_json = 0
    for i, (action, text, js) in enumerate(answers):
        tt, tj = counts[2 * i], counts[2 * i + 1]
        total_text += tt
        total_json += tj
        print(f"{action:20} text {tt:4} tok {len(text):5} ch | json {tj:4} tok {len(js):5} ch")
    print(f"{'total (' + how + ')':20} text {total_text:4} tok          | json {total_json:4} tok")
    if "-v" in sys.argv:
        for action, text, js in answers:
            print(f"\n=== {action} text ===\n{text}\n=== {action} json ===\n{js}")


if __name__ == "__main__":
    asyncio.run(main())
