"""Capture actions of ``browser_session``: console, network, bodies, HAR, and the one-shot debug bundle.

The recorders (:mod:`cdp_core.recorders`) already hold everything, redacted on output;
these handlers filter, phrase a short answer and write the big things (bodies, HAR,
bundles, screenshots) under the artifacts root. Nothing here navigates, reloads or
changes the page: a debug bundle on the user's Chrome only reads.
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from cdp_core.errors import CDPException
from cdp_core.recorders.har import build_har, write_har
from cdp_core.recorders.network import BodyIsBinary, BodyUnavailable, EntryNotFound, is_text_mime
from targets.errors import ErrorCode, ToolFailure

from ..capture import console_of, network_of
from ..registry import ActionArgs, ActionResult, action
from ..stacks import frame_text, location_text, map_console_entries, map_initiator
from .pagejs import capture_png

if TYPE_CHECKING:
    from targets import PageHandle

    from ..context import ToolContext

__all__ = ["build_bundle"]

S = "browser_session"
NETWORK_KIND = "network"
BUNDLE_KIND = "debug-bundles"
SNAPSHOT_PREVIEW_CHARS = 3000
RESPONSE_PREVIEW_CHARS = 400


def _not_found(exc: EntryNotFound, what: str) -> ToolFailure:
    return ToolFailure(ErrorCode.ENTRY_NOT_FOUND, str(exc), hint=f"call {what}_list for the ids that exist")


# -- console ----------------------------------------------------------------------------------


class ConsoleListArgs(ActionArgs):
    types: list[str] | None = Field(None, description="Entry types, e.g. error, warning, log, pageerror, issue")
    limit: int = Field(50, ge=1, le=1000, description="Newest entries to return")
    include_stack: bool = Field(False, description="Include stack frames")
    since_id: int | None = Field(None, description="Only ids after this")


class ConsoleGetArgs(ActionArgs):
    id: int = Field(description="Entry id")
    include_stack: bool = Field(True, description="Include stack frames")


class NoArgs(ActionArgs):
    pass


def _closed_note(page: PageHandle, data: dict[str, Any]) -> str:
    """Mark an answer read from a closed tab's capture (the entries stay readable after a close or crash)."""
    if not page.closed:
        return ""
    data["pageClosed"] = True
    return f"\n(page {page.stable_page_id} is closed: these entries were captured before it went away)"


def _console_line(e: dict[str, Any]) -> str:
    loc = e.get("location") or {}
    # Browser log entries (a failed resource load) have a URL but no line: no ":None" suffix.
    where = f" ({location_text(loc)})" if loc.get("url") else ""
    flag = " [replayed]" if e.get("replayed") else ""
    return f"#{e['id']} [{e['type']}]{flag} {str(e.get('text', ''))[:200]}{where}"


def _stack_lines(e: dict[str, Any], limit: int) -> list[str]:
    """Stack frames as text: many clients hand the model only the text content, not structuredContent."""
    return [f"    at {frame_text(f)}" for f in (e.get("stack") or [])[:limit]]


def _policy(ctx: ToolContext) -> Any:
    """The launch browser's URL policy (source maps outside ALLOWED_URLS are not fetched)."""
    launch = getattr(ctx.manager, "launch", None)
    return getattr(launch, "policy", None)


def _source_map_notes(data: dict[str, Any], notes: list[str]) -> str:
    """Maps that could not be read: said once per answer, in both renderings."""
    if not notes:
        return ""
    data["sourceMapNotes"] = notes
    return "\n" + "\n".join(f"source map: {n}" for n in notes)


@action(S, "console_list", ConsoleListArgs, read_only=True, lock="read")
async def console_list(ctx: ToolContext, args: ConsoleListArgs) -> ActionResult:
    """Console messages, uncaught errors and browser log entries of the selected page, oldest first."""
    page = await ctx.captured_page()
    recorder = console_of(page)
    await recorder.issues.settle()  # DevTools issues name their element a moment after they arrive
    entries = recorder.list(
        types=args.types, limit=args.limit, include_stack=args.include_stack, since_id=args.since_id
    )
    notes = await map_console_entries(page, entries, _policy(ctx))
    stats = recorder.stats
    text = f"{len(entries)} console entr{'y' if len(entries) == 1 else 'ies'} (captured since {stats['capturedSince']}"
    text += f", {stats['evicted']} evicted)" if stats["evicted"] else ")"
    if entries:
        lines = []
        for e in entries:
            lines.append(_console_line(e))
            if args.include_stack:
                lines += _stack_lines(e, 5)
        text += ":\n" + "\n".join(lines)
    data = {"entries": entries, **stats}
    text += _source_map_notes(data, notes)
    text += _closed_note(page, data)
    return ActionResult(text=text, data=data)


@action(S, "console_get", ConsoleGetArgs, read_only=True, lock="read")
async def console_get(ctx: ToolContext, args: ConsoleGetArgs) -> ActionResult:
    """One console entry in full (stack included by default)."""
    page = await ctx.captured_page()
    recorder = console_of(page)
    try:
        entry = recorder.get(args.id, include_stack=args.include_stack)
    except EntryNotFound as exc:
        raise _not_found(exc, "console") from None
    notes = await map_console_entries(page, [entry], _policy(ctx))
    lines = [_console_line(entry), *_stack_lines(entry, 10)]
    data = {"entry": entry, "capturedSince": recorder.captured_since}
    text = "\n".join(lines) + _source_map_notes(data, notes)
    return ActionResult(text=text + _closed_note(page, data), data=data)


@action(S, "console_clear", NoArgs, lock="page")
async def console_clear(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """Forget the captured console entries of the selected page (capture continues)."""
    cleared = console_of(await ctx.page()).clear()
    return ActionResult(text=f"Cleared {cleared} console entries", data={"cleared": cleared})


# -- network ----------------------------------------------------------------------------------


class NetworkListArgs(ActionArgs):
    resource_types: list[str] | None = Field(None, description="document, xhr, fetch, script, image, websocket...")
    status_min: int | None = Field(None, ge=0, le=999, description="Min status (400 = errors)")
    url_contains: str | None = Field(None, description="Substring of the request URL")
    method: str | None = Field(None, description="HTTP method, e.g. POST")
    failed_only: bool = Field(False, description="Only requests that got no response")
    limit: int = Field(50, ge=1, le=1000, description="Newest entries to return")
    since_id: int | None = Field(None, description="Only ids after this")


class NetworkGetArgs(ActionArgs):
    id: int = Field(description="Entry id")


class SaveBodyArgs(ActionArgs):
    id: int = Field(description="Entry id")
    body: Literal["response", "request"] = Field("response", description="Which body to save")
    allow_binary: bool = Field(False, description="Allow binary bodies")
    max_bytes: int | None = Field(None, ge=1, description="Byte cap (default NETWORK_BODY_MAX_BYTES)")


class ExportHarArgs(ActionArgs):
    include_bodies: bool = Field(True, description="Inline held text bodies")


def _network_line(e: dict[str, Any]) -> str:
    status = e.get("status")
    outcome = f"FAILED {e.get('failureText')}" if e.get("failed") else str(status if status is not None else "...")
    extra = f" <- #{e['redirectedFrom']}" if e.get("redirectedFrom") else ""
    held = " [body held]" if e.get("bodyHeld") else ""
    return f"#{e['id']} {e['method']} {outcome} {e['resourceType']} {e['url'][:200]}{extra}{held}"


@action(S, "network_list", NetworkListArgs, read_only=True, lock="read")
async def network_list(ctx: ToolContext, args: NetworkListArgs) -> ActionResult:
    """Requests of the selected page (one entry per redirect hop), oldest first, with filters."""
    page = await ctx.captured_page()
    recorder = network_of(page)
    entries = recorder.list(
        resource_types=args.resource_types,
        status_min=args.status_min,
        url_contains=args.url_contains,
        method=args.method,
        failed_only=args.failed_only,
        limit=args.limit,
        since_id=args.since_id,
    )
    stats = recorder.stats
    text = f"{len(entries)} request(s) (captured since {stats['capturedSince']}"
    text += f", {stats['evicted']} evicted)" if stats["evicted"] else ")"
    if entries:
        text += ":\n" + "\n".join(_network_line(e) for e in entries)
    data = {"entries": entries, **stats}
    text += _closed_note(page, data)
    return ActionResult(text=text, data=data)


@action(S, "network_get", NetworkGetArgs, read_only=True, lock="read")
async def network_get(ctx: ToolContext, args: NetworkGetArgs) -> ActionResult:
    """One request in full: redacted headers, post data preview, initiator, timing, WebSocket frames."""
    page = await ctx.captured_page()
    recorder = network_of(page)
    try:
        entry = recorder.get(args.id)
    except EntryNotFound as exc:
        raise _not_found(exc, "network") from None
    notes = await map_initiator(page, entry, _policy(ctx))
    lines = [_network_line(entry)]
    if entry.get("postDataPreview"):
        lines.append(f"payload: {entry['postDataPreview'][:300]}")
    if entry.get("initiator", {}) and entry["initiator"].get("stackTop"):
        stack = entry["initiator"].get("stack") or [entry["initiator"]["stackTop"]]
        lines.append("initiator: " + " < ".join(frame_text(f) for f in stack[:5]))
    if not entry.get("bodyHeld") and entry.get("resourceType") != "websocket":
        lines.append("body: not held in memory (network_save_body asks the browser)")
    data = {"entry": entry, "capturedSince": recorder.captured_since}
    text = "\n".join(lines) + _source_map_notes(data, notes)
    return ActionResult(text=text + _closed_note(page, data), data=data)


@action(S, "network_save_body", SaveBodyArgs, lock="page")
async def network_save_body(ctx: ToolContext, args: SaveBodyArgs) -> ActionResult:
    """Save a request's response (or request) body to a file under <artifacts>/network/."""
    recorder = network_of(await ctx.page())
    max_bytes = args.max_bytes if args.max_bytes is not None else getattr(ctx.settings, "network_body_max_bytes", None)
    try:
        saved = await recorder.save_body(
            args.id,
            which=args.body,
            dest_dir=ctx.artifacts.dir(NETWORK_KIND),
            max_bytes=max_bytes,
            allow_binary=args.allow_binary,
        )
    except EntryNotFound as exc:
        raise _not_found(exc, "network") from None
    except BodyUnavailable as exc:
        raise ToolFailure(
            ErrorCode.BODY_UNAVAILABLE,
            str(exc),
            hint="bodies of document/xhr/fetch responses are kept automatically; repeat the request to capture it",
            id=args.id,
        ) from None
    except BodyIsBinary as exc:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, str(exc), hint="pass allow_binary=true", id=args.id) from None
    data = saved.to_dict()
    data["relativePath"] = ctx.artifacts.relative(saved.file_path)
    data["id"] = args.id
    data["body"] = args.body
    text = f"Saved {args.body} body of #{args.id}: {saved.bytes} bytes ({saved.mime_type}) to {data['relativePath']}"
    if saved.truncated:
        text += f" (truncated from {saved.total_bytes} bytes)"
    if saved.preview:
        text += "\n" + saved.preview[:500]
    return ActionResult(text=text, data=data)


@action(S, "network_clear", NoArgs, lock="page")
async def network_clear(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """Forget the captured requests and held bodies of the selected page (capture continues)."""
    cleared = network_of(await ctx.page()).clear()
    return ActionResult(text=f"Cleared {cleared} network entries", data={"cleared": cleared})


@action(S, "network_export_har", ExportHarArgs, lock="read")
async def network_export_har(ctx: ToolContext, args: ExportHarArgs) -> ActionResult:
    """Write the captured requests as a HAR 1.2 file (Chrome DevTools imports it), secrets redacted."""
    page = await ctx.page()
    recorder = network_of(page)
    har = build_har(recorder, page_title=page.title, page_url=page.url, include_bodies=args.include_bodies)
    path = write_har(ctx.artifacts.new_path(NETWORK_KIND, "capture", ".har"), har)
    count = len(har["log"]["entries"])
    rel = ctx.artifacts.relative(path)
    return ActionResult(
        text=f"Wrote {count} entries to {rel} (secrets redacted)",
        data={"filePath": str(path), "relativePath": rel, "entries": count, "capturedSince": recorder.captured_since},
    )


# -- debug bundle -----------------------------------------------------------------------------


class DebugBundleArgs(ActionArgs):
    include_snapshot: bool = Field(True, description="Snapshot preview")
    include_screenshot: bool = Field(False, description="Save a PNG (path only)")
    include_storage: bool = Field(True, description="Storage keys, cookie names")
    include_network: bool = Field(True, description="Network errors")
    include_console: bool = Field(True, description="Console errors")
    max_items: int = Field(30, ge=1, le=500, description="Max items per list")
    save_artifacts: bool = Field(False, description="Write bundle.json + bundle.md")


def _other_page(e: dict[str, Any], current_url: str) -> str | None:
    """The page an entry belonged to when it is not the page shown now (a POST 500 before a navigation)."""
    url = e.get("pageUrl")
    return str(url) if url and current_url and url != current_url else None


def _compact_console(e: dict[str, Any], current_url: str = "") -> dict[str, Any]:
    stack = e.get("stack") or []
    out = {k: e.get(k) for k in ("id", "timestamp", "type", "text", "location", "frameUrl", "source", "replayed")}
    if stack:
        out["stackTop"] = stack[:3]
    other = _other_page(e, current_url)
    if other:
        out["pageUrl"] = other
    return out


def _response_preview(recorder: Any, e: dict[str, Any]) -> str | None:
    body = recorder.held_body(e["id"])
    if body is None or not is_text_mime(e.get("mimeType") or ""):
        return None
    text = body[: RESPONSE_PREVIEW_CHARS * 4].decode("utf-8", "replace")
    return text[:RESPONSE_PREVIEW_CHARS] + ("…" if len(text) > RESPONSE_PREVIEW_CHARS or len(body) > len(text) else "")


def _network_item(recorder: Any, e: dict[str, Any], current_url: str = "") -> dict[str, Any]:
    full = recorder.get(e["id"])
    item = {
        k: full.get(k)
        for k in (
            "id",
            "timestamp",
            "method",
            "url",
            "resourceType",
            "status",
            "statusText",
            "failed",
            "failureText",
            "durationMs",
            "postDataPreview",
            "bodyHeld",
            "redirectedFrom",
        )
    }
    if full.get("initiator") and full["initiator"].get("stackTop"):
        item["initiatorTop"] = full["initiator"]["stackTop"]
    preview = _response_preview(recorder, e)
    if preview is not None:
        item["responsePreview"] = preview
    other = _other_page(full, current_url)
    if other:
        item["pageUrl"] = other
    return item


async def _eval(page: PageHandle, expression: str) -> Any:
    reply = await page.session.send(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True, "silent": True}, timeout=5
    )
    if reply.get("exceptionDetails"):
        return None
    return reply.get("result", {}).get("value")


async def _frames(page: PageHandle) -> list[dict[str, Any]]:
    tree = (await page.session.send("Page.getFrameTree", timeout=10)).get("frameTree") or {}
    out: list[dict[str, Any]] = []

    def walk(node: dict[str, Any], parent: str | None) -> None:
        frame = node.get("frame") or {}
        out.append({"frameId": frame.get("id"), "url": frame.get("url"), "name": frame.get("name"), "parentId": parent})
        for child in node.get("childFrames") or []:
            walk(child, frame.get("id"))

    walk(tree, None)
    return out


async def _storage(page: PageHandle) -> dict[str, Any]:
    keys = await _eval(
        page,
        "(() => { const k = s => { try { return Object.keys(s) } catch (e) { return null } };"
        " return {local: k(localStorage), session: k(sessionStorage)} })()",
    )
    cookie_names: list[str] = []
    try:
        cookies = await page.session.send("Network.getCookies", {"urls": [page.url]} if page.url else {}, timeout=10)
        cookie_names = sorted({c["name"] for c in cookies.get("cookies", [])})
    except CDPException:
        pass
    keys = keys or {}
    return {
        "localStorageKeys": keys.get("local") or [],
        "sessionStorageKeys": keys.get("session") or [],
        "cookieNames": cookie_names,
    }


async def _snapshot_preview(ctx: ToolContext, page: PageHandle) -> dict[str, Any]:
    """The page snapshot (SNAPSHOT's, same uids) when that module is present, else a text preview."""
    try:
        from cdp_core.recorders.accessibility import SnapshotOptions

        from .snapshot import registry_of, snapshot_page
    except ImportError:
        snapshot_page = None  # type: ignore[assignment]
    if snapshot_page is not None:
        registry = registry_of(page)
        previous = registry.previous
        try:
            snap = await snapshot_page(ctx, page, SnapshotOptions(max_chars=SNAPSHOT_PREVIEW_CHARS, max_lines=150))
            return {"kind": "snapshot", "text": snap.text()}
        except (CDPException, ToolFailure):
            pass  # fall back to the text preview
        finally:
            registry.previous = previous  # the bundle must not move the base of the agent's snapshot diffs
    text = await _eval(page, "document.body ? document.body.innerText : ''") or ""
    cut = len(text) > SNAPSHOT_PREVIEW_CHARS
    return {"kind": "text", "text": text[:SNAPSHOT_PREVIEW_CHARS] + ("…" if cut else ""), "truncated": cut}


async def _open_dialog(ctx: ToolContext, page: PageHandle) -> dict[str, Any] | None:
    """The JavaScript dialog blocking the page, if SNAPSHOT's dialog watch knows one."""
    try:
        from .snapshot import dialog_watch
    except ImportError:
        return None
    try:
        watch = await dialog_watch(ctx, page)
    except CDPException:
        return None
    if watch.open is None:
        return None
    return {k: watch.open[k] for k in ("type", "message", "defaultPrompt", "url") if k in watch.open}


async def _screenshot(ctx: ToolContext, page: PageHandle, directory: Any | None) -> dict[str, Any]:
    shot = await capture_png(page, {"format": "png"}, timeout=30)
    data = base64.b64decode(shot["data"])
    path = (
        directory / "screenshot.png"
        if directory is not None
        else ctx.artifacts.new_path("screenshots", "bundle", ".png")
    )
    path.write_bytes(data)
    return {"filePath": str(path), "relativePath": ctx.artifacts.relative(path), "bytes": len(data)}


async def build_bundle(ctx: ToolContext, page: PageHandle, args: DebugBundleArgs) -> tuple[dict[str, Any], list[str]]:
    """The bundle dict and the notes of parts that could not be read (each part fails alone)."""
    notes: list[str] = []
    network = page.data.get("network")
    console = page.data.get("console")
    since = [r.captured_since for r in (network, console) if r is not None and r.captured_since]
    bundle: dict[str, Any] = {
        "capturedSince": min(since) if since else page.attached_at,
        "page": {"title": page.title, "url": page.url, "stable_page_id": page.stable_page_id, "page_id": None},
    }
    try:
        for index, info in enumerate(await ctx.manager.list_pages()):
            if info.get("stable_page_id") == page.stable_page_id:
                bundle["page"]["page_id"] = info.get("page_id", index)
    except Exception as exc:  # noqa: BLE001
        notes.append(f"page list unavailable: {exc}")
    dialog = await _open_dialog(ctx, page)
    if dialog is not None:
        bundle["dialog"] = dialog
        notes.append("a JavaScript dialog is open: frames, storage and snapshot skipped (handle_dialog first)")
        bundle["frames"] = []  # Page.getFrameTree waits for the dialog too
    else:
        try:
            bundle["frames"] = await _frames(page)
        except CDPException as exc:
            notes.append(f"frames unavailable: {exc}")
            bundle["frames"] = []
    n = args.max_items
    shown_url = page.url or ""
    if args.include_console:
        if console is None:
            notes.append("no console capture on this page")
        else:
            errors = console.list(types=["error", "pageerror"], include_stack=True)
            warnings = console.list(types=["warning"], include_stack=True)
            try:
                map_notes = await map_console_entries(page, errors[-n:], _policy(ctx))
            except CDPException as exc:
                map_notes = [f"not mapped: {exc}"]
            if map_notes:
                bundle["sourceMapNotes"] = map_notes
            bundle["console"] = {
                "errors": [_compact_console(e, shown_url) for e in errors[-n:]],
                "warnings": [_compact_console(e, shown_url) for e in warnings[-n:]],
                "errorCount": len(errors),
                "warningCount": len(warnings),
                "total": len(console),
                "evicted": console.evicted,
            }
    if args.include_network:
        if network is None:
            notes.append("no network capture on this page")
        else:
            failed = network.list(failed_only=True)
            http_errors = network.list(status_min=400)
            last = network.list(resource_types=["xhr", "fetch"], limit=1)
            bundle["network"] = {
                "failed": [_network_item(network, e, shown_url) for e in failed[-n:]],
                "httpErrors": [_network_item(network, e, shown_url) for e in http_errors[-n:]],
                "lastXhrOrFetch": _network_item(network, last[0], shown_url) if last else None,
                "failedCount": len(failed),
                "httpErrorCount": len(http_errors),
                "total": len(network),
                "evicted": network.evicted,
            }
    if args.include_storage and dialog is None:
        try:
            bundle["storage"] = await _storage(page)
        except CDPException as exc:
            notes.append(f"storage unavailable: {exc}")
    if args.include_snapshot and dialog is None:
        try:
            bundle["snapshotPreview"] = await _snapshot_preview(ctx, page)
        except CDPException as exc:
            notes.append(f"snapshot unavailable: {exc}")
    if notes:
        bundle["notes"] = notes
    return bundle, notes


def _bundle_markdown(bundle: dict[str, Any]) -> str:
    page = bundle["page"]
    lines = [
        f"# Debug bundle: {page.get('title') or page.get('url')}",
        "",
        f"- URL: {page.get('url')}",
        f"- Page: {page.get('stable_page_id')} (index {page.get('page_id')})",
        f"- Captured since: {bundle.get('capturedSince')}",
    ]
    con = bundle.get("console")
    if con:
        lines += [
            "",
            f"## Console: {con['errorCount']} error(s), {con['warningCount']} warning(s), {con['total']} total",
        ]
        lines += [f"- #{e['id']} [{e['type']}] {str(e['text'])[:160]}" for e in con["errors"][:10]]
    net = bundle.get("network")
    if net:
        lines += ["", f"## Network: {net['failedCount']} failed, {net['httpErrorCount']} HTTP error(s)"]
        lines += [f"- #{e['id']} {e['method']} {e['status']} {e['url']}" for e in net["httpErrors"][:10]]
        lines += [f"- #{e['id']} {e['method']} FAILED {e['failureText']} {e['url']}" for e in net["failed"][:10]]
    if bundle.get("screenshot"):
        lines += ["", f"Screenshot: {bundle['screenshot']['relativePath']}"]
    elif bundle.get("screenshotError"):
        lines += ["", f"Screenshot failed: {bundle['screenshotError']}"]
    lines += ["", "Full data: bundle.json"]
    return "\n".join(lines) + "\n"


def _on_page(e: dict[str, Any]) -> str:
    return f" (on the earlier page {str(e['pageUrl'])[:160]})" if e.get("pageUrl") else ""


def _bundle_console_line(e: dict[str, Any]) -> str:
    # Replayed entries happened before attach (Chrome re-sends them on enable): say so, as the lists do.
    flag = " [replayed]" if e.get("replayed") else ""
    stack = " < ".join(
        (f.get("original") or {}).get("function") or f.get("function") or "(anonymous)" for f in e.get("stackTop") or []
    )
    at = f" (at {stack})" if stack else ""
    return f"  #{e['id']} [{e['type']}]{flag} {str(e['text'])[:160]}{at}{_on_page(e)}"


def _shown(listed: int, count: int, what: str) -> str:
    """How many of ``count`` the text lists, when not all: a count must match what follows it."""
    if listed >= count:
        return ""
    return f"; the last {listed} {what} below" if listed else f"; none listed ({what} in network_list/console_list)"


#: Entries of each list the bundle's text shows (the JSON has up to max_items).
TEXT_ITEMS = 5


def _summary_text(bundle: dict[str, Any]) -> str:
    page = bundle["page"]
    parts = [f"Debug bundle of {page['stable_page_id']} {page.get('url')} (captured since {bundle['capturedSince']})"]
    con = bundle.get("console")
    if con:
        errors = con["errors"][-TEXT_ITEMS:]
        shown = _shown(len(errors), con["errorCount"], "errors")
        parts.append(f"console: {con['errorCount']} error(s), {con['warningCount']} warning(s){shown}")
        parts += [_bundle_console_line(e) for e in errors]
    net = bundle.get("network")
    if net:
        http_errors, failed = net["httpErrors"][-TEXT_ITEMS:], net["failed"][-TEXT_ITEMS:]
        shown = _shown(len(http_errors), net["httpErrorCount"], "HTTP errors") + _shown(
            len(failed), net["failedCount"], "failures"
        )
        parts.append(f"network: {net['failedCount']} failed, {net['httpErrorCount']} HTTP error(s){shown}")
        parts += [f"  #{e['id']} {e['method']} {e['status']} {e['url'][:160]}{_on_page(e)}" for e in http_errors]
        parts += [
            f"  #{e['id']} {e['method']} FAILED {e['failureText']} {e['url'][:160]}{_on_page(e)}" for e in failed
        ]
    replayed = bool(con) and any(e.get("replayed") for e in con["errors"])
    if replayed or (net and net["total"] == 0):
        # The two-prompt workflow: what happened before attach has no requests here; say what to do.
        parts.append(
            "note: requests are captured only since capturedSince ([replayed] console entries are older). If the"
            " failure happened before, ask the user to repeat it now, then read network_list / console_list since_id."
        )
    if bundle.get("dialog"):
        parts.append(f"dialog open: {bundle['dialog'].get('type')} {str(bundle['dialog'].get('message'))[:160]!r}")
    if bundle.get("screenshot"):
        parts.append(f"screenshot: {bundle['screenshot']['relativePath']}")
    elif bundle.get("screenshotError"):
        parts.append(f"screenshot failed: {bundle['screenshotError']}")
    parts += [f"note: {n}" for n in bundle.get("notes") or []]
    if bundle.get("files"):
        parts.append(f"saved: {bundle['files']['bundleJson']}")
    return "\n".join(parts)


@action(S, "debug_bundle", DebugBundleArgs, lock="page")
async def debug_bundle(ctx: ToolContext, args: DebugBundleArgs) -> ActionResult:
    """One answer for 'what is wrong with this page': errors, failed requests, storage names, snapshot."""
    page = await ctx.page()
    bundle, _notes = await build_bundle(ctx, page, args)
    directory = None
    if args.save_artifacts:
        directory = ctx.artifacts.new_path(BUNDLE_KIND, "bundle", "")
        directory.mkdir(parents=True)
    if args.include_screenshot and bundle.get("dialog") is None:
        try:
            bundle["screenshot"] = await _screenshot(ctx, page, directory)
        except CDPException as exc:
            bundle["screenshotError"] = str(exc)
        except ToolFailure as exc:  # a background tab gets no frame: the rest of the bundle still counts
            bundle["screenshotError"] = f"{exc.message} ({exc.hint})"
    if directory is not None:
        json_path = directory / "bundle.json"
        md_path = directory / "bundle.md"
        bundle["files"] = {
            "directory": ctx.artifacts.relative(directory),
            "bundleJson": ctx.artifacts.relative(json_path),
            "bundleMd": ctx.artifacts.relative(md_path),
        }
        json_path.write_text(json.dumps(bundle, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
        md_path.write_text(_bundle_markdown(bundle), encoding="utf-8")
    return ActionResult(text=_summary_text(bundle), data=bundle)
