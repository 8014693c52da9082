"""Requests from before attach as the model reads them: the page's own record, lean, in both renderings.

The record (read by :mod:`mcp_server.page.before_attach`) can hold hundreds of images, scripts and
fonts; what an agent needs from it is how many there were, the document/xhr/fetch requests that
failed (status >= 400, or 0: no answer) and the last few xhr/fetch, each with its time, so that it
can tell the person "the page's fetch /api/save answered 500 at 10:31:02 UTC, before attach: repeat
it to capture its body". Resource Timing has no method, headers or body: the rows say what it
has (its type, status, URL, start and duration) and nothing more.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from mcp_server.answers.lean import epoch_of, short_url
from mcp_server.answers.listing import URL_CHARS, cut

__all__ = ["Earlier", "EarlierRequest", "select_earlier", "earlier_part", "EARLIER_COLUMNS", "READ_KINDS"]

#: Failing requests listed (the newest), and the newest xhr/fetch that did not fail
MAX_FAILING = 10
LAST_AJAX = 3
EARLIER_COLUMNS = ["type", "status", "url"]
#: The kinds whose failure is listed: there a 0 status is a request that got no answer (or one a
#: cross-origin server hides); an image's or a font's 0 is most often only cross-origin
READ_KINDS = frozenset({"document", "xhr", "fetch"})
_AJAX = ("xhr", "fetch")
#: what the record is, said once at the head of the part
SOURCE = "the page's own Resource Timing: no method, headers or bodies"


@dataclass(frozen=True, slots=True)
class EarlierRequest:
    """One request of the page's own record: what Resource Timing has, no method, headers or body."""

    kind: str
    status: int | None
    url: str
    #: epoch milliseconds of its start
    at: float
    duration_ms: int
    transfer_bytes: int | None = None

    @property
    def failing(self) -> bool:
        """A document/xhr/fetch that answered an error or got no answer (status 0)."""
        return self.kind in READ_KINDS and self.status is not None and (self.status >= 400 or self.status == 0)


@dataclass(slots=True)
class Earlier:
    """The page's record of the requests made before ``since`` (the network capture's start)."""

    since: str
    #: requests before ``since`` in the record (all of them, also when ``requests`` holds fewer)
    total: int
    requests: list[EarlierRequest] = field(default_factory=list)
    #: the resource buffer holds exactly its default size: the later requests were not recorded
    buffer_full: bool = False

    def record(self) -> dict[str, Any]:
        """The whole record as JSON types (bundle.json keeps it)."""
        return asdict(self)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Earlier:
        requests = [EarlierRequest(**r) for r in record.get("requests") or []]
        return cls(record["since"], record["total"], requests, bool(record.get("buffer_full")))


def select_earlier(
    earlier: Earlier,
    *,
    resource_types: list[str] | None = None,
    status_min: int | None = None,
    url_contains: str | None = None,
    failed_only: bool = False,
) -> Earlier:
    """``earlier`` narrowed by network_list's filters (its method filter cannot apply: no method)."""
    kept = [
        r
        for r in earlier.requests
        if (not resource_types or r.kind in resource_types)
        and (status_min is None or (r.status is not None and r.status >= status_min))
        and (not url_contains or url_contains in r.url)
        and (not failed_only or r.status == 0)
    ]
    narrowed = bool(resource_types or status_min is not None or url_contains or failed_only)
    return Earlier(
        since=earlier.since,
        total=len(kept) if narrowed else earlier.total,
        requests=kept,
        buffer_full=earlier.buffer_full,
    )


def _clock(at_ms: float) -> str:
    """``10:31:02.120 UTC``: the time the person can match to what they did."""
    return datetime.fromtimestamp(at_ms / 1000, UTC).strftime("%H:%M:%S.%f")[:-3] + " UTC"


def _status_text(r: EarlierRequest) -> str:
    return "?" if r.status is None else str(r.status)


def _row(r: EarlierRequest, page_url: str | None, since_ms: float) -> list[Any]:
    return [
        r.kind,
        r.status,
        cut(short_url(r.url, page_url), URL_CHARS),
        {"t": round(r.at - since_ms), "durationMs": r.duration_ms},
    ]


def _line(r: EarlierRequest, page_url: str | None, indent: str = "  ") -> str:
    url = cut(short_url(r.url, page_url), URL_CHARS)
    return f"{indent}{r.kind} {_status_text(r)} {url} at {_clock(r.at)}, took {r.duration_ms} ms"


def _hint(r: EarlierRequest, page_url: str | None) -> str:
    answered = "got no answer (status 0)" if r.status == 0 else f"answered {r.status}"
    url = cut(short_url(r.url, page_url), URL_CHARS)
    return (
        f"the page's {r.kind} {url} {answered} at {_clock(r.at)}, before attach: its method, headers and"
        " body were not captured; ask the person to repeat it, then read network_list"
    )


def earlier_part(earlier: Earlier, page_url: str | None, *, with_last: bool = True) -> tuple[list[str], dict[str, Any]]:
    """(text lines, data) of the requests from before attach: a count, the failing ones, the last xhr/fetch.

    ``with_last=False`` leaves out the last xhr/fetch that did not fail: where the capture already
    holds the failure, they are the person's earlier clicks, not a lead (the count still says they were).
    """
    since_ms = (epoch_of(earlier.since) or 0.0) * 1000
    failing = [r for r in earlier.requests if r.failing]
    ajax = [r for r in earlier.requests if r.kind in _AJAX]
    last = [r for r in ajax if not r.failing][-LAST_AJAX:] if with_last else []
    other = Counter(r.kind for r in earlier.requests if r.kind not in READ_KINDS and (r.status or 0) >= 400)
    head = f"before attach ({SOURCE}): {earlier.total} request(s)"
    if ajax:
        head += f", {len(ajax)} xhr/fetch"
    head += f", {len(failing)} failing" if failing else ", none failing"
    if other:
        head += "; other files answering >= 400: " + ", ".join(f"{n} {kind}" for kind, n in other.most_common())
    if earlier.buffer_full:
        head += "; the page's timing buffer is full (250 entries): its later requests are not in it"
    shown = failing[-MAX_FAILING:]
    data: dict[str, Any] = {
        "total": earlier.total,
        "xhrFetch": len(ajax) or None,
        "failingCount": len(failing) or None,
        "otherFailing": dict(other.most_common()) or None,
        "bufferFull": earlier.buffer_full or None,
        "columns": EARLIER_COLUMNS if shown or last else None,
        "failing": [_row(r, page_url, since_ms) for r in shown] or None,
        "lastXhrOrFetch": [_row(r, page_url, since_ms) for r in last] or None,
    }
    lines = [head + (":" if shown or last else "")]
    if len(failing) > len(shown):
        lines[0] += f" ({len(shown)} newest failing shown)"
    lines += [_line(r, page_url) for r in shown]
    if last:
        lines.append("  last xhr/fetch:")
        lines += [_line(r, page_url, "    ") for r in last]
    if failing:
        data["hint"] = _hint(failing[-1], page_url)
        lines.append(f"note: {data['hint']}")
    return lines, data
