"""Capture actions of ``browser_session``: console, network, bodies and HAR (the debug bundle: bundle.py).

The recorders (:mod:`cdp_core.recorders`) already hold everything, redacted on output;
these handlers filter, phrase a short answer and write the big things (bodies, HAR,
bundles, screenshots) under the artifacts root. Nothing here navigates, reloads or
changes the page: a debug bundle on the user's Chrome only reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import anyio
from pydantic import Field

from cdp_core.recorders.listing import Selection, select_window
from cdp_core.recorders.network import BodyIsBinary, BodyUnavailable, EntryNotFound, NetworkRecorder
from cdp_core.recorders.network.har import build_har, write_har
from mcp_server.answers.earlier_requests import earlier_part, select_earlier
from mcp_server.answers.models import ClearedAnswer, EntryAnswer, ListAnswer
from mcp_server.answers.network import network_listing, network_record
from mcp_server.evidence.app_errors import held_app_error
from mcp_server.evidence.body_preview import HTML_SCAN_BYTES, held_response_preview, readable_preview
from mcp_server.evidence.capture import network_of
from mcp_server.evidence.reading import LIST_MAX, closed_note, not_found, source_map_notes, source_map_policy
from mcp_server.evidence.server_errors import held_server_error, held_server_stack
from mcp_server.evidence.stacks import map_initiator
from mcp_server.features.network.body_hints import BodyFacts, missing_body_note, save_failure_hint
from mcp_server.page.before_attach import read_before_attach
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, NoArgs, action
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from mcp_server.server.context import ToolContext

__all__ = ["LIST_MAX"]

S = "browser_session"
NETWORK_KIND = "network"
#: The body preview inline (text and JSON alike); the file has the body.
SAVED_PREVIEW_CHARS = 500


class SavedBodyAnswer(Answer):
    id: int
    body: str
    filePath: str
    relativePath: str
    bytes: int
    totalBytes: int
    mimeType: str
    sha256: str
    source: str
    preview: str | None = None
    #: the preview is the HTML page's title and visible text, not its first characters
    previewIsPageText: bool = False
    truncated: bool = False


class NetworkListAnswer(ListAnswer):
    #: the page's own record of requests older than capturedSince (Resource Timing: no method, headers
    #: or bodies): ``{total, xhrFetch, failingCount, otherFailing, bufferFull, columns, failing,
    #: lastXhrOrFetch, hint}``, rows ``[type, status, url, {t, durationMs}]``
    beforeAttach: dict[str, Any] | None = None


class HarAnswer(Answer):
    filePath: str
    relativePath: str
    entries: int
    capturedSince: str | None = None


def _body_facts(recorder: NetworkRecorder, entry_id: int) -> BodyFacts:
    """What the recorder knows around a body it may not have (for the line that says so)."""
    return BodyFacts(
        durable=recorder.durable_bodies,
        navigated_to=recorder.navigated_after(entry_id),
        eager_max_bytes=recorder.eager_body_max_bytes,
    )


# -- network ----------------------------------------------------------------------------------


class NetworkListArgs(ActionArgs):
    resource_types: list[str] | None = Field(None, description="document, xhr, fetch, script...")
    status_min: int | None = Field(None, ge=0, le=999, description="Min status (400 = errors)")
    url_contains: str | None = Field(None, description="Substring of the request URL")
    method: str | None = Field(None, description="HTTP method, e.g. POST")
    failed_only: bool = Field(False, description="Requests with no response")
    app_errors_only: bool = Field(False, description="Answers holding an app error (success:false...)")
    limit: int = Field(50, ge=1, le=LIST_MAX, description="Max entries (newest; with since_id: the next)")
    since_id: int | None = Field(None, ge=0, description="After this id (0: from the oldest)")


class NetworkGetArgs(ActionArgs):
    id: int = Field(description="Entry id")


class SaveBodyArgs(ActionArgs):
    id: int = Field(description="Entry id")
    body: Literal["response", "request"] = Field("response", description="Body to save")
    allow_binary: bool = Field(False, description="Allow binary bodies")
    max_bytes: int | None = Field(None, ge=1, description="Byte cap")


class ExportHarArgs(ActionArgs):
    include_bodies: bool = Field(True, description="Inline held text bodies")
    raw_bodies: bool = Field(False, description="Response bodies unmasked (only when the person asks)")


@action(S, "network_list", NetworkListArgs, read_only=True, lock="read", result=NetworkListAnswer)
async def network_list(ctx: ToolContext, args: NetworkListArgs) -> ActionResult:
    """Requests of the selected page (one entry per redirect hop), oldest first, with filters."""
    page = await ctx.captured_page()
    recorder = network_of(page)
    sel = recorder.query(
        resource_types=args.resource_types,
        status_min=args.status_min,
        url_contains=args.url_contains,
        method=args.method,
        failed_only=args.failed_only,
        limit=None if args.app_errors_only else args.limit,
        since_id=args.since_id,
        brief=True,
    )
    for entry in sel.entries:
        if entry.get("resourceType") in ("document", "xhr", "fetch") and (found := held_app_error(recorder, entry)):
            entry["appError"] = found  # the row's marker: the app's own error text, shortened
    if args.app_errors_only:
        picked, older, after = select_window(
            [e for e in sel.entries if e.get("appError")], limit=args.limit, since_id=args.since_id
        )
        sel = Selection(picked, older, after)
    text, data = network_listing(
        sel, page_url=page.url, since=recorder.captured_since, evicted=recorder.evicted, since_id=args.since_id
    )
    if args.since_id is None and args.method is None:  # the page's record has no method; paging reads only ours
        earlier = await read_before_attach(page, recorder.captured_since)
        if earlier is not None:
            earlier = select_earlier(
                earlier,
                resource_types=args.resource_types,
                status_min=args.status_min,
                url_contains=args.url_contains,
                failed_only=args.failed_only,
            )
        if earlier is not None and earlier.total:
            lines, data["beforeAttach"] = earlier_part(earlier, page.url)
            text += "\n" + "\n".join(lines)
    text += closed_note(page, data)
    return ActionResult(text=text, data=data, plain=True)  # strings and numbers from the recorder


@action(S, "network_get", NetworkGetArgs, read_only=True, lock="read", result=EntryAnswer)
async def network_get(ctx: ToolContext, args: NetworkGetArgs) -> ActionResult:
    """One request in full: redacted headers, payload and response previews, initiator, timing, WebSocket frames."""
    page = await ctx.captured_page()
    recorder = network_of(page)
    try:
        entry = recorder.get(args.id)
    except EntryNotFound as exc:
        raise not_found(exc, "network") from None
    notes = await map_initiator(page, entry, source_map_policy(ctx))
    text, record = network_record(entry, page.url, recorder.captured_since)
    # The answer a failing save got (a 422's field errors, an error page's message): read here, not
    # only after network_save_body. Secrets masked; the full body is one save away.
    preview = held_response_preview(recorder, entry) if entry.get("bodyHeld") else None
    server_error = held_server_error(recorder, args.id) if preview else None
    if server_error:  # the file and line of a server's error page, often past the preview's 400 characters
        record["serverError"] = server_error
        text += f"\nserver error: {server_error}"
        stack = held_server_stack(recorder, args.id)
        if stack:  # the callers below a PHP fatal's top frame: the app's own code
            record["serverErrorStack"] = stack
            text += "".join(f"\n    at {frame}" for frame in stack)
    app_error = held_app_error(recorder, entry) if preview and not server_error else None
    if app_error and preview and (preview[0].endswith("…") or app_error not in preview[0]):
        # the app's own error text ({"success":false,"error":…}), wherever it sits in the body
        # (a short body that says it is shown whole below)
        record["appError"] = app_error
        text += f"\napp error: {app_error}"
    if preview:
        record["response"], page_text = preview
        record["responseIsPageText"] = page_text or None
        text += f"\nresponse{' (the page text)' if page_text else ''}: {record['response']}"
    data: dict[str, Any] = {"capturedSince": recorder.captured_since, "entry": record}
    text += source_map_notes(data, notes)
    if not entry.get("bodyHeld") and (note := missing_body_note(entry, _body_facts(recorder, args.id))):
        data["hint"] = note  # what is true of this body (its bodyState), and the step that can work
        text += f"\n{note}"
    return ActionResult(text=text + closed_note(page, data), data=data)


@action(
    S,
    "network_save_body",
    SaveBodyArgs,
    lock="page",
    result=SavedBodyAnswer,
    takes="seconds for a large body read from Chrome; progress: which body",
)
async def network_save_body(ctx: ToolContext, args: SaveBodyArgs) -> ActionResult:
    """Save a request's response (or request) body to a file under <artifacts>/network/."""
    recorder = network_of(await ctx.page())
    max_bytes = args.max_bytes if args.max_bytes is not None else ctx.settings.network_body_max_bytes
    ctx.status(f"saving the {args.body} body of #{args.id}")
    try:
        saved = await recorder.save_body(
            args.id,
            which=args.body,
            dest_dir=ctx.artifacts.dir(NETWORK_KIND),
            max_bytes=max_bytes,
            allow_binary=args.allow_binary,
        )
    except EntryNotFound as exc:
        raise not_found(exc, "network") from None
    except BodyUnavailable as exc:
        try:
            entry: dict[str, Any] | None = recorder.get(args.id)
        except EntryNotFound:
            entry = None
        hint = save_failure_hint(args.body, exc.reason, entry, _body_facts(recorder, args.id))
        raise ToolFailure(ErrorCode.BODY_UNAVAILABLE, str(exc), hint=hint, id=args.id) from None
    except BodyIsBinary as exc:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, str(exc), hint="pass allow_binary=true", id=args.id) from None
    data = saved.to_dict()
    data["relativePath"] = ctx.artifacts.relative(saved.file_path)
    data["id"] = args.id
    data["body"] = args.body
    if args.body == "response" and saved.preview:
        head = await anyio.to_thread.run_sync(_file_head, saved.file_path, HTML_SCAN_BYTES)
        data["preview"], data["previewIsPageText"] = readable_preview(head, saved.mime_type, SAVED_PREVIEW_CHARS)
    else:
        data["preview"] = saved.preview[:SAVED_PREVIEW_CHARS] or None
    text = f"Saved {args.body} body of #{args.id}: {saved.bytes} bytes ({saved.mime_type}, {saved.source}) to "
    text += f"{data['relativePath']} (sha256 {saved.sha256})"
    if saved.truncated:
        text += f" (truncated from {saved.total_bytes} bytes)"
    if data["preview"]:
        text += "\n" + ("the page's text: " if data.get("previewIsPageText") else "") + data["preview"]
    return ActionResult(text=text, data=data)


def _file_head(path: str, size: int) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(size)


@action(S, "network_clear", NoArgs, lock="page", destructive=True, result=ClearedAnswer)
async def network_clear(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """Hide the selected page's captured requests from this session (capture continues)."""
    cleared = network_of(await ctx.page()).clear()
    # other sessions on this server still see them (issue 46): the clear is this session's view
    return ActionResult(text=f"Cleared {cleared} network entries from this session's view", data={"cleared": cleared})


@action(S, "network_export_har", ExportHarArgs, lock="read", result=HarAnswer)
async def network_export_har(ctx: ToolContext, args: ExportHarArgs) -> ActionResult:
    """Write the captured requests as a HAR 1.2 file (Chrome DevTools imports it), secrets redacted."""
    page = await ctx.page()
    recorder = network_of(page)
    har = build_har(
        recorder,
        page_title=page.title,
        page_url=page.url,
        include_bodies=args.include_bodies,
        raw_bodies=args.raw_bodies,
    )
    path = write_har(ctx.artifacts.new_path(NETWORK_KIND, "capture", ".har"), har)
    count = len(har["log"]["entries"])
    rel = ctx.artifacts.relative(path)
    said = (
        "headers redacted, response bodies as received"
        if args.raw_bodies and args.include_bodies
        else "secrets redacted"
    )
    return ActionResult(
        text=f"Wrote {count} entries to {rel} ({said})",
        data={"filePath": str(path), "relativePath": rel, "entries": count, "capturedSince": recorder.captured_since},
        message=f"wrote the HAR file ({said})",  # its paths and count are keys of their own
    )
