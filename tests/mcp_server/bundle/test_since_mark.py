"""After the patch: a capture mark, the person's repeat of the save, and ``debug_bundle since_mark``.

A PHP-style save (a loopback route of the test server) fails with a 500, a PHP fatal error page
and the page's own console error, until the test "patches" the server. The person clicks Save
(it fails), the agent marks, the server is patched, the person clicks Save again: the bundle since
the mark lists the 500 as gone, no new console error, and its one line says the failure is gone.
In the internal browser (the goldens) and in a background tab of the user's Chrome.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from background_tabs import agent_in_hidden_tab
from golden import Golden
from httpserver import Reply, Request
from lean_util import assert_lean, records

import cdp_core

GOLDEN = Path(__file__).parent / "golden"

FATAL = (
    "<br />\n<b>Fatal error</b>:  Uncaught Error: Call to undefined function save_note() in "
    "/var/www/html/notes/save.php:14\nStack trace:\n#0 {main}\n  thrown in <b>/var/www/html/notes/save.php</b> "
    "on line <b>14</b><br />\n"
)

PAGE = """<!doctype html><html><head><title>{title}</title><link rel="icon" href="data:,"></head><body>
<h1>Notes</h1>
<label>Note <input id="note" value="buy milk"></label>
<button id="save">Save</button>
<div id="msg"></div>
<script>
document.getElementById("save").addEventListener("click", async () => {{
  const msg = document.getElementById("msg");
  const r = await fetch("save.php?t=" + Date.now(), {{method: "POST",
    headers: {{"Content-Type": "application/x-www-form-urlencoded"}},
    body: "note=" + encodeURIComponent(document.getElementById("note").value)}});
  if (!r.ok) {{
    console.error("save failed", r.status);
    msg.innerHTML = '<div role="alert">Could not save the note</div>';
  }} else {{
    msg.innerHTML = '<div role="status">Saved</div>';
  }}
}});
</script></body></html>"""


@dataclass
class SaveApp:
    """The app on the test server: its page and save.php, broken until :meth:`patch`."""

    prefix: str
    title: str
    patched: bool = False
    bodies: list[bytes] = field(default_factory=list)

    def save(self, req: Request) -> Reply:
        self.bodies.append(req.body)
        if not self.patched:
            return Reply(500, FATAL, "text/html; charset=UTF-8")
        return Reply(200, '{"success":true}', "application/json")

    def patch(self) -> None:
        """What the agent's patch does: save.php works from now on."""
        self.patched = True


def serve_app(http_server: Any, name: str) -> SaveApp:
    """The app under ``/<name>/`` (a name per test: the goldens show its paths)."""
    app = SaveApp(prefix=f"/{name}", title=f"Notes of {name}")
    http_server.route(f"{app.prefix}/index.php", Reply(200, PAGE.format(title=app.title)))
    http_server.route(f"{app.prefix}/save.php", app.save)
    return app


def saves(sc: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in records(sc) if "save.php" in str(e.get("url"))]


async def until(call: Any, ready: Any, what: str, timeout: float = 30.0) -> dict[str, Any]:
    """Call ``call()`` (an answer's structuredContent) until ``ready`` holds of it."""
    with anyio.fail_after(timeout):
        while True:
            sc = await call()
            if ready(sc):
                return sc
            await anyio.sleep(0.1)


# -- the internal browser, with the goldens ----------------------------------------------------------

#: what differs from run to run: the span's length, the page's cache buster, which rule set the span's start
MARK_SUBS = [(r"\bthe [\d.]+ s before\b", "the <N> s before"), (r"\?t=\d+", "?t=<T>")]
RULES = (
    r"as long as the span after the mark|back to the newest failure before the mark|"
    r"from capturedSince \(the capture is shorter\)"
)


@pytest.fixture
async def g(app_client, http_server) -> Golden:
    return await Golden.open(app_client, GOLDEN, http_server=http_server)


async def test_since_mark_after_the_patch_internal_browser(g: Golden, http_server) -> None:
    app = serve_app(http_server, "notes")
    await g.call("navigate", url=http_server.url(f"{app.prefix}/index.php"))

    async def errors() -> dict[str, Any]:
        return (await g.call("console_list", types=["error"])).structured_content

    async def save_list() -> dict[str, Any]:
        return (await g.call("network_list", url_contains="save.php")).structured_content

    # the person clicks Save: it fails
    await g.call("click", tool="browser_interact", selector="#save")
    await g.call("wait_for", text="Could not save the note")
    await until(errors, lambda sc: "save failed" in json.dumps(sc) and "500" in json.dumps(sc), "the errors")
    await until(save_list, lambda sc: [e.get("status") for e in saves(sc)] == [500], "the 500")
    mark = await g.check("capture_mark", subs=MARK_SUBS)
    assert mark["mark"]["name"] == "m1" and mark["mark"]["onScreen"] == 1
    app.patch()
    # the person repeats the save
    await g.call("click", tool="browser_interact", selector="#save")
    await g.call("wait_for", text="Saved")
    await until(save_list, lambda sc: [e.get("status") for e in saves(sc)] == [500, 200], "the 200")
    assert app.bodies == [b"note=buy%20milk", b"note=buy%20milk"]

    sc = await g.check(
        "debug_bundle",
        scenario="since-mark",
        since_mark="m1",
        subs=[*MARK_SUBS, (RULES, "<RULE>")],
        keys={"seconds": "<S>", "rule": "<RULE>"},
    )
    changes = sc["changes"]
    assert changes["failure"] == {"before": f"POST {app.prefix}/save.php 500", "state": "gone"}
    assert "is gone" in changes["line"] and changes["line"].startswith("The failure before m1 (POST ")
    (changed,) = changes["requests"]
    assert changed["request"].endswith("/save.php") and changed["before"].startswith("500")
    assert changed["after"] == "200"
    assert changes["consoleErrors"] == {"gone": 2, "new": 0}, changes
    assert "consoleNew" not in changes
    gone = " ".join(e["text"] for e in changes["consoleGone"])
    assert "save failed 500" in gone
    assert [i["text"] for i in changes["onScreenGone"]] == ["Could not save the note"]
    assert [i["text"] for i in changes["onScreenNew"]] == ["Saved"]
    # only what came after the mark: the 200, no error
    assert sc["network"]["httpErrorCount"] == 0 and sc["console"]["errorCount"] == 0
    assert_lean(await g.call("debug_bundle", since_mark="m1"))
    assert "is gone" in sc["changes"]["line"]
    saved = (await g.call("debug_bundle", since_mark="m1", save_artifacts=True)).structured_content
    text = (await g.call("debug_bundle", since_mark="m1")).content[0].text
    markdown = (g.artifacts / saved["files"]["bundleMd"]).read_text(encoding="utf-8")
    assert "## After m1" in markdown and changes["line"] in markdown
    line = text.splitlines()[1]  # the one line, right under the bundle's head
    assert line.startswith("The failure before m1 (POST /notes/save.php 500) is gone"), line

    # a mark with nothing after it
    empty = await g.check("capture_mark", scenario="second", subs=MARK_SUBS)
    assert empty["mark"]["name"] == "m2"
    sc = await g.check(
        "debug_bundle",
        scenario="since-mark-nothing-after",
        since_mark="m2",
        subs=[*MARK_SUBS, (RULES, "<RULE>")],
        keys={"seconds": "<S>", "rule": "<RULE>"},
    )
    # the save's failure was answered well before m2: nothing to check, and nothing changed
    assert sc["changes"]["failure"]["state"] == "none"
    assert sc["changes"]["line"].startswith("No failure was left before m2: the last one (POST /notes/save.php 500")
    assert sc["network"]["total"] == 0 and sc["console"]["total"] == 0
    assert "requests" not in sc["changes"] and sc["changes"]["consoleErrors"] == {"gone": 0, "new": 0}

    # an unknown mark: a clear error naming the marks there are, nothing else changed
    err = await g.check("debug_bundle", scenario="since-mark-unknown", error=True, since_mark="m7")
    assert err["code"] == "INVALID_ARGUMENT" and err["knownMarks"] == ["m1", "m2"]
    again = await g.call("debug_bundle", since_mark="m1")
    assert not again.is_error and again.structured_content["changes"]["failure"]["state"] == "gone"


async def test_unknown_mark_before_any_mark(app_client) -> None:
    result = await app_client.call_tool("browser_session", {"action": "debug_bundle", "since_mark": "m1"})
    assert result.is_error
    sc = result.structured_content
    assert sc["code"] == "INVALID_ARGUMENT" and "capture_mark" in sc["hint"]
    assert "knownMarks" not in sc  # none: the lean pass drops the empty list


# -- the user's Chrome, in a background tab ----------------------------------------------------------


async def person_clicks_save(http_url: str, title: str) -> None:
    """The person clicks Save in their tab (our own CDP client, as their hand; the tab stays behind)."""
    async with cdp_core.connect(http_url) as user:
        tab = next(t for t in await user.pages() if t.get("title") == title)
        session = await user.attach(tab["targetId"])
        await session.send("Runtime.evaluate", {"expression": "document.getElementById('save').click()"})
        await session.detach()


@pytest.mark.parametrize("users_chrome", ["headless"], indirect=True)
async def test_since_mark_in_a_background_tab_of_the_users_chrome(users_chrome, http_server, tmp_path) -> None:
    app = serve_app(http_server, "users-notes")
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, f"{app.prefix}/index.php", app.title) as agent:

        async def save_list() -> dict[str, Any]:
            return await agent.s("network_list", url_contains="save.php")

        async def errors() -> dict[str, Any]:
            return await agent.s("console_list", types=["error"])

        await person_clicks_save(users_chrome.http_url, app.title)
        await until(save_list, lambda sc: [e.get("status") for e in saves(sc)] == [500], "the 500")
        await until(errors, lambda sc: "save failed" in json.dumps(sc), "the page's error")
        mark = await agent.s("capture_mark")
        assert mark["mark"]["name"] == "m1" and mark["mark"]["onScreen"] == 1
        app.patch()
        await person_clicks_save(users_chrome.http_url, app.title)
        await until(save_list, lambda sc: [e.get("status") for e in saves(sc)] == [500, 200], "the 200")
        await agent.s("wait_for", text="Saved")
        result = await agent.call("browser_session", action="debug_bundle", since_mark="m1")
        assert not result.is_error, result.content[0].text
        assert_lean(result)
        sc = result.structured_content
        assert sc["changes"]["failure"]["state"] == "gone"
        assert sc["changes"]["consoleErrors"]["new"] == 0
        line = result.content[0].text.splitlines()[1]
        assert line.startswith(f"The failure before m1 (POST {app.prefix}/save.php 500) is gone"), line
        assert await agent.js("document.visibilityState") == "hidden"  # read, never brought to front
