"""Two and three agents on one ``mcp-browser --http`` server and its one internal Chromium (issue 46).

Each agent is a real SDK client with its own streamable-HTTP session. What one selects (tab,
frame), the marks it made and the listing its ``page_id`` means are its own; the browser,
its tabs and the capture are shared. A session that ends leaves the others working.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest
from faults_util import wait_until
from http_sessions import browsers_started_by, http_server_running, session
from mcp_http import TEST_SECRET
from paths import ROOT

from targets.errors import ErrorCode


async def _two_tabs(a, b, apps) -> None:
    """A opens /fatture and /ordini in the internal browser; B uses the same browser."""
    await a.s("navigate", url=apps.url("/fatture"))
    await a.s("new_page", url=apps.url("/ordini"))
    await a.s("wait_for", text="ordini")
    await b.s("use_launch_browser")


async def test_each_session_reads_the_tab_it_selected(tmp_path: Path, apps):
    with http_server_running(tmp_path / "artifacts") as server:
        async with session(server) as a, session(server) as b:
            await _two_tabs(a, b, apps)
            await a.s("select_page", url_contains="fatture")
            await b.s("select_page", url_contains="ordini")

            current = await a.s("get_current_page")
            assert current["page"]["url"] == apps.url("/fatture"), a.last_text
            assert "fatture" in a.last_text and "ordini" not in a.last_text
            console = await a.s("console_list")
            assert console["page"] == apps.url("/fatture")
            assert "err-fatture" in a.last_text and "err-ordini" not in a.last_text, a.last_text

            current = await b.s("get_current_page")
            assert current["page"]["url"] == apps.url("/ordini"), b.last_text
            await b.s("console_list")
            assert "err-ordini" in b.last_text and "err-fatture" not in b.last_text, b.last_text
            # the page calls act where their session stands
            assert await a.js("document.title") == "fatture"
            assert await b.js("document.title") == "ordini"

            # one internal Chromium for both: the same tabs under the same stable ids
            tabs_a = {p["stable_page_id"]: p["url"] for p in (await a.s("list_pages"))["pages"]}
            tabs_b = {p["stable_page_id"]: p["url"] for p in (await b.s("list_pages"))["pages"]}
            assert tabs_a == tabs_b and len(tabs_a) == 2, (tabs_a, tabs_b)
            assert browsers_started_by(server.pid) == 1


async def test_page_id_means_the_sessions_own_listing(tmp_path: Path, apps):
    with http_server_running(tmp_path / "artifacts") as server:
        async with session(server) as a, session(server) as b:
            await _two_tabs(a, b, apps)
            await a.s("new_page", url=apps.url("/fatture/riga"))
            listed_a = {p["page_id"]: p["title"] for p in (await a.s("list_pages"))["pages"]}
            assert listed_a == {0: "fatture", 1: "ordini", 2: "riga"}, a.last_text
            # B closes the first tab and lists: in B's listing, [1] is riga now
            fatture = next(p for p in (await b.s("list_pages"))["pages"] if p["title"] == "fatture")
            await b.s("close_page", stable_page_id=fatture["stable_page_id"])
            listed_b = {p["page_id"]: p["title"] for p in (await b.s("list_pages"))["pages"]}
            assert listed_b == {0: "ordini", 1: "riga"}, b.last_text
            # A's [1] is still the tab A's own listing showed it
            picked = await a.s("select_page", page_id=1)
            assert picked["selected"]["title"] == "ordini", a.last_text
            picked = await b.s("select_page", page_id=1)
            assert picked["selected"]["title"] == "riga", b.last_text


async def test_frames_are_selected_per_session(tmp_path: Path, apps):
    with http_server_running(tmp_path / "artifacts") as server:
        async with session(server) as a, session(server) as b:
            await _two_tabs(a, b, apps)
            await a.s("select_page", url_contains="fatture")
            await b.s("select_page", url_contains="fatture")  # the same tab
            await a.s("select_frame", frame_name="riga")

            frames_b = (await b.s("list_frames"))["frames"]
            selected_b = [f for f in frames_b if f.get("selected")]
            assert [f["frame_index"] for f in selected_b] == [0], b.last_text
            assert await b.js("location.pathname") == "/fatture"
            assert await a.js("location.pathname") == "/fatture/riga"
            frames_a = (await a.s("list_frames"))["frames"]
            assert [f["name"] for f in frames_a if f.get("selected")] == ["riga"], a.last_text

            await b.s("select_frame", frame_name="riga")
            await a.s("select_frame", frame_index=0)
            assert await b.js("location.pathname") == "/fatture/riga"
            assert await a.js("location.pathname") == "/fatture"


async def test_marks_are_the_sessions_own(tmp_path: Path, apps):
    with http_server_running(tmp_path / "artifacts") as server:
        async with session(server) as a, session(server) as b:
            await _two_tabs(a, b, apps)
            await a.s("select_page", url_contains="fatture")
            await b.s("select_page", url_contains="fatture")
            mark_a = (await a.s("capture_mark"))["mark"]["name"]
            assert mark_a == "m1"

            unknown = await b.err("debug_bundle", ErrorCode.INVALID_ARGUMENT, since_mark=mark_a)
            assert f"no capture mark '{mark_a}'" in unknown["message"], unknown
            assert not unknown.get("knownMarks"), unknown

            clicked = await a.call("browser_interact", action="click", selector="#salva")
            assert not clicked.is_error, a.last_text
            await a.s("debug_bundle", since_mark=mark_a)
            assert "clicked-fatture" in a.last_text, a.last_text

            mark_b = (await b.s("capture_mark"))["mark"]["name"]
            known_a = (await a.err("debug_bundle", ErrorCode.INVALID_ARGUMENT, since_mark="m99"))["knownMarks"]
            known_b = (await b.err("debug_bundle", ErrorCode.INVALID_ARGUMENT, since_mark="m99"))["knownMarks"]
            assert known_a == [mark_a] and known_b == [mark_b], (known_a, known_b)


async def test_a_session_that_disconnects_leaves_the_others_working(tmp_path: Path, apps):
    with http_server_running(tmp_path / "artifacts") as server:
        async with session(server) as a:
            async with session(server) as b:
                await _two_tabs(a, b, apps)
                await a.s("select_page", url_contains="fatture")
                await b.s("select_page", url_contains="ordini")
                await b.s("capture_mark")
            # B's client closed its session (DELETE): A goes on where it stood, in the same browser
            current = await a.s("get_current_page")
            assert current["page"]["url"] == apps.url("/fatture"), a.last_text
            assert await a.js("document.title") == "fatture"
            assert len((await a.s("list_pages"))["pages"]) == 2
            async with session(server) as c:  # a newcomer starts from the server's view, not B's
                await c.s("use_launch_browser")
                await c.err("debug_bundle", ErrorCode.INVALID_ARGUMENT, since_mark="m1")
                # B's leaving is counted: C, leaving the browser, hears of A alone
                with anyio.fail_after(30):
                    while True:
                        left = await c.s("close_browser_target", target="launch")
                        if left.get("otherSessions") == 1:
                            break
                        await anyio.sleep(0.2)  # B's session is still being cleaned up
                        await c.s("use_launch_browser")
            assert browsers_started_by(server.pid) == 1
            assert await a.js("document.title") == "fatture"


async def test_three_sessions_three_selections(tmp_path: Path, apps):
    with http_server_running(tmp_path / "artifacts") as server:
        async with session(server) as a, session(server) as b, session(server) as c:
            await _two_tabs(a, b, apps)
            await c.s("use_launch_browser")
            await c.s("new_page", url=apps.url("/fatture/riga"))
            await a.s("select_page", title_contains="fatture")
            await b.s("select_page", title_contains="ordini")
            await c.s("select_page", title_contains="riga")
            titles = [await agent.js("document.title") for agent in (a, b, c)]
            assert titles == ["fatture", "ordini", "riga"], titles
            async with session(server) as d:
                # a newcomer starts from the server's own view, where nothing was chosen: none active
                fresh = await d.s("get_browser_status")
                assert fresh["browser"].get("activeTarget") is None, d.last_text
                await d.s("use_launch_browser")
                assert len((await d.s("list_pages"))["pages"]) == 3
            titles = [(await agent.s("get_current_page"))["page"]["title"] for agent in (a, b, c)]
            assert titles == ["fatture", "ordini", "riga"], titles
            assert browsers_started_by(server.pid) == 1


async def test_closing_the_internal_browser_closes_only_the_sessions_use_until_the_last(tmp_path: Path, apps):
    with http_server_running(tmp_path / "artifacts") as server:
        async with session(server) as a, session(server) as b:
            await _two_tabs(a, b, apps)
            await a.s("select_page", url_contains="fatture")
            left = await b.s("close_browser_target", target="launch")
            assert left["otherSessions"] == 1, b.last_text
            assert browsers_started_by(server.pid) == 1
            assert await a.js("document.title") == "fatture"  # A goes on in the same browser, same tab
            assert len((await a.s("list_pages"))["pages"]) == 2
            last = await a.s("close_browser_target", target="launch")
            assert "otherSessions" not in last and last["closed"] is True, a.last_text
            await wait_until(lambda: browsers_started_by(server.pid) == 0, timeout=30, what="the browser gone")


PEERS = ROOT / "bench" / "peers"


@pytest.mark.skipif(
    shutil.which("node") is None or not (PEERS / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir(),
    reason="node or the TypeScript SDK (bench/peers) is missing",
)
async def test_a_typescript_sdk_session_beside_a_python_one(tmp_path: Path, apps):
    """The TypeScript SDK's client (as Claude Code drives a server) has a session of its own too."""
    with http_server_running(tmp_path / "artifacts") as server:
        async with session(server) as a:
            await a.s("navigate", url=apps.url("/fatture"))
            await a.s("new_page", url=apps.url("/ordini"))
            await a.s("select_page", title_contains="fatture")
            calls = [
                ["browser_session", {"action": "use_launch_browser"}],
                ["browser_session", {"action": "select_page", "title_contains": "ordini"}],
                ["browser_session", {"action": "evaluate_js", "expression": "document.title"}],
            ]
            plan = {"transport": "http", "url": server.url, "token": TEST_SECRET, "calls": calls}
            (tmp_path / "plan.json").write_text(json.dumps(plan))
            command = ["node", str(ROOT / "tests" / "ts_sdk_session.cjs"), str(PEERS), str(tmp_path / "plan.json")]
            run = await anyio.to_thread.run_sync(
                lambda: subprocess.run(command, capture_output=True, text=True, timeout=400, cwd=ROOT)
            )
            assert run.returncode == 0, run.stderr[-3000:]
            seen = json.loads(run.stdout.splitlines()[-1])
            assert seen["protocolVersion"] == "2025-11-25"
            assert [c["isError"] for c in seen["calls"]] == [False, False, False], seen["calls"]
            assert "ordini" in seen["calls"][2]["text"], seen["calls"][2]
            current = await a.s("get_current_page")
            assert current["page"]["title"] == "fatture", a.last_text
