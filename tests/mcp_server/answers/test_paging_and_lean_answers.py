"""What the model reads: every entry reachable, every answer as lean as its text.

A burst of 2000 console messages and 500 requests (a fifth of them POSTs with a payload) on one
page of the internal browser: console_list and network_list read all of it page by page with
``since_id``, each answer says how many come after it, and every answer's
``JSON(structuredContent)`` stays within 1.3x its text + 400 characters (tests/lean_util.py).
The actions an agent runs on a realistic page (tabs, capture, bundle, snapshot, session state,
emulation, traces) are held to the same bound.
"""

from __future__ import annotations

from pathlib import Path

import anyio
from faults_util import Agent, serving
from httpserver import Reply
from lean_util import assert_carries, assert_lean, records

MESSAGES = 2000
REQUESTS = 500

TRAFFIC = """<!doctype html><title>Traffic</title>
<form><label>Customer <input name="customer" value="ACME SRL"></label><button>Save</button></form>
<script>
document.cookie = "session=s3cr3t-cookie-value; path=/";
localStorage.setItem("draft", "draft-value");
for (let i = 0; i < %(messages)d; i++) console.log("lean-msg-" + i);
console.error("the one error");
const jobs = [];
for (let i = 0; i < %(requests)d; i++) {
  jobs.push(i %% 5
    ? fetch("/lean/req?i=" + i)
    : fetch("/lean/save?i=" + i, {method: "POST", body: "id=" + i + "&password=hunter2&note=n" + i,
        headers: {"Content-Type": "application/x-www-form-urlencoded"}}));
}
Promise.all(jobs).then(() => fetch("/lean/done"));
</script>"""


def _routes(http_server) -> str:
    page = TRAFFIC % {"messages": MESSAGES, "requests": REQUESTS}
    http_server.route("/lean/traffic.html", Reply(200, page))
    http_server.route("/lean/req", Reply(200, '{"ok": true}', "application/json"))
    http_server.route("/lean/save", Reply(200, '{"saved": true}', "application/json"))
    http_server.route("/lean/done", Reply(200, "done", "text/plain"))
    return http_server.url("/lean/traffic.html")


async def _traffic_done(agent: Agent) -> None:
    for _ in range(600):
        done = records(await agent.s("network_list", url_contains="/lean/done"))
        if done and done[-1]["status"] == 200:
            return
        await anyio.sleep(0.05)
    raise AssertionError("the traffic page never finished")


async def _read_all(agent: Agent, action: str, limit: int, **filters) -> list[dict]:
    """Every entry, oldest first, page by page with since_id; each page lean and saying what follows."""
    seen: list[dict] = []
    since = 0
    while True:
        result = await agent.call("browser_session", action=action, since_id=since, limit=limit, **filters)
        assert not result.is_error, result.content[0].text
        sc = assert_lean(result)
        rows = records(sc)
        seen += rows
        if not sc.get("after"):
            assert "more after" not in result.content[0].text
            return seen
        # the next page is named in both renderings
        assert_carries(result, f"since_id={rows[-1]['id']}")
        assert sc["after"] == sc["total"] - len(rows)
        since = rows[-1]["id"]


async def test_2000_messages_and_500_requests_are_all_readable_and_lean(http_server, tmp_path: Path):
    url = _routes(http_server)
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=url)
        await _traffic_done(agent)

        # The default answer: the newest 50, and how many are earlier.
        newest = await agent.call("browser_session", action="console_list")
        sc = assert_lean(newest)
        assert len(records(sc)) == 50 and sc["earlier"] == sc["total"] - 50 and "evicted" not in sc
        # logs and the error: each row says its type
        assert "shared" not in sc and sc["columns"] == ["id", "type", "text"] and "[error]" in newest.content[0].text

        # A page of logs only: the shared type is said once, in the header and beside the rows.
        oldest = await agent.call("browser_session", action="console_list", since_id=0, limit=500)
        sc = assert_lean(oldest)
        assert sc["shared"] == {"type": "log"} and sc["columns"] == ["id", "text"], {
            k: sc[k] for k in sc if k != "entries"
        }
        assert all(len(row) == 2 for row in sc["entries"])
        head, *lines = oldest.content[0].text.splitlines()
        assert head.endswith("(all [log]):") and not any("[log]" in line for line in lines)
        assert len(lines) >= 500 and lines[0] == f"#{sc['entries'][0][0]} {sc['entries'][0][1]}"

        logs = [e for e in await _read_all(agent, "console_list", 500) if e["text"].startswith("lean-msg-")]
        assert [e["text"] for e in logs] == [f"lean-msg-{i}" for i in range(MESSAGES)]
        assert all(e["type"] == "log" for e in logs)

        requests = [e for e in await _read_all(agent, "network_list", 200) if "/lean/" in e["url"]]
        sent = [e for e in requests if e["url"].startswith(("/lean/req", "/lean/save"))]
        assert len(sent) == REQUESTS and {e["status"] for e in sent} == {200}
        posts = [e for e in sent if e["method"] == "POST"]
        assert len(posts) == REQUESTS // 5
        # the payload preview is in the list, redacted as everywhere
        assert all(e["postDataPreview"].startswith("id=") and "note=n" in e["postDataPreview"] for e in posts)
        assert all("hunter2" not in e["postDataPreview"] for e in posts)
        # Filtered to the POSTs: method, status and type are said once, in both renderings.
        only_posts = await agent.call("browser_session", action="network_list", method="POST", limit=10)
        sc = assert_lean(only_posts)
        assert sc["shared"] == {"method": "POST", "status": 200, "type": "fetch"} and sc["columns"] == ["id", "url"]
        head, *lines = only_posts.content[0].text.splitlines()
        assert head.endswith("(all POST 200 fetch):"), head
        assert lines[0].startswith(f"#{sc['entries'][0][0]} /lean/save?i=") and "payload: id=" in lines[0]
        assert [e["method"] for e in records(sc)] == ["POST"] * 10

        # One entry in full, both kinds.
        error = next(e for e in records(await agent.s("console_list", types=["error"])) if e["text"] == "the one error")
        got = await agent.call("browser_session", action="console_get", id=error["id"])
        assert_lean(got)
        assert_carries(got, "the one error")
        full = await agent.call("browser_session", action="network_get", id=posts[0]["id"])
        assert_lean(full)
        assert "hunter2" not in full.content[0].text + str(full.structured_content)

        bundle = await agent.call("browser_session", action="debug_bundle")
        assert_lean(bundle)
        assert_carries(bundle, "the one error")


async def test_explicit_entry_caps_still_bound_the_stores(http_server, tmp_path: Path):
    url = _routes(http_server)
    async with serving(tmp_path / "artifacts", console_max_entries=100, network_max_entries=50) as agent:
        await agent.s("navigate", url=url)
        await _traffic_done(agent)
        result = await agent.call("browser_session", action="console_list", limit=1000)
        sc = assert_lean(result)
        assert sc["total"] == 100 and sc["evicted"] >= MESSAGES - 100 + 1
        assert f"{sc['evicted']} older evicted" in result.content[0].text
        net = await agent.s("network_list", limit=1000)
        assert net["total"] == 50 and net["evicted"] >= REQUESTS - 50


async def test_actions_on_a_realistic_page_stay_within_the_bound(http_server, tmp_path: Path):
    url = _routes(http_server)
    async with serving(tmp_path / "artifacts") as agent:

        async def lean(action: str, tool: str = "browser_session", **args) -> dict:
            result = await agent.call(tool, action=action, **args)
            assert not result.is_error, (action, result.content[0].text)
            return assert_lean(result, verbatim=("$.result", "$.state"))

        await lean("navigate", url=url)
        await _traffic_done(agent)
        await lean("get_capabilities")
        await lean("get_browser_status")
        await lean("list_pages")
        await lean("get_current_page")
        await lean("snapshot")
        await lean("snapshot", interactive_only=True, diff=True)
        await lean("annotate")
        cookies = await lean("cookies")
        assert "s3cr3t-cookie-value" not in str(cookies)
        await lean("storage")
        await lean("emulate", color_scheme="dark")
        await lean("emulate", color_scheme="none")
        await lean("wait_for", text="Customer")
        await lean("fill", "browser_interact", selector="input[name=customer]", value="ACME SPA")
        await lean("reload")
        await lean("go_back")
        opened = await lean("new_page", url=http_server.url("/lean/done"))
        await lean("close_page", stable_page_id=opened["page"]["stable_page_id"])
        await lean("network_export_har")
        await lean("performance_start_trace")
        await lean("performance_stop_trace")
        await lean("performance_summary")
        await lean("performance_start_trace", reload=True)
        await lean("performance_stop_trace")
        await lean("console_clear")
        await lean("network_clear")
