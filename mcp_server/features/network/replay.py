"""``network_replay``: send a captured request again from its page, and answer it next to the original.

Why: after a patch, the evidence to check it is already captured (the failing save, its payload,
the page's session). Replaying it from the page, as a ``fetch()`` in an isolated world of ours in
the frame that sent it, lets the browser add the page's cookies, origin and referrer as it did the
first time, while the page's own scripts (a wrapped ``fetch``, a spinner) see nothing. The replay
is an ordinary request of the tab, so the recorder captures it like any other: its entry id, held
body, server error and app error are read the usual way.

A GET or HEAD goes at once. Anything else may change data on the server, so it answers
``CONFIRM_REQUIRED`` with exactly what would be sent (secrets masked) until the call repeats with
``confirm=true``, after the person's OK. A request whose body was not captured is refused, never
sent with an empty one. The URL policy holds in both browsers: the replay is the agent's own
request, so ``ALLOWED_URLS`` is checked here even in the user's Chrome, where only navigations are.

The answer: ``method``, ``url``, ``original`` and ``replay`` with the same keys (``id``, ``status``,
``durationMs``, ``failed``, ``serverError``, ``appError``: each the last hop after redirects, so that
the outcomes are compared), and ``saved`` (the replay's response body as network_save_body saves it:
``relativePath``, ``bytes``, ``mimeType``, ``preview``) or ``bodyNote`` (why not). No answer model is
declared: the condensed outputSchema says each key of every action once and must stay small.
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import anyio
from pydantic import Field

from cdp_core.errors import CDPError, CDPException, CDPTimeout
from cdp_core.recorders.network import BodyUnavailable, EntryNotFound, NetworkRecorder, Resend
from cdp_core.recorders.network.model import looks_textual
from cdp_core.recorders.network.payload_preview import payload_preview
from cdp_core.recorders.redact import HeaderRedactor, redact_url
from mcp_server.answers.lean import short_url
from mcp_server.evidence.app_errors import held_app_error
from mcp_server.evidence.body_preview import HTML_SCAN_BYTES, readable_preview
from mcp_server.evidence.capture import network_of
from mcp_server.evidence.dialogs import no_dialog, unless_dialog
from mcp_server.evidence.followup import last_id
from mcp_server.evidence.reading import not_found
from mcp_server.evidence.server_errors import held_server_error
from mcp_server.server.registry import ActionArgs, ActionResult, action
from targets.errors import ErrorCode, ToolFailure
from targets.policies.policy import scheme_of

if TYPE_CHECKING:
    from mcp_server.server.context import ToolContext
    from targets import PageHandle

__all__ = ["ReplayArgs", "network_replay"]

S = "browser_session"
#: methods that change nothing on a well-behaved server: replayed without asking
SAFE_METHODS = frozenset({"GET", "HEAD"})
#: what the preview of the body that would be sent keeps (the request payload's preview rules)
BODY_PREVIEW_CHARS = 300
#: what the answer prints of the replay's response (as network_save_body does)
RESPONSE_PREVIEW_CHARS = 500
#: the frames of our fetch carry this URL: the replay's entry is told from the page's own requests by it
SOURCE_URL = "mcp-browser-replay.js"
WORLD = "mcp-browser-replay"
#: how long the replayed request may take (the call bound cuts it shorter)
SEND_TIMEOUT_S = 30.0
#: how long the recorder is given to store the replay's end and body after the fetch resolved
SETTLE_S = 10.0

_FETCH_JS = """async (r) => {
  const init = {method: r.method, headers: r.headers, credentials: r.credentials, cache: r.cache, redirect: "follow"};
  if (r.body !== null) init.body = Uint8Array.from(atob(r.body), (c) => c.charCodeAt(0));
  try {
    const res = await fetch(r.url, init);
    await res.arrayBuffer();
    return {status: res.status};
  } catch (e) {
    return {error: String((e && e.message) || e)};
  }
}"""


class ReplayArgs(ActionArgs):
    id: int = Field(description="Entry id")
    confirm: bool = Field(False, description="Send a non-GET (the person's OK first)")


@action(
    S,
    "network_replay",
    ReplayArgs,
    lock="page",
    destructive=True,
    takes="as long as the server takes to answer; progress: which request",
)
async def network_replay(ctx: ToolContext, args: ReplayArgs) -> ActionResult:
    """Send a captured request again from its page (non-GET: confirm=true) and compare it with the original."""
    page = await ctx.page()
    recorder = network_of(page)
    try:
        original = recorder.get(args.id)
    except EntryNotFound as exc:
        raise not_found(exc, "network") from None
    if original.get("lastFrames") is not None or original.get("resourceType") == "websocket":
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"#{args.id} is a WebSocket: only HTTP requests are replayed")
    resend = await recorder.resend(args.id)
    _check_allowed(ctx, page, resend)
    if not resend.body_known:
        raise ToolFailure(
            ErrorCode.BODY_UNAVAILABLE,
            f"#{args.id} {resend.method} sent a body that was not captured (too large, or Chrome no longer has it): "
            "not replayed, since an empty body is not the same request",
            hint="ask the person to repeat the action, then replay the new entry",
            id=args.id,
        )
    if resend.method not in SAFE_METHODS and not args.confirm:
        raise _confirm_required(ctx, page, resend)
    watch = await no_dialog(ctx, page, "replay a request")
    baseline = last_id(recorder)
    ctx.status(f"replaying #{args.id} {resend.method} {short_url(redact_url(resend.url), page.url)}")
    wait_s, _ = ctx.bound(SEND_TIMEOUT_S, reserve_s=3.0)
    outcome = await unless_dialog(watch, _send(resend, wait_s), "replay a request")
    entry = await _replayed_entry(ctx, recorder, resend, baseline)
    if entry is None:
        raise ToolFailure(
            ErrorCode.INTERNAL_ERROR,
            f"the replay of #{args.id} was sent ({outcome.get('error') or outcome.get('status')}) "
            "but its request was not captured",
            hint="network_list shows what the page sent",
        )
    data: dict[str, Any] = {
        "method": resend.method,
        "url": redact_url(resend.url),
        "original": _facts(recorder, _last_hop(recorder, original)),
        "replay": _facts(recorder, entry),
    }
    if resend.method == "HEAD":
        data["bodyNote"] = "HEAD: no body"
    elif not entry.get("failed") or entry.get("status") is not None:
        await _save(ctx, recorder, int(entry["id"]), data)
    text = _text(data, args.id, page.url)
    return ActionResult(text=text, data=data)


# -- before sending --------------------------------------------------------------------------------


def _check_allowed(ctx: ToolContext, page: PageHandle, r: Resend) -> None:
    """Refuse what the policy refuses, and a replay the page could no longer send as it did."""
    shown = redact_url(r.url)
    if scheme_of(r.url) not in ("http", "https"):
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"#{r.entry_id} is not an http(s) request ({shown[:80]})")
    policy = ctx.manager.gate.policy
    sender = policy.check_local(r.document_url) if r.document_url else None
    if sender is not None and not sender.allowed:  # an iframe showing a local or browser-internal page
        raise ToolFailure(
            ErrorCode.BLOCKED_BY_POLICY,
            f"#{r.entry_id} was sent by {redact_url(r.document_url)[:200]}: the server does not act there "
            f"({sender.reason}).",
        )
    verdict = policy.check_url(r.url)
    if not verdict.allowed:
        raise ToolFailure(
            ErrorCode.BLOCKED_BY_POLICY,
            f"Replay of {shown} is not allowed: {verdict.reason}.",
            hint="Adjust ALLOWED_URLS, or replay a request to an allowed URL.",
            url=shown,
        )
    if r.frame_kind == "page" and r.frame_id == page.target_id and r.document_url:
        was, now = _origin(r.document_url), _origin(page.url)
        if was and now and was != now:
            raise ToolFailure(
                ErrorCode.NOT_ALLOWED,
                f"#{r.entry_id} was sent by a page of {was}; the tab now shows {now}: sent from here it would "
                "carry another origin and other cookies",
                hint=f"replay it once the tab shows {was} again",
            )


def _origin(url: str) -> str | None:
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else None


def _confirm_required(ctx: ToolContext, page: PageHandle, r: Resend) -> ToolFailure:
    """CONFIRM_REQUIRED with what would be sent, secrets masked, in the message (both renderings read it)."""
    redactor = HeaderRedactor(ctx.settings.network_redact_headers)
    headers = redactor.headers(r.headers)
    lines = [f"{r.method} {redact_url(r.url)}"]
    if r.body is not None:
        lines.append(f"body ({len(r.body)} bytes): {_body_preview(r)}")
    if headers:
        lines.append("headers: " + "; ".join(f"{k}: {v}" for k, v in headers.items()))
    lines.append("the browser adds the page's cookies, Origin and Referer")
    return ToolFailure(
        ErrorCode.CONFIRM_REQUIRED,
        f"#{r.entry_id} not sent: a {r.method} may change data on the server. It would send:\n" + "\n".join(lines),
        hint=f"show the person this request; with their OK call network_replay id={r.entry_id} confirm=true",
        id=r.entry_id,
    )


def _body_preview(r: Resend) -> str:
    """The body as the request payload's preview shows it (secrets masked), or that it is binary."""
    body = r.body or b""
    if not looks_textual(body):
        return f"binary ({r.content_type or 'no Content-Type'})"
    return payload_preview(body.decode("utf-8", "replace"), r.content_type, BODY_PREVIEW_CHARS)


# -- sending -------------------------------------------------------------------------------------


async def _send(r: Resend, wait_s: float) -> dict[str, Any]:
    """The fetch in the frame (or worker) that sent the original; its status, or the fetch's error."""
    session = r.session
    if session.closed:
        raise ToolFailure(ErrorCode.FRAME_NOT_FOUND, f"the frame that sent #{r.entry_id} is gone")
    body = base64.b64encode(r.body).decode("ascii") if r.body is not None else None
    # A GET must reach the server to check a patch, not come from the HTTP cache ("no-store": the browser
    # adds Pragma and Cache-Control: no-cache); other methods are never cached, so nothing is added to them.
    cache = "no-store" if r.method in SAFE_METHODS else "default"
    arg = {"method": r.method, "url": r.url, "headers": r.headers, "body": body, "credentials": r.credentials}
    arg["cache"] = cache
    params: dict[str, Any] = {
        "expression": f"({_FETCH_JS})({json.dumps(arg)})\n//# sourceURL={SOURCE_URL}",
        "awaitPromise": True,
        "returnByValue": True,
    }
    try:
        if r.frame_kind in ("page", "iframe") and r.frame_id:
            world = await session.send(
                "Page.createIsolatedWorld", {"frameId": r.frame_id, "worldName": WORLD}, timeout=10
            )
            params["contextId"] = int(world["executionContextId"])
        result = await session.send("Runtime.evaluate", params, timeout=wait_s)
    except CDPTimeout:
        raise ToolFailure(
            ErrorCode.TIMEOUT,
            f"the replay of #{r.entry_id} had no answer after {wait_s:.0f} s (the server may still be working on it)",
            hint="network_list shows it once it ends",
        ) from None
    except CDPException as exc:
        why = exc.message if isinstance(exc, CDPError) else str(exc)
        raise ToolFailure(
            ErrorCode.FRAME_NOT_FOUND,
            f"the frame that sent #{r.entry_id} can no longer send it: {why}",
            hint="ask the person to repeat the action, then replay the new entry",
        ) from None
    if "exceptionDetails" in result:
        text = (result["exceptionDetails"].get("exception") or {}).get("description") or "the fetch threw"
        raise ToolFailure(ErrorCode.EVALUATION_FAILED, str(text).split("\n")[0][:300])
    value = result.get("result", {}).get("value")
    return value if isinstance(value, dict) else {}


async def _replayed_entry(
    ctx: ToolContext, recorder: NetworkRecorder, r: Resend, baseline: int
) -> dict[str, Any] | None:
    """The replay's entry once it ended (the last hop after redirects), told apart by our script's URL."""
    wait_s, _ = ctx.bound(SETTLE_S, reserve_s=2.0)
    with anyio.move_on_after(wait_s):
        while True:
            found = _ours(recorder, r, baseline)
            if found is not None and _ended(found):
                await recorder.drain(timeout=max(0.5, wait_s / 2))
                return recorder.get(int(found["id"]))
            await anyio.sleep(0.05)
    found = _ours(recorder, r, baseline)
    return recorder.get(int(found["id"])) if found is not None else None


def _ours(recorder: NetworkRecorder, r: Resend, baseline: int) -> dict[str, Any] | None:
    for row in recorder.query(since_id=baseline, method=r.method).entries:
        if row.get("redirectedFrom") is not None:
            continue
        try:
            entry = recorder.get(int(row["id"]))
        except EntryNotFound:
            continue
        stack = (entry.get("initiator") or {}).get("stack") or []
        if any(frame.get("url") == SOURCE_URL for frame in stack):
            return _last_hop(recorder, entry)
    return None


def _last_hop(recorder: NetworkRecorder, entry: dict[str, Any]) -> dict[str, Any]:
    """Where a request ended after its redirects: the original and the replay are compared there."""
    while entry.get("redirectedTo") is not None:
        try:
            entry = recorder.get(int(entry["redirectedTo"]))
        except EntryNotFound:
            break
    return entry


def _ended(entry: dict[str, Any]) -> bool:
    if entry.get("failed"):
        return True
    return bool(entry.get("finished")) and entry.get("bodyState") != "pending"


# -- the answer ----------------------------------------------------------------------------------


def _facts(recorder: NetworkRecorder, entry: dict[str, Any]) -> dict[str, Any]:
    """What is compared, for the original and the replay alike (the same keys, so the two read side by side)."""
    out: dict[str, Any] = {"id": entry["id"], "status": entry.get("status"), "durationMs": entry.get("durationMs")}
    if entry.get("failed") and entry.get("status") is None:
        out["failed"] = entry.get("failureText") or "failed"
    server_error = held_server_error(recorder, int(entry["id"])) if entry.get("bodyHeld") else None
    out["serverError"] = server_error
    out["appError"] = None if server_error else held_app_error(recorder, entry)
    return out


async def _save(ctx: ToolContext, recorder: NetworkRecorder, entry_id: int, data: dict[str, Any]) -> None:
    """The replay's response body under <artifacts>/network/, as network_save_body saves it."""
    try:
        saved = await recorder.save_body(
            entry_id,
            which="response",
            dest_dir=ctx.artifacts.dir("network"),
            max_bytes=ctx.settings.network_body_max_bytes,
            allow_binary=True,
        )
    except (BodyUnavailable, EntryNotFound) as exc:
        data["bodyNote"] = f"not saved: {exc}"
        return
    body: dict[str, Any] = {
        "relativePath": ctx.artifacts.relative(saved.file_path),
        "bytes": saved.bytes,
        "mimeType": saved.mime_type,
    }
    if saved.truncated:
        body["totalBytes"] = saved.total_bytes
    if saved.preview:
        head = await anyio.to_thread.run_sync(_file_head, saved.file_path, HTML_SCAN_BYTES)
        body["preview"], page_text = readable_preview(head, saved.mime_type, RESPONSE_PREVIEW_CHARS)
        body["previewIsPageText"] = page_text or None
    data["saved"] = body


def _file_head(path: str, size: int) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(size)


def _side(facts: dict[str, Any], key: str) -> str:
    value = facts.get(key)
    if key == "status" and value is None:
        return f"failed ({facts.get('failed')})" if facts.get("failed") else "none"
    if key == "durationMs":
        return f"{value:.0f} ms" if isinstance(value, int | float) else "?"
    return str(value) if value else "none"


def _text(data: dict[str, Any], entry_id: int, page_url: str) -> str:
    """One line per fact, original -> replay."""
    before, after = data["original"], data["replay"]
    lines = [f"Replayed #{entry_id} {data['method']} {short_url(data['url'], page_url)} from the page: #{after['id']}"]
    lines.append(f"status: {_side(before, 'status')} -> {_side(after, 'status')}")
    for key, label in (("serverError", "server error"), ("appError", "app error")):
        if before.get(key) or after.get(key):
            lines.append(f"{label}: {_side(before, key)} -> {_side(after, key)}")
    lines.append(f"time: {_side(before, 'durationMs')} -> {_side(after, 'durationMs')}")
    body = data.get("saved")
    if body:
        size = f"{body['bytes']} bytes" + (f" of {body['totalBytes']}" if body.get("totalBytes") else "")
        lines.append(f"body: {body['relativePath']} ({size}, {body['mimeType']})")
        if body.get("preview"):
            said = "the page's text" if body.get("previewIsPageText") else "response"
            lines.append(f"{said}: {body['preview']}")
    elif data.get("bodyNote"):
        lines.append(f"body: {data['bodyNote']}")
    return "\n".join(lines)
