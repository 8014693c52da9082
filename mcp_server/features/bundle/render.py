"""``debug_bundle`` as the model reads it: the bundle's lean form, the same facts in text and JSON.

The collected bundle (bundle.py) keeps full records for bundle.json; here its errors, requests
and storage become the rows and lines console_list and network_list write, plus what only a
bundle has (the response preview and initiator of a failed request), and bundle.md. A request
whose error page yielded a server error line (a 500's PHP fatal error) is said by that line: the
preview would repeat it (the body stays held for network_get).
"""

from __future__ import annotations

from typing import Any

from cdp_core.recorders.accessibility.format import MAX_MESSAGE_CHARS, clip_message, quote
from cdp_core.recorders.console.load_errors import load_error_text
from mcp_server.answers.console import console_line, console_row, request_link
from mcp_server.answers.earlier_requests import Earlier, earlier_part
from mcp_server.answers.listing import CONSOLE_COLUMNS, NETWORK_COLUMNS, frame_text
from mcp_server.answers.network import network_line, network_row
from mcp_server.answers.page_text import page_says

__all__ = ["bundle_answer", "bundle_markdown", "STACK_TOP"]

#: Stack frames shown per console error (the file keeps the same three).
STACK_TOP = 3


def bundle_markdown(bundle: dict[str, Any]) -> str:
    page = bundle["page"]
    lines = [
        f"# Debug bundle: {page.get('title') or page.get('url')}",
        "",
        f"- URL: {page.get('url')}",
        f"- Page: {page.get('stable_page_id')} (index {page.get('page_id')})",
        f"- Captured since: {bundle.get('capturedSince')}",
    ]
    mark, changes = bundle.get("mark"), bundle.get("changes")
    if mark and changes:
        lines += ["", f"## After {mark['name']} ({mark['at']})", "", changes["line"], ""]
        lines += [f"- request {r['request']}: {r['before']} → {r['after']}" for r in changes.get("requests") or []]
        lines += [f"- console error gone: {e['text'][:160]}" for e in changes.get("consoleGone") or []]
        lines += [f"- console error new: {e['text'][:160]}" for e in changes.get("consoleNew") or []]
    if bundle.get("onScreen"):
        lines += ["", "## On screen", ""]
        lines += [f"- {_on_screen_line(item)}" for item in bundle["onScreen"]]
    con = bundle.get("console")
    if con:
        lines += [
            "",
            f"## Console: {con['errorCount']} error(s), {con['warningCount']} warning(s), {con['total']} total",
        ]
        lines += [f"- {_markdown_console(e)}" for e in con["errors"][:10]]
    net = bundle.get("network")
    if net:
        apps = f", {net['appErrorCount']} app error(s)" if net.get("appErrorCount") else ""
        lines += ["", f"## Network: {net['failedCount']} failed, {net['httpErrorCount']} HTTP error(s){apps}"]
        lines += [f"- #{e['id']} {e['method']} {e['status']} {e['url']}" for e in net["httpErrors"][:10]]
        lines += [f"- #{e['id']} {e['method']} FAILED {e['failureText']} {e['url']}" for e in net["failed"][:10]]
        for e in (net.get("appErrors") or [])[:10]:
            lines.append(f"- #{e['id']} {e['method']} {e['status']} {e['url']} app error: {e.get('appError')}")
    earlier = bundle.get("beforeAttach")
    if earlier:
        part, _data = earlier_part(
            Earlier.from_record(earlier), page.get("url"), with_last=not _captured_failure(bundle)
        )
        lines += ["", "## Before attach", "", *part]
    if bundle.get("screenshot"):
        lines += ["", f"Screenshot: {bundle['screenshot']['relativePath']}"]
    elif bundle.get("screenshotError"):
        lines += ["", f"Screenshot failed: {bundle['screenshotError']}"]
    lines += ["", "Full data: bundle.json"]
    return "\n".join(lines) + "\n"


def _captured_failure(bundle: dict[str, Any]) -> bool:
    """Whether the capture since attach holds a failing request (the lead is there, not before attach)."""
    net = bundle.get("network") or {}
    return bool(net.get("failedCount") or net.get("httpErrorCount") or net.get("appErrorCount"))


def _markdown_console(e: dict[str, Any]) -> str:
    """``#1 [error] Failed to load resource: 500 (…) → #3 POST``: a console error of bundle.md."""
    text = load_error_text(e["loadError"]) if e.get("loadError") else str(e["text"])[:160]
    link = request_link(e.get("linkedRequest"))
    return f"#{e['id']} [{e['type']}] {text}" + (f" → {link}" if link else "")


def _on_screen_line(item: dict[str, Any]) -> str:
    """``alert [uid=7] "…"``, ``invalid field textbox "Email" [uid=9]: "…"``: a message as the text shows it."""
    uid = f" [uid={item['uid']}]" if item.get("uid") is not None else ""
    said = quote(item.get("text") or "", MAX_MESSAGE_CHARS, message=True)
    if item.get("field"):
        head = f"{item['kind']} {item['field']}{uid}"
        return f"{head}: {said}" if item.get("text") else head
    return f"{item['kind']}{uid} {said}"


def _on_screen(bundle: dict[str, Any], lines: list[str], data: dict[str, Any]) -> None:
    """The messages the page shows the person, first: what they saw is what the agent reads first."""
    items = bundle.get("onScreen")
    if not items:
        return
    more = int(bundle.get("onScreenCount") or 0) - len(items)
    rows = []
    for item in items:
        row = {k: v for k, v in item.items() if v is not None and k != "text"}
        if item.get("text"):
            row["text"] = clip_message(item["text"])
        rows.append(row)
    data["onScreen"] = rows
    head = "on screen:" + (f" ({len(items)} of {len(items) + more}; snapshot for the rest)" if more > 0 else "")
    if more > 0:
        data["onScreenMore"] = more
    lines.append(head)
    lines += [f"  {_on_screen_line(item)}" for item in items]


def _screen_text(item: dict[str, Any]) -> str:
    return _on_screen_line({k: v for k, v in item.items() if k != "uid"})


def _changes(changes: dict[str, Any], mark: str, lines: list[str], data: dict[str, Any]) -> None:
    """The one line on the failure before the mark, then what changed against the span before it."""
    lines.append(changes["line"])
    against = changes["against"]
    lines.append(f"changes vs the {against['seconds']:g} s before {mark} (from {against['from']}, {against['rule']}):")
    out: dict[str, Any] = {k: changes.get(k) for k in ("line", "failure", "against")}
    said = False
    if changes.get("requests"):
        out["requests"] = changes["requests"]
        for r in changes["requests"]:
            ids = ", ".join(f"#{i}" for i in r["ids"])
            lines.append(f"  request {r['request']}: {r['before']} → {r['after']} ({ids})")
        said = True
    gone, new = changes.get("consoleGone") or [], changes.get("consoleNew") or []
    out["consoleErrors"] = {"gone": len(gone), "new": len(new)}
    out["consoleGone"], out["consoleNew"] = gone, new
    lines.append(f"  console errors: {len(gone) or 'none'} gone, {len(new) or 'none'} new")
    for word, rows in (("gone", gone), ("new", new)):
        for row in rows:
            at = f" at {row['at']}" if row.get("at") else ""
            times = f" ({row['times']} times)" if row.get("times") else ""
            lines.append(f"    {word}: #{row['id']} {quote(row['text'], MAX_MESSAGE_CHARS, message=True)}{at}{times}")
    if "onScreenGone" in changes:
        went, came = changes["onScreenGone"], changes["onScreenNew"]
        out["onScreenGone"], out["onScreenNew"] = went, came
        if went or came:
            lines.append(f"  on screen: {len(went) or 'none'} gone, {len(came) or 'none'} new")
            lines += [f"    gone: {_screen_text(i)}" for i in went]
            lines += [f"    new: {_screen_text(i)}" for i in came]
            said = True
    if not said:
        lines.append(
            "  no request changed its outcome" + ("" if "onScreenGone" not in changes else "; on screen the same")
        )
    data["changes"] = out


def _origin(url: str) -> str:
    """``scheme://host:port`` of ``url`` ('' for a URL without one: about:, data:)."""
    scheme, sep, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}" if sep and rest else ""


def _console_entry(e: dict[str, Any], origin: str = "") -> dict[str, Any]:
    """A bundle's compact console entry in the shape the list renderers read.

    Chrome's "Failed to load resource" keeps its own status or net error and names the request
    it is about by Chrome's request id (``linkedRequest``, never the newest request with its
    URL). The page's own origin in the text (an Error's ``at http://host/app.js:6:19``) goes, as
    in every other URL of the answer.
    """
    out = {**e, "stack": e.get("stackTop") or []}
    text = str(e.get("text") or "")
    if origin and origin + "/" in text:
        out["text"] = text.replace(origin + "/", "/")
    return out


def _network_extras(e: dict[str, Any], page_url: str) -> tuple[dict[str, Any], list[str]]:
    """What a bundle adds to a request's row and line: the response preview and the initiator."""
    extra: dict[str, Any] = {}
    lines: list[str] = []
    if e.get("serverError"):
        extra["serverError"] = e["serverError"]
        lines.append(f"      server error: {e['serverError']}")
        if e.get("serverErrorStack"):  # a PHP fatal's callers, below the frame its line names
            extra["serverErrorStack"] = e["serverErrorStack"]
            lines += [f"        at {frame}" for frame in e["serverErrorStack"]]
    app_error, preview = e.get("appError"), str(e.get("responsePreview") or "")
    whole = bool(preview) and not preview.endswith("…")
    if app_error and not (whole and app_error in preview):  # a short body that says it is shown whole
        extra["appError"] = app_error
        lines.append(f"      app error: {app_error}")
    error_page = bool(e.get("serverError")) and (e.get("status") or 0) >= 400
    if preview and not error_page and not (app_error and not whole):
        # an error page's gist is its server error line; a long answer's app error, its quote (the
        # body's head is markup the message comes after)
        extra["response"] = e["responsePreview"]
        lines.append("      response: " + " ".join(str(e["responsePreview"]).split()))
    if e.get("initiatorTop"):
        extra["initiator"] = frame_text(e["initiatorTop"], page_url)
        lines.append(f"      initiator: {extra['initiator']}")
    return extra, lines


def _request(e: dict[str, Any], page_url: str) -> tuple[list[Any], list[str]]:
    row = network_row({k: v for k, v in e.items() if k != "appError"}, page_url)  # said whole below
    extra, more = _network_extras(e, page_url)
    if extra:
        if row and isinstance(row[-1], dict):
            row[-1].update(extra)
        else:
            row.append(extra)
    return row, [f"  {network_line({k: v for k, v in e.items() if k != 'appError'}, page_url)}", *more]


#: The bundle's request lists, in the order they are printed: HTTP errors, failures, then answers
#: below 400 whose body holds a server's error (a PHP warning before an AJAX save's JSON), then
#: those whose body holds an application's error (``{"success":false,"error":…}``)
_SHOWN = ("httpErrors", "failed", "serverErrors", "appErrors")


#: The bundle's capped network lists: (key, count key, what the text calls them).
_NETWORK_LISTS = (
    ("failed", "failedCount", "failed"),
    ("httpErrors", "httpErrorCount", "HTTP errors"),
    ("serverErrors", "serverErrorCount", "server errors"),
    ("appErrors", "appErrorCount", "app errors"),
)


def _left_out(part: dict[str, Any], lists: tuple[tuple[str, str, str], ...]) -> dict[str, int]:
    """How many items each capped list (``max_items``) left out: a list never looks whole when it is not."""
    left = {}
    for key, count, _label in lists:
        missing = int(part.get(count) or 0) - len(part.get(key) or [])
        if missing > 0:
            left[key] = missing
    return left


def _left_text(part: dict[str, Any], left: dict[str, int]) -> str:
    labels = {
        key: label for key, _count, label in (*_NETWORK_LISTS, ("errors", "", "errors"), ("warnings", "", "warnings"))
    }
    shown = [
        f"{len(part.get(key) or [])} newest of {n + len(part.get(key) or [])} {labels[key]}" for key, n in left.items()
    ]
    return "shown: " + ", ".join(shown) + "; raise max_items for more"


def bundle_answer(bundle: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(text, data) of the answer: the bundle's lean form, the same facts in both renderings."""
    page = bundle["page"]
    url = page.get("url") or ""
    since = bundle.get("capturedSince")
    title = f" ({page['title']})" if page.get("title") else ""
    mark = bundle.get("mark")
    if mark:
        lines = [
            f"Debug bundle of {page.get('stable_page_id')} {url}{title}, after {mark['name']} at "
            f"{mark['at']} (captured since {since})"
        ]
    else:
        lines = [f"Debug bundle of {page.get('stable_page_id')} {url}{title}, captured since {since}"]
    data: dict[str, Any] = {"capturedSince": since, "page": page}
    if mark:
        data["mark"] = mark
        _changes(bundle["changes"], mark["name"], lines, data)
    _on_screen(bundle, lines, data)
    con = bundle.get("console")
    if con:
        origin = _origin(url)
        errors = [_console_entry(e, origin) for e in con["errors"]]
        warnings = [_console_entry(e, origin) for e in con["warnings"]]
        head = f"console: {con['errorCount']} error(s), {con['warningCount']} warning(s) of {con['total']} entries"
        left = _left_out(con, (("errors", "errorCount", "errors"), ("warnings", "warningCount", "warnings")))
        if left:
            head += f" ({_left_text(con, left)})"
        lines.append(head + (f"; {con['evicted']} older evicted" if con.get("evicted") else ""))
        lines += ["  " + console_line(e, url, stack=STACK_TOP).replace("\n", "\n  ") for e in errors + warnings]
        data["console"] = {
            "errorCount": con["errorCount"],
            "warningCount": con["warningCount"],
            "total": con["total"],
            "evicted": con.get("evicted") or None,
            "columns": CONSOLE_COLUMNS if errors or warnings else None,
            "errors": [console_row(e, url, stack=STACK_TOP) for e in errors],
            "warnings": [console_row(e, url, stack=STACK_TOP) for e in warnings],
            "leftOut": left or None,
        }
    net = bundle.get("network")
    if net:
        in_answers = net.get("serverErrorCount") or 0
        app_errors = net.get("appErrorCount") or 0
        lines.append(
            f"network: {net['failedCount']} failed, {net['httpErrorCount']} HTTP error(s)"
            + (f", {in_answers} answer(s) under 400 holding a server error" if in_answers else "")
            + (f", {app_errors} app error(s)" if app_errors else "")
            + f" of {net['total']} requests"
            + (f"; {net['evicted']} older evicted" if net.get("evicted") else "")
        )
        left = _left_out(net, _NETWORK_LISTS)
        if left:
            lines[-1] += f" ({_left_text(net, left)})"
        out: dict[str, Any] = {
            "failedCount": net["failedCount"],
            "httpErrorCount": net["httpErrorCount"],
            "serverErrorCount": in_answers or None,
            "appErrorCount": app_errors or None,
            "total": net["total"],
            "evicted": net.get("evicted") or None,
            "columns": NETWORK_COLUMNS,
            "leftOut": left or None,
        }
        for key in _SHOWN:
            rows = []
            for e in net.get(key) or []:
                row, more = _request(e, url)
                rows.append(row)
                lines += more
            out[key] = rows
        last = net.get("lastXhrOrFetch")
        if last:
            row, more = _request(last, url)
            shown = {e["id"] for key in _SHOWN for e in net.get(key) or []}
            if last["id"] in shown:  # the row is above: named by its id, not repeated
                out["lastXhrOrFetch"] = row[:1]
                lines.append(f"last xhr/fetch: #{last['id']}, shown above")
            else:
                out["lastXhrOrFetch"] = row
                lines.append("last xhr/fetch:")
                lines += more
        data["network"] = out
    earlier = bundle.get("beforeAttach")
    if earlier:
        more, data["beforeAttach"] = earlier_part(
            Earlier.from_record(earlier), url, with_last=not _captured_failure(bundle)
        )
        lines += more
    frames = bundle.get("frames") or []
    if len(frames) > 1:
        data["frames"] = [{"url": f.get("url"), "name": f.get("name") or None} for f in frames]
        lines.append("frames: " + "; ".join(f"{f.get('name') or '-'} {f.get('url')}" for f in frames))
    storage = bundle.get("storage")
    if storage:
        data["storage"] = storage
        parts = [
            f"{label} {', '.join(storage[key]) or 'none'}"
            for key, label in (
                ("localStorageKeys", "localStorage keys"),
                ("sessionStorageKeys", "sessionStorage keys"),
                ("cookieNames", "cookies"),
            )
            if key in storage  # a part that could not be read is said in the notes, never shown as none
        ]
        lines.append("storage: " + "; ".join(parts))
    preview = bundle.get("snapshotPreview")
    if preview and preview.get("text"):
        data["snapshot"] = preview["text"]
        lines.append(f"snapshot{' (page text)' if preview.get('kind') == 'text' else ''}:\n{preview['text']}")
    if bundle.get("screenshot"):
        data["screenshot"] = bundle["screenshot"]["relativePath"]
        lines.append(f"screenshot: {data['screenshot']}")
    elif bundle.get("screenshotError"):
        data["screenshotError"] = bundle["screenshotError"]
        lines.append(f"screenshot failed: {data['screenshotError']}")
    if bundle.get("dialog"):
        data["dialog"] = bundle["dialog"]
        d = bundle["dialog"]
        lines.append(f"dialog open: {d.get('type')}, {page_says(d.get('message'), 160)} (handle_dialog first)")
    if bundle.get("files"):
        data["files"] = bundle["files"]
        lines.append(f"saved: {bundle['files']['bundleJson']} and {bundle['files']['bundleMd']}")
    left_out = bundle.get("leftOutSections")
    if left_out:
        data["leftOutSections"] = left_out
        lines.append(f"left out: {', '.join(left_out)} (ask: {', '.join(left_out.values())})")
    notes = list(bundle.get("notes") or [])
    if bundle.get("sourceMapNotes"):
        data["sourceMapNotes"] = bundle["sourceMapNotes"]
        lines += [f"source map: {n}" for n in bundle["sourceMapNotes"]]
    replayed = bool(con and any(e.get("replayed") for e in con["errors"]))
    specific = (data.get("beforeAttach") or {}).get("hint")  # names the request from before attach
    if (replayed or (net and net["total"] == 0)) and not specific and not mark:  # after a mark, 0 is the answer
        # The two-prompt workflow: what happened before attach has no requests here; say what to do.
        data["hint"] = (
            "requests are captured only since capturedSince ([replayed] console entries are older). If the"
            " failure happened before, ask the user to repeat it now, then read network_list / console_list since_id."
        )
        lines.append(f"note: {data['hint']}")
    if notes:
        data["notes"] = notes
        lines += [f"note: {n}" for n in notes]
    return "\n".join(lines), data
