"""Turning handler outcomes into MCP answers: the envelope, and every exception into a stable error code.

An ok answer is ``content`` (the handler's short text, plus images when asked) and a
``structuredContent`` holding the action's data beside ``schemaVersion``, ``status`` and
``message`` (and ``adapter`` for calls through a condensed tool), passed through
:func:`mcp_server.answers.lean.lean` (no nulls, falses or empty lists: absent means none). The data may
carry ``hint`` (the next step), as errors do. An error is ``isError: true``
with a text saying what went wrong and what to do next, and ``{status: "error", code, message,
hint?, ...details}``. Unexpected exceptions become ``INTERNAL_ERROR``: the server keeps running.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError
from pydantic_core import to_jsonable_python

from cdp_core.errors import CDPError, CDPTimeout, ConnectionClosed, DiscoveryError, SessionClosed
from mcp_server.answers.lean import lean
from mcp_server.server.registry import ActionResult
from mcp_server.server.schema import ENVELOPE_KEYS, SCHEMA_VERSION
from mcp_server.server.tool_answer import Block, ImageBlock, TextBlock, ToolAnswer
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    import mcp_types

__all__ = ["ok_result", "error_result", "failure_from_exception", "validation_failure", "wire_form"]

log = logging.getLogger(__name__)


def _jsonable(value: Any) -> Any:
    # Handlers may return Paths, datetimes or pydantic models; the wire wants plain JSON.
    return to_jsonable_python(value, fallback=str)


#: envelope keys an ok answer's data may not use (``hint`` it may: the next step, as in errors)
_OK_RESERVED = tuple(key for key in ENVELOPE_KEYS if key != "hint")


def ok_result(result: ActionResult, adapter: dict[str, Any] | None) -> ToolAnswer:
    leaned = lean(result.data)
    data = (leaned if result.plain else _jsonable(leaned)) or {}
    clashes = [key for key in _OK_RESERVED if key in data]
    for key in clashes:
        # Envelope keys win; keep the action's value under a prefixed key rather than lose it.
        data[f"data_{key}"] = data.pop(key)
    message = result.message or summary(result.text)
    structured: dict[str, Any] = {"schemaVersion": SCHEMA_VERSION, "status": result.status, "message": message, **data}
    if adapter is not None:
        structured["adapter"] = lean(adapter)
    content: list[Block] = [TextBlock(result.text)]
    for b64, mime in result.images:
        content.append(ImageBlock(b64, mime))
    return ToolAnswer(content=content, structured_content=structured, is_error=False)


def wire_form(answer: ToolAnswer | mcp_types.CallToolResult) -> dict[str, Any]:
    """The answer (a :class:`ToolAnswer`, or the SDK's ``CallToolResult``) as the SDK puts it on the wire.

    Why a dict: handed a ``CallToolResult``, the SDK dumps it (a walk over every value: the 2000
    rows of a console list), then validates and dumps the dict once more for the protocol
    version; handed this dict, it does only the second. ``structuredContent`` is plain JSON
    already (:func:`ok_result` and :func:`error_result` make it so), so it goes in as it is.
    """
    if isinstance(answer, ToolAnswer):
        return answer.wire_form()
    wire = answer.model_dump(by_alias=True, mode="json", exclude_none=True, exclude={"structured_content"})
    if answer.structured_content is not None:
        wire["structuredContent"] = answer.structured_content
    return wire


#: The most characters of the envelope's ``message``: every answer pays for it twice under
#: JSON(structuredContent), once in the message and once in the data it restates.
MESSAGE_CHARS = 100


def summary(text: str) -> str:
    """The envelope's ``message``: the answer's first line, cut at a word within ``MESSAGE_CHARS``.

    A summary, not the answer: the data holds the facts (a get_dom answer would otherwise carry
    its HTML twice in structuredContent, a status its page line twice). Handlers with a better
    short summary pass ``ActionResult.message``.
    """
    first = text.strip().split("\n", 1)[0]
    clause = _CLAUSE_END.search(first, MESSAGE_MIN)
    if clause is not None:
        first = _TRAILING_WORD.sub("", first[: clause.start()].rstrip(" :")) + "…"
    if len(first) <= MESSAGE_CHARS:
        return first
    cut = first[: MESSAGE_CHARS - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > MESSAGE_CHARS // 2 else cut).rstrip(" ,;:(") + "…"


#: Where a first line's gist ends: before a URL or at the next clause. The rest (URL, title,
#: status, times) is in the data, under its own keys; a parenthesis stays (it often says what
#: only the text says: "(tab brought to front)", "(secrets redacted)").
_CLAUSE_END = re.compile(r" (?=<|https?://|file:|about:|data:)|[;,] ")
#: A cut clause does not end on a dangling preposition ("Went back to…" reads "Went back…")
_TRAILING_WORD = re.compile(r"(?: (?:to|on|of|at|in|into|from|for|with|and))+$")
#: The shortest gist: a cut never leaves less than this many characters
MESSAGE_MIN = 8


def error_result(failure: ToolFailure, adapter: dict[str, Any] | None) -> ToolAnswer:
    details = _jsonable(lean(failure.details)) or {}
    structured: dict[str, Any] = {
        **{k: v for k, v in details.items() if k not in ENVELOPE_KEYS},
        "schemaVersion": SCHEMA_VERSION,
        "status": "error",
        "code": failure.code,
        "message": failure.message,
    }
    if failure.hint:
        structured["hint"] = failure.hint
    if adapter is not None:
        structured["adapter"] = lean(adapter)
    text = f"Error {failure.code}: {failure.message}"
    if failure.hint:
        text += f"\nNext: {failure.hint}"
    candidates = details.get("candidates")
    if isinstance(candidates, list) and candidates:
        text += "\nCandidates:\n" + "\n".join(f"- {_short(c)}" for c in candidates[:20])
    return ToolAnswer(content=[TextBlock(text)], structured_content=structured, is_error=True)


def _short(candidate: Any) -> str:
    if isinstance(candidate, dict):
        return " ".join(f"{k}={candidate[k]!r}" for k in list(candidate)[:5])
    return str(candidate)


def _fields_of(model: type[BaseModel]) -> str:
    parts = [f"{name}{'' if info.is_required() else '?'}" for name, info in model.model_fields.items()]
    return ", ".join(parts) if parts else "none"


def validation_failure(
    exc: ValidationError, *, tool: str, action: str | None, model: type[BaseModel] | None = None
) -> ToolFailure:
    """A pydantic error as INVALID_ARGUMENT, listing each bad field and why (and the fields there are)."""
    problems = []
    for err in exc.errors():
        field = ".".join(str(part) for part in err["loc"]) or "(arguments)"
        kind = err["type"]
        if kind == "extra_forbidden":
            msg = "unknown field"
        elif kind == "missing":
            msg = "required field missing"
        else:
            msg = err["msg"]
        problems.append({"field": field, "problem": msg})
    where = f"{tool} action {action!r}" if action else tool
    summary = "; ".join(f"{p['field']}: {p['problem']}" for p in problems[:5])
    return ToolFailure(
        ErrorCode.INVALID_ARGUMENT,
        f"bad arguments for {where}: {summary}",
        hint=(
            f"fields of {action or tool} (? = optional): {_fields_of(model)}"
            if model is not None
            else "fix the listed fields (the tool's inputSchema lists every field) and call again"
        ),
        errors=problems,
    )


def failure_from_exception(exc: BaseException, *, tool: str, action: str | None) -> ToolFailure:
    """Map anything a handler raised to a ToolFailure with a stable code."""
    if isinstance(exc, ToolFailure):
        return exc
    if isinstance(exc, ValidationError):
        return validation_failure(exc, tool=tool, action=action)
    if isinstance(exc, SessionClosed):
        return ToolFailure(
            ErrorCode.PAGE_CLOSED,
            f"the page's debugging session closed: {exc}",
            hint="the tab was probably closed; call list_pages and select_page",
        )
    if isinstance(exc, ConnectionClosed):
        return ToolFailure(
            ErrorCode.BROWSER_DISCONNECTED,
            f"the browser connection closed: {exc}",
            hint="attach again (attach_cdp; with Chrome's toggle the user is asked to Allow again) or call "
            "use_launch_browser to start the internal browser",
        )
    if isinstance(exc, CDPTimeout):
        return ToolFailure(
            ErrorCode.TIMEOUT, str(exc), hint="the page may be busy (long script, dialog open); retry or reload"
        )
    if isinstance(exc, CDPError):
        return ToolFailure(
            ErrorCode.CDP_ERROR, str(exc), hint="check the arguments; the browser refused it", method=exc.method
        )
    if isinstance(exc, DiscoveryError):
        return ToolFailure(
            ErrorCode.CDP_UNREACHABLE,
            str(exc),
            hint="turn on chrome://inspect/#remote-debugging in the user's Chrome and call attach_cdp again, or "
            "start Chrome with --remote-debugging-port=9222 and a dedicated profile and pass cdp_url",
        )
    missing = _missing_reply_field(exc)
    if missing is not None:
        log.warning("a CDP reply without %r in %s %s", missing, tool, action or "", exc_info=exc)
        return ToolFailure(
            ErrorCode.CDP_ERROR,
            f"the browser answered without {missing!r}, which this call needs: a malformed CDP reply",
            hint="a real Chrome sends it; check that the endpoint attached to is a Chrome (get_browser_status)",
            field=missing,
        )
    timeout = _playwright_timeout()
    if timeout is not None and isinstance(exc, timeout):
        return ToolFailure(ErrorCode.TIMEOUT, str(exc).split("\n")[0], hint="check the selector or raise timeout_ms")
    log.exception("unexpected error in %s %s", tool, action or "", exc_info=exc)
    return ToolFailure(
        ErrorCode.INTERNAL_ERROR,
        f"internal error: {type(exc).__name__}: {exc}",
        hint="this is a bug in the server; the browser state is unchanged where possible, retry or report it",
        exception=type(exc).__name__,
    )


#: Fields every Chrome puts in the CDP replies we read; a KeyError on one of them is the
#: endpoint's (a fake or broken CDP server), not a bug of ours.
CDP_REPLY_FIELDS = frozenset(
    {
        "objectId", "result", "node", "nodeId", "nodeIds", "backendNodeId", "frameTree", "frame",
        "targetId", "targetInfos", "sessionId", "scriptSource", "breakpointId", "nodes", "root",
        "data", "body", "base64Encoded", "cookies", "layoutViewport", "cssVisualViewport", "model",
        "contentSize", "entries", "quads", "computedStyle", "matchedCSSRules", "browserContextId",
    }
)  # fmt: skip


def _missing_reply_field(exc: BaseException) -> str | None:
    """The CDP reply field a KeyError names, when it is one (see CDP_REPLY_FIELDS)."""
    if type(exc) is KeyError and exc.args and isinstance(exc.args[0], str) and exc.args[0] in CDP_REPLY_FIELDS:
        return exc.args[0]
    return None


def _playwright_timeout() -> type[BaseException] | None:
    try:
        from playwright.async_api import TimeoutError as PlaywrightTimeout
    except Exception:  # noqa: BLE001 - playwright is optional for the framework
        return None
    return PlaywrightTimeout
