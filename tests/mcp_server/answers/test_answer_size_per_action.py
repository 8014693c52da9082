"""Every action's answer, one by one, under the answer-size rule (mcp_server/answers/budget.py).

Why one test over all of them: both renderings are the product (Claude Code and Codex hand the
model ``JSON(structuredContent)`` and drop the text; other clients pass only the text), and the
rule is only worth its numbers if no action escapes it. The test drives every action that can run
on a test page through a real MCP client (the internal browser, then a Chrome of its own for
attach/detach), and checks each answer's JSON against its text in characters and, when the o200k
tokenizer is installed (bench/peers), in tokens. It prints the per-action ratios (the worst decide
the rule's numbers) and names every action over the bound.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import anyio
from faults_util import Agent, UserTabs, serving
from httpserver import Reply
from lean_util import answer_text, bpe_tokens, records, structured_json

from mcp_server.answers.budget import FACTOR, SLACK, SLACK_TOKENS, json_limit, token_limit
from mcp_server.server import registry

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Edit customer</title>
<script src="/per/app.js"></script></head><body>
<form id="f" onsubmit="saveCustomer(event)">
<label>Name <input name="name" value="ACME"></label>
<label>City <input name="city" value="Rome"></label>
<label>Country <select name="country"><option value="it">Italy</option>
<option value="de">Germany</option></select></label>
<label>Attachment <input type="file" name="doc"></label>
<button id="save">Save</button></form>
<div id="from" draggable="true" style="width:60px;height:30px;background:#ccc">drag me</div>
<div id="to" role="region" aria-label="Drop here" style="width:80px;height:40px;background:#eee">drop</div>
<a id="more" href="/per/two.html">More</a>
<iframe name="child" src="/per/child.html"></iframe>
</body></html>"""

APP_JS = """function saveCustomer(ev) {
  ev.preventDefault();
  const body = new URLSearchParams(new FormData(document.getElementById("f")));
  body.delete("doc");
  fetch("/per/save.php", {method: "POST", body}).then(r => r.text().then(t => {
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

#: Actions that answer an error on this page by design (still held to the rule: errors are answers too)
EXPECTED_ERRORS = {"pick_element"}  # nobody clicks: TIMEOUT


def _routes(http_server) -> str:
    http_server.route("/per/edit.php", Reply(200, PAGE))
    http_server.route("/per/app.js", Reply(200, APP_JS, "application/javascript"))
    http_server.route("/per/save.php", Reply(500, PHP_500, "text/html; charset=UTF-8"))
    http_server.route("/per/child.html", Reply(200, "<title>child</title><p>in the frame</p>"))
    http_server.route("/per/two.html", Reply(200, "<title>Two</title><p>second page</p>"))
    return http_server.url("/per/edit.php")


def _uid(snapshot_text: str, role: str, name: str) -> str:
    found = re.search(rf'\[uid=([^\]]+)\] {role} "{re.escape(name)}"', snapshot_text)
    assert found, (role, name, snapshot_text[:2000])
    return found.group(1)


class Recorder:
    """Every answer's action, text and JSON(structuredContent), in call order."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.answers: list[tuple[str, str, str, bool]] = []

    async def __call__(self, action: str, tool: str = "browser_session", **args: Any) -> dict[str, Any]:
        result = await self.agent.call(tool, action=action, **args)
        text = answer_text(result)
        if result.is_error:
            assert action in EXPECTED_ERRORS, (action, text)
        self.answers.append((action, text, structured_json(result), bool(result.is_error)))
        return result.structured_content

    async def i(self, action: str, **args: Any) -> dict[str, Any]:
        return await self(action, "browser_interact", **args)

    @property
    def text(self) -> str:
        return self.answers[-1][1]


async def _on_the_internal_browser(a: Recorder, url: str, http_server, artifacts: Path) -> None:
    (artifacts / "uploads").mkdir(parents=True, exist_ok=True)
    (artifacts / "uploads" / "invoice.txt").write_text("total 12")
    await a("navigate", url=url)
    await a("get_capabilities")
    await a("get_browser_status")
    await a("list_pages")
    await a("get_current_page")
    await a("get_dom", selector="form")
    await a("screenshot")
    await a("evaluate_js", expression="document.title")
    await a("list_frames")
    await a("select_frame", frame_name="child")
    await a("select_frame", frame_index=0)
    await a("snapshot")
    snap = a.text
    annotated = await a("annotate")
    first = (annotated.get("elements") or [[1]])[0]
    await a("click_by_id", element_id=first[0] if isinstance(first, list) else first.get("id", 1))
    await a("navigate", url=url)
    await a("snapshot", interactive_only=True)
    snap = a.text
    await a.i("fill", selector="input[name=city]", value="Milan")
    await a.i("hover", selector="#save")
    await a.i("scroll", direction="down", amount=100)
    await a.i("press_key", key="Tab")
    await a.i("click", selector="#from")
    name, city = _uid(snap, "textbox", "Name"), _uid(snap, "textbox", "City")
    await a.i("fill_uid", uid=name, value="ACME SRL")
    await a.i("hover_uid", uid=city)
    await a.i("press_uid", uid=city, key="End")
    await a.i("fill_form", fields=[{"uid": name, "value": "ACME SPA"}, {"uid": city, "value": "Turin"}])
    await a.i("select_option", uid=_uid(snap, "combobox", "Country"), values=["de"])
    await a.i("type_text", uid=city, text=" N")
    await a("snapshot")
    full = a.text
    await a.i("drag", from_uid=_uid(full, "StaticText", "drag me") if "StaticText" in full else name, to_uid=city)
    await a.i("upload_file", uid=_uid(full, "button", "Attachment"), paths=["invoice.txt"])
    await a("css_styles", selector="#save")
    await a("highlight", selector="#save", seconds=0.2)
    await a("wait_for", text="Save")
    await a("source_list")
    await a("source_get", source="/per/app.js", line=5)
    await a("debug_logpoint", source="/per/app.js", line=3, expression="body.toString()")
    await a("debug_snapshot", source="/per/app.js", line=6)
    await a("debug_exceptions", mode="uncaught")
    await a.i("click_uid", uid=_uid(snap, "button", "Save"))  # the save that answers 500
    await a("wait_for", predicate="performance.getEntriesByType('resource').some(e => e.name.includes('save.php'))")
    await a("debug_list")
    await a("debug_clear")
    await a("console_list")
    errors = records(await a("console_list", types=["error"]))
    await a("console_get", id=errors[-1]["id"])
    saves = records(await a("network_list", url_contains="save.php"))
    await a("network_get", id=saves[-1]["id"])
    await a("network_save_body", id=saves[-1]["id"])
    mark = await a("capture_mark")
    await a("network_replay", id=saves[-1]["id"], confirm=True)  # the 500 again, from the page
    await a("debug_bundle", since_mark=mark["mark"]["name"])
    await a("get_network_errors")
    await a("get_console_logs")
    await a("debug_bundle")
    await a("debug_bundle", include_snapshot=True, include_storage=True)
    exported = await a("export_state")
    await a("load_state", path=Path(exported["path"]).name)
    await a("cookies")
    await a("storage")
    await a("emulate", color_scheme="dark")
    await a("emulate", color_scheme="none")
    await a("performance_start_trace")
    await a("performance_stop_trace")
    await a("performance_summary")
    await a("memory_snapshot")
    await a("evaluate_js", expression="setTimeout(() => alert('Saved?'), 0); 1")
    for _ in range(100):  # the alert opens after the call
        if (await a.agent.s("get_current_page"))["page"].get("dialog"):
            break
        await anyio.sleep(0.05)
    await a("handle_dialog", dialog_action="accept")
    await a("pick_element", timeout_ms=300)
    opened = await a("new_page", url=http_server.url("/per/two.html"))
    await a("switch_tab", page_id=0)
    await a("select_page", stable_page_id=opened["page"]["stable_page_id"])
    await a("select_page_by_title", title_contains="Edit customer")
    await a("close_page", stable_page_id=opened["page"]["stable_page_id"])
    await a("navigate", url=http_server.url("/per/two.html"))
    await a("go_back")
    await a("go_forward")
    await a("reload")
    await a("read_downloaded_file")
    await a("network_export_har")
    await a("console_clear")
    await a("network_clear")
    await a("use_launch_browser")


async def _on_the_users_chrome(a: Recorder, chrome: Any, url: str) -> None:
    await a("attach_cdp", cdp_url=chrome.http_url)
    await a("select_page_by_url", url_contains="/per/")
    await a("debug_bundle")
    await a("detach_cdp")
    await a("close_browser_target", target="launch")


def _table(answers: list[tuple[str, str, str, bool]]) -> tuple[list[str], list[str]]:
    """(report lines, offenders) of every answer under the rule, in characters and tokens."""
    counted = bpe_tokens([t for _, text, js, _ in answers for t in (text, js)])
    lines, over = [], []
    for n, (action, text, js, error) in enumerate(answers):
        ratio = len(js) / max(len(text), 1)
        row = f"{action:24}{' (error)' if error else '':8} text {len(text):6} ch  json {len(js):6} ch  x{ratio:5.2f}"
        if len(js) > json_limit(len(text)):
            over.append(f"{action}: {len(js)} chars > {FACTOR} x {len(text)} + {SLACK}")
        if counted:
            tt, tj = counted[2 * n], counted[2 * n + 1]
            row += f" | text {tt:5} tok  json {tj:5} tok  x{tj / max(tt, 1):5.2f}  over-slack {tj - FACTOR * tt:6.0f}"
            if tj > token_limit(tt):
                over.append(f"{action}: {tj} tokens > {FACTOR} x {tt} + {SLACK_TOKENS}")
        lines.append(row)
    return lines, over


async def test_every_action_answers_within_the_rule(http_server, fresh_chromium, tmp_path: Path, capsys):
    url = _routes(http_server)
    user = UserTabs(fresh_chromium.http_url)
    await user.close_all_but({await user.open(url)})
    async with serving(tmp_path / "artifacts") as agent:
        a = Recorder(agent)
        await _on_the_internal_browser(a, url, http_server, tmp_path / "artifacts")
        await _on_the_users_chrome(a, fresh_chromium, url)
    ran = {action for action, *_ in a.answers}
    missing = sorted({spec.name for spec in registry.ACTIONS.values()} - ran)
    lines, over = _table(a.answers)
    with capsys.disabled():
        print(f"\nanswer-size rule: JSON <= {FACTOR} x text + {SLACK} chars ({SLACK_TOKENS} o200k tokens)")
        print("\n".join(lines))
        for action, text, js, _ in a.answers:
            if os.environ.get("LEAN_SHOW") and action in os.environ["LEAN_SHOW"].split(","):
                print(f"--- {action}\n{text}\n{js}")
    assert not missing, f"actions this test does not drive: {missing}"
    assert not over, "answers over the rule:\n" + "\n".join(over)
