"""A request payload's preview shows what the user sent, not the state blobs posted before it.

ASP.NET WebForms posts ``__VIEWSTATE`` (kilobytes of base64) and ``__EVENTVALIDATION`` ahead of
the fields; a JSON save may carry a photo as a data URL. Cut to the list's 200 characters, the
preview used to be that blob and nothing else. The end-to-end test runs the usual WebForms
"auto-postback" (a select whose change submits the form) in a hidden tab of the user's Chrome.
"""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

from background_tabs import CALL, agent_in_hidden_tab, interact, uid_of
from httpserver import Reply, Request
from lean_util import assert_lean, records

from cdp_core.recorders.network.payload_preview import LONG_VALUE, payload_preview

VIEWSTATE = "/wEPDwUKLTE2NjY" + "QWxsIHRoZSBzdGF0ZSBvZiB0aGUgcGFnZQ" * 180  # 6,135 characters, base64-like
VALIDATION = "/wEdAAV" + "c3RhdGU" * 110

WEBFORM = f"""<!doctype html><title>Orders.aspx</title>
<form method=post action="/wf/Orders.aspx" id=form1>
<input type=hidden name="__EVENTTARGET" value="">
<input type=hidden name="__VIEWSTATE" value="{VIEWSTATE}">
<input type=hidden name="__EVENTVALIDATION" value="{VALIDATION}">
<label>Customer <input name="ctl00$Main$txtCustomer"></label>
<label>Amount <input name="ctl00$Main$txtAmount"></label>
<select name="ctl00$Main$ddlRegion" aria-label=Region
  onchange="form1.__EVENTTARGET.value=this.name; form1.submit()"><option>North<option>South</select>
</form>"""


async def test_a_webforms_postback_shows_the_fields_the_user_sent(fresh_chromium, http_server, tmp_path: Path):
    posted: list[str] = []

    def postback(req: Request) -> Reply:
        posted.append(req.body.decode())
        return Reply(200, "<title>Orders.aspx</title><p>Region changed</p>")

    http_server.route("/wf/Orders.aspx", postback)
    http_server.route("/wf/form.html", Reply(200, WEBFORM))
    async with agent_in_hidden_tab(fresh_chromium, http_server, tmp_path, "/wf/form.html", "Orders.aspx") as agent:
        await interact(agent, "fill", selector="input[name='ctl00$Main$txtCustomer']", value="ACME Ltd")
        await interact(agent, "fill", selector="input[name='ctl00$Main$txtAmount']", value="1250")
        region = uid_of(await agent.s("snapshot", interactive_only=True), "combobox", "Region")
        changed = await agent.call("browser_interact", CALL, action="select_option", uid=region, values=["South"])
        assert not changed.is_error, changed.content[0].text
        assert posted and urllib.parse.parse_qs(posted[0])["__VIEWSTATE"] == [VIEWSTATE]  # the page sent it whole

        # What the select's follow-up says the postback carried: every field the user set, in the
        # list's 200 characters, the blobs after them, shortened, with their lengths.
        text = changed.content[0].text
        for sent in ("ctl00$Main$txtCustomer=ACME+Ltd", "ctl00$Main$txtAmount=1250", "ctl00$Main$ddlRegion=South"):
            assert sent in text, text
        head = urllib.parse.quote_plus(VIEWSTATE)[:12]  # values as sent, urlencoded
        assert f"ctl00$Main$ddlRegion=South&__VIEWSTATE={head}…[{len(VIEWSTATE)} chars]" in text, text
        (row,) = [r for r in records(changed.structured_content["followed"], "requests") if r["method"] == "POST"]
        assert "ctl00$Main$ddlRegion=South" in row["postDataPreview"], row
        assert_lean(changed)

        listed = await agent.call("browser_session", CALL, action="network_list", method="POST")
        (entry,) = records(listed.structured_content)
        assert "ctl00$Main$txtCustomer=ACME+Ltd" in entry["postDataPreview"], entry
        assert "ctl00$Main$ddlRegion=South" in listed.content[0].text, listed.content[0].text

        got = await agent.s("network_get", id=entry["id"])
        payload = got["entry"]["postDataPreview"]
        assert "ctl00$Main$txtAmount=1250" in payload and payload.endswith(f"[{len(VALIDATION)} chars]"), payload
        assert len(payload) < 300, payload  # 7 KB as sent

        # The saved request body is the payload as sent, blobs and all.
        saved = await agent.s("network_save_body", id=entry["id"], body="request")
        on_disk = (tmp_path / "artifacts" / saved["relativePath"]).read_text()
        assert urllib.parse.parse_qs(on_disk)["__VIEWSTATE"] == [VIEWSTATE], on_disk[:200]


def test_long_values_are_shortened_and_secrets_stay_masked() -> None:
    photo = "data:image/png;base64," + "iVBORw0KGgo" * 500
    note = "Customer called about the March invoice and asked for a credit note. " * 3
    body = json.dumps({"name": "ACME", "photo": photo, "note": note, "password": "hunter2", "lines": [{"sku": "A1"}]})
    preview = json.loads(payload_preview(body, "application/json", 2048))
    assert preview["name"] == "ACME" and preview["lines"] == [{"sku": "A1"}] and preview["password"] == "[redacted]"
    assert preview["photo"] == f"data:image/p…[{len(photo)} chars]"  # a blob: its head only
    assert preview["note"] == f"{note[:60]}…[{len(note)} chars]"  # text: its first words

    short = "a=1&b=two"
    assert payload_preview(short, "application/x-www-form-urlencoded", 2048) == short
    blob = "%2F" + "x" * (LONG_VALUE + 20)  # the cut would fall inside an escape: it falls before it
    form = f"token=abc&state=xxxxxxxxxx{blob}&c%26d=1&bad%ff=2&user%20name=Ann"
    out = payload_preview(form, "application/x-www-form-urlencoded", 2048)
    assert out.startswith("token=[redacted]&c%26d=1&bad%ff=2&user%20name=Ann&"), out  # ambiguous names as sent
    assert out.endswith(f"&state=xxxxxxxxxx…[{10 + 1 + LONG_VALUE + 20} chars]"), out  # a long value goes last


def test_the_fields_that_name_the_operation_come_first() -> None:
    """Many calls to one endpoint (admin-ajax.php, a JSON-RPC URL) are told apart by their operation."""
    form = "_wpnonce=0a1b2c3d4e&post_ID=12&data%5Bwp-refresh-post-lock%5D=1&action=heartbeat&interval=60"
    said = payload_preview(form, "application/x-www-form-urlencoded", 200)
    assert said.startswith("action=heartbeat&"), said
    assert "post_ID=12" in said and "0a1b2c3d4e" not in said, said  # the nonce stays masked
    rpc = json.dumps({"jsonrpc": "2.0", "id": 3, "params": {"sku": "A-1", "qty": 2}, "method": "stock.reserve"})
    assert payload_preview(rpc, "application/json", 200).startswith('{"method":"stock.reserve",'), rpc
    gql = json.dumps({"query": "query GetUser { user { name } }", "variables": {}, "operationName": "GetUser"})
    assert payload_preview(gql, "application/json", 200).startswith('{"operationName":"GetUser",')
    # a field that only shares the name but holds an object stays where it was
    nested = json.dumps({"id": 1, "action": {"kind": "x"}})
    assert payload_preview(nested, "application/json", 200) == '{"id":1,"action":{"kind":"x"}}'
