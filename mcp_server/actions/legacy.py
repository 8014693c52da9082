"""The actions behind the flat legacy tools (``browser_navigate`` ... ``browser_press_key``).

Each keeps the semantics the legacy tool had, and runs the same code whether it is called
as ``browser_session action=navigate`` or as ``browser_navigate``. Page reads (DOM, JS,
screenshots, state) go through our own CDP session; click/fill/hover/press go through
Playwright for its actionability checks. Big or sensitive output (screenshots, cookies,
storage) goes to files under the artifacts root; answers carry paths and counts.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import mimetypes
import os
import time
from typing import Any, Literal

from pydantic import Field

from targets.errors import ErrorCode, ToolFailure

from ..context import ToolContext
from ..registry import ActionArgs, ActionResult, action

S = "browser_session"
I = "browser_interact"  # noqa: E741 - the tool's short name, used as a tag


# -- shared helpers -------------------------------------------------------------------------


async def run_js(ctx: ToolContext, page: Any, fn: str, arg: Any = None, *, timeout: float = 15.0) -> Any:
    """Call the JS function source ``fn`` with ``arg`` in the selected frame and return its JSON value.

    The main frame goes through our CDP session; a frame chosen by select_frame goes through
    Playwright's frame, which already knows each frame's execution context.
    """
    if page.active_frame:
        frame = await page.playwright_frame()
        return await frame.evaluate(fn, arg)
    result = await page.session.send(
        "Runtime.evaluate",
        {"expression": f"({fn})({json.dumps(arg)})", "returnByValue": True, "awaitPromise": True},
        timeout=timeout,
    )
    if "exceptionDetails" in result:
        raise ToolFailure(ErrorCode.EVALUATION_FAILED, _exception_text(result["exceptionDetails"]))
    return result.get("result", {}).get("value")


def _exception_text(details: dict[str, Any]) -> str:
    exc = details.get("exception") or {}
    text = exc.get("description") or details.get("text") or "script threw"
    return str(text).split("\n")[0][:500]


def _truncate(text: str, limit: int) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[:limit], True)


async def _playwright(call: Any, *, what: str) -> Any:
    """Await a Playwright call, mapping its errors to stable codes."""
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    try:
        return await call
    except PlaywrightTimeout as exc:
        first = str(exc).split("\n")[0]
        raise ToolFailure(
            ErrorCode.ELEMENT_NOT_INTERACTABLE,
            f"{what}: {first}",
            hint="the element may be hidden, disabled or covered; check with snapshot or get_dom, or raise timeout_ms",
        ) from None
    except PlaywrightError as exc:
        message = str(exc).split("\n")[0]
        lowered = message.lower()
        if "selector" in lowered and ("valid" in lowered or "pars" in lowered):
            raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{what}: {message}", hint="fix the CSS selector") from None
        if "closed" in lowered:
            raise ToolFailure(ErrorCode.PAGE_CLOSED, f"{what}: {message}", hint="call list_pages") from None
        raise ToolFailure(ErrorCode.ELEMENT_NOT_INTERACTABLE, f"{what}: {message}") from None


async def _no_dialog(ctx: ToolContext, page: Any, what: str) -> Any | None:
    """The page's dialog watch (from the snapshot module, when present), refusing if a dialog blocks the page.

    An open ``alert()`` freezes the page: any script or input would hang until the timeout.
    Saying DIALOG_OPEN at once (hint: handle_dialog) is the useful answer.
    """
    try:
        from .snapshot import dialog_watch, require_no_dialog
    except ImportError:
        return None
    watch = await dialog_watch(ctx, page)
    require_no_dialog(watch, what)
    return watch


async def _act(ctx: ToolContext, page: Any, what: str, call: Any) -> dict[str, Any] | None:
    """Run a Playwright input action; return the dialog it opened and left open (None otherwise).

    Playwright dismisses dialogs itself unless someone listens for them (the uid actions do,
    so handle_dialog can answer them): then the input call blocks until the dialog is
    handled, and we answer as soon as the dialog opens instead of hanging.
    """
    try:
        watch = await _no_dialog(ctx, page, what)
    except BaseException:
        call.close()  # never started: close the coroutine instead of leaking it
        raise
    task = asyncio.ensure_future(_playwright(call, what=what))
    if watch is None:
        await task
        return None
    opened = asyncio.ensure_future(watch.opened.wait())
    try:
        await asyncio.wait({task, opened}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        opened.cancel()
    if not task.done():
        # A dialog opened. Auto-dismissed (nobody keeps it open)? Then the action completes at once.
        done, _ = await asyncio.wait({task}, timeout=0.5)
        if not done and watch.open is not None:
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
            return {k: watch.open[k] for k in ("type", "message", "url") if k in watch.open}
    await task
    return None


def _with_dialog(result: ActionResult, dialog: dict[str, Any] | None) -> ActionResult:
    if dialog:
        result.text += f"; a JavaScript {dialog.get('type')} is open: {str(dialog.get('message'))[:200]!r}"
        result.text += " (answer it with handle_dialog)"
        result.data["dialog"] = dialog
    return result


# -- navigate -------------------------------------------------------------------------------


class NavigateArgs(ActionArgs):
    url: str = Field(description="URL to open in the selected page")
    wait_until: Literal["load", "domcontentloaded", "networkidle", "commit"] = Field(
        "load", description="Navigation event to wait for"
    )
    timeout_ms: int = Field(30000, ge=0, le=300000, description="Timeout in ms")


@action(S, "navigate", NavigateArgs, legacy="browser_navigate")
async def navigate(ctx: ToolContext, args: NavigateArgs) -> ActionResult:
    """Open a URL in the selected page (starts the internal browser when no target is active)."""
    info = dict(await ctx.manager.navigate(args.url, wait_until=args.wait_until, timeout_ms=args.timeout_ms))
    if "status" in info:  # the HTTP status; "status" is the envelope's ok/error
        info["httpStatus"] = info.pop("status")
    url = info.get("url", args.url)
    title = info.get("title")
    return ActionResult(text=f"Navigated to {url}" + (f" ({title})" if title else ""), data=info)


# -- get_dom --------------------------------------------------------------------------------

_CLEAN_DOM_JS = r"""
(arg) => {
  const root = arg.selector ? document.querySelector(arg.selector) : document.documentElement;
  if (!root) return null;
  const clone = root.cloneNode(true);
  clone.querySelectorAll('script,style,noscript,template,link[rel~="stylesheet"],link[rel~="preload"],meta')
       .forEach((n) => n.remove());
  const walker = document.createTreeWalker(clone, NodeFilter.SHOW_COMMENT);
  const comments = [];
  while (walker.nextNode()) comments.push(walker.currentNode);
  comments.forEach((c) => c.remove());
  const all = [clone, ...clone.querySelectorAll('*')];
  for (const el of all) {
    for (const attr of [...el.attributes]) {
      const name = attr.name.toLowerCase();
      const secret = name === 'value' && (el.type || '').toLowerCase() === 'password';
      if (name.startsWith('on') || name === 'style' || secret) {
        el.removeAttribute(attr.name);
      }
    }
    if (el.tagName === 'svg') el.innerHTML = '';
  }
  const html = clone.outerHTML.replace(/\s+/g, ' ').replace(/>\s+</g, '><').trim();
  return {html: html.slice(0, arg.maxChars), length: html.length, title: document.title, url: location.href};
}
"""


class GetDomArgs(ActionArgs):
    selector: str | None = Field(None, description="CSS selector (get_dom: subtree; interact: target element)")
    max_chars: int = Field(20000, ge=100, le=500000, description="Cap on returned text")


@action(S, "get_dom", GetDomArgs, legacy="browser_get_dom", read_only=True)
async def get_dom(ctx: ToolContext, args: GetDomArgs) -> ActionResult:
    """Cleaned HTML of the page or a subtree (no scripts/styles, trimmed, size-capped)."""
    page = await ctx.page()
    await _no_dialog(ctx, page, "get_dom")
    out = await run_js(ctx, page, _CLEAN_DOM_JS, {"selector": args.selector, "maxChars": args.max_chars})
    if out is None:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"no element matches {args.selector!r}",
            hint="check the selector (get_dom without selector returns the whole page)",
        )
    truncated = out["length"] > args.max_chars
    note = f"\n[truncated: {out['length']} chars, showing {args.max_chars}]" if truncated else ""
    return ActionResult(
        text=out["html"] + note,
        data={"html": out["html"], "length": out["length"], "truncated": truncated, "url": out["url"]},
    )


# -- screenshot -----------------------------------------------------------------------------


class ScreenshotArgs(ActionArgs):
    full_page: bool = Field(False, description="Whole scrollable page, not just the viewport")
    inline: bool = Field(False, description="Also return the image inline (large)")


@action(S, "screenshot", ScreenshotArgs, legacy="browser_screenshot", read_only=True)
async def screenshot(ctx: ToolContext, args: ScreenshotArgs) -> ActionResult:
    """Save a PNG of the selected page under artifacts/screenshots and return its path."""
    page = await ctx.page()
    await _no_dialog(ctx, page, "screenshot")
    params: dict[str, Any] = {"format": "png"}
    if args.full_page:
        metrics = await page.session.send("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics.get("contentSize") or {}
        width, height = max(1, int(size.get("width", 1))), max(1, int(size.get("height", 1)))
        params.update(captureBeyondViewport=True, clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})
    shot = await page.session.send("Page.captureScreenshot", params, timeout=60)
    data = base64.b64decode(shot["data"])
    path = ctx.artifacts.new_path("screenshots", page.stable_page_id, ".png")
    path.write_bytes(data)
    images = [(shot["data"], "image/png")] if args.inline else []
    return ActionResult(
        text=f"Screenshot saved: {path} ({len(data)} bytes)",
        data={"path": str(path), "bytes": len(data), "fullPage": args.full_page},
        images=images,
    )


# -- evaluate_js ----------------------------------------------------------------------------


class EvaluateArgs(ActionArgs):
    expression: str = Field(description="JavaScript expression (await allowed)")
    timeout_ms: int = Field(30000, ge=0, le=300000, description="Timeout in ms")
    max_chars: int = Field(20000, ge=100, le=500000, description="Cap on returned text")


@action(S, "evaluate_js", EvaluateArgs, legacy="browser_evaluate_js")
async def evaluate_js(ctx: ToolContext, args: EvaluateArgs) -> ActionResult:
    """Evaluate JavaScript in the selected page/frame and return its JSON value."""
    if not ctx.settings.evaluate_enabled:
        raise ToolFailure(
            ErrorCode.EVALUATE_DISABLED,
            "evaluate_js is disabled on this server (BROWSER_EVALUATE_ENABLED=false)",
            hint="use get_dom, snapshot or the network/console actions instead",
        )
    page = await ctx.page()
    await _no_dialog(ctx, page, "evaluate_js")
    if page.active_frame:
        frame = await page.playwright_frame()
        value = await _playwright(frame.evaluate(args.expression), what="evaluate_js")
        kind = type(value).__name__
    else:
        params: dict[str, Any] = {
            "expression": args.expression,
            "returnByValue": True,
            "awaitPromise": True,
            "replMode": True,
        }
        if args.timeout_ms:
            params["timeout"] = args.timeout_ms
        timeout = args.timeout_ms / 1000 + 5 if args.timeout_ms else None
        result = await page.session.send("Runtime.evaluate", params, timeout=timeout)
        if "exceptionDetails" in result:
            raise ToolFailure(
                ErrorCode.EVALUATION_FAILED,
                _exception_text(result["exceptionDetails"]),
                hint="fix the expression; page state is as the script left it",
            )
        remote = result.get("result", {})
        kind = remote.get("subtype") or remote.get("type", "undefined")
        if "value" in remote:
            value = remote["value"]
        elif "unserializableValue" in remote:
            value = remote["unserializableValue"]
        else:
            value = remote.get("description")
    rendered = json.dumps(value, ensure_ascii=False, default=str) if value is not None else "undefined"
    preview, truncated = _truncate(rendered, args.max_chars)
    data: dict[str, Any] = {"type": kind, "truncated": truncated}
    if truncated:
        path = ctx.artifacts.new_path("evaluations", "result", ".json")
        path.write_text(rendered, encoding="utf-8")
        data.update(preview=preview, path=str(path), length=len(rendered))
        text = f"{preview}\n[truncated: {len(rendered)} chars; full result in {path}]"
    else:
        data["result"] = value
        text = rendered
    return ActionResult(text=text, data=data)


# -- annotate / click_by_id -----------------------------------------------------------------

_ANNOTATE_JS = r"""
(arg) => {
  const LAYER = '__mcp_annotations';
  document.getElementById(LAYER)?.remove();
  document.querySelectorAll('[data-mcp-annotate-id]').forEach((e) => e.removeAttribute('data-mcp-annotate-id'));
  if (arg.clear) return [];
  const sel = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[role=button],[role=link],' +
    '[role=checkbox],[role=radio],[role=tab],[role=menuitem],[role=option],[onclick],[contenteditable=""],' +
    '[contenteditable=true],[tabindex]:not([tabindex="-1"])';
  const layer = document.createElement('div');
  layer.id = LAYER;
  layer.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;z-index:2147483647;pointer-events:none';
  const out = [];
  let n = 0;
  for (const el of document.querySelectorAll(sel)) {
    if (n >= arg.max) break;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || cs.display === 'none') continue;
    n += 1;
    el.setAttribute('data-mcp-annotate-id', String(n));
    const tag = document.createElement('div');
    tag.textContent = String(n);
    tag.style.cssText = `position:absolute;left:${r.left + scrollX}px;top:${r.top + scrollY}px;` +
      'background:#c00;color:#fff;font:bold 11px/14px monospace;padding:0 3px;border-radius:3px;pointer-events:none';
    layer.appendChild(tag);
    const isField = ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
    const label = isField
      ? (el.getAttribute('aria-label') || el.getAttribute('placeholder') || el.name || el.id || '')
      : (el.innerText || el.getAttribute('aria-label') || el.title || '').trim().replace(/\s+/g, ' ');
    const item = {id: n, tag: el.tagName.toLowerCase(), text: label.slice(0, 80)};
    if (el.type && isField) item.type = el.type;
    if (el.getAttribute('role')) item.role = el.getAttribute('role');
    if (el.getAttribute('href')) item.href = el.getAttribute('href').slice(0, 200);
    item.inViewport = r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth;
    out.push(item);
  }
  document.body.appendChild(layer);
  return out;
}
"""


class AnnotateArgs(ActionArgs):
    clear: bool = Field(False, description="Remove the labels instead")
    max_elements: int = Field(300, ge=1, le=2000, description="Cap on labelled elements")


@action(S, "annotate", AnnotateArgs, legacy="browser_annotate")
async def annotate(ctx: ToolContext, args: AnnotateArgs) -> ActionResult:
    """Overlay numbered labels on interactive elements; click one with click_by_id."""
    page = await ctx.page()
    await _no_dialog(ctx, page, "annotate")
    items = await run_js(ctx, page, _ANNOTATE_JS, {"clear": args.clear, "max": args.max_elements}) or []
    page.data["annotations"] = {item["id"]: item for item in items}
    if args.clear:
        return ActionResult(text="annotations removed", data={"elements": []})
    lines = [f"[{i['id']}] {i['tag']}{'/' + i['type'] if i.get('type') else ''} {i['text']!r}" for i in items]
    return ActionResult(
        text=f"{len(items)} interactive element(s) labelled:\n" + "\n".join(lines), data={"elements": items}
    )


class ClickByIdArgs(ActionArgs):
    element_id: int = Field(ge=1, description="Label number from annotate")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


@action(S, "click_by_id", ClickByIdArgs, legacy="browser_click_by_id")
async def click_by_id(ctx: ToolContext, args: ClickByIdArgs) -> ActionResult:
    """Click the element annotate labelled with element_id."""
    page = await ctx.page()
    await _no_dialog(ctx, page, "click_by_id")
    frame = await page.playwright_frame()
    locator = frame.locator(f'[data-mcp-annotate-id="{args.element_id}"]')
    if await _playwright(locator.count(), what="click_by_id") == 0:
        raise ToolFailure(
            ErrorCode.STALE_UID,
            f"label {args.element_id} is no longer on the page",
            hint="call annotate again (labels vanish when the page navigates or re-renders)",
            element_id=args.element_id,
        )
    dialog = await _act(ctx, page, f"click label {args.element_id}", locator.first.click(timeout=args.timeout_ms))
    item = page.data.get("annotations", {}).get(args.element_id, {})
    return _with_dialog(
        ActionResult(
            text=f"clicked [{args.element_id}] {item.get('tag', '')} {item.get('text', '')!r}".rstrip(),
            data={"element_id": args.element_id, "element": item or None},
        ),
        dialog,
    )


# -- export_state / load_state --------------------------------------------------------------

_STORAGE_READ_JS = """
() => { try { return {origin: location.origin, items: Object.fromEntries(Object.entries(localStorage))}; }
        catch (e) { return {origin: location.origin, items: null}; } }
"""
_STORAGE_WRITE_JS = """
(items) => { for (const [k, v] of Object.entries(items)) localStorage.setItem(k, v); return Object.keys(items).length; }
"""
_COOKIE_FIELDS = ("name", "value", "domain", "path", "secure", "httpOnly", "sameSite", "priority")


class StateFileArgs(ActionArgs):
    path: str | None = Field(None, description="File under the artifacts dir (state: state/, read: downloads/)")


@action(S, "export_state", StateFileArgs, legacy="browser_export_state")
async def export_state(ctx: ToolContext, args: StateFileArgs) -> ActionResult:
    """Save the page's cookies and localStorage to a file under artifacts/state (values never inline)."""
    page = await ctx.page()
    await _no_dialog(ctx, page, "export_state")
    if args.path:
        target = ctx.artifacts.resolve_inside(args.path, kind="state")
        target.parent.mkdir(parents=True, exist_ok=True)
    else:
        target = ctx.artifacts.new_path("state", page.stable_page_id, ".json")
    urls = [u for u in {page.url, *(await _frame_urls(page))} if u and u.startswith(("http://", "https://"))]
    cookies = (await page.session.send("Network.getCookies", {"urls": urls} if urls else {})).get("cookies", [])
    storage = await run_js(ctx, page, _STORAGE_READ_JS) or {}
    items = storage.get("items") or {}
    doc = {
        "format": "mcp-browser-state",
        "version": 1,
        "savedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "url": page.url,
        "origin": storage.get("origin"),
        "cookies": cookies,
        "localStorage": {storage.get("origin") or "": items},
    }
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # holds secrets: owner-only
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)
    return ActionResult(
        text=f"Saved {len(cookies)} cookie(s) and {len(items)} localStorage key(s) to {target}",
        data={
            "path": str(target),
            "cookies": len(cookies),
            "cookieNames": sorted({c.get("name", "") for c in cookies}),
            "localStorageKeys": len(items),
            "origin": storage.get("origin"),
        },
    )


async def _frame_urls(page: Any) -> list[str]:
    try:
        tree = (await page.session.send("Page.getFrameTree")).get("frameTree", {})
    except Exception:  # noqa: BLE001 - frame URLs only widen the cookie query
        return []
    return [f["url"] for f in _flatten_frames(tree)]


class LoadStateArgs(ActionArgs):
    path: str = Field(description="File under the artifacts dir (state: state/, read: downloads/)")


@action(S, "load_state", LoadStateArgs, legacy="browser_load_state")
async def load_state(ctx: ToolContext, args: LoadStateArgs) -> ActionResult:
    """Restore cookies and localStorage saved by export_state (localStorage only on the same origin)."""
    page = await ctx.page()
    await _no_dialog(ctx, page, "load_state")
    source = ctx.artifacts.resolve_inside(args.path, kind="state")
    if not source.is_file():
        raise ToolFailure(ErrorCode.FILE_NOT_FOUND, f"no state file {args.path!r}", hint="run export_state first")
    try:
        doc = json.loads(source.read_text(encoding="utf-8"))
        cookies = list(doc.get("cookies") or [])
        storage = dict(doc.get("localStorage") or {})
    except (ValueError, AttributeError, TypeError) as exc:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT, f"{args.path!r} is not a state file: {exc}", hint="use a file from export_state"
        ) from None
    params = []
    for cookie in cookies:
        param = {k: cookie[k] for k in _COOKIE_FIELDS if k in cookie}
        if not cookie.get("session") and isinstance(cookie.get("expires"), int | float) and cookie["expires"] > 0:
            param["expires"] = cookie["expires"]
        params.append(param)
    if params:
        await page.session.send("Network.setCookies", {"cookies": params})
    current = await run_js(ctx, page, _STORAGE_READ_JS) or {}
    origin = current.get("origin")
    restored = 0
    skipped = [o for o in storage if o and o != origin]
    if origin in storage and storage[origin]:
        restored = await run_js(ctx, page, _STORAGE_WRITE_JS, storage[origin]) or 0
    text = f"Restored {len(params)} cookie(s) and {restored} localStorage key(s)"
    if skipped:
        text += f"; localStorage of {', '.join(skipped)} skipped (navigate there and load again)"
    return ActionResult(
        text=text,
        data={"path": str(source), "cookies": len(params), "localStorageKeys": restored, "skippedOrigins": skipped},
    )


# -- network errors / console logs (capture recorders) --------------------------------------


class NetworkErrorsArgs(ActionArgs):
    limit: int = Field(50, ge=1, le=1000, description="Newest entries to return")


@action(S, "get_network_errors", NetworkErrorsArgs, legacy="browser_get_network_errors", read_only=True)
async def get_network_errors(ctx: ToolContext, args: NetworkErrorsArgs) -> ActionResult:
    """Failed requests and HTTP >= 400 responses captured on the selected page."""
    from ..capture import network_of

    page = await ctx.page()
    recorder = network_of(page)
    by_id = {e["id"]: e for e in recorder.list(status_min=400)}
    by_id.update({e["id"]: e for e in recorder.list(failed_only=True)})
    entries = [by_id[k] for k in sorted(by_id)][-args.limit :]
    since = recorder.stats.get("capturedSince")
    lines = [
        f"#{e['id']} {e.get('method', '')} {e.get('status') or e.get('errorText') or 'failed'} {e.get('url', '')}"
        for e in entries
    ]
    text = f"{len(entries)} network error(s) since {since}" + (":\n" + "\n".join(lines) if lines else "")
    return ActionResult(text=text, data={"entries": entries, "capturedSince": since})


class ConsoleLogsArgs(ActionArgs):
    types: list[str] | None = Field(None, description="Entry types, e.g. error, warning, log, pageerror")
    limit: int = Field(50, ge=1, le=1000, description="Newest entries to return")


@action(S, "get_console_logs", ConsoleLogsArgs, legacy="browser_get_console_logs", read_only=True)
async def get_console_logs(ctx: ToolContext, args: ConsoleLogsArgs) -> ActionResult:
    """Console messages, uncaught errors and browser log entries of the selected page."""
    from ..capture import console_of

    page = await ctx.page()
    recorder = console_of(page)
    entries = recorder.list(types=args.types, limit=args.limit)
    since = recorder.stats.get("capturedSince")
    lines = [f"#{e.get('id')} [{e.get('type')}] {str(e.get('text', ''))[:200]}" for e in entries]
    text = f"{len(entries)} console entr{'y' if len(entries) == 1 else 'ies'} since {since}"
    text += ":\n" + "\n".join(lines) if lines else ""
    return ActionResult(text=text, data={"entries": entries, "capturedSince": since})


# -- tabs and frames ------------------------------------------------------------------------


class SwitchTabArgs(ActionArgs):
    page_id: int | None = Field(None, description="Index from list_pages")
    stable_page_id: str | None = Field(None, description="Stable id from list_pages (p1, p2...)")


@action(S, "switch_tab", SwitchTabArgs, legacy="browser_switch_tab")
async def switch_tab(ctx: ToolContext, args: SwitchTabArgs) -> ActionResult:
    """Select another tab by page_id or stable_page_id (never navigates)."""
    selector = {k: v for k, v in args.model_dump().items() if v is not None}
    info = await ctx.manager.select_page(**selector)
    page = (info.get("selected") if isinstance(info, dict) else None) or {}
    return ActionResult(text=f"switched to {page.get('stable_page_id')} <{page.get('url')}>", data=info)


def _flatten_frames(tree: dict[str, Any], parent: str | None = None) -> list[dict[str, Any]]:
    frame = tree.get("frame", {})
    out = [{"frame_id": frame.get("id"), "parent_id": parent, "name": frame.get("name") or "", "url": frame.get("url")}]
    for child in tree.get("childFrames") or []:
        out.extend(_flatten_frames(child, frame.get("id")))
    return out


async def _frames(page: Any) -> list[dict[str, Any]]:
    tree = (await page.session.send("Page.getFrameTree")).get("frameTree", {})
    frames = _flatten_frames(tree)
    for index, frame in enumerate(frames):
        frame["frame_index"] = index
        frame["selected"] = frame["frame_id"] == page.active_frame or (index == 0 and not page.active_frame)
    return frames


@action(S, "list_frames", ActionArgs, legacy="browser_list_frames", read_only=True)
async def list_frames(ctx: ToolContext, args: ActionArgs) -> ActionResult:
    """Frames of the selected page (index 0 is the main frame), with the selected one."""
    page = await ctx.page()
    frames = await _frames(page)
    lines = [
        f"{'*' if f['selected'] else ' '} [{f['frame_index']}] {f['name'] or '-'} <{f['url']}> id={f['frame_id']}"
        for f in frames
    ]
    return ActionResult(text=f"{len(frames)} frame(s):\n" + "\n".join(lines), data={"frames": frames})


class SelectFrameArgs(ActionArgs):
    frame_index: int | None = Field(None, ge=0, description="Index from list_frames (0 = main frame)")
    frame_id: str | None = Field(None, description="Frame id from list_frames")
    frame_name: str | None = Field(None, description="Frame name attribute")
    url_contains: str | None = Field(None, description="Substring of the page/frame URL")


@action(S, "select_frame", SelectFrameArgs, legacy="browser_select_frame")
async def select_frame(ctx: ToolContext, args: SelectFrameArgs) -> ActionResult:
    """Pick the frame later actions run in (frame_index 0 or no argument: the main frame)."""
    page = await ctx.page()
    frames = await _frames(page)
    given = {k: v for k, v in args.model_dump().items() if v is not None}
    if len(given) > 1:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"give one frame selector, got {', '.join(given)}")
    if not given:
        matches = frames[:1]
    elif args.frame_index is not None:
        matches = [f for f in frames if f["frame_index"] == args.frame_index]
    elif args.frame_id is not None:
        matches = [f for f in frames if f["frame_id"] == args.frame_id]
    elif args.frame_name is not None:
        matches = [f for f in frames if f["name"] == args.frame_name]
    else:
        matches = [f for f in frames if args.url_contains in (f["url"] or "")]
    if not matches:
        raise ToolFailure(
            ErrorCode.FRAME_NOT_FOUND,
            f"no frame matches {given}",
            hint="call list_frames and pick a frame_index",
            frames=[{k: f[k] for k in ("frame_index", "name", "url")} for f in frames],
        )
    if len(matches) > 1:
        raise ToolFailure(
            ErrorCode.AMBIGUOUS_MATCH,
            f"{len(matches)} frames match {given}",
            hint="use frame_index or frame_id",
            candidates=[{k: f[k] for k in ("frame_index", "frame_id", "name", "url")} for f in matches],
        )
    chosen = matches[0]
    page.active_frame = None if chosen["frame_index"] == 0 else chosen["frame_id"]
    chosen = {**chosen, "selected": True}
    return ActionResult(text=f"frame [{chosen['frame_index']}] <{chosen['url']}> selected", data={"frame": chosen})


# -- downloads ------------------------------------------------------------------------------


class ReadDownloadArgs(ActionArgs):
    path: str | None = Field(None, description="File under the artifacts dir (state: state/, read: downloads/)")
    max_chars: int = Field(20000, ge=100, le=500000, description="Cap on returned text")


@action(S, "read_downloaded_file", ReadDownloadArgs, legacy="browser_read_downloaded_file", read_only=True)
async def read_downloaded_file(ctx: ToolContext, args: ReadDownloadArgs) -> ActionResult:
    """Read a file the browser downloaded (under artifacts/downloads); without path, list them."""
    folder = ctx.artifacts.dir("downloads")
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    listing = [{"path": str(p.relative_to(folder)), "bytes": p.stat().st_size} for p in files[:200]]
    if not args.path:
        lines = [f"{f['path']} ({f['bytes']} bytes)" for f in listing]
        return ActionResult(text=f"{len(files)} downloaded file(s)\n" + "\n".join(lines), data={"files": listing})
    target = ctx.artifacts.resolve_inside(args.path, kind="downloads")
    if not target.is_file():
        raise ToolFailure(
            ErrorCode.FILE_NOT_FOUND,
            f"no downloaded file {args.path!r}",
            hint="call read_downloaded_file without path to list downloads",
            files=listing[:50],
        )
    raw = target.read_bytes()
    mime = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    data: dict[str, Any] = {
        "path": str(target),
        "bytes": len(raw),
        "mimeType": mime,
        "sha256": hashlib.sha256(raw).hexdigest(),
    }
    if b"\x00" in raw[:4096]:
        data["binary"] = True
        return ActionResult(text=f"{target.name}: binary file, {len(raw)} bytes ({mime})", data=data)
    text = raw.decode("utf-8", errors="replace")
    content, truncated = _truncate(text, args.max_chars)
    data.update(binary=False, content=content, truncated=truncated, length=len(text))
    note = f"\n[truncated: {len(text)} chars, showing {args.max_chars}]" if truncated else ""
    return ActionResult(text=content + note, data=data)


# -- browser_interact: selector actions through Playwright ----------------------------------


class ClickArgs(ActionArgs):
    selector: str = Field(description="CSS selector (first match is used)")
    button: Literal["left", "right", "middle"] = Field("left", description="Mouse button")
    click_count: int = Field(1, ge=1, le=3, description="2 = double click")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


class FillArgs(ActionArgs):
    selector: str = Field(description="CSS selector (first match is used)")
    value: str = Field(description="Text to type (replaces the field's content)")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


class HoverArgs(ActionArgs):
    selector: str = Field(description="CSS selector (first match is used)")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


class ScrollArgs(ActionArgs):
    selector: str | None = Field(None, description="CSS selector (first match is used)")
    direction: Literal["down", "up", "left", "right"] = Field("down", description="Without selector")
    amount: int = Field(600, ge=1, le=100000, description="Pixels, without selector")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


class PressKeyArgs(ActionArgs):
    key: str = Field(description="Key, e.g. Enter, Tab, ArrowDown, Control+a")
    selector: str | None = Field(None, description="CSS selector (first match is used)")
    timeout_ms: int = Field(5000, ge=0, le=120000, description="Timeout in ms")


async def _locate(ctx: ToolContext, page: Any, selector: str, what: str) -> tuple[Any, int]:
    await _no_dialog(ctx, page, what)  # counting matches runs script: it would hang behind a dialog
    frame = await page.playwright_frame()
    locator = frame.locator(selector)
    count = await _playwright(locator.count(), what=what)
    if count == 0:
        raise ToolFailure(
            ErrorCode.ELEMENT_NOT_INTERACTABLE,
            f"{what}: no element matches {selector!r}",
            hint="check the selector with get_dom or snapshot (and select_frame for iframes)",
            selector=selector,
        )
    return locator.first, count


@action(I, "click", ClickArgs, legacy="browser_click")
async def click(ctx: ToolContext, args: ClickArgs) -> ActionResult:
    """Click the element matching a CSS selector."""
    page = await ctx.page()
    target, count = await _locate(ctx, page, args.selector, "click")
    dialog = await _act(
        ctx, page, "click", target.click(button=args.button, click_count=args.click_count, timeout=args.timeout_ms)
    )
    result = ActionResult(text=f"clicked {args.selector}", data={"selector": args.selector, "matches": count})
    return _with_dialog(result, dialog)


@action(I, "fill", FillArgs, legacy="browser_fill")
async def fill(ctx: ToolContext, args: FillArgs) -> ActionResult:
    """Fill an input/textarea matching a CSS selector (the value is not echoed back)."""
    page = await ctx.page()
    target, count = await _locate(ctx, page, args.selector, "fill")
    dialog = await _act(ctx, page, "fill", target.fill(args.value, timeout=args.timeout_ms))
    result = ActionResult(
        text=f"filled {args.selector} ({len(args.value)} chars)",
        data={"selector": args.selector, "matches": count, "chars": len(args.value)},
    )
    return _with_dialog(result, dialog)


@action(I, "hover", HoverArgs, legacy="browser_hover")
async def hover(ctx: ToolContext, args: HoverArgs) -> ActionResult:
    """Move the mouse over the element matching a CSS selector."""
    page = await ctx.page()
    target, count = await _locate(ctx, page, args.selector, "hover")
    dialog = await _act(ctx, page, "hover", target.hover(timeout=args.timeout_ms))
    result = ActionResult(text=f"hovering {args.selector}", data={"selector": args.selector, "matches": count})
    return _with_dialog(result, dialog)


_SCROLL_JS = """
(arg) => { window.scrollBy(arg.dx, arg.dy); return {x: Math.round(scrollX), y: Math.round(scrollY),
  maxY: Math.max(0, document.documentElement.scrollHeight - innerHeight)}; }
"""


@action(I, "scroll", ScrollArgs, legacy="browser_scroll")
async def scroll(ctx: ToolContext, args: ScrollArgs) -> ActionResult:
    """Scroll an element into view, or the page by amount pixels in direction."""
    page = await ctx.page()
    await _no_dialog(ctx, page, "scroll")
    if args.selector:
        target, count = await _locate(ctx, page, args.selector, "scroll")
        await _playwright(target.scroll_into_view_if_needed(timeout=args.timeout_ms), what="scroll")
        return ActionResult(text=f"scrolled {args.selector} into view", data={"selector": args.selector})
    dx = {"left": -args.amount, "right": args.amount}.get(args.direction, 0)
    dy = {"up": -args.amount, "down": args.amount}.get(args.direction, 0)
    position = await run_js(ctx, page, _SCROLL_JS, {"dx": dx, "dy": dy})
    return ActionResult(text=f"scrolled {args.direction} to y={position.get('y')}", data={"scroll": position})


@action(I, "press_key", PressKeyArgs, legacy="browser_press_key")
async def press_key(ctx: ToolContext, args: PressKeyArgs) -> ActionResult:
    """Press a key, in the element matching selector or in the focused element."""
    page = await ctx.page()
    if args.selector:
        target, _ = await _locate(ctx, page, args.selector, "press_key")
        call = target.press(args.key, timeout=args.timeout_ms)
    else:
        pw_page = await page.playwright_page()
        call = pw_page.keyboard.press(args.key)
    dialog = await _act(ctx, page, "press_key", call)
    where = args.selector or "the focused element"
    result = ActionResult(text=f"pressed {args.key} in {where}", data={"key": args.key, "selector": args.selector})
    return _with_dialog(result, dialog)
