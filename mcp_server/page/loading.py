"""Page loads that may take longer than a call may: ``navigate`` now, ``reload`` / ``go_back`` /
``go_forward`` the same way (one helper, so every load answers alike).

A load waits for its ``wait_until`` event up to ``timeout_ms``, but never past the call bound
(``MCP_MAX_CALL_SECONDS``): when the bound cuts it and the new document has arrived, the answer
is ``status: "waiting"`` with what was reached and the ``wait_for`` call that continues the wait
(the page goes on loading). A load with no response by the bound was stopped (Chrome holds every
command of a tab with a pending navigation) and answers TIMEOUT saying so.

For a load action (``pages.py`` does this for go_back, go_forward and reload)::

    async def load(timeout_ms: int, on_status: StatusFn) -> dict[str, Any]:
        return await ctx.manager.reload(wait_until=args.wait_until, timeout_ms=timeout_ms, on_status=on_status)

    outcome = await bounded_load(ctx, what="reload", wait_until=args.wait_until,
                                 timeout_ms=args.timeout_ms, load=load)
    if isinstance(outcome, ActionResult):
        return outcome  # status "waiting"
    ...  # outcome: url, title, status of the loaded page

The TIMEOUT of ``targets.pages.navigation`` carries ``committed`` (and ``reached``), which is what
tells "still loading" from "no response". A load still going in a background tab says first that
Chrome throttles loading there (:mod:`mcp_server.page.hidden`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from mcp_server.evidence.dialogs import unless_dialog
from mcp_server.page.hidden import hidden_fields, hidden_first, hidden_line
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionResult
from targets.errors import ErrorCode, ToolFailure

#: The load event a navigation waits for (Playwright's names).
WaitUntil = Literal["load", "domcontentloaded", "networkidle", "commit"]

__all__ = ["bounded_load", "continuation_of", "StatusFn", "LOAD_TAKES"]

#: ``takes=`` of the actions that load a page (docs/tools.md)
LOAD_TAKES = (
    "up to timeout_ms for wait_until; past the call bound status=waiting with continueWith (wait_for load_state "
    "or network_idle), or TIMEOUT if no response came (navigation stopped); progress: waiting for the response, "
    "then the lifecycle events reached"
)

StatusFn = Callable[[str], None]
LoadFn = Callable[[int, StatusFn], Awaitable[dict[str, Any]]]

#: timeout_ms 0 means "no timeout of my own": the call bound still applies.
_NO_TIMEOUT_S = 24 * 3600.0


def continuation_of(wait_until: str, left_ms: int) -> dict[str, Any]:
    """The wait_for arguments that keep waiting for ``wait_until`` on the page already loading."""
    if wait_until == "networkidle":
        return {"action": "wait_for", "network_idle": True, "timeout_ms": left_ms}
    return {"action": "wait_for", "load_state": wait_until, "timeout_ms": left_ms}


async def bounded_load(
    ctx: ToolContext, *, what: str, wait_until: str, timeout_ms: int, load: LoadFn, watch: Any | None = None
) -> dict[str, Any] | ActionResult:
    """Run ``load(timeout_ms, on_status)`` within the call bound -> its facts, or the "waiting" answer.

    ``watch``: the page's dialog watch. Leaving a page whose form has unsaved changes opens its
    ``beforeunload`` prompt, and Chrome holds the move until the prompt is answered: the load
    answers DIALOG_OPEN as soon as it opens, instead of waiting out ``timeout_ms`` and then
    saying there was no response (the prompt stays, for handle_dialog; accepting it lets the
    move go on).
    """
    wait_s, cut = ctx.bound(timeout_ms / 1000 if timeout_ms else _NO_TIMEOUT_S)
    ctx.status(what, total_s=wait_s)
    loop = asyncio.get_running_loop()
    started = loop.time()

    def on_status(text: str) -> None:
        ctx.status(text)

    try:
        return await unless_dialog(watch, load(max(1, int(wait_s * 1000)), on_status), what)
    except ToolFailure as exc:
        if exc.code != ErrorCode.TIMEOUT or not cut:
            if exc.code == ErrorCode.TIMEOUT and exc.details.get("committed") and await hidden_fields(ctx.ready_page()):
                exc.message = f"{hidden_line()} {exc.message}"  # slow because hidden, said first
                exc.details["visibility"] = "hidden"
            raise
        bound = ctx.settings.max_call_seconds
        waited_ms = round((loop.time() - started) * 1000)
        if not exc.details.get("committed"):
            exc.message += f" This call stopped at the {bound:g} s call bound (MCP_MAX_CALL_SECONDS)."
            exc.hint = (
                f"the server sent no response within {bound:g} s; retry later, or raise MCP_MAX_CALL_SECONDS "
                "if your client waits longer than a minute"
            )
            raise
        left_ms = max(0, timeout_ms - waited_ms) if timeout_ms else 0
        if not timeout_ms:  # no timeout of the caller's own: one more bound's worth
            left_ms = int(bound * 1000)
        reached = exc.details.get("reached") or []
        after = f" (reached: {', '.join(reached)})" if reached else ""
        follow = continuation_of(wait_until, left_ms)
        args = " ".join(f"{k}={v}" for k, v in follow.items() if k != "action")
        text = (
            f"still loading: {what} got its response but not {wait_until!r} within the {bound:g} s call bound"
            f"{after}; the page goes on loading. Call wait_for {args} to keep waiting."
        )
        data: dict[str, Any] = {"waitedMs": waited_ms, "remainingMs": left_ms, "continueWith": follow}
        if reached:
            data["reached"] = reached
        if "url" in exc.details:
            data["url"] = exc.details["url"]
        text, data = hidden_first(await hidden_fields(ctx.ready_page()), text, data)
        return ActionResult(text=text, data=data, status="waiting")
