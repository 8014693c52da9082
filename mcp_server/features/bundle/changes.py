"""What changed after a capture mark: the comparison ``debug_bundle since_mark`` prints, on plain data.

The span after the mark is compared with a span before it:

- **as long as the span after the mark**, ending at the mark, so that what the page did long
  ago (another page, an hour earlier) is not called "gone";
- **reaching back to the newest failure before the mark** when that is older: between the failing
  save and the mark the agent read, diagnosed and patched (minutes), while the person's repeat
  after the mark takes seconds; a span of the same length would hold no failure at all;
- **never before capturedSince** (nothing earlier was captured).

Keys: a console error by its message and location (script path without its query, line); a
request by method and URL without query or fragment. A request "changed" when it was made in
both spans and the newest outcome (status or network failure, and the server's or the app's error
in its body) differs. On-screen messages are compared between the mark (``capture_mark`` read
them) and now. Pure logic on dicts: unit-tested without a browser (tests/mcp_server/bundle/test_changes.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = [
    "Failure",
    "Span",
    "compare",
    "console_key",
    "epoch_of",
    "failure_state",
    "newest_failure",
    "outcome",
    "request_key",
    "span_before",
]

#: Why the span before the mark starts where it does (said in both renderings).
AS_LONG = "as long as the span after the mark"
TO_FAILURE = "back to the newest failure before the mark"
SINCE_CAPTURE = "from capturedSince (the capture is shorter)"


def epoch_of(iso: str | None) -> float | None:
    """Seconds since the epoch of a capture time (``2026-12-07T16:20:01.123Z``); None if there is none."""
    if not iso:
        return None
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _no_query(url: str) -> str:
    return url.split("#", 1)[0].split("?", 1)[0]


def request_key(item: dict[str, Any]) -> str:
    """``POST http://host/save.php``: method and URL without query or fragment."""
    return f"{item.get('method') or 'GET'} {_no_query(str(item.get('url') or ''))}"


def console_key(item: dict[str, Any]) -> str:
    """A console error's message and where it was logged (script path without query, line)."""
    where = item.get("location") or {}
    url = _no_query(str(where.get("url") or ""))
    line = where.get("lineNumber")
    return f"{item.get('text') or ''} @ {url}:{line}" if url else str(item.get("text") or "")


def outcome(item: dict[str, Any]) -> str:
    """``500``, ``failed net::ERR_…``, ``200 app error: …``: what a request came back with."""
    if item.get("failed"):
        said = f"failed {item.get('failureText') or ''}".strip()
    elif item.get("status") is None:
        said = "no answer yet"
    else:
        said = str(item["status"])
    if item.get("error"):
        said += f" {item['error']}"
    return said


def failing(item: dict[str, Any]) -> bool:
    status = item.get("status")
    return bool(item.get("failed") or item.get("error") or (status is not None and status >= 400))


@dataclass(frozen=True)
class Failure:
    """The failure seen before the mark: a request (by its key) or else a console error."""

    kind: str  # "request" | "console"
    key: str
    said: str
    epoch: float | None
    id: int
    #: the id of a later request with the same key that succeeded before the mark (the failure
    #: was gone already: nothing to check after the mark), else None
    resolved_by: int | None = None


@dataclass(frozen=True)
class Span:
    """The span before the mark the changes are read against: from ``start`` to the mark, and why."""

    start: float
    rule: str


def _shown(key: str, origin: str) -> str:
    """A request key as the answer prints it: the page's own origin left out."""
    method, _, url = key.partition(" ")
    if origin and url.startswith(origin + "/"):
        url = url[len(origin) :]
    return f"{method} {url}"


def _request_failure(item: dict[str, Any], origin: str, resolved_by: int | None = None) -> Failure:
    key = request_key(item)
    status = item.get("status")
    # a status of 400 or more says it; the error line is the gist of a 200 that failed
    said = outcome({**item, "error": None}) if status is not None and status >= 400 else outcome(item)
    when = epoch_of(item.get("timestamp"))
    return Failure("request", key, f"{_shown(key, origin)} {said}", when, item["id"], resolved_by)


def newest_failure(requests: list[dict[str, Any]], console: list[dict[str, Any]], origin: str = "") -> Failure | None:
    """The failure the person saw before the mark: the newest request whose newest outcome before the
    mark fails; else, when every failing request was answered well later (``resolved_by``), the
    newest of those; else the newest console error; else None."""
    newest = _newest_by_key(requests, request_key)
    resolved = None
    for item in reversed(requests):
        if not failing(item):
            continue
        last = newest[request_key(item)]
        if failing(last):
            return _request_failure(last, origin)
        if resolved is None:
            resolved = _request_failure(item, origin, resolved_by=last["id"])
    if resolved is not None:
        return resolved
    for item in reversed(console):
        text = str(item.get("text") or "").splitlines()[0][:120] if item.get("text") else ""
        return Failure(
            "console", console_key(item), f'console error "{text}"', epoch_of(item.get("timestamp")), item["id"]
        )
    return None


def span_before(mark: float, now: float, captured_since: float | None, failure: float | None) -> Span:
    """The span before the mark to compare with (see the module's docstring for the three rules)."""
    start, rule = mark - max(0.0, now - mark), AS_LONG
    if failure is not None and failure < start:
        start, rule = failure, TO_FAILURE
    if captured_since is not None and captured_since > start:
        start, rule = captured_since, SINCE_CAPTURE
    return Span(start, rule)


def in_span(items: list[dict[str, Any]], span: Span) -> list[dict[str, Any]]:
    """The items of ``items`` (all before the mark) captured at or after the span's start."""
    out = []
    for item in items:
        when = epoch_of(item.get("timestamp"))
        if when is None or when >= span.start - 0.0005:  # the capture's times are to the millisecond
            out.append(item)
    return out


def _newest_by_key(items: list[dict[str, Any]], key: Any) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        out[key(item)] = item  # oldest first: the newest stays
    return out


def _console_row(item: dict[str, Any], count: int, origin: str) -> dict[str, Any]:
    where = item.get("location") or {}
    row: dict[str, Any] = {"id": item["id"], "text": str(item.get("text") or "")[:300]}
    if where.get("url"):
        url = _no_query(str(where["url"]))
        url = url[len(origin) :] if origin and url.startswith(origin + "/") else url
        line = where.get("lineNumber")
        row["at"] = url if line is None else f"{url}:{line}"
    if count > 1:
        row["times"] = count
    return row


def _screen_key(item: dict[str, Any]) -> tuple[str, str, str]:
    return (str(item.get("kind") or ""), str(item.get("field") or ""), str(item.get("text") or ""))


def _screen_row(item: dict[str, Any]) -> dict[str, Any]:
    """An on-screen item without its uid: a gone message has none any more, a new one is in the on-screen section."""
    return {k: item[k] for k in ("kind", "field", "text") if item.get(k) not in (None, "")}


def compare(
    before: tuple[list[dict[str, Any]], list[dict[str, Any]]],
    after: tuple[list[dict[str, Any]], list[dict[str, Any]]],
    screen_at_mark: list[dict[str, Any]] | None,
    screen_now: list[dict[str, Any]] | None,
    origin: str = "",
) -> dict[str, Any]:
    """The changes between ``before`` and ``after``, each (requests, console errors), oldest first.

    Requests carry ``id``, ``method``, ``url``, ``status``, ``failed``/``failureText`` and ``error``
    (the server's or the app's error in the body, else None); console errors ``id``, ``text`` and
    ``location``. ``screen_*``: the on-screen items at the mark and now (None: not read).
    """
    (req_before, con_before), (req_after, con_after) = before, after
    out: dict[str, Any] = {}
    changed = []
    newest_before = _newest_by_key(req_before, request_key)
    for key, now in _newest_by_key(req_after, request_key).items():
        then = newest_before.get(key)
        if then is not None and outcome(then) != outcome(now):
            changed.append(
                {
                    "request": _shown(key, origin),
                    "before": outcome(then),
                    "after": outcome(now),
                    "ids": [then["id"], now["id"]],
                }
            )
    out["requests"] = changed
    counts_before: dict[str, int] = {}
    for item in con_before:
        counts_before[console_key(item)] = counts_before.get(console_key(item), 0) + 1
    counts_after: dict[str, int] = {}
    for item in con_after:
        counts_after[console_key(item)] = counts_after.get(console_key(item), 0) + 1
    first_before = {console_key(e): e for e in reversed(con_before)}
    first_after = {console_key(e): e for e in reversed(con_after)}
    gone = [_console_row(first_before[k], n, origin) for k, n in counts_before.items() if k not in counts_after]
    out["consoleGone"] = gone
    out["consoleNew"] = [
        _console_row(first_after[k], n, origin) for k, n in counts_after.items() if k not in counts_before
    ]
    if screen_at_mark is not None and screen_now is not None:
        then_keys = {_screen_key(i) for i in screen_at_mark}
        now_keys = {_screen_key(i) for i in screen_now}
        out["onScreenGone"] = [_screen_row(i) for i in screen_at_mark if _screen_key(i) not in now_keys]
        out["onScreenNew"] = [_screen_row(i) for i in screen_now if _screen_key(i) not in then_keys]
    return out


def failure_state(
    mark: str,
    failure: Failure | None,
    after: tuple[list[dict[str, Any]], list[dict[str, Any]]],
    *,
    captured_after: int,
    origin: str = "",
) -> tuple[str, str]:
    """(state, the one line): whether the failure seen before ``mark`` is still there after it.

    ``state``: ``gone``, ``still there``, ``not repeated`` (no request with its key after the mark,
    or nothing captured after it at all) or ``none`` (no failure before the mark).
    ``captured_after``: how many entries (requests and console lines) the capture holds after the mark.
    """
    if failure is None:
        return "none", f"No failure was captured before {mark}."
    if failure.resolved_by is not None:
        return "none", (
            f"No failure was left before {mark}: the last one ({failure.said}, #{failure.id}) was answered "
            f"well by #{failure.resolved_by} before it."
        )
    head = f"The failure before {mark} ({failure.said})"
    requests, console = after
    if captured_after == 0:
        return "not repeated", f"{head} was not repeated: nothing was captured after {mark}."
    if failure.kind == "console":
        again = [e for e in console if console_key(e) == failure.key]
        if again:
            return "still there", f"{head} is still there (#{again[-1]['id']} after {mark})."
        return "gone", f"{head} is gone: not logged again after {mark}."
    same = [r for r in requests if request_key(r) == failure.key]
    if not same:
        return "not repeated", f"{head} was not repeated: no {_shown(failure.key, origin)} after {mark}."
    last = same[-1]
    if failing(last):
        return "still there", f"{head} is still there: #{last['id']} answered {outcome(last)} after {mark}."
    return "gone", f"{head} is gone: #{last['id']} answered {outcome(last)} after {mark}."
