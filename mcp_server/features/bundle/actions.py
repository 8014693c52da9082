"""``debug_bundle``: one answer for "what is wrong with this page", and its files.

The bundle gathers what an agent checks first (console errors and warnings with their stack
tops, failed and HTTP-error requests with payload, response preview and initiator, the last
XHR/fetch, frames) and, when they matter to the failure or are asked for, storage key and cookie
names and a snapshot preview (bundle_sections.py holds the rules), a screenshot path. The
files (``save_artifacts``: bundle.json, bundle.md) keep the full records; the answer is their
lean form, the same in text and JSON (see mcp_server/answers/lean.py). Nothing here navigates, reloads
or changes the page: on the user's Chrome it only reads. Collected here, rendered in
bundle_render.py.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import TYPE_CHECKING, Any

from pydantic import Field

from cdp_core.errors import CDPException
from cdp_core.recorders.accessibility import SnapshotOptions
from cdp_core.recorders.accessibility.format import MESSAGE_ROLES, SnapshotLine, clip, quote
from cdp_core.recorders.redact import redact_url_params_in
from mcp_server.evidence.app_errors import held_app_error
from mcp_server.evidence.body_preview import held_response_preview
from mcp_server.evidence.console_requests import link_requests
from mcp_server.evidence.dialogs import dialog_watch
from mcp_server.evidence.marks import Mark, marks_of
from mcp_server.evidence.reading import source_map_policy
from mcp_server.evidence.server_errors import held_server_error, held_server_stack
from mcp_server.evidence.stacks import map_console_entries
from mcp_server.features.bundle.render import bundle_answer, bundle_markdown
from mcp_server.features.bundle.sections import shows_form_error, storage_involved
from mcp_server.features.bundle.since_mark import after_mark, mark_changes
from mcp_server.input.element import registry_of
from mcp_server.page.before_attach import read_before_attach
from mcp_server.page.screenshots import capture_png
from mcp_server.page.snapshots import on_screen, snapshot_page
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action
from targets.errors import ToolFailure

if TYPE_CHECKING:
    from mcp_server.server.context import ToolContext
    from targets import PageHandle

__all__ = ["build_bundle", "DebugBundleArgs"]

S = "browser_session"
BUNDLE_KIND = "debug-bundles"
SNAPSHOT_PREVIEW_CHARS = 3000
#: How much of a message the snapshot preview repeats when the on-screen section shows it whole.
SHOWN_ABOVE_CHARS = 80
#: Messages the on-screen section shows at most (a page with more is a list, not a message).
ON_SCREEN_ITEMS = 12


def _on_screen_item(line: SnapshotLine) -> dict[str, Any]:
    """A message or invalid field as the bundle keeps it (the answer cuts the text as the snapshot does)."""
    if line.role in MESSAGE_ROLES:
        return {"kind": line.role, "text": line.name, "uid": line.uid}
    named = quote(line.name) if line.name else f"field={quote(line.field, 60)}" if line.field else ""
    item = {"kind": "invalid field", "field": f"{line.role} {named}".strip()}
    return {**item, "text": line.error or "", "uid": line.uid}


def _distinct(messages: list[SnapshotLine]) -> list[SnapshotLine]:
    """Each message once: phpMyAdmin puts the same error in two alerts (a box and its copy), and the
    agent gains nothing from reading it twice (the snapshot still has both, with their uids)."""
    seen: set[tuple[str | None, str | None, str | None]] = set()
    out = []
    for line in messages:
        key = (line.role, line.name, line.error)
        if key not in seen:
            seen.add(key)
            out.append(line)
    return out


async def on_screen_items(ctx: ToolContext, page: PageHandle) -> list[dict[str, Any]]:
    """What the page shows the person now, each message once, as the bundle (and a capture mark) keeps it."""
    return [_on_screen_item(line) for line in _distinct(await on_screen(ctx, page))]


class DebugBundleArgs(ActionArgs):
    include_snapshot: bool | None = Field(None, description="Snapshot preview; default: on a form error not on screen")
    include_screenshot: bool = Field(False, description="Save a PNG (path only)")
    include_storage: bool | None = Field(None, description="Storage keys, cookie names; default: if involved")
    include_network: bool = Field(True, description="Network errors")
    include_console: bool = Field(True, description="Console errors")
    max_items: int = Field(30, ge=1, le=500, description="Items per list")
    save_artifacts: bool = Field(False, description="Write bundle files")
    since_mark: str | None = Field(None, description="From capture_mark")


def _origin_of(url: str) -> str:
    """``scheme://host:port`` of the page (how the changes print its own requests: by path)."""
    scheme, sep, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}" if sep and rest else ""


def _compact_console(e: dict[str, Any]) -> dict[str, Any]:
    stack = e.get("stack") or []
    keys = ("id", "timestamp", "type", "text", "location", "pageUrl", "frameUrl", "source", "replayed")
    out = {k: e.get(k) for k in keys}
    for key in ("loadError", "linkedRequest"):  # a load error's own outcome and its request, by id
        if e.get(key):
            out[key] = e[key]
    if stack:
        out["stackTop"] = stack[:3]
    return out


def _network_item(
    recorder: Any, e: dict[str, Any], server_error: str | None = None, app_error: str | None = None
) -> dict[str, Any]:
    """A request of the bundle, its response preview, server error and application error read from
    the held body (``server_error``, ``app_error``: already read by :func:`_answers_with_errors`)."""
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
            "pageUrl",
        )
    }
    if full.get("initiator") and full["initiator"].get("stackTop"):
        item["initiatorTop"] = full["initiator"]["stackTop"]
    preview = held_response_preview(recorder, e)  # as its reader sees it (an error page's text, not its CSS)
    if preview:
        item["responsePreview"] = preview[0]
    server_error = server_error or held_server_error(recorder, e["id"])
    if server_error:
        item["serverError"] = server_error
        stack = held_server_stack(recorder, e["id"])
        if stack:
            item["serverErrorStack"] = stack
    app_error = app_error or (None if server_error else held_app_error(recorder, full))
    if app_error:  # a server's error is the worse of the two: said alone
        item["appError"] = app_error
    return item


#: How many of the newest document and AJAX answers a bundle reads for a server's error text
SERVER_ERROR_SCAN = 50


def _answers_with_errors(
    recorder: Any, since_id: int | None = None
) -> tuple[list[tuple[dict[str, Any], str]], list[tuple[dict[str, Any], str]]]:
    """(entry, error) of the newest document/xhr/fetch requests answered below 400 whose body holds a
    server error, and those whose body holds an application error (``success:false``, an error
    block) and no server error: a request is listed once, by its worse error."""
    recent = recorder.list(resource_types=["document", "xhr", "fetch"], limit=SERVER_ERROR_SCAN, since_id=since_id)
    server, app = [], []
    for e in recent:
        if e.get("status") is None or e["status"] >= 400:
            continue
        if error := held_server_error(recorder, e["id"]):
            server.append((e, error))
        elif error := held_app_error(recorder, e):
            app.append((e, error))
    return server, app


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


_STORAGE_KEYS = (
    # The getter itself throws where storage is refused (data: URLs, sandboxed frames), so it runs inside the try.
    "(() => { const k = get => { try { return Object.keys(get()) } catch (e) { return null } };"
    " return {local: k(() => localStorage), session: k(() => sessionStorage)} })()"
)


async def _storage_keys(page: PageHandle) -> tuple[dict[str, Any] | None, str]:
    """The page's storage keys, or None and why not (a second read after a short pause)."""
    why = ""
    for attempt in range(2):
        reply = await page.session.send(
            "Runtime.evaluate", {"expression": _STORAGE_KEYS, "returnByValue": True, "silent": True}, timeout=5
        )
        details = reply.get("exceptionDetails")
        value = reply.get("result", {}).get("value")
        if not details and isinstance(value, dict):
            return value, ""
        if details:
            why = (details.get("exception") or {}).get("description") or details.get("text") or "exception"
        else:
            why = f"the page answered {reply.get('result', {}).get('type', 'nothing')}"
        if attempt == 0:
            await asyncio.sleep(0.1)
    return None, why.splitlines()[0][:200]


async def _storage(page: PageHandle, notes: list[str]) -> dict[str, Any]:
    """Storage key names and cookie names; a part that could not be read is left out and said in ``notes``.

    Why not an empty list for a failed read: "sessionStorage keys none" when the read failed
    would send the agent after the wrong cause (a lost login token).
    """
    keys, why = await _storage_keys(page)
    out: dict[str, Any] = {}
    if keys is None:
        notes.append(f"storage keys unreadable: {why}")
    else:
        for name, key in (("local", "localStorageKeys"), ("session", "sessionStorageKeys")):
            if keys.get(name) is None:
                notes.append(f"{key} unreadable (the page refuses access to {name}Storage)")
            else:
                out[key] = keys[name]
    try:
        cookies = await page.session.send("Network.getCookies", {"urls": [page.url]} if page.url else {}, timeout=10)
        out["cookieNames"] = sorted({c["name"] for c in cookies.get("cookies", [])})
    except CDPException as exc:
        notes.append(f"cookie names unavailable: {exc}")
    return out


async def _snapshot_preview(ctx: ToolContext, page: PageHandle, shown: set[int]) -> dict[str, Any]:
    """The page snapshot (SNAPSHOT's, same uids), else (it could not be taken) a text preview.

    A message the on-screen section printed whole (``shown``: its uids) is only its start here.
    """
    registry = registry_of(page)
    previous = registry.previous
    try:
        snap = await snapshot_page(ctx, page, SnapshotOptions(max_chars=SNAPSHOT_PREVIEW_CHARS, max_lines=150))
        for line in snap.lines:
            if line.uid in shown and line.message:
                line.name = clip(line.name, SHOWN_ABOVE_CHARS)
        snap.rendered = None
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
        watch = await dialog_watch(ctx, page)
    except CDPException:
        return None
    if watch.open is None:
        return None
    return {k: watch.open[k] for k in ("type", "message", "defaultPrompt", "url") if k in watch.open}


async def _screenshot(ctx: ToolContext, page: PageHandle, directory: Any | None) -> dict[str, Any]:
    shot = await capture_png(page, {"format": "png"}, timeout=ctx.bound(30)[0])
    data = base64.b64decode(shot["data"])
    path = (
        directory / "screenshot.png"
        if directory is not None
        else ctx.artifacts.new_path("screenshots", "bundle", ".png")
    )
    path.write_bytes(data)
    return {"filePath": str(path), "relativePath": ctx.artifacts.relative(path), "bytes": len(data)}


async def build_bundle(
    ctx: ToolContext, page: PageHandle, args: DebugBundleArgs, mark: Mark | None = None
) -> tuple[dict[str, Any], list[str]]:
    """The bundle dict and the notes of parts that could not be read (each part fails alone).

    With ``mark``: only what was captured after it, and the changes against the span before it.
    """
    notes: list[str] = []
    network = page.data.get("network")
    console = page.data.get("console")
    after = after_mark(page, mark) if mark is not None else None
    net_since = after.network_id if after is not None else None
    con_since = after.console_id if after is not None else None
    if after is not None:
        notes += after.notes
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
    ctx.status("reading frames, console, network")
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
    shown: set[int] = set()
    screen_now: list[dict[str, Any]] | None = None
    if dialog is None:
        ctx.status("reading what the page shows: alerts, messages, invalid fields")
        try:
            messages = _distinct(await on_screen(ctx, page))
        except (CDPException, ToolFailure) as exc:
            notes.append(f"on-screen messages unavailable: {exc}")
        else:
            screen_now = [_on_screen_item(line) for line in messages]
            bundle["onScreen"] = screen_now[:ON_SCREEN_ITEMS]
            bundle["onScreenCount"] = len(messages)
            shown = {line.uid for line in messages[:ON_SCREEN_ITEMS] if line.uid is not None}
    n = args.max_items
    if args.include_console:
        if console is None:
            notes.append("no console capture on this page")
        else:
            errors = console.list(types=["error", "pageerror"], include_stack=True, since_id=con_since)
            warnings = console.list(types=["warning"], include_stack=True, since_id=con_since)
            try:
                map_notes = await map_console_entries(page, errors[-n:], source_map_policy(ctx))
            except CDPException as exc:
                map_notes = [f"not mapped: {exc}"]
            if map_notes:
                bundle["sourceMapNotes"] = map_notes
            shown_errors, shown_warnings = errors[-n:], warnings[-n:]
            link_requests(shown_errors, network)  # a load error names its own request, by Chrome's id
            link_requests(shown_warnings, network)
            bundle["console"] = {
                "errors": [_compact_console(e) for e in shown_errors],
                "warnings": [_compact_console(e) for e in shown_warnings],
                "errorCount": len(errors),
                "warningCount": len(warnings),
                "total": len(console) if con_since is None else len(console.list(since_id=con_since)),
                "evicted": console.evicted,
            }
    if args.include_network:
        if network is None:
            notes.append("no network capture on this page")
        else:
            failed = network.list(failed_only=True, since_id=net_since)
            http_errors = network.list(status_min=400, since_id=net_since)
            last = network.list(resource_types=["xhr", "fetch"], limit=1, since_id=net_since)
            server_errors, app_errors = _answers_with_errors(network, net_since)
            bundle["network"] = {
                "failed": [_network_item(network, e) for e in failed[-n:]],
                "httpErrors": [_network_item(network, e) for e in http_errors[-n:]],
                "serverErrors": [_network_item(network, e, error) for e, error in server_errors[-n:]],
                "serverErrorCount": len(server_errors),
                "appErrors": [_network_item(network, e, app_error=error) for e, error in app_errors[-n:]],
                "appErrorCount": len(app_errors),
                "lastXhrOrFetch": _network_item(network, last[0]) if last else None,
                "failedCount": len(failed),
                "httpErrorCount": len(http_errors),
                "total": len(network) if net_since is None else len(network.list(since_id=net_since)),
                "evicted": network.evicted,
            }
            # after a mark, what came before attach is not "after" it
            skip_earlier = dialog is not None or mark is not None
            earlier = None if skip_earlier else await read_before_attach(page, network.captured_since)
            if earlier is not None:
                bundle["beforeAttach"] = earlier.record()
    if mark is not None and after is not None:
        bundle["mark"] = mark.brief()
        bundle["changes"] = mark_changes(page, mark, after, screen_now, _origin_of(page.url or ""))
    left_out = {}
    include_storage = args.include_storage
    if include_storage is None and dialog is None:
        include_storage = storage_involved(bundle)
        if not include_storage:
            left_out["storage"] = "include_storage=true"
    if include_storage and dialog is None:
        ctx.status("reading storage keys and cookie names")
        try:
            bundle["storage"] = await _storage(page, notes)
        except CDPException as exc:
            notes.append(f"storage unavailable: {exc}")
    include_snapshot = args.include_snapshot
    if include_snapshot is None and dialog is None:
        # The snapshot was the way to show a form error; where the on-screen section quotes the
        # page's messages whole (uids included), it would only repeat them inside the page's chrome.
        include_snapshot = not bundle.get("onScreen") and await shows_form_error(page)
        if not include_snapshot:
            left_out["snapshot"] = "include_snapshot=true"
    if include_snapshot and dialog is None:
        ctx.status("taking the snapshot preview")
        try:
            bundle["snapshotPreview"] = await _snapshot_preview(ctx, page, shown)
        except CDPException as exc:
            notes.append(f"snapshot unavailable: {exc}")
    if left_out:
        bundle["leftOutSections"] = left_out
    if notes:
        bundle["notes"] = notes
    return bundle, notes


class BundleAnswer(Answer):
    capturedSince: str | None = None
    page: dict[str, Any]
    #: what the page tells the person now (alerts, status, toasts, error messages, invalid fields), whole
    onScreen: list[dict[str, Any]] | None = None
    onScreenMore: int | None = None
    console: dict[str, Any] | None = None
    network: dict[str, Any] | None = None
    frames: list[dict[str, Any]] = []
    storage: dict[str, list[str]] | None = None
    snapshot: str | None = None
    screenshot: str | None = None
    screenshotError: str | None = None
    dialog: dict[str, Any] | None = None
    #: the page's own record of requests older than capturedSince (Resource Timing: no method,
    #: headers or bodies), as network_list's ``beforeAttach``
    beforeAttach: dict[str, Any] | None = None
    files: dict[str, str] | None = None
    hint: str | None = None
    notes: list[str] = []
    sourceMapNotes: list[str] = []
    #: sections the default left out (nothing pointed at them): section -> the argument that asks for it
    leftOutSections: dict[str, str] | None = None
    #: since_mark: the mark (its time and positions); the bundle holds only what came after it
    mark: dict[str, Any] | None = None
    #: since_mark: the one line on the failure before the mark, the span compared with, what changed
    changes: dict[str, Any] | None = None


@action(
    S,
    "debug_bundle",
    DebugBundleArgs,
    lock="page",
    read_only=True,
    result=BundleAnswer,
    takes="one to a few seconds (snapshot, storage, optional screenshot); progress: the part being read",
)
async def debug_bundle(ctx: ToolContext, args: DebugBundleArgs) -> ActionResult:
    """One answer for 'what is wrong with this page': errors, failed requests; storage, snapshot if they matter."""
    mark = marks_of(ctx).get(args.since_mark) if args.since_mark is not None else None  # before reading anything
    page = await ctx.page()
    bundle, _notes = await build_bundle(ctx, page, args, mark)
    # The page's URL, its frames', a dialog's, a snapshot's links: secret URL parameters masked before
    # the files are written (the answer's own pass would come after them).
    bundle = redact_url_params_in(bundle)
    directory = None
    if args.save_artifacts:
        directory = ctx.artifacts.new_path(BUNDLE_KIND, "bundle", "")
        directory.mkdir(parents=True)
    if args.include_screenshot and bundle.get("dialog") is None:
        ctx.status("capturing the screenshot")
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
        md_path.write_text(bundle_markdown(bundle), encoding="utf-8")
    text, data = bundle_answer(bundle)
    return ActionResult(text=text, data=data, message=f"debug bundle of {page.stable_page_id}")
