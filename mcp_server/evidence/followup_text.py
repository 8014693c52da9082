"""A follow-up as the answer's text: one line, the same facts as ``followed`` in the same order.

Split from :mod:`.followup` (which collects the facts and re-exports these): this module only
phrases them.
"""

from __future__ import annotations

from typing import Any

from mcp_server.answers.page_text import page_says

__all__ = ["describe_followup", "then_line", "MAX_ERRORS"]

#: Console errors listed (newest), by :mod:`.followup` and in the text alike
MAX_ERRORS = 5


def describe_followup(data: dict[str, Any]) -> str:
    """The follow-up as one line of text (the same facts as the data, in the same order)."""
    parts: list[str] = []
    if data.get("invalidFields"):
        fields = "; ".join(f"{f['field']}: {f['message']}" for f in data["invalidFields"])
        parts.append(f"the browser's own form check stopped the submit ({fields})")
    if "navigation" in data:
        moved_to = data["navigation"]
        how = {"hash": "a hash change", "history": "history.pushState/replaceState"}.get(moved_to.get("sameDocument"))
        if how:
            parts.append(f"the URL changed to {moved_to['to']} in the same document ({how}: no load, uids still valid)")
        else:
            parts.append(f"navigated to {moved_to['to']}")
    for moved in data.get("frameNavigations", []):
        parts.append(f"frame {moved['frame']} navigated to {moved['to']}")
    for r in data.get("requests", []):  # [id, method, status, type, url, {rest}?] (network_row)
        rest = r[5] if len(r) > 5 else {}
        if rest.get("download"):
            outcome = f"{r[2]}, a download ({rest['download']})"
        elif rest.get("failed"):
            outcome = f"{r[2]} failed ({rest['failed']})"
        else:
            outcome = str(r[2])
        kind = f" ({r[3]})" if r[3] in ("document", "xhr", "fetch") else ""
        payload = f" payload: {rest['postDataPreview']}" if rest.get("postDataPreview") else ""
        parts.append(f"#{r[0]} {r[1]} {r[4]} -> {outcome}{kind}{payload}")
    listed = len(data.get("requests", []))
    static = data.get("static") or {}
    unlisted = data.get("requestCount", 0) - listed - sum(static.values())
    if unlisted > 0:
        parts.append(f"{unlisted} more request(s)")
    if static:
        kinds = ", ".join(f"{n} {kind}" for kind, n in static.items())
        parts.append(f"{sum(static.values())} static file(s) ({kinds})")
    for d in data.get("downloads", []):  # began without a request of their own (blob:, data:)
        parts.append(f"started a download: {d['file']}")
    for i, line in data.get("serverErrors", []):
        parts.append(f"#{i}'s response holds a server error, {page_says(line)}")
    for i, line in data.get("appErrors", []):
        parts.append(f"#{i}'s response holds an app error, {page_says(line, 300)}")
    for e in data.get("consoleErrors", []):  # [id, type, text, thrown at?]
        thrown = f" thrown at {e[3]}" if len(e) > 3 else ""
        parts.append(f"console {e[1]} #{e[0]}{thrown}, {page_says(e[2])}")
    if data.get("consoleErrorCount"):
        parts.append(f"({data['consoleErrorCount']} console errors in all, newest {MAX_ERRORS} shown)")
    if "dialog" in data:
        d = data["dialog"]
        parts.append(f"{d['type']} dialog opened, {page_says(d['message'], 120)} (use handle_dialog)")
    for tab in data.get("newTabs", []):
        title = f" ({tab['title']})" if tab.get("title") and tab["title"] != tab["url"] else ""
        parts.append(f"opened a new tab: {tab['url']}{title} (select_page_by_url to work in it)")
    if "pageClosed" in data:
        gone = data["pageClosed"]
        if gone.get("opener"):
            parts.append(
                f"the page closed its own window; {gone['opener']} ({gone['openerTitle']}), which opened it, is"
                f' still open: select_page stable_page_id="{gone["opener"]}" to go on there'
            )
        else:
            parts.append("the page closed its own window: list_pages and select another page")
    return "; ".join(parts) if parts else "nothing observable followed"


def then_line(data: dict[str, Any]) -> str:
    """The follow-up as the answer's second line.

    On a line of its own, the envelope's ``message`` (the text's first line) says what the
    action did and the ``followed`` data says what followed, each once: on the first line the
    JSON answer would carry every request twice (the message and the rows).
    """
    return f"\nthen: {describe_followup(data)}"
