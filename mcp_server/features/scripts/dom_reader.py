"""``get_dom``'s reader: the page's HTML read from an isolated world, bounded, with token inputs redacted.

Why not a script in the page: the old reader cloned the document in the page's own world and
emptied SVGs through ``innerHTML``, so a Trusted-Types page refused it (and sent a CSP violation
report), a page's patched prototypes saw and could lie to it, and a 60 MB page was copied whole
(``outerHTML``) before being cut. This reader runs in an isolated world of our own
(``Page.createIsolatedWorld``): the page's scripts, CSP and Trusted Types do not see it, it
only reads the DOM (no clone, no HTML sink), and it stops building once ``max_chars`` is
reached, so neither the page nor the server ever holds more than about ``max_chars`` of it.

Input values are sent back separately from the HTML; the server decides with
:func:`cdp_core.recorders.redact.is_secret_field` (the one predicate for field names) which
hidden or visible inputs carry a token (``csrf_token``, ``nonce``, ``api_key``...) and masks
their ``value``; password values are dropped.
"""

from __future__ import annotations

import asyncio
import html as html_lib
import re
from typing import TYPE_CHECKING, Any

from cdp_core import CDPSession
from cdp_core.errors import CDPError, CDPTimeout
from cdp_core.recorders.redact import REDACTED, is_secret_field, redact_secrets_in_text
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from targets import PageHandle

__all__ = ["read_dom", "WORLD_NAME"]

WORLD_NAME = "mcp-browser-dom-reader"
#: Elements visited at most per read (counting past max_chars included): bounds the page's work.
MAX_NODES = 300_000
#: Longest attribute value shown (a data: URI in a src can be megabytes).
MAX_ATTRIBUTE_CHARS = 1000
#: Longest input value carried back for the server to judge.
MAX_VALUE_CHARS = 2000

# The serializer. Iterative (no recursion limit on deep pages), read-only, bounded by maxChars for
# what it builds and by maxNodes for what it visits; input values come back as placeholders.
_SERIALIZE = r"""
(function (arg) {
  const root = arg.selector ? document.querySelector(arg.selector) : document.documentElement;
  // No root element without a selector: a document being replaced (or emptied by a script), not a miss.
  if (!root) return arg.selector ? null : {html: '', length: 0, complete: true, values: [], noRoot: true,
                                          url: location.href, title: document.title};
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'META']);
  const VOID = new Set(['AREA', 'BASE', 'BR', 'COL', 'EMBED', 'HR', 'IMG', 'INPUT', 'LINK', 'SOURCE', 'TRACK',
                        'WBR', 'PARAM']);
  const max = arg.maxChars, maxNodes = arg.maxNodes, maxAttr = arg.maxAttr;
  const parts = [];
  const values = [];
  let built = 0, total = 0, nodes = 0, complete = true;
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const escAttr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  function emit(s) {
    total += s.length;
    if (built < max) { parts.push(s); built += s.length; }
  }
  function skipped(el) {
    const name = el.tagName;
    if (SKIP.has(name)) return true;
    if (name === 'LINK') {
      const rel = (el.getAttribute('rel') || '').toLowerCase().split(/\s+/);
      return rel.includes('stylesheet') || rel.includes('preload');
    }
    return false;
  }
  function open(el) {
    const tag = el.tagName.toLowerCase();
    let s = '<' + tag;
    const isInput = el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'OPTION';
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      if (name.startsWith('on') || name === 'style') continue;
      if (isInput && name === 'value') {
        if (built < max) {
          values.push({v: attr.value.slice(0, arg.maxValue), n: el.getAttribute('name') || '',
                       i: el.id || '', t: (el.getAttribute('type') || '').toLowerCase(),
                       a: (el.getAttribute('autocomplete') || '').toLowerCase()});
          s += ' \u0001' + (values.length - 1) + '\u0001';
        }
        continue;
      }
      if (name.startsWith('data-')) {  // data-token, data-csrf...: the server judges the name
        if (built < max) {
          values.push({v: attr.value.slice(0, arg.maxValue), k: 'attr', an: name});
          s += ' \u0001' + (values.length - 1) + '\u0001';
        }
        continue;
      }
      let value = attr.value;
      if (value.length > maxAttr) value = value.slice(0, maxAttr) + '\u2026';
      s += ' ' + attr.name + (value === '' ? '' : '="' + escAttr(value) + '"');
    }
    return s + '>';
  }
  function text(node) {
    const data = node.data;
    if (built >= max) { total += data.length; return; }
    const piece = data.length > (max - built) * 4 + 64 ? data.slice(0, (max - built) * 4 + 64) : data;
    const collapsed = piece.replace(/\s+/g, ' ');
    if (collapsed === ' ' || collapsed === '') { total += 0; return; }
    emit(esc(collapsed));
    if (piece.length < data.length) total += data.length - piece.length;
  }
  // Stack of [node, phase]: phase 0 = open, 1 = close.
  const stack = [[root, 0]];
  while (stack.length) {
    const [node, phase] = stack.pop();
    if (phase === 1) { emit('</' + node.tagName.toLowerCase() + '>'); continue; }
    if (++nodes > maxNodes) { complete = false; break; }
    if (node.nodeType === 3) { text(node); continue; }
    if (node.nodeType !== 1 || skipped(node)) continue;
    emit(open(node));
    const tag = node.tagName;
    if (VOID.has(tag)) continue;
    if (tag === 'TEXTAREA') {  // its text is a value like an input's: judged by the server, masked by name
      if (built < max) {
        values.push({v: node.value.slice(0, arg.maxValue), k: 'text', n: node.getAttribute('name') || '',
                     i: node.id || '', t: 'textarea', a: (node.getAttribute('autocomplete') || '').toLowerCase()});
        emit('\u0001' + (values.length - 1) + '\u0001');
      } else total += node.value.length;
      emit('</textarea>');
      continue;
    }
    stack.push([node, 1]);
    if (tag === 'svg' || tag === 'SVG') continue;  // drawing instructions, not page structure
    if (built >= max && stack.length > 2000) continue;  // counting only: keep the stack bounded too
    const kids = node.childNodes;
    for (let k = kids.length - 1; k >= 0; k--) stack.push([kids[k], 0]);
  }
  return {html: parts.join(''), values: values, length: total, complete: complete,
          title: document.title, url: location.href};
})
"""

_PLACEHOLDER = re.compile("\u0001(\\d+)\u0001")


async def read_dom(page: PageHandle, frame_sessions: dict[str, CDPSession], *, selector: str | None, max_chars: int,
                   timeout: float = 15.0) -> dict[str, Any] | None:  # fmt: skip
    """The cleaned HTML of the selected frame (or ``selector``'s subtree), at most ``max_chars`` characters.

    Returns ``None`` when ``selector`` matches nothing, else ``html``, ``length`` (of the whole
    cleaned document; estimated when the page was too big to walk whole: ``lengthEstimated``),
    ``truncated``, ``url``, ``title`` and ``redactedValues`` (how many input values were masked);
    ``noRoot`` when the document has no root element through every read (emptied by a script).
    """
    session, frame_id = await _frame_target(page, frame_sessions)
    arg = {
        "selector": selector,
        "maxChars": max_chars,
        "maxNodes": MAX_NODES,
        "maxAttr": MAX_ATTRIBUTE_CHARS,
        "maxValue": MAX_VALUE_CHARS,
    }
    import json

    expression = f"{_SERIALIZE}({json.dumps(arg)})"
    result = await _evaluate_isolated(page, session, frame_id, expression, timeout)
    if result is None:
        return None
    html, masked = _fill_values(str(result.get("html", "")), result.get("values") or [])
    truncated = int(result.get("length") or 0) > max_chars or len(html) > max_chars or not result.get("complete")
    out: dict[str, Any] = {
        "html": html[:max_chars],
        "length": max(int(result.get("length") or 0), len(html)),
        "truncated": bool(truncated),
        "url": str(result.get("url", "")),
        "title": str(result.get("title", "")),
        "redactedValues": masked,
    }
    if not result.get("complete"):
        out["lengthEstimated"] = True
    if result.get("noRoot"):
        out["noRoot"] = True
    return out


def _fill_values(html: str, values: list[dict[str, Any]]) -> tuple[str, int]:
    """Put the input values back: token-looking ones masked, password values dropped."""
    masked = 0

    def fill(m: re.Match[str]) -> str:
        nonlocal masked
        index = int(m.group(1))
        if index >= len(values):
            return ""
        item = values[index]
        if item.get("k") == "attr":  # a data-* attribute: by its name, then JWTs and Bearer values by value
            name = str(item.get("an", "data-"))
            if is_secret_field(name[5:]):
                masked += 1
                return f'{name}="{REDACTED}"'
            value = redact_secrets_in_text(str(item.get("v", "")))
            return f"{name}" + (f'="{html_lib.escape(value, quote=True)}"' if value else "")
        kind, autocomplete = str(item.get("t", "")), str(item.get("a", ""))
        if kind == "password":
            masked += 1
            return ""  # as before: a password input shows no value attribute at all
        secret = (
            is_secret_field(str(item.get("n", "")))
            or is_secret_field(str(item.get("i", "")))
            or "password" in autocomplete
            or "one-time-code" in autocomplete
        )
        if item.get("k") == "text":  # a textarea's content
            if secret:
                masked += 1
                return REDACTED
            return html_lib.escape(redact_secrets_in_text(str(item.get("v", ""))), quote=False)
        if secret:
            masked += 1
            return f'value="{REDACTED}"'
        return f'value="{html_lib.escape(redact_secrets_in_text(str(item.get("v", ""))), quote=True)}"'

    return _PLACEHOLDER.sub(fill, html), masked


async def _frame_target(page: PageHandle, frame_sessions: dict[str, CDPSession]) -> tuple[CDPSession, str]:
    """The session and frame id of the frame get_dom reads (select_frame's choice, else the main frame)."""
    # A page's (and an out-of-process iframe's) main frame id is its target id: no round trip needed.
    frame_id = page.active_frame
    if frame_id and frame_id in frame_sessions:
        return frame_sessions[frame_id], frame_id
    if frame_id:
        return page.session, frame_id
    return page.session, page.target_id


#: Reads tried while the page keeps replacing its document under us (a page that keeps reloading).
_ATTEMPTS = 5


async def _evaluate_isolated(
    page: PageHandle, session: CDPSession, frame_id: str, expression: str, timeout: float
) -> dict[str, Any] | None:
    """Run ``expression`` in a fresh isolated world of ``frame_id``; retried when a navigation
    destroys the world between its creation and the read."""
    from mcp_server.page.js import exception_text, navigated_during, runaway_failure

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    for attempt in range(_ATTEMPTS):
        try:
            world = await session.send(
                "Page.createIsolatedWorld", {"frameId": frame_id, "worldName": WORLD_NAME}, timeout=5
            )
        except CDPError as exc:
            raise ToolFailure(
                ErrorCode.FRAME_NOT_FOUND,
                f"the frame to read is gone: {exc.message}",
                hint="call list_frames and select_frame again (frame_index 0 = main frame)",
            ) from None
        started = loop.time()
        left = max(1.0, deadline - started)
        try:
            result = await session.send(
                "Runtime.evaluate",
                {
                    "expression": expression,
                    "contextId": world["executionContextId"],
                    "returnByValue": True,
                    "timeout": int(left * 1000),
                },
                timeout=left + 2,
            )
        except CDPError as exc:
            if navigated_during(exc) and attempt + 1 < _ATTEMPTS:
                await asyncio.sleep(0.05 * (attempt + 1))  # the page replaced its document: read the new one
                continue
            if navigated_during(exc):
                raise ToolFailure(
                    ErrorCode.BUSY,
                    f"get_dom: the page replaced its document during each of {_ATTEMPTS} reads",
                    hint="the page keeps navigating; wait_for network_idle or a text, then call get_dom again",
                ) from None
            failure = await runaway_failure(
                session, exc, timeout_ms=int(left * 1000), elapsed_s=loop.time() - started, what="get_dom"
            )
            raise failure from None
        except CDPTimeout as exc:
            failure = await runaway_failure(
                session, exc, timeout_ms=int(left * 1000), elapsed_s=loop.time() - started, what="get_dom"
            )
            raise failure from None
        if "exceptionDetails" in result:
            text = exception_text(result["exceptionDetails"])
            if "querySelector" in text or "not a valid selector" in text:
                raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"get_dom: {text}", hint="fix the CSS selector") from None
            raise ToolFailure(ErrorCode.EVALUATION_FAILED, f"get_dom: {text}")
        remote = result.get("result", {})
        value = remote.get("value")
        if isinstance(value, dict):
            if value.get("noRoot") and attempt + 1 < _ATTEMPTS:
                await asyncio.sleep(0.05 * (attempt + 1))  # a new document before its first element: read again
                continue
            return value
        if remote.get("subtype") == "null":
            return None  # the serializer's answer for a selector that matches nothing
        # Neither the read nor null (undefined): the world was torn down mid-read by a navigation.
        if attempt + 1 < _ATTEMPTS:
            await asyncio.sleep(0.05 * (attempt + 1))
    raise ToolFailure(
        ErrorCode.BUSY,
        f"get_dom: the page replaced its document during each of {_ATTEMPTS} reads",
        hint="the page keeps navigating; wait_for network_idle or a text, then call get_dom again",
    )
