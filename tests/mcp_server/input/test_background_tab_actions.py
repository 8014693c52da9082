"""Acting in a tab the user is not looking at, through the real MCP client, on both targets.

The tab under test is put in the background the way a user does it (another tab activated,
here through ``/json/activate``): it reports ``document.visibilityState == "hidden"`` and gets
no animation frames, which is where Playwright's clicks used to time out. Every uid and
selector action must work there, in out-of-process iframes too, and leave the tab the user
looks at in front. Timings are measured in tests/bench/background_input.py, not here.
"""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

import anyio
import pytest
from background_tabs import (
    CALL,
    activate,
    agent_in_hidden_tab,
    front_tab,
    interact,
    interact_err,
    open_in_front,
    uid_of,
    visibility,
)
from faults_util import UserTabs, serving
from httpserver import Reply, Request
from lean_util import assert_lean, records

from targets.errors import ErrorCode


def _route_save(http_server: Any) -> list[dict[str, list[str]]]:
    posts: list[dict[str, list[str]]] = []

    def save(req: Request) -> Reply:
        posts.append(urllib.parse.parse_qs(req.body.decode()))
        return Reply(302, "", headers={"Location": "/bg/done.html?saved=1"})

    http_server.route("/bg/save", save)
    return posts


BOTH = pytest.mark.parametrize("users_chrome", ["headless", "headful"], indirect=True)


@BOTH
async def test_users_chrome_background_tab_fill_click_and_submit(users_chrome, http_server, tmp_path):
    posts = _route_save(http_server)
    user = UserTabs(users_chrome.http_url)
    form_tab = await user.open(http_server.url("/bg/form.html"))
    front_tab = await user.open(http_server.url("/faults/tab.html?name=front"))
    await activate(users_chrome.http_url, front_tab)
    assert await visibility(users_chrome.http_url, form_tab) == "hidden"

    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=users_chrome.http_url)
        await agent.s("select_page_by_title", title_contains="Change client")
        assert await agent.js("document.visibilityState") == "hidden"
        assert (
            await agent.js(
                "new Promise(r => { requestAnimationFrame(() => r('raf')); setTimeout(() => r('none'), 300); })"
            )
            == "none"
        )
        snap = await agent.s("snapshot", interactive_only=True)

        # fill, select, check by uid
        await interact(agent, "fill_uid", uid=uid_of(snap, "textbox", "Name"), value="Grace Hopper")
        await interact(agent, "fill_uid", uid=uid_of(snap, "combobox", "Country"), value="France")
        checked = await interact(agent, "fill_uid", uid=uid_of(snap, "checkbox", "VIP"), value="true")
        assert checked["did"] == "checked"

        # selector actions in the same hidden tab: hover reveals the menu, its link clicks
        await interact(agent, "hover", selector="#menu")
        assert await agent.js("getComputedStyle(document.getElementById('submenu')).display") == "block"
        await interact(agent, "click", selector="#export")
        assert await agent.js("document.title") == "exported"
        await interact(agent, "fill", selector="#notes", value="called twice")
        await interact(agent, "press_key", selector="#name", key="End")
        assert await agent.js("document.getElementById('log').textContent") == "End;"

        # the guarantees stay: covered and disabled elements are refused with the reason
        covered = await interact_err(
            agent, "click", ErrorCode.ELEMENT_NOT_INTERACTABLE, selector="#covered", timeout_ms=300
        )
        assert 'is covered by <div id="overlay">' in covered["message"]
        disabled = await interact_err(
            agent, "click", ErrorCode.ELEMENT_NOT_INTERACTABLE, selector="#disabled", timeout_ms=300
        )
        assert "is disabled" in disabled["message"]
        assert await agent.js("document.title") == "exported"  # neither click went through

        # submit by uid: the POST and its 302 lead the answer, then the page load
        result = await agent.call("browser_interact", CALL, action="click_uid", uid=uid_of(snap, "button", "Save"))
        assert not result.is_error, result.content[0].text
        saved = assert_lean(result)
        followed = saved["followed"]
        assert followed["navigation"]["to"].endswith("/bg/done.html?saved=1"), followed
        first = records(followed, "requests")[0]
        assert (first["method"], first["status"]) == ("POST", 302) and first["url"].endswith("/bg/save"), followed
        # the text says what was done, then on its own line what followed (the JSON: message, then rows)
        done, then = result.content[0].text.split("\n")
        # the message sums it up; the text's first line says it whole
        assert done.startswith(saved["message"].rstrip("…")), result.content[0].text
        assert done.startswith("clicked [uid="), result.content[0].text
        assert "POST /bg/save -> 302 (document)" in then, then
        assert "payload: csrfmiddlewaretoken=[redacted]&name=Grace+Hopper" in then, then
        # then the document it loaded, the static files only counted, and the page's console error
        second = records(followed, "requests")[1]
        assert (second["method"], second["status"], second["type"]) == ("GET", 200, "document"), followed
        assert sum(followed["static"].values()) >= 16 and followed["requestCount"] >= 18, followed
        assert [text for _id, _type, text in followed["consoleErrors"]] == ["client cache is stale"], followed
        assert "console error #" in then and "page says: 'client cache is stale'" in then
        assert posts and posts[-1]["name"] == ["Grace Hopper"] and posts[-1]["country"] == ["fr"]
        assert posts[-1]["vip"] == ["on"] and posts[-1]["notes"] == ["called twice"]

    # the user still sees the tab they chose; ours stayed in the background
    assert await visibility(users_chrome.http_url, front_tab) == "visible"
    assert await visibility(users_chrome.http_url, form_tab) == "hidden"


@BOTH
async def test_users_chrome_background_tab_out_of_process_iframe(users_chrome, http_server, tmp_path):
    user = UserTabs(users_chrome.http_url)
    host = await user.open(http_server.url("/bg/frame_parent.html"))
    front = await user.open(http_server.url("/faults/tab.html?name=front"))
    await activate(users_chrome.http_url, front)

    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=users_chrome.http_url)
        await agent.s("select_page_by_title", title_contains="Frame host")
        assert await agent.js("document.visibilityState") == "hidden"
        snap = await agent.s("snapshot")
        frames = [line["name"] for line in records(snap, "lines") if line["role"] == "frame"]  # frame headers
        assert any("http://localhost:" in name for name in frames), snap["lines"]
        await interact(agent, "fill_uid", uid=uid_of(snap, "textbox", ""), value="Rome")
        await interact(agent, "click_uid", uid=uid_of(snap, "button", "OK"))
        after = await agent.s("snapshot")
        assert any(line.get("name") == "ok clicked: Rome" for line in records(after, "lines")), after["lines"]

        # the same by selector in the selected frame
        frames = (await agent.s("list_frames"))["frames"]
        index = next(f["frame_index"] for f in frames if (f.get("url") or "").startswith("http://localhost:"))
        await agent.s("select_frame", frame_index=index)
        await interact(agent, "fill", selector="#city", value="Milan")
        await interact(agent, "click", selector="#ok")
        assert await agent.js("document.getElementById('ok').textContent") == "ok clicked: Milan"
    assert await visibility(users_chrome.http_url, front) == "visible"
    assert await visibility(users_chrome.http_url, host) == "hidden"


async def test_internal_browser_background_tab(http_server, tmp_path):
    # Playwright emulates focus on the internal browser's pages (they report "visible" even behind
    # another tab); the actions must not depend on it, nor bring the tab to front.
    posts = _route_save(http_server)
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("navigate", url=http_server.url("/bg/form.html"))
        cdp_url = agent.manager.launch.cdp_url
        assert cdp_url
        other = await open_in_front(cdp_url)
        await agent.s("select_page_by_title", title_contains="Change client")
        assert await front_tab(cdp_url) == other
        snap = await agent.s("snapshot", interactive_only=True)
        await interact(agent, "fill_uid", uid=uid_of(snap, "textbox", "Name"), value="Linus")
        await interact(agent, "hover_uid", uid=uid_of(snap, "textbox", "Name"))
        await interact(agent, "click", selector="#vip")
        pressed = await interact(agent, "press_uid", uid=uid_of(snap, "textbox", "Name"), key="Enter")
        assert records(pressed["followed"], "requests")[0]["method"] == "POST"
        assert posts and posts[-1]["name"] == ["Linus"] and posts[-1]["vip"] == ["on"]
        assert await front_tab(cdp_url) == other


async def test_a_click_that_opens_a_tab_says_which(users_chrome, http_server, tmp_path):
    """A report link with target=_blank and a button that calls window.open, in a background tab of the
    user's Chrome: the click's answer names the tab each opened (it used to say 'nothing observable
    followed'), and the agent can select it; a click that opens nothing names no tab."""
    http_server.route("/bg/report.html", Reply(200, "<!doctype html><title>Monthly report</title><h1>Report</h1>"))
    http_server.route(
        "/bg/reports.html",
        Reply(
            200,
            "<!doctype html><title>Reports</title><a id=open href='/bg/report.html?m=1' target='_blank'>March</a>"
            "<button id=pop onclick=\"window.open('/bg/report.html?m=2')\">April</button><button id=none>Help</button>",
        ),
    )
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, "/bg/reports.html", "Reports") as agent:
        for selector, month in (("#open", 1), ("#pop", 2)):
            result = await agent.call("browser_interact", CALL, action="click", selector=selector)
            url = http_server.url(f"/bg/report.html?m={month}")
            assert result.structured_content["followed"]["newTabs"] == [{"url": url, "title": "Monthly report"}]
            assert f"opened a new tab: {url} (Monthly report)" in result.content[0].text
            assert_lean(result)
        quiet = await interact(agent, "click", selector="#none")
        assert "newTabs" not in quiet.get("followed", {})
        picked = await agent.s("select_page_by_url", url_contains="report.html?m=2")
        assert picked["selected"]["url"] == http_server.url("/bg/report.html?m=2")
        assert await agent.js("document.title") == "Monthly report"


_EXPORTS = (
    "<!doctype html><title>Exports</title><a id=csv href='/bg/export.csv?month=3'>Export CSV</a>"
    "<form method=post action='/bg/export-post.csv'><input name=q value=open><button id=post>Export</button></form>"
    "<button id=blob onclick=\"const a = document.createElement('a');"
    " a.href = window.URL.createObjectURL(new Blob(['id\\n1\\n'])); a.download = 'made-here.csv'; a.click()\">"
    "Save table</button>"
)


def _route_exports(http_server: Any) -> None:
    http_server.route("/bg/exports.html", Reply(200, _EXPORTS))
    for path, name in (("/bg/export.csv", "march.csv"), ("/bg/export-post.csv", "open.csv")):
        attachment = {"Content-Disposition": f"attachment; filename={name}"}
        http_server.route(path, Reply(200, "id\n1\n", "text/csv", headers=attachment))


async def test_an_export_click_says_it_brought_a_download_not_a_failure(users_chrome, http_server, tmp_path):
    """Export buttons of a report page, in a background tab of the user's Chrome: a link to a CSV, a form
    POST answered with an attachment, and a file the page makes itself (a blob). Chrome ends the request
    of a download with net::ERR_ABORTED; the click's answer said 'failed (net::ERR_ABORTED)', and the
    page-made file was not mentioned at all. Each now says which download it started, in both renderings,
    and network_list / network_get say so too."""
    _route_exports(http_server)
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, "/bg/exports.html", "Exports") as agent:
        for selector, method, path, name in (
            ("#csv", "GET", "/bg/export.csv?month=3", "march.csv"),
            ("#post", "POST", "/bg/export-post.csv", "open.csv"),
        ):
            result = await agent.call("browser_interact", CALL, action="click", selector=selector)
            text, followed = result.content[0].text, result.structured_content["followed"]
            assert f"{method} {path} -> 200, a download ({name})" in text, text
            assert "failed" not in text and "ERR_ABORTED" not in text, text
            (row,) = [r for r in followed["requests"] if r[4] == path]
            assert row[2] == 200 and row[5]["download"] == name and "failed" not in row[5], row
            assert "downloads" not in followed  # the request row says it once
            assert_lean(result)
            if selector == "#post":
                await agent.s("navigate", url=http_server.url("/bg/exports.html"))

        made = await agent.call("browser_interact", CALL, action="click", selector="#blob")
        assert made.structured_content["followed"]["downloads"] == [{"file": "made-here.csv"}]
        assert "started a download: made-here.csv" in made.content[0].text

        listed = await agent.s("network_list", url_contains="export.csv")
        assert [(r["url"], r.get("download"), r.get("failed")) for r in records(listed)] == [
            ("/bg/export.csv?month=3", "march.csv", None)
        ]
        full = await agent.s("network_get", id=records(listed)[0]["id"])
        assert full["entry"]["download"] == "march.csv" and "failed" not in full["entry"], full

        # The internal browser saves the download where read_downloaded_file reads: the answer's name is the file's.
        await agent.s("use_launch_browser")
        await agent.s("navigate", url=http_server.url("/bg/exports.html"))
        saved = await agent.call("browser_interact", CALL, action="click", selector="#csv")
        assert "-> 200, a download (march.csv)" in saved.content[0].text, saved.content[0].text
        for _ in range(100):
            files = [path for path, _ in (await agent.s("read_downloaded_file")).get("files", [])]
            if "march.csv" in files:
                break
            await anyio.sleep(0.05)
        assert "march.csv" in files


_CF_ERROR = (
    "<!DOCTYPE html><html><head><title>Error Occurred While Processing Request</title><style>"
    + "table.cfdump { border: 1px solid #ccc; font-family: verdana; }\n" * 400
    + "</style><script>function toggle(){}</script></head><body><h1>Error Occurred While Processing Request</h1>"
    "<table><tr><th>Message:</th><td>The value x cannot be converted to a number.</td></tr>"
    "<tr><th>Template:</th><td>/app/ordini/save.cfm, line 42</td></tr></table></body></html>"
)
_ORDERS = (
    '<!doctype html><title>Ordini</title><input id=qta value=x><button id=save onclick="doSave()">Salva</button>'
    "<script>function doSave() { fetch('/bg/save.cfm', {method: 'POST', body: 'qta=x'}).then(r => r.text());"
    " fetch('/bg/login.json', {method: 'POST', body: 'user=ada'}).then(r => r.json()); }</script>"
)


async def test_an_error_page_is_previewed_as_its_text_not_its_stylesheet(users_chrome, http_server, tmp_path):
    """A ColdFusion error page answers the save with 20 KB of CSS before its message. The bundle's and
    network_save_body's previews showed the first characters of the body: CSS. They show the page's title
    and visible text now, and a JSON answer's token is masked inline, while the saved file keeps both bodies
    as the server sent them."""
    token = "tok-6f1e2d3c4b5a69788796a5b4c3d2e1f0"
    http_server.route("/bg/ordini.html", Reply(200, _ORDERS))
    http_server.route("/bg/save.cfm", Reply(500, _CF_ERROR))
    expired = f'{{"error": "expired", "access_token": "{token}"}}'
    http_server.route("/bg/login.json", Reply(401, expired, "application/json"))
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, "/bg/ordini.html", "Ordini") as agent:
        await interact(agent, "click", selector="#save")
        for _ in range(100):
            posts = {r["url"]: r for r in records(await agent.s("network_list", method="POST"))}
            if len(posts) == 2:
                states = [(await agent.s("network_get", id=r["id"]))["entry"].get("bodyState") for r in posts.values()]
                if states == ["held", "held"]:
                    break
            await anyio.sleep(0.05)

        result = await agent.call("browser_session", CALL, action="debug_bundle")
        errors = {r["url"]: r for r in records(result.structured_content["network"], "httpErrors")}
        # an error page is said by its server error line (the preview would repeat it)
        said = errors["/bg/save.cfm"]["serverError"]
        assert "cannot be converted" in said and "response" not in errors["/bg/save.cfm"], errors
        message = "Error Occurred While Processing Request\nMessage: The value x cannot be converted"
        text = result.content[0].text
        assert "font-family" not in text and "cannot be converted to a number" in text
        assert token not in result.content[0].text + json.dumps(result.structured_content)
        assert '"access_token":"[redacted]"' in errors["/bg/login.json"]["response"].replace(" ", "")
        # The last fetch is one of the HTTP errors above: named, its preview not printed twice.
        last = result.structured_content["network"]["lastXhrOrFetch"]
        assert last == [posts["/bg/login.json"]["id"]], last  # its row is above: named by id
        assert f"last xhr/fetch: #{last[0]}, shown above" in text and text.count("expired") == 1, text

        # network_get shows the same answer, without a save first.
        got = await agent.call("browser_session", CALL, action="network_get", id=posts["/bg/save.cfm"]["id"])
        assert got.structured_content["entry"]["response"].startswith(message), got.structured_content
        assert f"response (the page text): {message}" in got.content[0].text
        assert_lean(got)
        got = await agent.call("browser_session", CALL, action="network_get", id=posts["/bg/login.json"]["id"])
        assert '"access_token": "[redacted]"' in got.content[0].text and token not in json.dumps(got.structured_content)
        saved = await agent.s("network_save_body", id=posts["/bg/save.cfm"]["id"])
        assert saved["previewIsPageText"] is True and "line 42" in saved["preview"], saved
        assert (tmp_path / "artifacts" / saved["relativePath"]).read_text() == _CF_ERROR
        login = await agent.call("browser_session", CALL, action="network_save_body", id=posts["/bg/login.json"]["id"])
        assert token not in login.content[0].text + json.dumps(login.structured_content)
        assert token in (tmp_path / "artifacts" / login.structured_content["relativePath"]).read_text()


async def test_a_log_call_the_page_never_reads_holds_neither_a_click_nor_network_idle(
    users_chrome, http_server, tmp_path
):
    """A page that fires a fetch() and never reads its answer (a log call): Chrome ends such a request
    only when its body is read, so it never ended. wait_for network_idle timed out on that page, and every
    click that fired one waited the settle's whole bound. Neither waits for it now; a request that is
    still waiting for its answer is still waited for."""
    http_server.route(
        "/bg/logging.html",
        Reply(
            200,
            "<!doctype html><title>Logging</title><button id=go onclick=\"fetch('/bg/log', {method: 'POST',"
            " body: 'clicked'})\">Go</button><script>fetch('/bg/log', {method: 'POST', body: 'loaded'})</script>",
        ),
    )
    http_server.route("/bg/log", Reply(200, "logged"))
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, "/bg/logging.html", "Logging") as agent:
        clicked = await interact(agent, "click", selector="#go")
        assert [r[4] for r in clicked["followed"]["requests"]] == ["/bg/log"]
        logged = records(await agent.s("network_list", url_contains="/bg/log"))
        assert logged and all(r["status"] == 200 for r in logged)
        assert "durationMs" not in (await agent.s("network_get", id=logged[-1]["id"]))["entry"]  # never ended
        idle = await agent.call("browser_session", CALL, action="wait_for", network_idle=True, timeout_ms=8000)
        assert not idle.is_error, idle.content[0].text
        assert idle.structured_content["state"]["inFlight"] == 0


async def test_a_click_that_loads_a_frame_names_the_frame_and_where_it_went(users_chrome, http_server, tmp_path):
    """A legacy back office: a menu, and the work in a frame named main. Posting the frame's form loads
    the answer into that frame; the click said only which request it sent. It now says which frame moved
    and where, in both renderings; a click that moves no frame says none."""
    http_server.route(
        "/bg/office.html",
        Reply(200, "<!doctype html><title>Back office</title><button id=menu>Menu</button>"
              "<iframe name=main src='/bg/edit.html' width=600 height=200></iframe>"),
    )  # fmt: skip
    http_server.route(
        "/bg/edit.html",
        Reply(200, "<!doctype html><title>Edit</title><form method=post action='/bg/saved.html'>"
              "<input name=code value=X12><button>Confirm</button></form>"),
    )  # fmt: skip
    http_server.route("/bg/saved.html", Reply(200, "<!doctype html><title>Saved</title><p>Saved"))
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, "/bg/office.html", "Back office") as agent:
        snap = await agent.s("snapshot")
        confirm = uid_of(snap, "button", "Confirm")
        quiet = await interact(agent, "click", selector="#menu")
        assert "frameNavigations" not in quiet.get("followed", {})
        result = await agent.call("browser_interact", CALL, action="click_uid", uid=confirm)
        followed = result.structured_content["followed"]
        assert followed["frameNavigations"] == [{"frame": "main", "to": "/bg/saved.html"}], followed
        assert "navigation" not in followed  # the page itself stayed
        assert "frame main navigated to /bg/saved.html" in result.content[0].text, result.content[0].text
        assert_lean(result)


_CLIENT_FORM = (
    "<form method=post action='/bg/client-saved.html'><label>Email <input name=email type=email required></label>"
    "<label>ZIP <input name=zip pattern='[0-9]{5}' value='abc'></label><button>Save</button></form>"
)


async def test_a_submit_the_browsers_form_check_stops_says_which_fields(users_chrome, http_server, tmp_path):
    """Save on a form with an empty required field and a value that fails its pattern: Chrome sends
    nothing and shows a bubble, and the click's answer said 'nothing observable followed'. It now names
    each rejected field with the browser's message, in the page and in a frame of it; once the fields
    are right, the form is sent and no field is named."""
    http_server.route("/bg/client.html", Reply(200, f"<!doctype html><title>Client</title>{_CLIENT_FORM}"))
    http_server.route("/bg/client-frame.html", Reply(200, f"<!doctype html><title>Framed</title>{_CLIENT_FORM}"))
    http_server.route(
        "/bg/client-host.html",
        Reply(200, "<!doctype html><title>Client host</title><iframe name=work src='/bg/client-frame.html'></iframe>"),
    )
    http_server.route("/bg/client-saved.html", Reply(200, "<!doctype html><title>Saved</title><p>saved"))
    expected = [
        {"field": "Email", "message": "Please fill out this field."},
        {"field": "ZIP", "message": "Please match the requested format."},
    ]
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, "/bg/client.html", "Client") as agent:
        result = await agent.call("browser_interact", CALL, action="click", selector="button")
        assert result.structured_content["followed"]["invalidFields"] == expected, result.structured_content
        assert (
            "the browser's own form check stopped the submit (Email: Please fill out this field.; "
            "ZIP: Please match the requested format.)" in result.content[0].text
        ), result.content[0].text
        assert_lean(result)

        await agent.s("navigate", url=http_server.url("/bg/client-host.html"))
        snap = await agent.s("snapshot")
        framed = await agent.call("browser_interact", CALL, action="click_uid", uid=uid_of(snap, "button", "Save"))
        assert framed.structured_content["followed"]["invalidFields"] == expected, framed.structured_content

        await interact(agent, "fill_uid", uid=uid_of(snap, "textbox", "Email"), value="ada@example.com")
        await interact(agent, "fill_uid", uid=uid_of(snap, "textbox", "ZIP"), value="20121")
        sent = await interact(agent, "click_uid", uid=uid_of(snap, "button", "Save"))
        assert "invalidFields" not in sent["followed"], sent
        assert sent["followed"]["frameNavigations"] == [{"frame": "work", "to": "/bg/client-saved.html"}], sent


_TABLE_FORM = """<!doctype html><title>Registry</title><form method=post action='/bg/registry-saved.html'><table>
<tr><td>Company name</td><td><input name=company value="ACME SRL"></td></tr>
<tr><td>VAT number:</td><td><input id=vat></td></tr>
<tr><td>Province</td><td><select name=province><option>MI</option><option>RM</option></select></td></tr>
<tr><td><input type=checkbox name=vip> VIP</td><td><input name=remember_token type=checkbox></td></tr>
<tr><td><label>Notes <textarea name=notes></textarea></label></td><td><input type=submit value=Save></td></tr>
</table></form>"""


async def test_a_bare_field_of_a_table_form_is_named_by_its_form_name(users_chrome, http_server, tmp_path):
    """A legacy form lays its labels out in the table cell beside each input: the inputs have no
    accessible name, and an interactive_only snapshot listed 'textbox', 'textbox', 'combobox' with
    nothing to tell them apart. A control without a name now shows its form field name (or id), the
    name its value is posted under; a named control shows none, and no value appears that was not."""
    http_server.route("/bg/registry.html", Reply(200, _TABLE_FORM))
    async with agent_in_hidden_tab(users_chrome, http_server, tmp_path, "/bg/registry.html", "Registry") as agent:
        result = await agent.call("browser_session", CALL, action="snapshot", interactive_only=True)
        text = result.content[0].text
        bare = ('textbox field="company" value="ACME SRL"', 'textbox field="vat" value=""', 'combobox field="province"')
        assert all(line in text for line in bare), text
        assert 'checkbox field="vip"' in text and 'checkbox field="remember_token"' in text, text
        assert 'field="remember_token" value' not in text  # a checkbox has no value to show, masked or not
        assert 'textbox "Notes" value=""' in text and 'field="notes"' not in text, text
        rows = {row[2]: row for row in result.structured_content["lines"]}
        company = next(row for row in rows.values() if len(row) > 3 and row[3].get("field") == "company")
        assert company[:2] == ["textbox", ""] and company[3]["value"] == "ACME SRL", company
        assert_lean(result)
        await interact(agent, "fill_uid", uid=company[2], value="ACME SPA")
        sent = await interact(agent, "click", selector="input[type=submit]")
        (post,) = [r for r in sent["followed"]["requests"] if r[1] == "POST"]
        assert "company=ACME+SPA" in post[5]["postDataPreview"], post  # the name the snapshot showed
