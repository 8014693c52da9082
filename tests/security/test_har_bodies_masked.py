"""The HAR's bodies follow the same value rules as every answer: a JWT in a page or a JSON body is masked.

Third attack review: a JWT in a page's own HTML or in a JSON body went into the HAR as it was,
while the export said "(secrets redacted)"; HAR sanitizers that people run before sharing one
mask it. Now the bodies are masked by name and by value (JWT, Bearer); ``raw_bodies=true`` keeps
them as received for the person who asks, and the answer says which it wrote.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import anyio
from faults_util import serving
from httpserver import Reply
from lean_util import records

JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZGEiLCJyb2xlIjoib3BlcmF0b3JlIn0"
    ".kR3x9Q0m2vYp7sLw4TzN8cHf6JbUe1aGiDo5qXyV0sM"
)
BEARER = "Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0"
PAGE = f"""<!doctype html><title>Ordini</title>
<script>window.SESSION = "{JWT}";</script>
<p>ordini</p>
<script>fetch("data.json").then(r => r.json()).then(d => document.title = "loaded " + d.count);</script>"""
DATA = json.dumps({"count": 3, "result": {"value": JWT}, "note": f"sent with {BEARER}", "total": 41})


def _bodies(har_path: Path) -> dict[str, str]:
    har = json.loads(har_path.read_text())
    return {
        e["request"]["url"].rsplit("/", 1)[-1]: e["response"]["content"].get("text", "") for e in har["log"]["entries"]
    }


async def test_jwts_and_bearer_values_in_bodies_are_masked_unless_raw_is_asked(http_server, tmp_path: Path):
    http_server.route("/har-mask/page.html", Reply(200, PAGE))
    http_server.route("/har-mask/data.json", Reply(200, DATA, "application/json"))
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/har-mask/page.html"))
        with anyio.fail_after(30):
            while await agent.js("document.title") != "loaded 3":
                await asyncio.sleep(0.1)
            # the page has read its JSON; the server's own copy of the body may come a moment later
            data_id = next(e["id"] for e in records(await agent.s("network_list")) if e["url"].endswith("data.json"))
            while (await agent.s("network_get", id=data_id))["entry"].get("bodyState") != "held":
                await asyncio.sleep(0.1)
        masked = await agent.call("browser_session", action="network_export_har")
        assert "(secrets redacted)" in masked.content[0].text
        bodies = _bodies(Path(masked.structured_content["filePath"]))
        assert "window.SESSION" in bodies["page.html"] and JWT not in bodies["page.html"]
        data = json.loads(bodies["data.json"])
        assert JWT not in bodies["data.json"] and BEARER.split()[1] not in bodies["data.json"], data
        assert data["count"] == 3 and data["total"] == 41  # plain facts stay

        raw = await agent.call("browser_session", action="network_export_har", raw_bodies=True)
        assert "response bodies as received" in raw.content[0].text
        assert "response bodies as received" in raw.structured_content["message"]
        assert JWT not in raw.content[0].text and JWT not in json.dumps(raw.structured_content)
        bodies = _bodies(Path(raw.structured_content["filePath"]))
        assert JWT in bodies["page.html"] and JWT in bodies["data.json"]
