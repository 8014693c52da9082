"""evaluate_js: the agent's JavaScript in the selected frame, off unless BROWSER_EVALUATE_ENABLED.

The value comes back as JSON where it is JSON; a node, a function or undefined is named, a long
value is saved to a file, and what the script threw is the answer's error.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pydantic import Field

from cdp_core.errors import CDPError, CDPException, CDPTimeout
from mcp_server.answers.lean import Keep
from mcp_server.evidence.dialogs import no_dialog, unless_dialog
from mcp_server.input.frames import main_world
from mcp_server.page.js import exception_text, runaway_failure, selected_frame, truncate
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action
from targets.errors import ErrorCode, ToolFailure

S = "browser_session"


class EvaluateResult(Answer):
    type: str | None = Field(None, description="named when the JSON value does not say it (node, function, undefined)")
    truncated: bool = False
    result: Any = Field(None, description="the value (null, false and [] included); absent when truncated")
    preview: str | None = None
    path: str | None = None
    length: int | None = None


class EvaluateArgs(ActionArgs):
    expression: str = Field(description="JS expression (await allowed)")
    timeout_ms: int = Field(30000, ge=0, le=300000, description="Timeout in ms")
    max_chars: int = Field(20000, ge=100, le=500000, description="Cap on returned text")


_EVAL_GROUP = "mcp-evaluate"


#: Result types the JSON value itself shows; others (a node, a function, undefined) are named in ``type``.
_PLAIN_KINDS = frozenset({"string", "number", "boolean", "object", "array", "null"})


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
    session: Any, expression: str, timeout_ms: int, *, context_id: int | None = None
) -> tuple[Any, str]:
    """Evaluate in the main world (REPL mode: top-level await, re-declarable let) -> (value, type).

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
            _evaluate_main(session, args.expression, timeout_ms, context_id=context_id),
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
