"""The page actions behind the flat legacy tools: navigate, DOM, screenshot, JS (logs, tabs, frames and
downloads: :mod:`.legacy_browser`).

Each keeps the semantics the legacy tool had (``browser_navigate`` ...) and runs the same code
whether called as ``browser_session action=navigate`` or as ``browser_navigate``. Big output
(screenshots, long results) goes to files under the artifacts root; answers carry paths.
State (cookies/localStorage) lives in :mod:`.state`, element input in :mod:`.selectors`.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any, Literal

from pydantic import Field

from cdp_core.errors import CDPError, CDPException, CDPTimeout
from mcp_server.actions.page.pagejs import (
    exception_text,
    no_dialog,
    runaway_failure,
    selected_frame,
    truncate,
    unless_dialog,
)
from mcp_server.actions.page.screenshots import capture_png
from mcp_server.actions.tabs.loading import LOAD_TAKES, StatusFn, bounded_load
from mcp_server.core.answers import Answer
from mcp_server.core.context import ToolContext
from mcp_server.core.registry import ActionArgs, ActionResult, action
from mcp_server.facts.followup import last_id
from mcp_server.facts.redirects import server_redirects
from mcp_server.guards.script_urls import refuse_script_url
from mcp_server.input.frames import main_world
from mcp_server.render.lean import Keep
from mcp_server.render.pages_render import move_notes
from targets.errors import ErrorCode, ToolFailure

S = "browser_session"


class NavigateResult(Answer):
    url: str
    title: str | None = None
    httpStatus: int | None = None
    target: str
    stable_page_id: str
    relaunched: bool = False
    #: the user's Chrome had been detached: this navigate started the internal browser
    launchedAfterDetach: bool = False
    #: the server's redirects that led here, oldest first: ``{url, status}`` (a 302 to a login page)
    redirects: list[dict[str, Any]] = []


class DomResult(Answer):
    url: str
    html: str
    length: int
    truncated: bool = False


class ScreenshotResult(Answer):
    path: str
    bytes: int
    fullPage: bool = False


class EvaluateResult(Answer):
    type: str | None = Field(None, description="named when the JSON value does not say it (node, function, undefined)")
    truncated: bool = False
    result: Any = Field(None, description="the value (null, false and [] included); absent when truncated")
    preview: str | None = None
    path: str | None = None
    length: int | None = None


# -- navigate -------------------------------------------------------------------------------


class NavigateArgs(ActionArgs):
    url: str = Field(description="URL to open")
    wait_until: Literal["load", "domcontentloaded", "networkidle", "commit"] = Field(
        "load", description="Wait for this event"
    )
    timeout_ms: int = Field(30000, ge=0, le=300000, description="Timeout in ms")


@action(
    S,
    "navigate",
    NavigateArgs,
    legacy="browser_navigate",
    destructive=True,
    result=NavigateResult,
    lock="page",
    takes=LOAD_TAKES,
)
async def navigate(ctx: ToolContext, args: NavigateArgs) -> ActionResult:
    """Open a URL in the selected page (starts the internal browser when no target is active)."""
    refuse_script_url(args.url, evaluate_enabled=ctx.settings.evaluate_enabled)
    if ctx.ready_page() is None:
        # Nothing to navigate in yet (navigate launches or attaches first), or the tab is gone (it
        # says so): a change of browser state, so no other call runs meanwhile.
        async with ctx.exclusively():
            return await _navigate(ctx, args)
    page = await ctx.page(launch_if_needed=False)  # the page to ourselves until the call ends
    watch = await no_dialog(ctx, page, "navigate")  # Chrome would hold the navigation until it is answered
    return await _navigate(ctx, args, watch)


async def _navigate(ctx: ToolContext, args: NavigateArgs, watch: Any = None) -> ActionResult:
    before = ctx.ready_page()
    since_id = last_id(before.data.get("network")) if before is not None else 0

    async def load(timeout_ms: int, on_status: StatusFn) -> dict[str, Any]:
        return await ctx.manager.navigate(
            args.url, wait_until=args.wait_until, timeout_ms=timeout_ms, on_status=on_status
        )

    outcome = await bounded_load(
        ctx,
        what=f"navigate to {args.url}",
        wait_until=args.wait_until,
        timeout_ms=args.timeout_ms,
        load=load,
        watch=watch,  # the page's beforeunload prompt answers at once
    )
    if isinstance(outcome, ActionResult):
        return outcome  # status "waiting": the page goes on loading, wait_for continues
    info = dict(outcome)
    if "status" in info:  # the HTTP status; "status" is the envelope's ok/error
        info["httpStatus"] = info.pop("status")
    url = info.get("url", args.url)
    title = info.get("title")
    text = f"Navigated {info.get('stable_page_id')} ({info.get('target')}) to {url}" + (f" ({title})" if title else "")
    if info.get("httpStatus") is not None:
        text += f", HTTP {info['httpStatus']}"
    after = ctx.ready_page()
    hops = server_redirects(after.data.get("network"), url, since_id if after is before else 0) if after else []
    if hops:
        info["redirects"] = hops
        text += ", redirected by the server from " + " -> ".join(f"{h['url']} ({h['status']})" for h in hops)
    if info.get("relaunched"):
        text += "; the internal browser had gone away and was relaunched"
    if info.get("launchedAfterDetach"):
        text += "; the user's Chrome was detached, so this started the internal browser (not the user's Chrome)"
    text += move_notes(info)
    return ActionResult(text=text, data=info)


# -- get_dom --------------------------------------------------------------------------------

class GetDomArgs(ActionArgs):
    selector: str | None = Field(None, description="CSS selector: only this subtree")
    max_chars: int = Field(20000, ge=100, le=500000, description="Cap on returned text")


@action(S, "get_dom", GetDomArgs, legacy="browser_get_dom", read_only=True, result=DomResult, lock="page")
async def get_dom(ctx: ToolContext, args: GetDomArgs) -> ActionResult:
    """Cleaned HTML of the page or a subtree (no scripts/styles, trimmed, size-capped)."""
    from mcp_server.actions.page.dom_reader import read_dom
    from mcp_server.actions.page.snapshot import child_sessions

    page = await ctx.page()
    await no_dialog(ctx, page, "get_dom")
    # An isolated world of ours: the page's CSP, Trusted Types and scripts do not see the read.
    out = await read_dom(page, child_sessions(page), selector=args.selector, max_chars=args.max_chars)
    if out is None:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"no element matches {args.selector!r}",
            hint="check the selector (get_dom without selector returns the whole page)",
        )
    truncated = out["truncated"]
    about = "about " if out.get("lengthEstimated") else ""
    note = f"\n[truncated: {about}{out['length']} chars, showing {args.max_chars}]" if truncated else ""
    data: dict[str, Any] = {"url": out["url"], "html": Keep(out["html"]), "length": out["length"]}
    data["truncated"] = truncated
    if out["redactedValues"]:
        data["redactedValues"] = out["redactedValues"]  # token-carrying input values shown as [redacted]
    text = f"DOM of {out['url']}:\n" + out["html"] + note
    if out.get("noRoot"):  # an empty read (html "", length 0) that is not an empty page: say which
        text = f"DOM of {out['url']}: the document has no root element (a script removed it, or it is being replaced)"
    return ActionResult(text=text, data=data)


# -- screenshot -----------------------------------------------------------------------------


class ScreenshotArgs(ActionArgs):
    full_page: bool = Field(False, description="Whole page, not the viewport")
    inline: bool = Field(False, description="Also inline the image (large)")


@action(
    S,
    "screenshot",
    ScreenshotArgs,
    legacy="browser_screenshot",
    read_only=True,
    result=ScreenshotResult,
    lock="page",
    takes="a second or more for a full page (a background tab: at most 8 s); progress: capturing",
)
async def screenshot(ctx: ToolContext, args: ScreenshotArgs) -> ActionResult:
    """Save a PNG of the selected page under artifacts/screenshots and return its path."""
    page = await ctx.page()
    await no_dialog(ctx, page, "screenshot")
    params: dict[str, Any] = {"format": "png"}
    if args.full_page:
        metrics = await page.session.send("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics.get("contentSize") or {}
        width, height = max(1, int(size.get("width", 1))), max(1, int(size.get("height", 1)))
        params.update(captureBeyondViewport=True, clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})
    ctx.status("capturing the screenshot")
    shot = await capture_png(page, params, timeout=ctx.bound(60)[0])
    data = base64.b64decode(shot["data"])
    path = ctx.artifacts.new_path("screenshots", page.stable_page_id, ".png")
    path.write_bytes(data)
    images = [(shot["data"], "image/png")] if args.inline else []
    kind = ""
    full = args.full_page
    if full:
        # Say "full page" only when the image is as tall as the page (a hidden tab may give the viewport)
        got = _png_height(data)
        full = got >= height
        kind = ", full page" if full else f", NOT the full page: {got} of {height} px tall"
    return ActionResult(
        text=f"Screenshot saved: {path} ({len(data)} bytes{kind})",
        data={"path": str(path), "bytes": len(data), "fullPage": full},
        images=images,
    )


def _png_height(data: bytes) -> int:
    """The height in the PNG's header (IHDR), 0 when it is not a PNG."""
    return int.from_bytes(data[20:24], "big") if data[12:16] == b"IHDR" else 0


# -- evaluate_js ----------------------------------------------------------------------------


class EvaluateArgs(ActionArgs):
    expression: str = Field(description="JS expression (await allowed)")
    timeout_ms: int = Field(30000, ge=0, le=300000, description="Timeout in ms")
    max_chars: int = Field(20000, ge=100, le=500000, description="Cap on returned text")


_EVAL_GROUP = "mcp-evaluate"
#: Result types the JSON value itself shows; others (a node, a function, undefined) are named in ``type``.
_PLAIN_KINDS = frozenset({"string", "number", "boolean", "object", "array", "null"})
_PLAIN_KINDS |= {"str", "int", "float", "bool", "dict", "list", "NoneType"}


def _raise_if_thrown(result: dict[str, Any]) -> None:
    if "exceptionDetails" in result:
        raise ToolFailure(
            ErrorCode.EVALUATION_FAILED,
            exception_text(result["exceptionDetails"]),
            hint="fix the expression; page state is as the script left it",
        )


_releases: set[asyncio.Task[Any]] = set()


def _release_later(session: Any) -> None:
    async def release() -> None:
        try:
            await session.send("Runtime.releaseObjectGroup", {"objectGroup": _EVAL_GROUP}, timeout=30)
        except CDPException:
            pass  # the page went away: nothing left to release

    task = asyncio.get_running_loop().create_task(release())
    _releases.add(task)  # keep a reference until it is done
    task.add_done_callback(_releases.discard)


async def _evaluate_main(
    page: Any, expression: str, timeout_ms: int, *, session: Any = None, context_id: int | None = None
) -> tuple[Any, str]:
    """Evaluate in the page's main world (REPL mode: top-level await, re-declarable let) -> (value, type).

    ``session``/``context_id`` pick a frame: the session that runs it and its main-world context.

    REPL mode hands a returned promise back unresolved (``fetch(u).then(r => r.status)``), so
    it is awaited here too; objects are then read by value in a second step, so a value that
    cannot be serialised (a DOM node, a cyclic object) comes back as its description.
    """
    timeout = timeout_ms / 1000 + 5 if timeout_ms else None
    params: dict[str, Any] = {"expression": expression, "awaitPromise": True, "replMode": True}
    params["objectGroup"] = _EVAL_GROUP
    if context_id is not None:
        params["contextId"] = context_id
    session = session or page.session
    if timeout_ms:
        params["timeout"] = timeout_ms
    try:
        result = await session.send("Runtime.evaluate", params, timeout=timeout)
        _raise_if_thrown(result)
        remote = result.get("result", {})
        if remote.get("subtype") == "promise" and remote.get("objectId"):
            awaited = await session.send(
                "Runtime.awaitPromise", {"promiseObjectId": remote["objectId"], "returnByValue": True}, timeout=timeout
            )
            _raise_if_thrown(awaited)
            remote = awaited.get("result", {})
        elif remote.get("objectId"):
            try:
                by_value = await session.send(
                    "Runtime.callFunctionOn",
                    {
                        "objectId": remote["objectId"],
                        "functionDeclaration": "function () { return this; }",
                        "returnByValue": True,
                    },
                    timeout=timeout,
                )
            except CDPError:
                by_value = {}  # not serialisable: keep the description
            plain = by_value.get("result", {})
            if "value" in plain and not (plain["value"] == {} and remote.get("className") not in (None, "Object")):
                remote = {**remote, "value": plain["value"]}
    finally:
        # Not awaited: a dialog the script opened (setTimeout(alert)) holds every Runtime command,
        # and the value is already here; the release happens whenever the page answers again.
        _release_later(session)
    kind = remote.get("subtype") or remote.get("type", "undefined")
    if "value" in remote:
        return remote["value"], kind
    if "unserializableValue" in remote:
        return remote["unserializableValue"], kind
    return remote.get("description"), kind


@action(
    S,
    "evaluate_js",
    EvaluateArgs,
    legacy="browser_evaluate_js",
    result=EvaluateResult,
    lock="page",
    takes="up to timeout_ms (0: none), at most the call bound; progress: the script is running",
)
async def evaluate_js(ctx: ToolContext, args: EvaluateArgs) -> ActionResult:
    """Evaluate JavaScript in the selected page/frame and return its JSON value."""
    if not ctx.settings.evaluate_enabled:
        raise ToolFailure(
            ErrorCode.EVALUATE_DISABLED,
            "evaluate_js is disabled on this server (BROWSER_EVALUATE_ENABLED=false)",
            hint="use get_dom, snapshot or the network/console actions instead",
        )
    page = await ctx.page()
    watch = await no_dialog(ctx, page, "evaluate_js")
    session, context_id = page.session, None
    if page.active_frame:
        ref = await selected_frame(page)
        session = ref.session
        if ref.parent_id is not None:  # a frame inside its session's document: run in its own context
            context_id = main_world(page, ref)
            if context_id is None:
                raise ToolFailure(
                    ErrorCode.FRAME_NOT_FOUND,
                    "the selected frame's script context is not known yet (it may still be loading)",
                    hint="call list_frames and select_frame again, or evaluate in the main frame",
                )
    timeout_ms = ctx.bound_ms(args.timeout_ms, status="the script is running")  # within the call bound
    started = asyncio.get_running_loop().time()
    try:
        value, kind = await unless_dialog(
            watch,
            _evaluate_main(page, args.expression, timeout_ms, session=session, context_id=context_id),
            "evaluate_js",
        )
    except (CDPTimeout, CDPError) as exc:
        elapsed = asyncio.get_running_loop().time() - started
        failure = await runaway_failure(session, exc, timeout_ms=timeout_ms, elapsed_s=elapsed, what="evaluate_js")
        if failure is exc:
            raise
        raise failure from None
    rendered = json.dumps(value, ensure_ascii=False, default=str) if value is not None else "undefined"
    preview, truncated = truncate(rendered, args.max_chars)
    data: dict[str, Any] = {"type": kind, "truncated": truncated}
    if truncated:
        path = ctx.artifacts.new_path("evaluations", "result", ".json")
        path.write_text(rendered, encoding="utf-8")
        data.update(preview=preview, path=str(path), length=len(rendered))
        text = f"{preview}\n[truncated: {len(rendered)} chars; full result in {path}]"
    else:
        data["result"] = Keep(value)  # the page's value: its null, false and [] are the answer
        text = rendered
        if kind in _PLAIN_KINDS:
            data.pop("type")  # the JSON value says it
    return ActionResult(text=text, data=data)
