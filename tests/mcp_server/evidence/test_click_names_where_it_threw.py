"""A click whose handler throws says where it threw, in its own answer ("why does Save do nothing?").

Before, the click's follow-up named ``console pageerror #1`` and its message; the line that threw
took a console_get more. The place is the uncaught error's top frame; a ``console.error`` line keeps
only its text (its frame is where it was logged, not where it failed).
"""

from __future__ import annotations

from pathlib import Path

from background_tabs import activate, visibility
from faults_util import UserTabs, serving
from httpserver import Reply

PAGE = """<!doctype html><title>New order</title>
<form><label>Customer <input id="customer" value="ACME"></label>
<button type="button" id="save">Save order</button></form>
<script src="/throw/orders.js"></script>"""
SCRIPT = """function readOrder() {
  return { customer: document.getElementById("customer").value, discount: document.getElementById("discount").value };
}
function saveOrder() {
  console.error("saving is off for test");
  const order = readOrder();
  fetch("/throw/save", { method: "POST", body: JSON.stringify(order) });
}
document.getElementById("save").addEventListener("click", saveOrder);
"""


async def test_the_click_answer_names_the_frame_that_threw(users_chrome, http_server, tmp_path: Path):
    """The user's Chrome with a window (headful, Xvfb), the order form in a background tab that loaded hidden."""
    http_server.route("/throw/order.html", lambda req: Reply(200, PAGE))
    http_server.route("/throw/orders.js", lambda req: Reply(200, SCRIPT, content_type="text/javascript"))
    user = UserTabs(users_chrome.http_url)
    front = await user.open(http_server.url("/faults/tab.html?name=front"))
    await activate(users_chrome.http_url, front)
    order = await user.open(http_server.url("/throw/order.html"), background=True)
    assert await visibility(users_chrome.http_url, order) == "hidden"
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=users_chrome.http_url, url_contains="/throw/order.html")
        result = await agent.call("browser_interact", action="click", selector="#save")
        assert not result.is_error, result.content[0].text
        text, followed = result.content[0].text, result.structured_content["followed"]
    # clicked where the user left it: the tab got the click without coming to the front
    assert await visibility(users_chrome.http_url, order) == "hidden"
    rows = {row[1]: row for row in followed["consoleErrors"]}
    # the uncaught error: its message and the function, file and line that threw (line 2 of orders.js)
    assert "Cannot read properties of null" in rows["pageerror"][2], rows
    assert rows["pageerror"][3].startswith("readOrder (/throw/orders.js:2:"), rows
    assert "thrown at readOrder (/throw/orders.js:2:" in text, text
    # the logged line: its text only (no place of the console.error call passed off as a throw)
    assert rows["error"][2] == "saving is off for test" and len(rows["error"]) == 3, rows
    assert "POST" not in text  # nothing was sent: the handler stopped before fetch
