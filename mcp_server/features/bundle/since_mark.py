"""``debug_bundle since_mark``: where "after the mark" starts on this tab, and the changes against before it.

The tab that was selected at the mark is read by the mark's own positions (the newest network
and console ids then): exact. A tab whose capture started after the mark holds only later entries.
Any other tab is read by clock (entries at or after the mark's time), and the answer says so.
The comparison itself is :mod:`.changes` (pure logic); this module reads the recorders into its
plain records, with the server's or the app's error of each document/XHR/fetch answer held.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from cdp_core.recorders.network import iso_time
from mcp_server.evidence.app_errors import held_app_error
from mcp_server.evidence.marks import Mark
from mcp_server.evidence.server_errors import held_server_error
from mcp_server.features.bundle.changes import (
    compare,
    epoch_of,
    failure_state,
    in_span,
    newest_failure,
    span_before,
)

__all__ = ["After", "after_mark", "mark_changes"]

#: Answers per span whose held body is read for an error (the newest ones).
ERROR_READS = 200
#: Characters of a body's error a request's outcome keeps (the bundle's rows show it whole).
ERROR_CHARS = 120


@dataclass
class After:
    """Where the capture after a mark starts on one tab: the newest ids before it (0: all is after)."""

    network_id: int = 0
    console_id: int = 0
    #: why the tab is read by clock instead of by the mark's positions ("" when exact)
    by_clock: str = ""
    notes: list[str] = field(default_factory=list)


def _first_id_at(items: list[dict[str, Any]], epoch: float) -> int:
    """The newest id of the items captured before ``epoch`` (oldest first), 0 when none."""
    last = 0
    for item in items:
        when = epoch_of(item.get("timestamp"))
        if when is not None and when >= epoch:
            break
        last = int(item["id"])
    return last


def after_mark(page: Any, mark: Mark) -> After:
    """The ids after which ``page``'s capture is after ``mark``."""
    network, console = page.data.get("network"), page.data.get("console")
    out = After()
    since = [epoch_of(r.captured_since) for r in (network, console) if r is not None]
    if since and all(s is not None and s > mark.epoch for s in since):
        return out  # the capture started after the mark: every entry is after it
    if mark.page == page.stable_page_id:
        out.network_id, out.console_id = mark.network_id, mark.console_id
        return out
    out.by_clock = f"{mark.name} was taken on {mark.page or 'no tab'}: this tab is read by clock from {mark.at}"
    out.notes.append(out.by_clock)
    if network is not None:
        out.network_id = _first_id_at(network.list(), mark.epoch)
    if console is not None:
        out.console_id = _first_id_at(console.list(), mark.epoch)
    return out


def _clip(text: str | None) -> str | None:
    if not text:
        return None
    line = " ".join(text.split())
    return line if len(line) <= ERROR_CHARS else line[: ERROR_CHARS - 1] + "…"


def _requests(network: Any, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The plain records :mod:`.changes` compares: a request, its outcome and its body's error."""
    readable = [e for e in entries if e.get("resourceType") in ("document", "xhr", "fetch")][-ERROR_READS:]
    read = {e["id"] for e in readable}
    out = []
    for e in entries:
        error = None
        if e["id"] in read and e.get("status") is not None:
            error = held_server_error(network, e["id"]) or held_app_error(network, e)
        keep = ("id", "timestamp", "method", "url", "status", "failed", "failureText")
        out.append({**{k: e.get(k) for k in keep}, "error": _clip(error)})
    return out


def mark_changes(
    page: Any, mark: Mark, after: After, screen_now: list[dict[str, Any]] | None, origin: str
) -> dict[str, Any]:
    """The bundle's ``changes``: the span compared with, the failure's one line, what changed."""
    network, console = page.data.get("network"), page.data.get("console")
    now = time.time()
    entries = network.list() if network is not None else []
    errors = console.list(types=["error", "pageerror"]) if console is not None else []
    before_all = _requests(network, [e for e in entries if e["id"] <= after.network_id]) if network else []
    req_after = _requests(network, [e for e in entries if e["id"] > after.network_id]) if network else []
    con_before_all = [e for e in errors if e["id"] <= after.console_id]
    con_after = [e for e in errors if e["id"] > after.console_id]
    failure = newest_failure(before_all, con_before_all, origin)
    captured = [t for r in (network, console) if r is not None and (t := epoch_of(r.captured_since)) is not None]
    live = failure.epoch if failure is not None and failure.resolved_by is None else None
    span = span_before(mark.epoch, now, min(captured) if captured else None, live)
    before = (in_span(before_all, span), in_span(con_before_all, span))
    captured_after = (len(network.list(since_id=after.network_id)) if network is not None else 0) + (
        len(console.list(since_id=after.console_id)) if console is not None else 0
    )
    state, line = failure_state(
        mark.name, failure, (req_after, con_after), captured_after=captured_after, origin=origin
    )
    on_screen = list(mark.on_screen) if mark.page == page.stable_page_id and not after.by_clock else None
    changes = compare(before, (req_after, con_after), on_screen, screen_now, origin)
    return {
        "line": line,
        "failure": {"before": failure.said, "state": state} if failure is not None else None,
        "against": {
            "from": iso_time(span.start),
            "seconds": round(max(0.0, mark.epoch - span.start), 1),
            "rule": span.rule,
        },
        **changes,
    }
