"""What a debug point runs in the page, and what a pause is turned into, before it is resumed.

Logpoints never pause: their breakpoint's *condition* records the values and returns false.
It calls a ``Runtime.addBinding`` function (one random name per page, so ``Runtime.bindingCalled``
brings the payload to us) rather than ``console.log``: a page's console is often wrapped
(error trackers keep console calls as breadcrumbs and upload them), so values logged through
it would leave the machine and show up as the page's own noise in the user's DevTools. The
binding is visible to the page as a global function of that unguessable name; calls that do
not carry one of our point ids are ignored. The hit counter lives on that function object and
is checked *inside* the condition, so past ``max_hits`` a synchronous loop stops logging at once
(the breakpoint itself is then removed from Python as soon as the capped notice arrives; V8
takes the removal between two iterations).

Snapshot points and exceptions pause: :func:`capture_pause` reads the call stack and the
variables of the top frames (``Runtime.getProperties`` on the scope objects, previews built
from V8's own side-effect-free previews), bounded in frames, scopes and variables; the caller
resumes at once and maps names afterwards, with the page running again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from ...connection import CDPSession
from ..console.format import format_remote_object
from ..redact import REDACTED, redact_secrets_in_text
from ..secret_names import is_secret_field

__all__ = [
    "logpoint_condition",
    "checked_condition",
    "CONDITION_CHECKS_MAX",
    "capture_pause",
    "redacted_value",
    "FRAMES_WITH_VARS",
]

#: Frames whose variables a capture reads (the rest of the stack is names and places only).
FRAMES_WITH_VARS = 3
#: Variables kept per scope, and characters per value preview.
VARS_PER_SCOPE = 25
VALUE_CHARS = 200
#: times a point's condition is evaluated, true or false, before it is no longer asked
CONDITION_CHECKS_MAX = 10_000
STACK_FRAMES = 30
#: Scope types read (global and script scopes are the whole page: left out).
SCOPE_TYPES = ("local", "block", "closure", "catch", "with", "module")

# The page-side preview of a logged value: primitives, short strings, objects with a few own data
# properties (getters are not called), arrays with their length and first items.
_PREVIEW_JS = (
    "(vs => { const P = (x, d) => { const t = typeof x; if (x === null) return 'null';"
    " if (t === 'string') { const s = x.length > 120 ? x.slice(0, 120) + '…' : x; return d ? JSON.stringify(s) : s; }"
    " if (t === 'function') return 'ƒ ' + (x.name || 'anonymous');"
    " if (t !== 'object') return String(x);"
    " if (Array.isArray(x)) return d > 1 ? 'Array(' + x.length + ')' : 'Array(' + x.length + ') ['"
    " + Array.prototype.slice.call(x, 0, 5).map(y => P(y, d + 1)).join(', ') + (x.length > 5 ? ', …' : '') + ']';"
    " const c = (Object.getPrototypeOf(x) || {}).constructor;"
    " const n = c && c.name && c.name !== 'Object' ? c.name + ' ' : '';"
    " if (d > 1) return n + '{…}'; const k = Object.keys(x);"
    " return n + '{' + k.slice(0, 6).map(p => { const ds = Object.getOwnPropertyDescriptor(x, p);"
    " return p + ': ' + (ds && 'value' in ds ? P(ds.value, d + 1) : '(getter)'); })"
    ".join(', ') + (k.length > 6 ? ', …' : '') + '}'; };"
    " try { return JSON.stringify(vs.map(x => P(x, 0))); } catch (e) { return JSON.stringify(['(unreadable)']); } })"
)


def logpoint_condition(binding: str, point: int, max_hits: int, values: str, condition: str | None) -> str:
    """The breakpoint condition of a logpoint: count, record ``[values]`` through the binding, return false.

    ``values`` and ``condition`` are already in the generated code's names. Errors in them are
    recorded as the hit's value (``e``), never thrown into the page.
    """
    b = f"globalThis[{json.dumps(binding)}]"
    c = f"{b}.c{point}"
    cond = checked_condition(binding, point, condition) if condition else "true"
    record = (
        # no binding of ours is in scope where the page's values are read (minified names are one letter)
        f"(() => {{ let __mcpV; try {{ __mcpV = {_PREVIEW_JS}([{values}]); }}"
        " catch (e) { __mcpV = JSON.stringify({e: String(e)}); }"
        f" {b}('{{\"p\":{point},\"n\":' + {c} + ',\"v\":' + __mcpV + '}}'); }})()"
    )
    capped = f'{c} === {max_hits + 1} && {b}(\'{{"p":{point},"capped":true}}\')'
    return (
        f"(typeof {b} === 'function' && {cond} && (({c} = ({c} || 0) + 1) <= {max_hits} ? {record} : {capped}), false)"
    )


def checked_condition(binding: str, point: int, condition: str) -> str:
    """``condition`` counted at each evaluation and no longer evaluated past CONDITION_CHECKS_MAX.

    Why: a condition that stays false never reaches the hit cap, so without a count of its own
    it would run at every pass of its line for as long as the point exists.
    """
    b = f"globalThis[{json.dumps(binding)}]"
    e = f"{b}.e{point}"
    return f"(typeof {b} === 'function' && ({e} = ({e} || 0) + 1) <= {CONDITION_CHECKS_MAX} && ({condition}))"


def redacted_value(name: str, preview: str) -> str:
    """A variable's preview as answers show it: secret-named variables and token-looking values masked."""
    if is_secret_field(name):
        return REDACTED
    text = redact_secrets_in_text(preview)
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def _preview(value: dict[str, Any]) -> str:
    """A value's preview; a function is ``ƒ`` (its source text says nothing here and can hold literals)."""
    if value.get("type") == "function":
        return "ƒ"
    return format_remote_object(value)


def _location(loc: dict[str, Any] | None) -> tuple[int, int] | None:
    if not loc:
        return None
    return int(loc.get("lineNumber", 0)), int(loc.get("columnNumber", 0))


async def _scope_vars(session: CDPSession, scope: dict[str, Any], timeout: float) -> tuple[list[list[str]], int]:
    """[[generated name, preview], ...] of one scope object and how many were left out."""
    object_id = (scope.get("object") or {}).get("objectId")
    if not object_id:
        return [], 0
    reply = await session.send(
        "Runtime.getProperties",
        {"objectId": object_id, "ownProperties": True, "generatePreview": True},
        timeout=timeout,
    )
    props = [p for p in reply.get("result") or () if "value" in p]
    out = [[str(p.get("name")), _preview(p["value"])] for p in props[:VARS_PER_SCOPE]]
    return out, max(0, len(props) - VARS_PER_SCOPE)


async def capture_pause(
    session: CDPSession, params: dict[str, Any], script_url: Callable[[str], str], *, timeout: float = 2.0
) -> dict[str, Any]:
    """The raw capture of a pause: frames (generated names and places) and the top frames' scopes.

    Variables keep their generated names here (mapped later, after the resume); values are
    previews, not redacted yet (redaction needs the original name: a ``password`` renamed ``i``).
    """
    frames: list[dict[str, Any]] = []
    wanted: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for n, frame in enumerate((params.get("callFrames") or [])[:STACK_FRAMES]):
        loc = frame.get("location") or {}
        out: dict[str, Any] = {
            "function": frame.get("functionName") or "(anonymous)",
            "url": frame.get("url") or script_url(str(loc.get("scriptId"))),
            "lineNumber": int(loc.get("lineNumber", 0)) + 1,
            "columnNumber": int(loc.get("columnNumber", 0)) + 1,
        }
        if n < FRAMES_WITH_VARS:
            out["scopes"] = []
            wanted += [(out, s) for s in frame.get("scopeChain") or () if s.get("type") in SCOPE_TYPES]
            if n == 0 and frame.get("returnValue"):
                out["returnValue"] = format_remote_object(frame["returnValue"])
        frames.append(out)
    # All scopes asked at once: the page waits for the slowest answer, not for the sum of round trips.
    read = await asyncio.gather(*(_scope_vars(session, scope, timeout) for _, scope in wanted))
    for (out, scope), (names, omitted) in zip(wanted, read, strict=True):
        if names or omitted:
            out["scopes"].append(
                {
                    "type": scope.get("type"),
                    "start": _location(scope.get("startLocation")),
                    "end": _location(scope.get("endLocation")),
                    "vars": names,
                    "omitted": omitted,
                }
            )
    capture: dict[str, Any] = {"frames": frames, "reason": params.get("reason")}
    data = params.get("data") or {}
    if params.get("reason") in ("exception", "promiseRejection") and data:
        capture["exception"] = redact_secrets_in_text(str(data.get("description") or format_remote_object(data)))
        capture["uncaught"] = bool(data.get("uncaught"))
    return capture
