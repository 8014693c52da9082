"""Bodies fetched as soon as their request finishes, and held within their own budget.

Why eagerly: ``Network.getResponseBody`` fails once the page navigates away or Chrome evicts
the resource, which is exactly when a debugging agent asks for it. Finished document/xhr/fetch
responses up to ``eager_body_max_bytes`` are fetched by background workers (never in the
reader, whose handlers must not await) and held within ``eager_body_budget``, oldest dropped
first; everything else is asked of the browser when read (:mod:`.bodies`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict, deque

from ...errors import CDPException
from .model import EAGER_TYPES, Entry, content_length, decode_body
from .store import EntryStore

__all__ = ["HeldBodies"]

log = logging.getLogger("cdp_core.recorders.network")


class HeldBodies:
    """The eager copies: a queue of finished requests, the workers that fetch them, the bodies kept."""

    def __init__(
        self,
        store: EntryStore,
        *,
        max_bytes: int,
        budget: int,
        workers: int = 4,
        queue_max: int = 512,
    ) -> None:
        self._store = store
        #: bodies larger than this are not fetched eagerly (``too_large``)
        self.max_bytes = int(max_bytes)
        #: bytes of bodies held at most; the oldest go first (``dropped``)
        self.budget = int(budget)
        self.held_bytes = 0
        self.dropped = 0
        self._held: OrderedDict[int, bytes] = OrderedDict()
        self._queue: deque[Entry] = deque()
        self._queue_max = queue_max
        self._workers_max = max(1, workers)
        self._workers: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._held)

    def get(self, entry_id: int) -> bytes | None:
        return self._held.get(entry_id)

    def forget(self, entry_id: int) -> None:
        """The entry is gone: its body no longer counts against the budget."""
        body = self._held.pop(entry_id, None)
        if body is not None:
            self.held_bytes -= len(body)

    def clear(self) -> None:
        """Forget held bodies and what is queued; a fetch under way still lands if its entry is kept."""
        self._held.clear()
        self.held_bytes = 0
        self._queue.clear()

    def cancel(self) -> None:
        """Stop the background fetches."""
        for task in list(self._workers):
            task.cancel()

    def request_finished(self, entry: Entry) -> None:
        """Queue the bodies of a finished document/xhr/fetch for the background workers (sync, cheap)."""
        if entry.resource_type not in EAGER_TYPES or self.budget <= 0 or self.max_bytes <= 0:
            return
        # Chrome leaves multipart-with-file and Blob bodies out of the event: ask for them too.
        want_request = entry.has_post_data and entry.post_data is None
        want_response = entry.status is not None and entry.status not in (204, 304) and not 300 <= entry.status < 400
        if want_response:
            declared = content_length(entry.response_headers)
            # Never fetch what we would not keep: the encoded size or the declared length over the cap.
            if (entry.encoded_bytes or 0) > self.max_bytes or (declared or 0) > self.max_bytes:
                entry.body_state = "too_large"
                want_response = False
        if not (want_request or want_response):
            return
        if len(self._queue) >= self._queue_max:
            dropped = self._queue.popleft()
            if dropped.body_state == "pending":
                dropped.body_state = "none"
        if want_response:
            entry.body_state = "pending"
        entry.extras["eager_request"] = want_request
        self._queue.append(entry)
        if len(self._workers) < self._workers_max:
            try:
                task = asyncio.get_running_loop().create_task(self._worker())
            except RuntimeError:
                return
            self._workers.add(task)
            task.add_done_callback(self._workers.discard)

    async def drain(self, timeout: float = 10.0) -> None:
        """Wait until queued fetches are done (tests, shutdown, debug bundles)."""
        deadline = time.monotonic() + timeout
        while (self._queue or self._workers) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)

    async def _worker(self) -> None:
        while self._queue:
            entry = self._queue.popleft()
            if entry.id not in self._store or entry.session.closed:
                if entry.body_state == "pending":
                    entry.body_state = "none"
                continue
            try:
                if entry.extras.pop("eager_request", False):
                    await self._fetch_request_body(entry)
                if entry.body_state == "pending":
                    await self._fetch_response_body(entry)
            except asyncio.CancelledError:
                raise
            except Exception:  # one odd body must not stop the worker and strand the queue
                log.exception("eager body fetch failed for %s", entry.url)
                if entry.body_state == "pending":
                    entry.body_state = "failed"

    async def _fetch_request_body(self, entry: Entry) -> None:
        try:
            params = {"requestId": entry.request_id}
            result = await entry.session.send("Network.getRequestPostData", params, timeout=10)
        except CDPException:
            return
        post = result.get("postData")
        if isinstance(post, str) and len(post) <= self.max_bytes:
            entry.post_data = post
            self._store.grow(entry, len(post))

    async def _fetch_response_body(self, entry: Entry) -> None:
        try:
            params = {"requestId": entry.request_id}
            result = await entry.session.send("Network.getResponseBody", params, timeout=10)
        except CDPException:
            entry.body_state = "failed"
            return
        data = decode_body(result)
        if len(data) > self.max_bytes:
            entry.body_state = "too_large"
            return
        if entry.id in self._store:
            self._hold(entry, data)

    def _hold(self, entry: Entry, data: bytes) -> None:
        self._held[entry.id] = data
        self.held_bytes += len(data)
        entry.body_state = "held"
        while self.held_bytes > self.budget and self._held:
            old_id, old = self._held.popitem(last=False)
            self.held_bytes -= len(old)
            self.dropped += 1
            old_entry = self._store.get(old_id)
            if old_entry is not None:
                old_entry.body_state = "dropped"
