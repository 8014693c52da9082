"""Tabs and browser targets as the model reads them: the same facts in the text and in the JSON.

A tab is ``{page_id, stable_page_id, title, url}`` plus only what sets it apart (``selected``,
``closed``, its own ``capturedSince`` when it was opened after the others were attached, the
frame selected in it). The browser status is the targets' flags without the ones that are
false (absent), with a text that names every one of them.
"""

from __future__ import annotations

from typing import Any

from mcp_server.answers.lean import Keep, hoist
from targets.pages.navigation import NO_PAGE, brought_no_page

__all__ = [
    "page_brief",
    "page_line",
    "pages_listing",
    "selection",
    "browser_brief",
    "browser_lines",
    "move_notes",
    "with_seed_keys",
]


def page_brief(info: dict[str, Any] | None) -> dict[str, Any] | None:
    """A tab's lean record (the CDP target id and the duplicate attach time left out)."""
    if not info:
        return None
    out = {
        "page_id": info.get("page_id"),
        "stable_page_id": info.get("stable_page_id"),
        "title": info.get("title") or "",
        "url": info.get("url") or "",
        "selected": info.get("selected") or None,
        "closed": info.get("closed") or None,
        "capturedSince": info.get("capturedSince") or info.get("attachedAt"),
        "target": info.get("target"),
        "activeFrame": info.get("activeFrame"),
        "emulation": info.get("emulation") or None,
        "dialog": info.get("dialog") or None,
    }
    return {k: v for k, v in out.items() if v is not None}


def _short(value: Any) -> str:
    """An emulation setting in a few characters: ``390,844,3``, ``dark``, ``offline``."""
    if isinstance(value, dict):
        return ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value.values())
    if isinstance(value, list):
        return "+".join(map(str, value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def page_line(page: dict[str, Any] | None) -> str:
    """``* [0] p1 Title <url>`` with what the record adds (captured since, closed, frame)."""
    if not page:
        return "no page selected"
    line = f"{'*' if page.get('selected') else ' '} [{page.get('page_id')}] {page.get('stable_page_id')} "
    if page.get("url"):
        line += f"{page.get('title') or '(untitled)'} <{page['url']}>"
    else:  # a tab whose first document has not come yet (a window.open or a link still loading)
        line += "(no page loaded yet)"
    extras = []
    if page.get("target"):
        extras.append(f"target {page['target']}")
    if page.get("capturedSince"):
        extras.append(f"captured since {page['capturedSince']}")
    if page.get("closed"):
        extras.append("closed")
    if page.get("activeFrame"):
        extras.append(f"frame {page['activeFrame']} selected")
    dialog = page.get("dialog")
    if dialog:
        whose = "the user's " if dialog.get("byUser") else ""
        if dialog.get("beforeAttach"):
            extras.append(f"blocked by {whose}dialog opened before attach")
        else:
            extras.append(f"{whose}{dialog.get('type')} dialog open: {dialog.get('message', '')[:100]!r}")
    if page.get("emulation"):
        extras.append("emulating " + ", ".join(f"{k}={_short(v)}" for k, v in page["emulation"].items()))
    return line + (f" ({', '.join(extras)})" if extras else "")


def pages_listing(pages: list[dict[str, Any]]) -> tuple[list[str], dict[str, Any]]:
    """(lines, data) of a tab list: target and capture start said once, each tab's differences kept."""
    briefs = [b for b in (page_brief(p) for p in pages) if b]
    data: dict[str, Any] = {"target": hoist(briefs, "target"), "capturedSince": hoist(briefs, "capturedSince")}
    data["pages"] = briefs
    head = f"{len(briefs)} page(s)"
    if data["target"]:
        head += f" of the {'internal browser' if data['target'] == 'launch' else 'user' + chr(39) + 's Chrome'}"
    if data["capturedSince"]:
        head += f", captured since {data['capturedSince']}"
    lines = [head + (":" if briefs else "")] + [page_line(p) for p in briefs]
    return lines, data


def selection(pages: list[dict[str, Any]], *, since: str | None = None) -> tuple[str, dict[str, Any]]:
    """(line, data) of the tab an attach or a select leaves selected, and how many others there are.

    What the agent needs next, not the tab list (restating every tab, in both renderings, would
    cost the agent more than the attach tells it): the selected tab's ids, title and URL, what
    sets it apart, the count of the others and how to list them. ``since``: the attach's capture
    start, which the answer says once (the tab's own start is the same moment, a few ms later).
    """
    briefs = [b for b in (page_brief(p) for p in pages) if b]
    chosen = next((b for b in briefs if b.get("selected")), None)
    others = len(briefs) - (1 if chosen else 0)
    data: dict[str, Any] = {}
    if chosen is None:
        line = "no page selected"
    else:
        brief = {k: v for k, v in chosen.items() if k not in ("selected", "target")}
        if since is not None:
            brief.pop("capturedSince", None)  # every tab is captured since the attach: said once
        data["selected"] = brief
        line = "selected" + page_line(brief)[1:]
    if others:
        data["otherPages"] = others
        line += f"; {others} other page(s): list_pages lists them"
    return line, data


def browser_brief(caps: dict[str, Any]) -> dict[str, Any]:
    """The targets' state: ``supports*`` and ``active`` are said by ``available`` and ``activeTarget``."""
    out = {k: v for k, v in caps.items() if k not in ("supportsLaunch", "supportsCdpAttach")}
    for name in ("launch", "cdp"):
        if isinstance(out.get(name), dict):
            out[name] = {k: v for k, v in out[name].items() if k != "active"}
    if isinstance(out.get("currentPage"), dict):
        out["currentPage"] = page_brief(out["currentPage"])
    return out


def with_seed_keys(brief: dict[str, Any], caps: dict[str, Any]) -> dict[str, Any]:
    """get_capabilities' browser object with the seed server's keys, always there (false and null too).

    Clients written for the seed read ``supportsLaunch``, ``supportsCdpAttach``, ``activeTarget``,
    ``launch.active`` and ``cdp.active``: they are exempt from the lean rule (absent = false).
    """
    out = dict(brief)
    out["supportsLaunch"] = Keep(bool(caps.get("supportsLaunch")))
    out["supportsCdpAttach"] = Keep(bool(caps.get("supportsCdpAttach")))
    out["activeTarget"] = Keep(caps.get("activeTarget"))
    for name in ("launch", "cdp"):
        section = dict(out.get(name) or {})
        section["active"] = Keep(bool((caps.get(name) or {}).get("active")))
        out[name] = section
    return out


def _on(value: Any) -> str:
    return "on" if value else "off"


def browser_lines(b: dict[str, Any]) -> list[str]:
    """The text of :func:`browser_brief`: every flag and value it holds."""
    head = f"active target: {b.get('activeTarget') or 'none'} (default {b.get('defaultTarget')})"
    if "currentPage" in b or "pageCount" in b:
        # first: the envelope's message is the first line, and the current page is what a status is for
        head += f"; current page: {page_line(b.get('currentPage')).strip()}; {b.get('pageCount', 0)} page(s)"
    lines = [head]
    launch = b.get("launch") or {}
    if launch:
        pol = launch.get("policies") or {}
        state = "running" + (f" since {launch['startedAt']}" if launch.get("startedAt") else "")
        line = f"launch (internal Chromium): {'available' if launch.get('available') else 'not available'}, "
        line += (
            f"{state if launch.get('running') else 'not running'}, {'headless' if launch.get('headless') else 'headed'}"
        )
        line += f"; allowed URLs {', '.join(pol.get('allowedUrls') or []) or 'any'}"
        line += f", file URLs {_on(pol.get('allowFileUrls'))}"
        if pol.get("allowedFileRoots"):
            line += f" (roots {', '.join(pol['allowedFileRoots'])})"
        line += f", block media {_on(pol.get('blockMedia'))}"
        if pol.get("maxTabs") is not None:
            line += f", max tabs {pol['maxTabs']}"
        lines.append(line)
    cdp = b.get("cdp") or {}
    if cdp:
        attached = f"attached since {cdp.get('attachedAt')}" if cdp.get("attached") else "not attached"
        line = f"cdp (user's Chrome): {cdp.get('cdpUrl')}, {attached}, remote CDP {_on(cdp.get('allowRemote'))}"
        found = cdp.get("found")
        if isinstance(found, dict) and found.get("port"):
            where = found.get("profileDir") or "no profile file"
            line += f"; found via {found.get('via')}: {found.get('browser')}, {where}, port {found['port']}"
            line += f", {found.get('how')}"
        waiting = cdp.get("waitingForAllow")
        if isinstance(waiting, dict):
            line += f"; attach_cdp waiting since {waiting.get('askedAt')} for the user's Allow in Chrome's dialog"
        if cdp.get("detachedAt"):
            line += f"; detached at {cdp['detachedAt']}"
        if cdp.get("lost"):
            lost = cdp["lost"]
            line += f"; connection lost at {lost.get('at')}: {lost.get('reason')}" if isinstance(lost, dict) else ""
        lines.append(line)
    for d in b.get("dialogs") or []:
        whose = "the user's " if d.get("byUser") else ""
        what = "dialog opened before attach" if d.get("beforeAttach") else f"{d.get('type')} dialog"
        lines.append(f"{whose}{what} open in {d.get('stable_page_id')}: {d.get('message', '')[:100]!r}")
    err = b.get("currentPageError")
    if err:
        lines.append(f"current page error {err.get('code')}: {err.get('message')}")
    return lines


def move_notes(data: dict[str, Any]) -> str:
    """What else a tab move did, for its text (the same keys are in its data): redirects, retries."""
    text = ""
    if data.get("clientRedirects"):
        text += "; the page moved on by itself (script or meta refresh) to " + " -> ".join(data["clientRedirects"])
    if data.get("interruptedBy"):
        text += "; sent again after the page's own navigation to " + ", ".join(data["interruptedBy"])
    failed = data.get("clientRedirectFailed")
    if failed:
        url, reason = str(failed.get("url")), failed.get("blocked")
        if reason:
            why = "was refused: " + ("it " + reason[len(url) :].lstrip() if reason.startswith(url) else reason)
        elif brought_no_page(str(failed.get("error"))):
            why = f"brought no new page ({failed.get('error')}: {NO_PAGE})"
        else:
            why = f"failed: {failed.get('error')}"
        text += f"; the page then tried to move on by itself to {url}, which {why}; it stays on this page"
        if "reached" in data:  # the page's loading stopped with it (wait_until will not come)
            text += ", whose loading stopped (reached: " + (", ".join(data["reached"]) or "no lifecycle event") + ")"
    return text
