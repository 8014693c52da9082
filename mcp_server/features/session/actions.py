"""Session actions of ``browser_session``: capabilities, status, targets (launch / cdp) and page selection.

Thin on purpose: the state lives in ``targets.BrowserManager``; these handlers validate,
call it, and phrase a short answer. None of them navigates, reloads or closes anything in
the user's Chrome.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mcp_server.answers.models import BrowserState, PageBrief, PagesAnswer
from mcp_server.answers.pages import (
    browser_brief,
    browser_lines,
    pages_listing,
    selection,
    with_seed_keys,
)
from mcp_server.server import registry
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action
from targets.errors import ErrorCode, ToolFailure

S = "browser_session"


class NoArgs(ActionArgs):
    pass


class AttachArgs(ActionArgs):
    cdp_url: str | None = Field(
        None, description="Debugging URL; default: find the Chrome whose remote debugging is on"
    )
    user_data_dir: str | None = Field(None, description="Profile dir of the Chrome to attach (not a standard one)")
    close_inactive: bool = Field(False, description="Also close the internal browser")
    url_contains: str | None = Field(None, description="Then select the one tab whose URL contains this")
    title_contains: str | None = Field(None, description="Then select the one tab whose title contains this")


class CloseTargetArgs(ActionArgs):
    target: Literal["launch", "cdp"] = Field(description="launch closes the internal browser; cdp detaches")
    close_chrome: bool = Field(False, description="Refused: the user's Chrome is never closed")


class CapabilitiesAnswer(Answer):
    server: dict[str, str]
    settings: dict[str, Any]
    browser: BrowserState
    actions: dict[str, list[str]]
    experimental: list[str] = []


class StatusAnswer(Answer):
    browser: BrowserState


class AttachAnswer(Answer):
    """attach_cdp: the Chrome found, the capture start, the selected tab and how many others (not the list)."""

    capturedSince: str | None = None
    cdpUrl: str | None = None
    alreadyAttached: bool = False
    launchClosed: bool = False
    #: how the user's Chrome was found: browser, profileDir, port, how (toggle/flag), via
    found: dict[str, Any] | None = None
    selected: PageBrief | None = None
    #: tabs besides the selected one (list_pages lists them)
    otherPages: int = 0
    #: url_contains/title_contains picked no tab (no match, several): why, and the tabs to pick from
    selectError: dict[str, str] | None = None
    pages: list[PageBrief] = []
    hint: str | None = None
    #: attach_cdp still waiting for the user's Allow (status "waiting"): since when, how to go on
    askedAt: str | None = None
    waitedS: float | None = None
    continueWith: dict[str, Any] | None = None


class TargetAnswer(Answer):
    """detach_cdp / close_browser_target: what closed or detached, and the active target now."""

    target: str | None = None
    activeTarget: str | None = None
    detached: bool = False
    closed: bool = False
    cdpUrl: str | None = None
    chromeClosed: bool = False
    #: detach_cdp withdrew an attach_cdp still waiting for the user's Allow
    withdrewRequest: bool = False
    #: other MCP sessions still using that browser: only this session left it, it stays connected
    otherSessions: int | None = None


def _actions_by_tool() -> dict[str, list[str]]:
    from mcp_server.features import load_actions

    load_actions()  # a quick start's first call may run before the other action modules are imported
    out: dict[str, list[str]] = {}
    for spec in registry.ACTIONS.values():
        out.setdefault(spec.tool, []).append(spec.name)
    return out


@action(S, "get_capabilities", NoArgs, read_only=True, lock="read", result=CapabilitiesAnswer)
async def get_capabilities(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """What this server can do: version, browser targets, actions (experimental ones marked)."""
    from mcp_server.server.version import SERVER_NAME, server_version

    caps = ctx.manager.capabilities()
    brief = browser_brief(caps)
    actions = _actions_by_tool()
    experimental = [spec.name for spec in registry.ACTIONS.values() if spec.experimental]
    settings = {
        "toolset": ctx.settings.toolset,
        "artifactDir": str(ctx.artifacts.root),
        "evaluateEnabled": ctx.settings.evaluate_enabled,
    }
    lines = [
        f"{SERVER_NAME} {server_version()}; toolset {settings['toolset']}; artifacts in {settings['artifactDir']}; "
        f"evaluate_js {'enabled' if settings['evaluateEnabled'] else 'disabled'}",
        *browser_lines(brief),
        *(f"{tool} actions ({len(names)}): {', '.join(names)}" for tool, names in actions.items()),
    ]
    if experimental:
        lines.append(f"experimental: {', '.join(experimental)}")
    return ActionResult(
        text="\n".join(lines),
        data={
            "server": {"name": SERVER_NAME, "version": server_version()},
            "settings": settings,
            "browser": with_seed_keys(brief, caps),
            "actions": actions,
            "experimental": experimental,
        },
    )


@action(S, "get_browser_status", NoArgs, read_only=True, lock="read", result=StatusAnswer)
async def get_browser_status(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """Targets and the current page, without launching anything."""
    browser = browser_brief(await ctx.manager.status())
    lines = browser_lines(browser)
    data: dict[str, Any] = {"browser": browser}
    from mcp_server.safety.audit import write_failures  # a full disk must not hide that the record of calls stopped

    failures = write_failures()
    if failures:
        data["auditLog"] = failures
        lines += [f"WARNING: {f}" for f in failures]
    return ActionResult(text="\n".join(lines), data=data)


#: How long one attach_cdp call waits for the user's click before it answers ``waiting``.
ALLOW_WAIT_S = 45.0


@action(
    S,
    "attach_cdp",
    AttachArgs,
    lock="poll",
    result=AttachAnswer,
    takes="a second or more with many tabs; with Chrome's toggle until the user clicks Allow "
    "(answers waiting at the call bound); progress: says Chrome is asking the user",
)
async def attach_cdp(ctx: ToolContext, args: AttachArgs) -> ActionResult:
    """Attach to the user's Chrome (found by itself, or cdp_url / user_data_dir) without navigating."""
    # The state lock only to choose the Chrome and to attach: never while Chrome waits for the person.
    async with ctx.exclusively():
        plan = await ctx.manager.prepare_attach(args.cdp_url, user_data_dir=args.user_data_dir)
    hs = plan.handshake
    if hs is not None and not hs.done():
        asking = (
            'Chrome is asking the user to click Allow in its "Allow remote debugging?" dialog'
            if hs.asks_user
            else "opening the debugging connection"
        )
        ctx.status(f"{asking} (since {hs.started_at})")
        wait_s, _ = ctx.bound(ALLOW_WAIT_S)
        if not await hs.wait(wait_s):
            return _still_asking(hs)
    async with ctx.exclusively():
        info = await ctx.manager.finish_attach(plan, close_inactive=args.close_inactive)
    since = info.get("capturedSince") or info.get("attachedAt") or "now"
    head = f"attached to {info.get('cdpUrl') or args.cdp_url or 'Chrome'}"
    found = info.get("found") or {}
    if found.get("browser"):
        where = found.get("profileDir") or f"port {found.get('port')}"
        owner = "; listener is this user's" if found.get("ownerCheck") == "socket owner" else ""
        head += f" ({found['browser']}, {where}, {found.get('how')}, via {found.get('via')}{owner})"
    hints = []
    if info.get("alreadyAttached"):
        # The attachment and its capture go on: "starts now" with the old time would be untrue.
        head = "already " + head + f". Capture goes on since {since} (nothing captured was lost)."
        message = "already attached; capture goes on"
    else:
        head += "; internal browser closed" if info.get("launchClosed") else ""
        head += f". Capture starts now: capturedSince {since} (nothing earlier is claimed)."
        message = "attached; capture starts now"
        if found.get("how") == "toggle":
            head += " This controls the user's logged-in profile: call detach_cdp when done."
            hints.append("this is the user's logged-in profile: call detach_cdp when done")
    pages = info.get("pages") or []
    refused = None
    if args.url_contains is not None or args.title_contains is not None:
        pages, refused = await _select_at_attach(ctx, args, pages)
    line, picked = selection(pages, since=since)
    if refused is not None:
        # attached all the same: say why no tab was picked, and list them to pick from
        listed, listing = pages_listing(pages)
        line = f"{refused.code}: {refused.message}\n" + "\n".join(listed)
        picked = {"selectError": {"code": refused.code, "message": refused.message}, "pages": listing["pages"]}
        hints.append("select_page with a page_id or stable_page_id from pages")
    elif picked.get("otherPages"):
        hints.append("list_pages lists the other pages")
    data = {  # the target is the user's Chrome: what attach_cdp means, not said again
        "cdpUrl": info.get("cdpUrl"),
        "alreadyAttached": info.get("alreadyAttached"),
        "launchClosed": info.get("launchClosed"),
        "found": found or None,
        "capturedSince": since,
        **picked,
        "hint": "; ".join(hints) or None,
    }
    return ActionResult(text=f"{head}\n{line}", data=data, message=message)


async def _select_at_attach(
    ctx: ToolContext, args: AttachArgs, pages: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], ToolFailure | None]:
    """Select the tab the call names, as select_page does (never navigates): the pages with the new
    selection, or the pages as they were and why none was picked (no match, several).

    Why at attach: the agent was asked to look at *that* tab, and knows its URL or title; picking
    it here saves the select call every diagnosis starts with.
    """
    try:
        async with ctx.exclusively():
            await ctx.manager.select_page(url_contains=args.url_contains, title_contains=args.title_contains)
            return await ctx.manager.list_pages(), None
    except ToolFailure as failure:
        return pages, failure


def _still_asking(hs: Any) -> ActionResult:
    """The call bound came before the user's click: the request stays open for the next attach_cdp."""
    waited = round(hs.waited(), 1)
    text = (
        f'waiting: Chrome is still asking the user "Allow remote debugging?" ({waited:g} s since {hs.started_at}). '
        "Ask the user to click Allow in their Chrome, then call attach_cdp again: it joins this same request "
        "(no second dialog). detach_cdp withdraws it."
    )
    data = {
        "cdpUrl": hs.url,
        "askedAt": hs.started_at,
        "waitedS": waited,
        "found": hs.found.to_dict() if hs.found is not None else None,
        "continueWith": {"action": "attach_cdp"},
    }
    return ActionResult(text=text, data=data, status="waiting")


@action(S, "detach_cdp", NoArgs, lock="state", result=TargetAnswer)
async def detach_cdp(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """Disconnect from the user's Chrome (it stays open, tabs untouched)."""
    info = await ctx.manager.detach_cdp()  # debug points leave the pages first (before_detach)
    active = info.get("activeTarget")
    text = f"detached from Chrome at {info.get('cdpUrl')}; it keeps running; active target now {active or 'none'}"
    if others := info.get("otherSessions"):
        text = (
            f"this session detached from Chrome at {info.get('cdpUrl')}; {_sessions(others)} still attached, so "
            f"the connection stays open; active target now {active or 'none'}"
        )
    if info.get("withdrewRequest"):
        text += (
            "; the request waiting for the user's Allow was withdrawn (Chrome may still show its dialog until the "
            "user answers it; nothing attaches then)"
        )
    return ActionResult(text=text, data=info)


@action(
    S,
    "use_launch_browser",
    NoArgs,
    lock="state",
    result=PagesAnswer,
    takes="one to a few seconds to start Chromium; progress: heartbeats",
)
async def use_launch_browser(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """Make the internal browser the active target (launched on first use)."""
    info = await ctx.manager.use_launch_browser()
    lines, listing = pages_listing(info.get("pages") or [])
    head = f"internal browser is the active target (started {info.get('startedAt')})"
    data = {**listing, "target": "launch", "startedAt": info.get("startedAt")}
    return ActionResult(text="\n".join([head, *lines]), data=data)


@action(S, "close_browser_target", CloseTargetArgs, destructive=True, lock="state", result=TargetAnswer)
async def close_browser_target(ctx: ToolContext, args: CloseTargetArgs) -> ActionResult:
    """Close the internal browser, or detach from the user's Chrome (never closes it)."""
    if args.close_chrome:
        # Checked here too, before the manager is touched: refusing must not change any state.
        raise ToolFailure(
            ErrorCode.NOT_ALLOWED,
            "closing the user's Chrome is not allowed",
            hint="use detach_cdp (or close_browser_target target=cdp) to disconnect; Chrome stays open",
        )
    info = await ctx.manager.close_browser_target(args.target, close_chrome=False)
    if args.target == "launch" and (others := info.get("otherSessions")):
        what = f"this session left the internal browser; {_sessions(others)} still using it, so it stays open"
    elif args.target == "launch":
        what = "closed the internal browser" if info.get("closed") else "the internal browser was not running"
    elif others := info.get("otherSessions"):
        what = f"this session detached from Chrome (still running; {_sessions(others)} still attached)"
    else:
        what = "detached from Chrome (still running)"
    what += f"; active target now {info.get('activeTarget') or 'none'}"
    return ActionResult(text=what, data=info)


def _sessions(count: int) -> str:
    return f"{count} other MCP session{'s' if count != 1 else ''} {'are' if count != 1 else 'is'}"
