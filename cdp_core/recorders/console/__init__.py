"""Console capture: ``console.*``, uncaught errors and browser-side log entries in one timeline.

Why three sources: they do not overlap. ``console.*`` arrives only as
``Runtime.consoleAPICalled``, uncaught errors only as ``Runtime.exceptionThrown`` and
browser messages (failed resource loads, CSP, deprecations) only as ``Log.entryAdded``.
Handlers are synchronous and cheap (a bounded preview is built from the event's own
``RemoteObject`` previews; nothing is fetched back from the page), so a flood of console
messages never slows the reader. Messages the browser replays on ``Runtime.enable`` /
``Log.enable`` (logged before we attached) are kept and marked ``replayed``.

Line and column numbers in entries are 1-based, as DevTools shows them.
"""

from __future__ import annotations

import builtins
import itertools
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from ...connection import CDPSession
from ...errors import CDPException
from ..floors import ReaderFloors, single_reader
from ..listing import Selection, select_window
from ..network import EntryNotFound, iso_time
from ..redact import redact_url
from .audits import IssueTracker
from .events import TYPE_ALIASES, EventCollector
from .format import format_remote_object

__all__ = ["ConsoleRecorder", "format_remote_object", "Selection", "DEFAULT_MAX_BYTES"]

CONSOLE_EVENTS = (
    "Runtime.consoleAPICalled",
    "Runtime.exceptionThrown",
    "Runtime.executionContextCreated",
    "Runtime.executionContextsCleared",
    "Log.entryAdded",
    "Page.frameNavigated",
    "Audits.issueAdded",
)

#: Default budget of a page's console store (estimated bytes), documented in docs/configuration.md.
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
#: What an entry costs besides its strings (the dict, its small values), and each stack frame.
ENTRY_OVERHEAD = 600
FRAME_SIZE = 250


def _url_masked(where: Any) -> Any:
    """A location, stack frame or request dict with its ``url`` through :func:`redact_url` (copied only then)."""
    if isinstance(where, dict) and isinstance(where.get("url"), str):
        masked = redact_url(where["url"])
        if masked != where["url"]:
            return {**where, "url": masked}
    return where


def _entry_size(entry: dict[str, Any]) -> int:
    """Estimated bytes an entry holds (the store's budget counts these)."""
    size = ENTRY_OVERHEAD + len(entry.get("text", "")) + len(entry.get("pageUrl", "")) + len(entry.get("frameUrl", ""))
    size += len(entry.get("message", "")) + len(entry.get("description", ""))
    size += sum(len(a) for a in entry.get("argsPreview") or ()) + len((entry.get("location") or {}).get("url") or "")
    return size + FRAME_SIZE * len(entry.get("stack") or ())


#: the return type of methods defined after ``list`` (which shadows the builtin in the class body)
Records = builtins.list[dict[str, Any]]


class ConsoleRecorder:
    """Per-page console timeline, bounded by ``max_bytes`` (estimated) and optionally ``max_entries``.

    Why bytes: a burst of 2000 short messages must be kept whole (an agent reads them page by
    page), while a page that logs megabytes for hours must not exhaust memory. The oldest
    entries go first; ``evicted`` counts them.

    Several readers may share the timeline: ``reader`` names the one reading now (default: a
    single reader). :meth:`clear` hides the entries from that reader only (:mod:`..floors`); every
    query, count and ``len`` is the current reader's view.
    """

    def __init__(
        self,
        *,
        max_entries: int | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        preview_chars: int = 2048,
        page_url: Any = None,
        reader: Callable[[], Hashable] = single_reader,
    ) -> None:
        self.max_entries = max(1, int(max_entries)) if max_entries else None
        self.max_bytes = max(64 * 1024, int(max_bytes))
        self.stored_bytes = 0
        self._sizes: dict[int, int] = {}
        self.preview_chars = max(64, int(preview_chars))
        self._page_url_fn = page_url
        self._page_url = ""
        self._page_session: CDPSession | None = None
        self.captured_since: str | None = None
        #: evictions since the start, whoever reads (:attr:`evicted` is the current reader's share)
        self.evicted_total = 0
        self._floors = ReaderFloors(reader)
        self._ids = itertools.count(1)
        self._entries: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._session_kind: dict[str | None, str] = {}
        self._subscriptions: list[Any] = []
        #: DevTools Issues (Audits domain) become ``type: "issue"`` entries of this timeline.
        self.issues = IssueTracker()
        self._events = EventCollector(
            add=self._add, page_url=lambda: self.page_url, issues=self.issues, preview_chars=self.preview_chars
        )

    @property
    def request_ids(self) -> Callable[[str], int | None] | None:
        """Maps a CDP request id to its network entry id (``NetworkRecorder.entry_id_for``).

        Set by whoever also records the page's network: a "Failed to load resource" line and a
        DevTools issue then name the request they are about (``networkId``), by Chrome's id.
        """
        return self._events.request_ids

    @request_ids.setter
    def request_ids(self, lookup: Callable[[str], int | None] | None) -> None:
        self._events.request_ids = lookup
        self.issues.request_ids = lookup

    async def attach(self, session: CDPSession, *, frame_kind: str = "page") -> None:
        """Subscribe, then enable Runtime and Log; what they replay is marked ``replayed``."""
        if self.captured_since is None:
            self.captured_since = iso_time()
        if frame_kind == "page" and self._page_session is None:
            self._page_session = session
            self._page_url = str(session.target_info.get("url", ""))
        self._session_kind[session.session_id] = frame_kind
        sub = session.on(CONSOLE_EVENTS, lambda ev: self._events.on_event(session, frame_kind, ev))
        self._subscriptions.append(sub)
        if frame_kind != "worker":
            try:
                tree = await session.send("Page.getFrameTree")
                self._events.learn_frames(tree.get("frameTree") or {})
            except CDPException:
                pass
        # Events handled before an enable's reply are the browser's replay of older messages
        # (the reader delivers them in order, before the reply): one window per domain.
        key = session.session_id
        self._events.replaying.add(("Runtime", key))
        try:
            await session.send("Runtime.enable")
        finally:
            self._events.replaying.discard(("Runtime", key))
        self._events.replaying.add(("Log", key))
        try:
            await session.send("Log.enable")
        except CDPException:
            pass  # workers on some builds have no Log domain
        finally:
            self._events.replaying.discard(("Log", key))
        if frame_kind != "worker":
            self._events.replaying.add(("Audits", key))
            try:
                await session.send("Audits.enable")  # replays the issues Chrome collected before we came
            except CDPException:
                pass
            finally:
                self._events.replaying.discard(("Audits", key))

    def detach(self) -> None:
        for sub in self._subscriptions:
            sub.cancel()
        self._subscriptions.clear()

    @property
    def page_url(self) -> str:
        if self._page_url_fn is not None:
            try:
                return self._page_url_fn() or self._page_url
            except Exception:
                return self._page_url
        if self._page_session is not None:
            main = self._page_session.target_info.get("targetId")
            if main and main in self._events.frame_urls:
                return self._events.frame_urls[main]
            return str(self._page_session.target_info.get("url", "")) or self._page_url
        return self._page_url

    def _add(self, entry: dict[str, Any]) -> None:
        entry["id"] = next(self._ids)
        self._entries[entry["id"]] = entry
        size = _entry_size(entry)
        self._sizes[entry["id"]] = size
        self.stored_bytes += size
        while len(self._entries) > 1 and (
            (self.max_entries is not None and len(self._entries) > self.max_entries)
            or self.stored_bytes > self.max_bytes
        ):
            old_id, _ = self._entries.popitem(last=False)
            self.stored_bytes -= self._sizes.pop(old_id, 0)
            self.evicted_total += 1

    # -- queries ----------------------------------------------------------------------

    @property
    def evicted(self) -> int:
        """Entries the current reader could have seen that went to the budget (oldest first)."""
        return self._floors.current().evicted_since(self.evicted_total)

    @property
    def floor(self) -> int:
        """The current reader's floor: entries with an id up to it were cleared for it (0: none)."""
        return self._floors.current().id

    def _hidden(self) -> int:
        """How many stored entries the current reader's clear hides (they are the oldest stored)."""
        return self._floors.current().hidden(self.evicted_total)

    def __len__(self) -> int:
        return len(self._entries) - self._hidden()

    @property
    def stats(self) -> dict[str, Any]:
        """The current reader's view (``stored``, ``evicted``, ``cleared``: stored but hidden by its clear)
        and the store's budget (``storedBytes`` counts every stored entry, hidden ones too)."""
        hidden = self._hidden()
        return {
            "capturedSince": self.captured_since,
            "stored": len(self._entries) - hidden,
            "cleared": hidden,
            "storedBytes": self.stored_bytes,
            "maxBytes": self.max_bytes,
            "maxEntries": self.max_entries,
            "evicted": self.evicted,
        }

    @staticmethod
    def _shape(entry: dict[str, Any], include_stack: bool) -> dict[str, Any]:
        """A copy of a stored entry with its URLs' secret parameters masked (:func:`redact_url`).

        Stored entries keep the URLs as Chrome gave them: source maps are found by the script's URL.
        """
        out: dict[str, Any] = {}
        for key, value in entry.items():
            if key == "stack":
                if include_stack:
                    out[key] = [_url_masked(f) for f in value or ()]
            elif key in ("pageUrl", "frameUrl") and isinstance(value, str):
                out[key] = redact_url(value)
            elif key in ("location", "request"):
                out[key] = _url_masked(value)
            else:
                out[key] = value
        if not include_stack:
            out["stackFrames"] = len(entry.get("stack") or [])
        return out

    def list(
        self,
        *,
        types: Iterable[str] | None = None,
        limit: int | None = None,
        include_stack: bool = False,
        since_id: int | None = None,
    ) -> Records:
        """Entries oldest first; ``limit`` keeps the newest.

        ``types`` like ``["error", "warning"]``; ``"error"`` also matches ``pageerror``
        (uncaught exceptions), ``"pageerror"`` alone selects only those.
        """
        picked = self._matching(types, since_id)
        if limit is not None and limit >= 0:
            picked = picked[-limit:] if limit else []
        return [self._shape(e, include_stack) for e in picked]

    def _visible(self) -> Iterable[dict[str, Any]]:
        """The entries the current reader sees, oldest first (the hidden ones are the oldest stored)."""
        hidden = self._hidden()
        values = self._entries.values()
        return itertools.islice(values, hidden, None) if hidden else values

    def _matching(self, types: Iterable[str] | None, since_id: int | None) -> Records:
        if not types and since_id is None:
            return builtins.list(self._visible())  # everything: no test per entry
        wanted = {TYPE_ALIASES.get(t, t) for t in types} if types else None
        if wanted is not None and "error" in wanted:
            wanted.add("pageerror")  # "errors" means uncaught exceptions too
        return [
            e
            for e in self._visible()
            if (since_id is None or e["id"] > since_id) and (wanted is None or e["type"] in wanted)
        ]

    def query(
        self,
        *,
        types: Iterable[str] | None = None,
        limit: int | None = None,
        include_stack: bool = False,
        since_id: int | None = None,
        copy: bool = True,
    ) -> Selection:
        """One page of entries and how many match before and after it (see :func:`select_window`).

        With ``since_id`` the oldest ``limit`` entries after it (the next page is
        ``since_id=<last id>``); without it the newest ``limit``. Only the page is shaped.
        ``copy=False``: the stored entries themselves (stack included whatever ``include_stack``
        says), for a caller that only reads them: copying a large page of entries is a good part
        of a list answer's time. They must not be changed.
        """
        picked, earlier, after = select_window(self._matching(types, since_id), limit=limit, since_id=since_id)
        if not copy:
            return Selection(picked, earlier, after)
        return Selection([self._shape(e, include_stack) for e in picked], earlier, after)

    def get(self, entry_id: int, *, include_stack: bool = True) -> dict[str, Any]:
        """One entry; :class:`EntryNotFound` says whether it was cleared (for this reader), evicted or never was."""
        wanted = int(entry_id)
        if wanted < 1:
            raise EntryNotFound(f"no console entry {entry_id}: ids start at 1")
        floor = self.floor
        if wanted <= floor:
            raise EntryNotFound(f"console entry {entry_id} was cleared (the clear hid entries up to {floor})")
        entry = self._entries.get(wanted)
        if entry is None:
            first = next(iter(self._entries), None)
            if first is not None and wanted < first and self.evicted:
                raise EntryNotFound(f"console entry {entry_id} was evicted ({self.evicted} evicted)")
            raise EntryNotFound(f"no console entry {entry_id} (never captured)")
        return self._shape(entry, include_stack)

    def clear(self) -> int:
        """Hide every stored entry from the current reader (the others still see them); returns how many.

        Nothing is freed: the byte budget bounds the store, and evicts the hidden entries first
        (they are the oldest). Entries that arrive later show to every reader.
        """
        n = len(self)
        newest = next(reversed(self._entries), 0)
        self._floors.raise_to(newest, len(self._entries), self.evicted_total)
        return n

    def forget_caller(self, caller: str) -> None:
        """The reader ``caller`` left: its clear goes with it (a reader of that name would see everything)."""
        self._floors.forget(caller)

    def counts(self) -> dict[str, int]:
        """How many entries of each type the current reader sees."""
        out: dict[str, int] = {}
        for e in self._visible():
            out[e["type"]] = out.get(e["type"], 0) + 1
        return out
