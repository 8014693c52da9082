"""Session actions of ``browser_session``: capabilities, status, targets (launch / cdp) and page selection.

Thin on purpose: the state lives in ``targets.BrowserManager``; these handlers validate,
call it, and phrase a short answer. None of them navigates, reloads or closes anything in
the user's Chrome.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from targets.errors import ErrorCode, ToolFailure

from .. import registry
from ..context import ToolContext
from ..registry import ActionArgs, ActionResult, action

S = "browser_session"


class NoArgs(ActionArgs):
    pass


class AttachArgs(ActionArgs):
    cdp_url: str | None = Field(None, description="Chrome debugging URL (default PLAYWRIGHT_CDP_URL or :9222)")
    close_inactive: bool = Field(False, description="Also close the internal browser")


class CloseTargetArgs(ActionArgs):
    target: Literal["launch", "cdp"] = Field(description="launch closes the internal browser; cdp detaches")
    close_chrome: bool = Field(False, description="Always refused: the user's Chrome is never closed")


class SelectPageArgs(ActionArgs):
    page_id: int | None = Field(None, description="Index from list_pages")
    stable_page_id: str | None = Field(None, description="Stable id from list_pages (p1, p2...)")
    url_contains: str | None = Field(None, description="Substring of the page URL")
    title_contains: str | None = Field(None, description="Substring of the page title")
    bring_to_front: bool = Field(False, description="Also focus the tab in the browser")


class SelectByUrlArgs(ActionArgs):
    url_contains: str = Field(description="Substring of the page URL")
    bring_to_front: bool = Field(False, description="Also focus the tab in the browser")


class SelectByTitleArgs(ActionArgs):
    title_contains: str = Field(description="Substring of the page title")
    bring_to_front: bool = Field(False, description="Also focus the tab in the browser")


def _actions_table() -> list[dict[str, Any]]:
    return [
        {
            "tool": spec.tool,
            "action": spec.name,
            "legacyTool": spec.legacy,
            "readOnly": spec.read_only,
            "experimental": spec.experimental,
        }
        for spec in registry.ACTIONS.values()
    ]


def _page_line(page: dict[str, Any] | None) -> str:
    if not page:
        return "no page selected"
    return f"{page.get('stable_page_id')} {page.get('title') or '(untitled)'} <{page.get('url')}>"


def _short(value: Any) -> str:
    if isinstance(value, dict):
        return ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value.values())
    if isinstance(value, list):
        return "+".join(map(str, value))
    return f"{value:g}" if isinstance(value, float) else str(value)


@action(S, "get_capabilities", NoArgs, read_only=True, lock="read")
async def get_capabilities(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """What this server can do: version, browser targets, actions (experimental ones marked)."""
    from ..server import SERVER_NAME, server_version

    browser = ctx.manager.capabilities()
    actions = _actions_table()
    experimental = [a["action"] for a in actions if a["experimental"]]
    text = (
        f"{SERVER_NAME} {server_version()}: launch={'yes' if browser.get('supportsLaunch') else 'no'}, "
        f"cdp attach={'yes' if browser.get('supportsCdpAttach') else 'no'}, "
        f"active target={browser.get('activeTarget') or 'none'}; {len(actions)} actions"
        + (f" (experimental: {', '.join(experimental)})" if experimental else "")
    )
    return ActionResult(
        text=text,
        data={
            "server": {"name": SERVER_NAME, "version": server_version()},
            "browser": browser,
            "actions": actions,
            "settings": {
                "toolset": ctx.settings.toolset,
                "artifactDir": str(ctx.artifacts.root),
                "evaluateEnabled": ctx.settings.evaluate_enabled,
            },
        },
    )


@action(S, "get_browser_status", NoArgs, read_only=True, lock="read")
async def get_browser_status(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """Targets and the current page, without launching anything."""
    status = await ctx.manager.status()
    page = status.get("currentPage") if isinstance(status, dict) else None
    active = status.get("activeTarget") if isinstance(status, dict) else None
    text = f"active target: {active or 'none'}; current page: {_page_line(page)}"
    emulating = (page or {}).get("emulation")
    if emulating:
        text += "; emulating " + ", ".join(f"{k}={_short(v)}" for k, v in emulating.items())
    return ActionResult(text=text, data={"browser": status})


@action(S, "attach_cdp", AttachArgs, lock="state")
async def attach_cdp(ctx: ToolContext, args: AttachArgs) -> ActionResult:
    """Attach to a running Chrome over CDP without navigating; capture starts now."""
    info = await ctx.manager.attach_cdp(args.cdp_url, close_inactive=args.close_inactive)
    pages = info.get("pages") or []
    text = f"attached to {info.get('cdpUrl') or args.cdp_url or 'Chrome'}"
    if pages:
        text += f"; {len(pages)} page(s); selected: {_page_line(next((p for p in pages if p.get('selected')), None))}"
    since = info.get("attachedAt") or info.get("capturedSince") or "now"
    if info.get("alreadyAttached"):
        # The attachment and its capture go on: "starts now" with the old time would be untrue.
        text = "already " + text + f". Capture goes on since {since} (nothing captured was lost)."
    else:
        text += f". Capture starts now (capturedSince {since})."
    return ActionResult(text=text, data=info)


@action(S, "detach_cdp", NoArgs, lock="state")
async def detach_cdp(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """Disconnect from the user's Chrome (it stays open, tabs untouched)."""
    info = await ctx.manager.detach_cdp()
    return ActionResult(text="detached from Chrome; it keeps running", data=info)


@action(S, "use_launch_browser", NoArgs, lock="state")
async def use_launch_browser(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """Make the internal browser the active target (launched on first use)."""
    info = await ctx.manager.use_launch_browser()
    return ActionResult(text="internal browser is the active target", data=info)


@action(S, "close_browser_target", CloseTargetArgs, destructive=True, lock="state")
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
    what = "closed the internal browser" if args.target == "launch" else "detached from Chrome (still running)"
    return ActionResult(text=what, data=info)


@action(S, "list_pages", NoArgs, read_only=True, lock="read")
async def list_pages(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """Tabs of the active target with page_id, stable_page_id and the selected one."""
    pages = await ctx.manager.list_pages()
    lines = [f"{'*' if p.get('selected') else ' '} [{p.get('page_id')}] {_page_line(p)}" for p in pages]
    text = f"{len(pages)} page(s)" + (":\n" + "\n".join(lines) if lines else "")
    return ActionResult(text=text, data={"pages": pages})


async def _select(ctx: ToolContext, **selector: Any) -> ActionResult:
    info = await ctx.manager.select_page(**selector)
    page = info.get("selected") if isinstance(info, dict) else None
    return ActionResult(text=f"selected {_page_line(page)}", data=info)


@action(S, "select_page", SelectPageArgs, lock="state")
async def select_page(ctx: ToolContext, args: SelectPageArgs) -> ActionResult:
    """Select a tab by page_id, stable_page_id, url_contains or title_contains (never navigates)."""
    return await _select(ctx, **args.model_dump())


@action(S, "select_page_by_url", SelectByUrlArgs, lock="state")
async def select_page_by_url(ctx: ToolContext, args: SelectByUrlArgs) -> ActionResult:
    """Select the one tab whose URL contains url_contains."""
    return await _select(ctx, url_contains=args.url_contains, bring_to_front=args.bring_to_front)


@action(S, "select_page_by_title", SelectByTitleArgs, lock="state")
async def select_page_by_title(ctx: ToolContext, args: SelectByTitleArgs) -> ActionResult:
    """Select the one tab whose title contains title_contains."""
    return await _select(ctx, title_contains=args.title_contains, bring_to_front=args.bring_to_front)


@action(S, "get_current_page", NoArgs, read_only=True, lock="read")
async def get_current_page(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """The selected page (no launch): ids, title, url, capturedSince."""
    page = await ctx.page(launch_if_needed=False)
    listing = await ctx.manager.list_pages()
    info = next((p for p in listing if p.get("stable_page_id") == page.stable_page_id), None)
    if info is None:
        info = page.info(selected=True) if hasattr(page, "info") else {"stable_page_id": page.stable_page_id}
    return ActionResult(text=f"current page: {_page_line(info)}", data={"page": info})
