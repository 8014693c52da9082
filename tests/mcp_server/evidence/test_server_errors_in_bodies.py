"""A server's error printed into a response is named with its file and line, beside the request.

The case of every PHP shop: a notice is printed before the JSON of an AJAX save, the status is
200, and the page dies on ``JSON.parse`` with "Unexpected token '<'", which points at the page's
script. The end-to-end tests run in a hidden tab of the user's Chrome; the error pages of the
other runtimes are read on their own, in the markup those servers send.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from background_tabs import CALL, agent_in_hidden_tab
from httpserver import Reply
from lean_util import assert_lean, records

from mcp_server.evidence.body_preview import html_text
from mcp_server.evidence.server_errors import server_error_in, server_error_stack

PHP_NOTICE = (
    "<br />\n<b>Warning</b>:  Undefined variable $qty in <b>/var/www/html/stock/save.php</b> on line <b>42</b><br />\n"
    '{"ok":true,"id":17}'
)
STOCK_PAGE = """<!doctype html><title>Stock</title>
<label>Qty <input id=qty value=3></label>
<button onclick="fetch('/stock/save.php',{method:'POST',body:new URLSearchParams({qty:qty.value})})
  .then(r => r.json()).then(d => { msg.textContent = 'Saved ' + d.id })">Save</button>
<p id=msg></p>"""

ASPNET_YSOD = (
    """<html><head><title>Object reference not set to an instance of an object.</title>
<style>body {font-family:"Verdana";font-weight:normal;font-size: .7em;color:black;} </style></head>
<body bgcolor="white"><span><H1>Server Error in '/' Application.<hr width=100% size=1 color=silver></H1>
<h2> <i>Object reference not set to an instance of an object.</i> </h2></span>
<font face="Arial, Helvetica, Geneva, SunSans-Regular, sans-serif ">
<b> Description: </b>An unhandled exception occurred during the execution of the current web request.<br><br>
<b> Exception Details: </b>System.NullReferenceException: Object reference not set to an instance of an object.<br><br>
<b>Source Error:</b> <br><br><table width=100% bgcolor="#ffffcc"><tr><td><code><pre>
Line 41:     var customer = Customers.Find(id);
Line 42:     lblName.Text = customer.Name;</pre></code></td></tr></table><br>
<b> Source File: </b> c:\\inetpub\\wwwroot\\Orders\\Orders.aspx.cs<b> &nbsp;&nbsp; Line: </b> 42
<br><br><b>Stack Trace:</b> <br><br>"""
    + "<pre>   at Orders.Page_Load(Object sender, EventArgs e)</pre>" * 40
    + "</body></html>"
)

ORDER_FORM = """<!doctype html><title>Orders</title>
<form method=post action="/wf/Orders.aspx"><input name=id value=7><button>Open</button></form>"""


async def test_a_php_notice_before_the_json_of_a_save_is_named_with_its_file_and_line(
    fresh_chromium, http_server, tmp_path: Path
):
    http_server.route("/stock/page.html", Reply(200, STOCK_PAGE))
    http_server.route("/stock/save.php", Reply(200, PHP_NOTICE))  # PHP's default: text/html
    said = "PHP Warning: Undefined variable $qty (/var/www/html/stock/save.php:42)"
    async with agent_in_hidden_tab(fresh_chromium, http_server, tmp_path, "/stock/page.html", "Stock") as agent:
        clicked = await agent.call("browser_interact", CALL, action="click", selector="button")
        assert not clicked.is_error, clicked.content[0].text
        text, followed = clicked.content[0].text, clicked.structured_content["followed"]
        (save,) = records(followed, "requests")
        assert save["status"] == 200 and followed["serverErrors"] == [[save["id"], said]], followed
        assert f"#{save['id']}'s response holds a server error, page says: {said!r}" in text, text
        assert "Unexpected token" in text, text  # the page's own failure is still said
        assert_lean(clicked)

        got = await agent.s("network_get", id=save["id"])
        assert got["entry"]["serverError"] == said, got

        bundle = await agent.call("browser_session", CALL, action="debug_bundle", include_snapshot=False)
        net = bundle.structured_content["network"]
        assert net["serverErrorCount"] == 1 and net["httpErrorCount"] == 0, net
        (row,) = net["serverErrors"]
        assert row[0] == save["id"] and row[-1]["serverError"] == said, row
        assert "1 answer(s) under 400 holding a server error" in bundle.content[0].text, bundle.content[0].text
        assert f"server error: {said}" in bundle.content[0].text, bundle.content[0].text
        assert_lean(bundle)


async def test_an_aspnet_error_page_after_a_post_names_the_exception_and_source_line(
    fresh_chromium, http_server, tmp_path: Path
):
    http_server.route("/wf/orders.html", Reply(200, ORDER_FORM))
    http_server.route("/wf/Orders.aspx", Reply(500, ASPNET_YSOD))
    said = (
        "ASP.NET: System.NullReferenceException: Object reference not set to an instance of an object. "
        "(c:\\inetpub\\wwwroot\\Orders\\Orders.aspx.cs:42)"
    )
    async with agent_in_hidden_tab(fresh_chromium, http_server, tmp_path, "/wf/orders.html", "Orders") as agent:
        clicked = await agent.call("browser_interact", CALL, action="click", selector="button")
        assert not clicked.is_error, clicked.content[0].text
        followed = clicked.structured_content["followed"]
        (post,) = [r for r in records(followed, "requests") if r["method"] == "POST"]
        assert post["status"] == 500 and [post["id"], said] in followed["serverErrors"], followed
        # The page's preview of 400 characters ends before the source file; the line names it.
        got = await agent.s("network_get", id=post["id"])
        assert got["entry"]["serverError"] == said and "Orders.aspx.cs" not in got["entry"]["response"], got
        read = await agent.call("browser_session", CALL, action="network_get", id=post["id"])
        assert f"server error: {said}" in read.content[0].text
        assert_lean(read)
        assert_lean(clicked)


DELETE_FORM = """<!doctype html><title>Order 4711</title>
<form method=post action="/orders/delete.php" onsubmit="return confirm('Delete order 4711?')">
<input type=hidden name=id value=4711><button>Delete</button></form>"""
PHP_FATAL_PAGE = (
    "<title>Error</title><p>Fatal error: Call to a member function delete() on null"
    " in /var/www/html/orders/delete.php on line 12</p>"
)


async def test_the_error_page_a_confirmed_delete_lands_on_is_named_when_the_dialog_is_accepted(
    fresh_chromium, http_server, tmp_path: Path
):
    """A fragment of a page, as PHP prints it with display_errors on, after a confirm() the agent accepts."""
    http_server.route("/orders/4711.html", Reply(200, DELETE_FORM))
    http_server.route("/orders/delete.php", Reply(500, PHP_FATAL_PAGE))
    said = "PHP Fatal error: Call to a member function delete() on null (/var/www/html/orders/delete.php:12)"
    async with agent_in_hidden_tab(fresh_chromium, http_server, tmp_path, "/orders/4711.html", "Order 4711") as agent:
        asked = await agent.call("browser_interact", CALL, action="click", selector="button")
        assert asked.structured_content["followed"]["dialog"]["type"] == "confirm", asked.content[0].text
        accepted = await agent.call("browser_session", CALL, action="handle_dialog", dialog_action="accept")
        assert not accepted.is_error, accepted.content[0].text
        followed = accepted.structured_content["followed"]
        found = records(followed, "requests")
        assert len(found) == 1, found
        (post,) = found
        assert followed["serverErrors"] == [[post["id"], said]], accepted.content[0].text
        assert f"server error, page says: {said!r}" in accepted.content[0].text


COLDFUSION = """<html><head><title>Error</title></head><body>
<font style="COLOR: black; FONT: 16pt/18pt verdana">Error Occurred While Processing Request</font>
<table><tr><td><font style="COLOR: black; FONT: 8pt/11pt verdana">Variable CUSTID is undefined.</font></td></tr>
<tr><td><font style="FONT: 8pt/11pt verdana"><br>The error occurred in
<b>D:/inetpub/wwwroot/orders/save.cfm: line 27</b><br></font></td></tr></table></body></html>"""
COLDFUSION_ROBUST_OFF = """<html><body><font style="FONT: 16pt/18pt verdana">The web site you are accessing has
experienced an unexpected error.<br>Please contact the website administrator.</font></body></html>"""
LUCEE = """<html><body><table><tr><td class="label">Lucee 5.3.10.120 Error (expression)</td></tr>
<tr><td class="label">Message</td><td>key [CUSTOMER] doesn't exist</td></tr>
<tr><td class="label">Stacktrace</td><td>The Error Occurred in<br><b>/var/www/orders/save.cfm: line 12</b></td></tr>
</table></body></html>"""
PHP_FATAL = (
    "<br />\n<b>Fatal error</b>:  Uncaught Error: Call to undefined function fetch_orders() in "
    "/var/www/html/orders.php:17\nStack trace:\n#0 {main}\n"
    "  thrown in <b>/var/www/html/orders.php</b> on line <b>17</b><br />"
)
PHP_PLAIN = "PHP Notice:  Undefined index: customer in /srv/app/api/orders.php on line 88\n[]"
PHP_NOTICES_THEN_FATAL = (
    "<b>Deprecated</b>:  Function utf8_encode() is deprecated in <b>/var/www/gestionale/lib/util.php</b> on line "
    '<b>12</b><br />\n<b>Warning</b>:  Undefined array key "note" in <b>/var/www/gestionale/salva.php</b> on line '
    "<b>40</b><br />\n<b>Fatal error</b>:  Uncaught PDOException: SQLSTATE[23000]: Integrity constraint violation in "
    "<b>/var/www/gestionale/salva.php</b> on line <b>87</b><br />"
)
PY_TRACE = (
    'Traceback (most recent call last):\n  File "/srv/app/views.py", line 88, in save\n'
    "    qty = data[\"qty\"]\nKeyError: 'qty'\n"
)
TOMCAT = """<html><head><title>HTTP Status 500 – Internal Server Error</title></head><body>
<h1>HTTP Status 500 – Internal Server Error</h1><p><b>Type</b> Exception Report</p>
<h3>Root Cause</h3><pre>java.lang.NullPointerException: Cannot invoke "String.length()" because "name" is null
\tat com.acme.orders.OrderServlet.doPost(OrderServlet.java:42)
\tat javax.servlet.http.HttpServlet.service(HttpServlet.java:681)</pre></body></html>"""


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (COLDFUSION, "ColdFusion: Variable CUSTID is undefined. (D:/inetpub/wwwroot/orders/save.cfm:27)"),
        (
            COLDFUSION_ROBUST_OFF,
            "ColdFusion: unexpected error, no details shown (robust exception information is off)",
        ),
        (LUCEE, "Lucee expression: key [CUSTOMER] doesn't exist (/var/www/orders/save.cfm:12)"),
        (
            PHP_FATAL,
            "PHP Fatal error: Uncaught Error: Call to undefined function fetch_orders() (/var/www/html/orders.php:17)",
        ),
        (
            PHP_NOTICES_THEN_FATAL,  # the error that stopped the script, not the notices printed before it
            "PHP Fatal error: Uncaught PDOException: SQLSTATE[23000]: Integrity constraint violation"
            " (/var/www/gestionale/salva.php:87)",
        ),
        (PHP_PLAIN, "PHP Notice: Undefined index: customer (/srv/app/api/orders.php:88)"),
        (PY_TRACE, "Python: KeyError: 'qty' (/srv/app/views.py:88)"),  # an exception's name is no secret field
        (
            TOMCAT,
            'Java: java.lang.NullPointerException: Cannot invoke "String.length()" because "name" is null'
            " (OrderServlet.java:42)",
        ),
    ],
    ids=[
        "coldfusion",
        "coldfusion-robust-off",
        "lucee",
        "php-fatal",
        "php-notices-then-fatal",
        "php-plain",
        "python",
        "tomcat",
    ],
)
def test_the_error_pages_of_each_runtime_are_read(body: str, said: str) -> None:
    text = html_text(body, 20_000) if "<" in body else body
    assert server_error_in(text) == said


@pytest.mark.parametrize(
    "body",
    [
        "<html><title>Help</title><p>Warning: your session will expire in 5 minutes.</p></html>",
        "<html><p>A java.util.ConcurrentModificationException is thrown when a list changes.</p></html>",
        "<html><p>Read the Traceback (most recent call last): section of the log.</p></html>",
        '{"status":"error","message":"Notice: qty must be positive"}',
    ],
    ids=["session-warning", "java-article", "traceback-howto", "json-error"],
)
def test_a_page_that_only_talks_about_errors_is_not_one(body: str) -> None:
    text = html_text(body, 20_000) if body.startswith("<") else body
    assert server_error_in(text) is None


PHP_UNCAUGHT = """<br />
<b>Fatal error</b>:  Uncaught Exception: Stock too low for A-1 in /var/www/html/lib/Stock.php:41
Stack trace:
#0 /var/www/html/lib/Order.php(88): Stock->reserve('A-1', 2, 'hunter2')
#1 /var/www/html/api/save.php(12): Order->place(Array)
#2 [internal function]: {closure}()
#3 {main}
  thrown in <b>/var/www/html/lib/Stock.php</b> on line <b>41</b><br />
"""
STACK = [
    "Stock->reserve(…) (/var/www/html/lib/Order.php:88)",
    "Order->place(…) (/var/www/html/api/save.php:12)",
    "{closure}() (internal)",
]


def test_a_php_fatal_stack_is_read_beyond_its_top_frame_without_argument_values() -> None:
    text = html_text(PHP_UNCAUGHT, 20_000)
    assert (
        server_error_in(text)
        == "PHP Fatal error: Uncaught Exception: Stock too low for A-1 (/var/www/html/lib/Stock.php:41)"
    )
    assert server_error_stack(text) == STACK
    # a warning's text followed by a trace of something else is no fatal's stack
    warning = "Warning: Undefined variable $x in /var/www/a.php on line 3\nStack trace:\n#0 /var/www/b.php(4): f()"
    assert server_error_stack(warning) == []


async def test_a_php_fatal_after_a_save_names_the_callers_below_its_top_frame(
    fresh_chromium, http_server, tmp_path: Path
):
    http_server.route("/stock/page.html", Reply(200, STOCK_PAGE))
    http_server.route("/stock/save.php", Reply(500, PHP_UNCAUGHT))
    async with agent_in_hidden_tab(fresh_chromium, http_server, tmp_path, "/stock/page.html", "Stock") as agent:
        clicked = await agent.call("browser_interact", CALL, action="click", selector="button")
        assert not clicked.is_error, clicked.content[0].text
        (save,) = records(clicked.structured_content["followed"], "requests")

        got = await agent.call("browser_session", CALL, action="network_get", id=save["id"])
        entry, text = got.structured_content["entry"], got.content[0].text
        assert entry["serverError"].startswith("PHP Fatal error: Uncaught Exception: Stock too low"), entry
        assert entry["serverErrorStack"] == STACK, entry
        assert "    at Order->place(…) (/var/www/html/api/save.php:12)" in text, text
        assert "hunter2" not in str(entry["serverErrorStack"])  # argument values are not quoted
        assert_lean(got)

        bundle = await agent.call("browser_session", CALL, action="debug_bundle", include_snapshot=False)
        (row,) = bundle.structured_content["network"]["httpErrors"]
        assert row[-1]["serverErrorStack"] == STACK, row
        assert "        at Order->place(…) (/var/www/html/api/save.php:12)" in bundle.content[0].text
        assert_lean(bundle)
