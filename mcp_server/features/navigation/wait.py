"""``browser_session`` action ``wait_for``: poll the page until a condition holds, bounded.

Text shown or gone, a URL, a load state, network quiet, or a script predicate; the page is
free for other calls between polls, and a wait cut at its bound says what it saw last and how
to continue. A JavaScript dialog that opens meanwhile ends the wait with the dialog's words.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from cdp_core import CDPError, CDPException, CDPSession
from cdp_core.errors import CDPTimeout
from mcp_server.answers.lean import Keep
from mcp_server.evidence.dialogs import dialog_watch, require_no_dialog
from mcp_server.evidence.followup import in_flight
from mcp_server.page.hidden import hidden_fields, hidden_first, hidden_line
from mcp_server.safety.safe_regex import MAX_PATTERN_CHARS, compile_pattern, search
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from targets import PageHandle

S = "browser_session"


class WaitAnswer(Answer):
    waitedMs: int
    state: dict[str, Any] = {}
    remainingMs: int | None = None
    continueWith: dict[str, Any] | None = None


class WaitForArgs(ActionArgs):
    text: str | None = Field(None, description="Until this text shows")
    text_gone: str | None = Field(None, description="Until this text is gone")
    url_matches: str | None = Field(None, max_length=MAX_PATTERN_CHARS, description="URL regex (Python re syntax)")
    load_state: Literal["domcontentloaded", "load"] | None = Field(None, description="Load state")
    network_idle: bool = Field(False, description="Until no request for idle_ms")
    idle_ms: int = Field(500, ge=0, le=60000, description="Quiet ms for network_idle")
    predicate: str | None = Field(None, description="JS that must become truthy")
    timeout_ms: int = Field(10000, ge=0, le=300000, description="Timeout in ms")


_TEXT_JS = """(function(t){
  function has(d){ try { if (d.body && d.body.innerText.indexOf(t) >= 0) return true;
    var fs = d.querySelectorAll('iframe,frame');
    for (var i = 0; i < fs.length; i++) { try { if (fs[i].contentDocument && has(fs[i].contentDocument)) return true; }
      catch (e) {} } } catch (e) {} return false; }
  return has(document); })"""

#: Pause between two polls of wait_for (the page is free for other calls meanwhile).
POLL_S = 0.1


class _PageMoved(Exception):
    """The page replaced its document during a poll: that poll saw nothing, the next one reads the new page."""


async def _eval(session: CDPSession, expression: str, timeout_ms: int = 5000) -> Any:
    from mcp_server.page.js import navigated_during, runaway_failure

    started = asyncio.get_running_loop().time()
    params = {"expression": expression, "returnByValue": True, "awaitPromise": True, "timeout": timeout_ms}
    try:
        result = await session.send("Runtime.evaluate", params, timeout=timeout_ms / 1000 + 2)
    except CDPError as exc:
        if navigated_during(exc):
            raise _PageMoved from None
        elapsed = asyncio.get_running_loop().time() - started
        raise await runaway_failure(session, exc, timeout_ms=timeout_ms, elapsed_s=elapsed, what="wait_for") from None
    except CDPTimeout as exc:
        elapsed = asyncio.get_running_loop().time() - started
        raise await runaway_failure(session, exc, timeout_ms=timeout_ms, elapsed_s=elapsed, what="wait_for") from None
    if result.get("exceptionDetails"):
        details = result["exceptionDetails"]
        text = (details.get("exception") or {}).get("description") or details.get("text") or "script threw"
        raise ToolFailure(ErrorCode.EVALUATION_FAILED, f"predicate threw: {str(text).splitlines()[0][:300]}")
    return result.get("result", {}).get("value")


def _condition(args: WaitForArgs) -> str:
    parts = []
    if args.text:
        parts.append(f"text {args.text[:60]!r}")
    if args.text_gone:
        parts.append(f"text {args.text_gone[:60]!r} gone")
    if args.url_matches:
        parts.append(f"URL ~ {args.url_matches[:60]!r}")
    if args.load_state:
        parts.append(f"load state {args.load_state!r}")
    if args.predicate:
        parts.append("predicate")
    if args.network_idle:
        parts.append(f"network idle {args.idle_ms} ms")
    return " and ".join(parts)


def _seen(last: dict[str, Any]) -> str:
    """What the last poll saw, for progress messages and the 'waiting' answer."""
    parts = []
    if "url" in last:
        parts.append(f"url {str(last['url'])[:80]}")
    if "textFound" in last:
        parts.append("text found" if last["textFound"] else "text not found")
    if "textGonePresent" in last:
        parts.append("text still there" if last["textGonePresent"] else "text gone")
    if "readyState" in last:
        parts.append(f"readyState {last['readyState']}")
    if "predicate" in last:
        parts.append(f"predicate = {str(last['predicate'])[:40]}")
    if "inFlight" in last:
        parts.append(f"{last['inFlight']} request(s) in flight")
    return ", ".join(parts) or "nothing checked yet"


@action(
    S,
    "wait_for",
    WaitForArgs,
    read_only=True,
    lock="poll",
    result=WaitAnswer,
    takes=(
        "up to timeout_ms; past the call bound it answers status=waiting with continueWith {timeout_ms};"
        " progress: the condition and what the last poll saw (text found or not, readyState, requests in"
        " flight)"
    ),
)
async def wait_for(ctx: ToolContext, args: WaitForArgs) -> ActionResult:
    """Wait until text appears/disappears, the URL matches, the network is idle or a JS predicate holds."""
    if not (args.text or args.text_gone or args.url_matches or args.load_state or args.network_idle or args.predicate):
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            "wait_for needs a condition",
            hint="set text, text_gone, url_matches, load_state, network_idle or predicate",
        )
    if args.predicate and not ctx.settings.evaluate_enabled:
        raise ToolFailure(
            ErrorCode.EVALUATE_DISABLED,
            "JS predicates are disabled on this server (evaluate_enabled=false)",
            hint="wait for text, text_gone, url_matches or network_idle instead",
        )
    pattern = compile_pattern(args.url_matches, field="url_matches") if args.url_matches else None
    page = await ctx.page()
    from mcp_server.evidence.dialogs import unless_dialog

    watch = await dialog_watch(ctx, page)
    loop = asyncio.get_running_loop()
    started = loop.time()
    wait_s, cut = ctx.bound(args.timeout_ms / 1000)
    deadline = started + wait_s
    condition = _condition(args)
    ctx.status(f"waiting for {condition}", total_s=wait_s)
    idle_since: float | None = None
    answered_at: dict[Any, float] = {}  # when each request's answer was first seen (followup.in_flight)
    last: dict[str, Any] = {}
    url_checked: tuple[str, bool] | None = None  # the URL rarely changes: match it once
    while True:
        async with ctx.step(page):  # the page to ourselves for one poll; free in between
            require_no_dialog(watch, "wait_for")
            try:
                ok = True
                if pattern is not None:
                    url = await _current_url(page)
                    last["url"] = url
                    if url_checked is None or url_checked[0] != url:
                        url_checked = (url, await search(pattern, url))
                    ok = ok and url_checked[1]
                if ok and args.load_state:
                    state = await _eval(page.session, "document.readyState")
                    last["readyState"] = state
                    ok = state == "complete" or (args.load_state == "domcontentloaded" and state == "interactive")
                if ok and args.text:
                    found = bool(await _eval(page.session, f"{_TEXT_JS}({json.dumps(args.text)})"))
                    last["textFound"] = found
                    ok = found
                if ok and args.text_gone:
                    present = bool(await _eval(page.session, f"{_TEXT_JS}({json.dumps(args.text_gone)})"))
                    last["textGonePresent"] = present
                    ok = not present
                if ok and args.predicate:
                    remaining_ms = int(max(0.0, deadline - loop.time()) * 1000)
                    # The agent's script may open a dialog (alert): that freezes the page, so it is
                    # said at once (DIALOG_OPEN, the dialog left for handle_dialog), not after a timeout.
                    call = _eval(page.session, args.predicate, timeout_ms=max(100, min(5000, remaining_ms)))
                    value = await unless_dialog(watch, call, "wait_for")
                    last["predicate"] = value if isinstance(value, (bool, int, float, str, type(None))) else str(value)
                    ok = bool(value)
                if ok and args.network_idle:
                    now = loop.time()
                    busy = _in_flight(page, answered_at, now)
                    last["inFlight"] = busy
                    if busy:
                        idle_since = None
                        ok = False
                    else:
                        idle_since = idle_since if idle_since is not None else now
                        ok = (now - idle_since) * 1000 >= args.idle_ms
            except _PageMoved:  # a poll during the page's own navigation: the next one reads the new page
                ok = False
        waited = round((loop.time() - started) * 1000)
        if ok:
            # what the page showed: its false and null values are the observation, not empty fields
            text, data = await _loading_note(
                args, page, f"condition met after {waited} ms: {_seen(last)}", {"waitedMs": waited, "state": Keep(last)}
            )
            return ActionResult(text=text, data=data)
        if loop.time() >= deadline:
            if cut:
                still = _still_waiting(args, waited, last, condition)
                still.text, still.data = await _loading_note(args, page, still.text, still.data)
                return still
            hidden = await _loading_note(args, page, "", {})
            raise ToolFailure(
                ErrorCode.TIMEOUT,
                f"{hidden_line() + ' ' if hidden[1] else ''}wait_for: condition not met within {args.timeout_ms} ms",
                hint="raise timeout_ms, or take a snapshot to see the page",
                state=last,
                **({"visibility": "hidden"} if hidden[1] else {}),
            )
        ctx.status(f"waiting for {condition} ({waited / 1000:.1f} s): {_seen(last)}")
        await asyncio.sleep(min(POLL_S, max(0.0, deadline - loop.time())))


async def _loading_note(
    args: WaitForArgs, page: PageHandle, text: str, data: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """A wait for a load state or an idle network in a background tab says first that its time is
    Chrome's throttling (the other conditions are the page's own doing)."""
    if not (args.load_state or args.network_idle):
        return text, data
    return hidden_first(await hidden_fields(page), text, data)


def _still_waiting(args: WaitForArgs, waited_ms: int, last: dict[str, Any], condition: str) -> ActionResult:
    """The non-final answer at the call bound: what was seen, and the call that continues the wait."""
    left_ms = max(0, args.timeout_ms - waited_ms)
    text = (
        f"still waiting: {condition} not met after {waited_ms / 1000:.1f} s ({_seen(last)}); {left_ms} ms of "
        f"timeout_ms left. Call wait_for again with the same arguments and timeout_ms={left_ms} to keep waiting."
    )
    return ActionResult(
        text=text,
        data={
            "waitedMs": waited_ms,
            "state": Keep(last),
            "remainingMs": left_ms,
            "continueWith": {"timeout_ms": left_ms},
        },
        status="waiting",
    )


async def _current_url(page: PageHandle) -> str:
    try:
        tree = await page.session.send("Page.getFrameTree", timeout=5)
        return str(tree["frameTree"]["frame"].get("url", ""))
    except CDPException:
        return page.url


def _in_flight(page: PageHandle, answered_at: dict[Any, float], now: float) -> int:
    network = page.data.get("network")
    if network is None:
        return 0
    return len(in_flight(network.list(limit=200), answered_at, now))
