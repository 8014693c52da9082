"""What the page itself recorded before attach: its Resource Timing, read on demand.

Capture starts at attach (``capturedSince``): a request the person made before it has no entry,
no headers, no body. The page keeps its own record, though: the Resource Timing buffer
(``performance.getEntriesByType("resource")`` and ``"navigation"``) holds each request's URL,
initiator type (``fetch``, ``xmlhttprequest``, ``img``...), response status (Chrome's
``responseStatus``), start time, duration and transfer size, but never its method, headers or
body (and a ``fetch`` whose body the page never read is not in it: Chrome adds the entry when the
body ends). ``debug_bundle`` and ``network_list`` show the part of it older than ``capturedSince``
(what is newer is already captured), so the agent can say "the page's fetch /api/save answered
500 at 10:31:02 before attach: ask the person to repeat it".

Why on demand and not at attach: attach stays as fast as it was, and a page that loaded after
attach costs one short script that returns at once. The read runs in an isolated world of ours
(the page's scripts never see it), only reads, is bounded in time and size, and is skipped while
a JavaScript dialog freezes the page. Only the main frame's record is read.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from cdp_core.errors import CDPException
from cdp_core.recorders.redact import redact_url
from mcp_server.answers.earlier_requests import Earlier, EarlierRequest
from mcp_server.answers.lean import epoch_of
from mcp_server.evidence.dialogs import watch_of

if TYPE_CHECKING:
    from targets import PageHandle

__all__ = ["BUFFER_DEFAULT", "read_before_attach"]

WORLD_NAME = "__mcp_before_attach"
#: Chrome's default size of the Resource Timing buffer: a page that holds exactly this many has
#: most likely dropped the later ones (the buffer keeps the first entries, not the newest)
BUFFER_DEFAULT = 250
#: The newest entries the script hands back (a page may have raised its buffer a lot)
MAX_ENTRIES = 1000
#: A URL is cut here in the page already (a data: URL can be megabytes)
URL_CHARS = 2000
READ_TIMEOUT_S = 3.0

#: initiatorType -> the resource type network_list says (the rest keep their initiator type)
_KIND = {"navigation": "document", "xmlhttprequest": "xhr", "fetch": "fetch", "img": "image", "script": "script"}

_READ = f"""((cutoff) => {{
  const origin = performance.timeOrigin;
  if (!(origin < cutoff)) return {{newer: true}};
  const resources = performance.getEntriesByType("resource");
  const all = performance.getEntriesByType("navigation").concat(resources);
  const out = [];
  let count = 0;
  for (const e of all) {{
    const at = origin + e.startTime;
    if (!(at < cutoff)) continue;
    count++;
    out.push([e.entryType === "navigation" ? "navigation" : String(e.initiatorType || "other"),
      typeof e.responseStatus === "number" ? e.responseStatus : null, String(e.name).slice(0, {URL_CHARS}),
      at, e.duration, e.transferSize]);
    if (out.length > {MAX_ENTRIES}) out.shift();
  }}
  return {{count, resources: resources.length, entries: out}};
}})"""


async def read_before_attach(page: PageHandle, since: str | None) -> Earlier | None:
    """The page's record of requests older than ``since``, or None: nothing older (the document
    loaded after ``since``), the page cannot be read now (a dialog, a busy page), or no ``since``."""
    cutoff = epoch_of(since) if since else None
    if cutoff is None or page.closed:
        return None
    watch = watch_of(page)
    if watch.open is not None or (watch.enabling is not None and not watch.enabling.done()):
        return None  # a dialog freezes the page: the read would wait for it
    try:
        value = await asyncio.wait_for(_evaluate(page, cutoff * 1000), READ_TIMEOUT_S + 1)
    except (CDPException, TimeoutError):
        return None
    if not isinstance(value, dict) or value.get("newer") or not value.get("count"):
        return None
    requests = [r for r in map(_request, value.get("entries") or []) if r is not None]
    return Earlier(
        since=since or "",
        total=int(value["count"]),
        requests=requests,
        buffer_full=value.get("resources") == BUFFER_DEFAULT,
    )


async def _evaluate(page: PageHandle, cutoff_ms: float) -> Any:
    session = page.session
    world = await session.send(
        "Page.createIsolatedWorld", {"frameId": page.target_id, "worldName": WORLD_NAME}, timeout=READ_TIMEOUT_S
    )
    reply = await session.send(
        "Runtime.evaluate",
        {
            "expression": f"{_READ}({cutoff_ms!r})",
            "contextId": world["executionContextId"],
            "returnByValue": True,
            "silent": True,
            "timeout": int(READ_TIMEOUT_S * 1000),
        },
        timeout=READ_TIMEOUT_S,
    )
    if reply.get("exceptionDetails"):
        return None
    return (reply.get("result") or {}).get("value")


def _request(row: Any) -> EarlierRequest | None:
    try:
        kind, status, url, at, duration, size = row
        return EarlierRequest(
            kind=_KIND.get(str(kind), str(kind)),
            status=int(status) if isinstance(status, (int, float)) else None,
            url=redact_url(str(url)),
            at=float(at),
            duration_ms=round(float(duration or 0)),
            transfer_bytes=int(size) if isinstance(size, (int, float)) else None,
        )
    except (TypeError, ValueError):
        return None
