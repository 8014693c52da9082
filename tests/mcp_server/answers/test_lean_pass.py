"""The lean pass and its helpers (pure logic), and the envelope that applies it to every answer."""

from __future__ import annotations

from pathlib import Path

from lean_util import assert_lean, empties
from pydantic import BaseModel

from mcp_server.answers.lean import Keep, hoist, lean, ms_since, rows, short_url
from mcp_server.server.envelope import ok_result
from mcp_server.server.registry import ActionResult


def test_lean_drops_null_false_and_empty_but_keeps_zero_and_empty_string():
    data = {
        "a": None,
        "b": False,
        "c": [],
        "d": {},
        "e": 0,
        "f": "",
        "g": True,
        "nested": {"x": None, "y": {"z": []}, "w": [None, {"v": None, "u": 1}]},
    }
    assert lean(data) == {"e": 0, "f": "", "g": True, "nested": {"w": [None, {"u": 1}]}}


def test_keep_passes_page_data_through():
    data = {"result": Keep({"value": None, "ok": False, "items": []}), "other": None}
    assert lean(data) == {"result": {"value": None, "ok": False, "items": []}}
    assert lean({"result": Keep(None)}) == {"result": None}


def test_models_are_dumped_then_leaned():
    class M(BaseModel):
        name: str
        note: str | None = None
        flag: bool = False

    assert lean({"m": M(name="x")}) == {"m": {"name": "x"}}


def test_rows_keep_column_order_and_put_sparse_keys_last():
    entries = [
        {"id": 1, "type": "log", "text": "hi"},
        {"id": 2, "type": "error", "text": "boom", "at": "/app.js:3", "replayed": False, "stack": []},
        {"id": 3, "text": "no type", "replayed": True},
        {"id": 4, "type": None},
    ]
    assert rows(entries, ["id", "type", "text"]) == [
        [1, "log", "hi"],
        [2, "error", "boom", {"at": "/app.js:3"}],
        [3, None, "no type", {"replayed": True}],
        [4],
    ]


def test_hoist_says_the_common_value_once():
    entries = [{"id": 1, "page": "/a"}, {"id": 2, "page": "/b"}, {"id": 3, "page": "/b"}]
    assert hoist(entries, "page") == "/b"
    assert entries == [{"id": 1, "page": "/a"}, {"id": 2}, {"id": 3}]
    entries = [{"id": 1, "page": "/a"}, {"id": 2, "page": "/b"}]
    assert hoist(entries, "page", "/b") == "/b" and entries == [{"id": 1, "page": "/a"}, {"id": 2}]
    assert hoist([{"id": 1}], "page") is None


def test_short_url_keeps_only_the_path_on_the_page_origin():
    base = "http://127.0.0.1:8080/app/edit.cfm?id=3"
    assert short_url("http://127.0.0.1:8080/api/save?x=1#f", base) == "/api/save?x=1#f"
    assert short_url("http://127.0.0.1:8080", base) == "/"
    assert short_url("http://127.0.0.1:9090/api", base) == "http://127.0.0.1:9090/api"
    assert short_url("https://127.0.0.1:8080/api", base) == "https://127.0.0.1:8080/api"
    assert short_url("data:text/plain,hi", base) == "data:text/plain,hi"
    assert short_url("", base) == "" and short_url("http://x/y", None) == "http://x/y"


def test_ms_since_reads_iso_and_epoch():
    assert ms_since("2026-01-01T00:00:01.250Z", "2026-01-01T00:00:00.000Z") == 1250
    assert ms_since(1000.5, 1000.0) == 500
    assert ms_since(None, "2026-01-01T00:00:00Z") is None and ms_since("junk", 1.0) is None


def test_ok_result_is_lean_and_keeps_the_envelope(tmp_path: Path):
    result = ActionResult(
        text="2 things",
        data={"items": [{"id": 1, "note": None}], "path": tmp_path, "empty": [], "hint": "do x", "status": 7},
    )
    answer = ok_result(result, {"entryTool": "browser_session", "action": "a", "legacyTool": None})
    sc = answer.structured_content
    assert sc["schemaVersion"] == "1" and sc["status"] == "ok" and sc["message"] == "2 things"
    assert sc["adapter"] == {"entryTool": "browser_session", "action": "a"}
    assert sc["items"] == [{"id": 1}] and sc["path"] == str(tmp_path) and "empty" not in sc
    assert sc["hint"] == "do x" and sc["data_status"] == 7  # ok answers may carry a hint; status is the envelope's
    assert empties(sc) == []
    assert_lean(answer)


def _parsed_short_url(url: str, base: str) -> str:
    """short_url by the parse alone: what the fast path for URLs on the page's origin must equal."""
    from urllib.parse import urlsplit

    if not url:
        return ""
    if not base:
        return url
    u, b = urlsplit(url), urlsplit(base)
    if u.scheme not in ("http", "https") or (u.scheme, u.netloc) != (b.scheme, b.netloc):
        return url
    return (u.path or "/") + (f"?{u.query}" if u.query else "") + (f"#{u.fragment}" if u.fragment else "")


def test_short_url_without_parsing_says_what_the_parse_says():
    bases = ["http://127.0.0.1:8000/x", "https://h.test", "http://H.test/", "ftp://a/b", "", "http://[::1]:9/a"]
    origins = ["http://127.0.0.1:8000", "http://127.0.0.1:80001", "https://h.test", "http://h.test", "http://H.test"]
    origins += ["HTTP://h.test", "http://[::1]:9", "http://u@h", "ftp://a", "about:blank", ""]
    tails = ["", "/", "/a", "/a?", "/a?#", "/a#", "/a?b#", "/a#b?c", "?x", "#y", "/a?x=1#f", "//x", "/%41"]
    for base in bases:
        for origin in origins:
            for tail in tails:
                assert short_url(origin + tail, base) == _parsed_short_url(origin + tail, base), (origin + tail, base)


def _reference_lean(value):
    """The lean rules written plainly (isinstance on every value), against the fast path."""
    if isinstance(value, Keep):
        return value.value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=True)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(item, Keep):
                out[key] = item.value
                continue
            item = _reference_lean(item)
            if item is None or item is False or item in ([], {}):
                continue
            out[key] = item
        return out
    if isinstance(value, (list, tuple)):
        return [_reference_lean(item) for item in value]
    return value


def test_lean_fast_path_follows_the_rules_on_random_answers():
    import random
    from collections import OrderedDict

    class Model(BaseModel):
        a: int | None = None
        b: list[int] = []

    rnd = random.Random(19)
    scalars = [None, False, True, 0, 1, "", "s", 1.5, [], {}, (), Model(), Model(a=2, b=[1])]

    def make(depth: int = 0):
        r = rnd.random()
        if depth > 3 or r < 0.4:
            return rnd.choice(scalars)
        if r < 0.6:
            return [make(depth + 1) for _ in range(rnd.randint(0, 4))]
        if r < 0.65:
            return tuple(make(depth + 1) for _ in range(rnd.randint(0, 3)))
        if r < 0.7:
            return OrderedDict((f"k{i}", make(depth + 1)) for i in range(rnd.randint(0, 3)))
        if r < 0.75:
            return {"kept": Keep(make(depth + 1))}
        return {f"k{i}": make(depth + 1) for i in range(rnd.randint(0, 5))}

    for _ in range(5000):
        value = make()
        assert lean(value) == _reference_lean(value), value


def test_wire_form_is_what_the_sdk_would_dump_of_the_answer():
    """The dict handed to the SDK equals its own dump of the answer, text, image and error alike."""
    from mcp_server.server.envelope import error_result, wire_form
    from targets.errors import ErrorCode, ToolFailure

    rows = Keep([[i, f"msg {i}"] for i in range(1, 4)])
    ok = ok_result(ActionResult(text="3 entries", data={"entries": rows, "total": 3}, plain=True), {"action": "x"})
    ok.content.append(ok_result(ActionResult(text="img", images=[("aGVsbG8=", "image/png")]), None).content[1])
    failed = error_result(ToolFailure(ErrorCode.INVALID_ARGUMENT, "bad", hint="fix it", field="url"), None)
    for answer in (ok, failed):
        # the light answer (tool_answer.py) against the SDK's own dump of the same CallToolResult
        sdk = answer.to_sdk()
        assert wire_form(answer) == sdk.model_dump(by_alias=True, mode="json", exclude_none=True)
        assert wire_form(sdk) == wire_form(answer)  # handed the SDK's model, the same dict
    assert wire_form(ok)["structuredContent"]["entries"] == [[1, "msg 1"], [2, "msg 2"], [3, "msg 3"]]
    assert [block["type"] for block in wire_form(ok)["content"]] == ["text", "image"]
    assert wire_form(failed)["isError"] is True


def test_console_list_names_the_other_page_of_each_entry_whatever_their_order():
    """The listing reuses the previous entry's place answer when its URLs are the same objects;
    entries of two pages and an iframe, interleaved, must each say where they came from."""
    from cdp_core.recorders.listing import Selection
    from mcp_server.answers.console import console_listing

    page, other, frame = "http://127.0.0.1:1/app.html", "http://127.0.0.1:1/login.html", "http://127.0.0.1:1/ad.html"
    places = [(page, page), (other, other), (page, page), (page, frame), (page, page), (other, other)]
    entries = [
        {"id": n + 1, "type": "log", "text": f"m{n}", "pageUrl": p, "frameUrl": f} for n, (p, f) in enumerate(places)
    ]
    text, data = console_listing(Selection(entries=entries), page_url=page, since=None, evicted=0, since_id=None)
    lines = text.splitlines()[1:]
    assert lines == [
        "#1 m0",
        "#2 m1 (page /login.html)",
        "#3 m2",
        "#4 m3 (frame /ad.html)",
        "#5 m4",
        "#6 m5 (page /login.html)",
    ]
    assert [row[-1] for row in data["entries"].value if isinstance(row[-1], dict)] == [
        {"page": "/login.html"},
        {"frame": "/ad.html"},
        {"page": "/login.html"},
    ]


def test_a_tab_with_no_document_yet_is_said_to_be_loading_not_shown_as_an_empty_url():
    from mcp_server.answers.pages import page_line

    loading = page_line({"page_id": 2, "stable_page_id": "p3", "title": "", "url": ""})
    assert loading == "  [2] p3 (no page loaded yet)"
    shown = page_line({"page_id": 0, "stable_page_id": "p1", "url": "http://127.0.0.1:1/a", "selected": True})
    assert shown == "* [0] p1 (untitled) <http://127.0.0.1:1/a>"


async def test_an_answered_request_whose_body_the_page_never_reads_does_not_hold_the_action():
    """A fire-and-forget fetch (a log call) ends only when the page reads its body, maybe never; the
    action's settle used to wait its whole bound (2 s per click) for it. Pure logic, on a stand-in
    recorder: a request still waiting for its answer holds the settle, an answered one only briefly."""
    import types

    import anyio

    from mcp_server.evidence.followup import BODY_GRACE_S, Followup

    class Requests:
        def __init__(self) -> None:
            self.rows: list[dict[str, object]] = []
            self.downloads: list[dict[str, object]] = []
            self.downloads_seen = 0

        def list(self, *, since_id: int | None = None, limit: int | None = None) -> list[dict[str, object]]:
            rows = [r for r in self.rows if since_id is None or int(r["id"]) > since_id]  # type: ignore[call-overload]
            return rows[-limit:] if limit else rows

    network = Requests()
    page = types.SimpleNamespace(url="http://127.0.0.1:1/p", data={"network": network})
    follow = Followup(page, None)  # type: ignore[arg-type]
    network.rows.append({"id": 1, "status": 200, "durationMs": None})  # answered, body never read
    with anyio.fail_after(10):  # the bound below is 30 s: waiting for the body fails here
        started = anyio.current_time()
        await follow.settle(max_s=30)
    assert anyio.current_time() - started >= BODY_GRACE_S  # the page had its moment to read it

    network.rows.append({"id": 2, "status": None, "durationMs": None})  # no answer yet: holds the settle
    with anyio.move_on_after(1) as waited:
        await follow.settle(max_s=30)
    assert waited.cancelled_caught


def test_an_html_body_is_previewed_as_what_its_reader_sees():
    from mcp_server.evidence.body_preview import readable_preview

    laravel = (
        b"<!DOCTYPE html>\n<html><head><title>Division by zero</title><style>" + b"body{margin:0}" * 2000
        + b"</style><script>window.x = '<p>not text</p>';</script></head><body><h1>Division by zero</h1>"
        b"<div class=trace><p>at <b>OrderController.php</b>:42</p><noscript>enable js</noscript></div>"
        b"<table><tr><th>Method</th><td>POST</td></tr></table></body></html>"
    )  # fmt: skip
    text, is_page = readable_preview(laravel, "text/html", 400)
    assert is_page and text == "Division by zero\nat OrderController.php:42\nMethod POST", text
    php = b"<br />\n<b>Fatal error</b>:  Uncaught Error: Call to undefined function foo() in /var/www/x.php:12"
    fatal = "Fatal error: Uncaught Error: Call to undefined function foo() in /var/www/x.php:12"
    assert readable_preview(php, "text/html", 400) == (fatal, True)
    long_page = b"<html><body>" + b"<p>line of text</p>" * 1000 + b"</body></html>"
    cut, _ = readable_preview(long_page, "text/html", 100)
    assert len(cut) == 101 and cut.endswith("\u2026")
    # not HTML: the text itself, its secrets masked; an HTML page sent as text/plain is still read as a page
    assert readable_preview(b'{"ok": false, "password": "pw-1"}', "application/json", 400) == (
        '{"ok": false, "password": "[redacted]"}',
        False,
    )
    assert readable_preview(b"<!doctype html><title>T</title><p>x", "text/plain", 400) == ("T\nx", True)


def test_an_entry_older_than_the_capture_says_how_much_older():
    from mcp_server.answers.lean import when_text

    assert when_text(238) == "t=+238 ms after capture start"
    assert when_text(0) == "t=+0 ms after capture start"
    assert when_text(-685) == "t=-685 ms: 685 ms before capture start"  # a replayed console entry


def test_the_envelope_message_is_the_first_lines_gist():
    """``message`` sums the answer up; the data holds the URL, title, status and times it would restate."""
    from mcp_server.server.envelope import MESSAGE_CHARS, summary

    assert summary("Navigated p1 (launch) to http://h/x (Title), HTTP 200\nmore") == "Navigated p1 (launch)…"
    assert summary("Went back to http://h/x (Gone), HTTP 404") == "Went back…"  # no dangling "to"
    assert summary("selected [0] p1 Edit <http://h/e> (captured since T)") == "selected [0] p1 Edit…"
    assert summary("picked (tab brought to front): [uid=4] textbox") == "picked (tab brought to front): [uid=4] textbox"
    assert summary("Opened p2 (launch) and selected it: <http://h/t>") == "Opened p2 (launch) and selected it…"
    assert summary("Restored 1 cookie(s) and 1 localStorage key(s)") == "Restored 1 cookie(s) and 1 localStorage key(s)"
    assert summary("echo abab") == "echo abab"
    long = summary("word " * 100)
    assert len(long) <= MESSAGE_CHARS and long.endswith("…")
