"""Keeping network bodies: eager copies of document/xhr/fetch responses, and bodies saved to files.

Why eagerly: ``Network.getResponseBody`` fails once the page navigates away or Chrome evicts
the resource, which is exactly when a debugging agent asks for it. Finished document/xhr/fetch
responses up to ``eager_body_max_bytes`` are fetched by background workers (never in the
reader) and held within ``eager_body_budget``; everything else is asked of the browser when
saved.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from datetime import UTC, datetime
from pathlib import Path

from ...errors import CDPException
from ..redact import redact_form_fields, redact_secrets_in_text
from .model import (
    EAGER_TYPES,
    BodyIsBinary,
    BodyUnavailable,
    Entry,
    EntryNotFound,
    SavedBody,
    content_length,
    decode_body,
    extension,
    header,
    is_text_mime,
    looks_textual,
    slug,
    write_file,
)
from .state import RecorderState

__all__ = ["NetworkBodies"]

log = logging.getLogger("cdp_core.recorders.network")


class NetworkBodies(RecorderState):
    """Held bodies (eager, bounded) and on-demand body reads and saves."""

    def _maybe_fetch_eagerly(self, entry: Entry) -> None:
        """Queue the bodies of a finished document/xhr/fetch for the background workers (sync, cheap)."""
        if entry.resource_type not in EAGER_TYPES or self.eager_body_budget <= 0 or self.eager_body_max_bytes <= 0:
            return
        # Chrome leaves multipart-with-file and Blob bodies out of the event: ask for them too.
        want_request = entry.has_post_data and entry.post_data is None
        want_response = entry.status is not None and entry.status not in (204, 304) and not 300 <= entry.status < 400
        if want_response:
            declared = content_length(entry.response_headers)
            # Never fetch what we would not keep: the encoded size or the declared length over the cap.
            if (entry.encoded_bytes or 0) > self.eager_body_max_bytes or (declared or 0) > self.eager_body_max_bytes:
                entry.body_state = "too_large"
                want_response = False
        if not (want_request or want_response):
            return
        if len(self._eager_queue) >= self._eager_queue_max:
            dropped = self._eager_queue.popleft()
            if dropped.body_state == "pending":
                dropped.body_state = "none"
        if want_response:
            entry.body_state = "pending"
        entry.extras["eager_request"] = want_request
        self._eager_queue.append(entry)
        if len(self._eager_workers) < self._eager_workers_max:
            try:
                task = asyncio.get_running_loop().create_task(self._eager_worker())
            except RuntimeError:
                return
            self._eager_workers.add(task)
            task.add_done_callback(self._eager_workers.discard)

    async def _eager_worker(self) -> None:
        while self._eager_queue:
            entry = self._eager_queue.popleft()
            if entry.id not in self._entries or entry.session.closed:
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
        if isinstance(post, str) and len(post) <= self.eager_body_max_bytes:
            entry.post_data = post
            self._grow(entry, len(post))

    async def _fetch_response_body(self, entry: Entry) -> None:
        try:
            params = {"requestId": entry.request_id}
            result = await entry.session.send("Network.getResponseBody", params, timeout=10)
        except CDPException:
            entry.body_state = "failed"
            return
        data = decode_body(result)
        if len(data) > self.eager_body_max_bytes:
            entry.body_state = "too_large"
            return
        if entry.id in self._entries:
            self._hold(entry, data)

    def _hold(self, entry: Entry, data: bytes) -> None:
        self._held[entry.id] = data
        self.held_bytes += len(data)
        entry.body_state = "held"
        while self.held_bytes > self.eager_body_budget and self._held:
            old_id, old = self._held.popitem(last=False)
            self.held_bytes -= len(old)
            self.bodies_dropped += 1
            old_entry = self._entries.get(old_id)
            if old_entry is not None:
                old_entry.body_state = "dropped"

    async def drain(self, timeout: float = 10.0) -> None:
        """Wait until queued eager body fetches are done (tests, shutdown, debug bundles)."""
        deadline = time.monotonic() + timeout
        while (self._eager_queue or self._eager_workers) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)

    # -- bodies on demand -------------------------------------------------------------------

    async def _response_bytes(self, e: Entry) -> tuple[bytes, str]:
        held = self._held.get(e.id)
        if held is not None:
            return held, "held"
        if e.frames is not None:
            raise BodyUnavailable(f"entry {e.id} is a WebSocket; its frames are in network_get")
        if e.redirected_to is not None:
            # The requestId now names the next hop: asking the browser would return the wrong body.
            raise BodyUnavailable(f"entry {e.id} is a redirect hop ({e.status}); see entry {e.redirected_to}")
        if e.failed and e.status is None:
            raise BodyUnavailable(f"request {e.id} failed ({e.failure_text}); there is no response body")
        if not e.finished:
            raise BodyUnavailable(f"response {e.id} has not finished loading yet")
        if e.session.closed:
            raise BodyUnavailable(f"the tab or frame of entry {e.id} is gone and its body was not held")
        try:
            result = await e.session.send("Network.getResponseBody", {"requestId": e.request_id}, timeout=15)
        except CDPException as exc:
            if e.encoded_bytes and e.encoded_bytes > self.max_resource_buffer_size:
                # Chrome keeps no body beyond maxResourceBufferSize: say why, not just "not found".
                raise BodyUnavailable(
                    f"the body of entry {e.id} ({e.encoded_bytes} bytes on the wire) is larger than the "
                    f"{self.max_resource_buffer_size} bytes Chrome keeps per response, so no copy exists"
                ) from exc
            raise BodyUnavailable(f"the browser no longer has the body of entry {e.id}: {exc}") from exc
        return decode_body(result), "browser"

    async def _request_bytes(self, e: Entry) -> tuple[bytes, str]:
        if e.post_data is not None:
            return e.post_data.encode("utf-8", "surrogateescape"), "request"
        if not e.has_post_data:
            raise BodyUnavailable(f"request {e.id} ({e.method}) has no body")
        try:
            result = await e.session.send("Network.getRequestPostData", {"requestId": e.request_id}, timeout=15)
        except CDPException as exc:
            raise BodyUnavailable(f"the browser no longer has the request body of entry {e.id}: {exc}") from exc
        return str(result.get("postData", "")).encode("utf-8", "surrogateescape"), "browser"

    async def body_bytes(self, entry_id: int, which: str = "response") -> tuple[bytes, str, str]:
        """Raw body bytes, its mime type and where it came from (held/browser/request)."""
        e = self._entries.get(int(entry_id))
        if e is None:
            raise EntryNotFound(self._missing_message(entry_id))
        if which == "request":
            data, source = await self._request_bytes(e)
            ctype = header(e.request_extra_headers or e.request_headers, "content-type") or "text/plain"
            return data, ctype.split(";")[0].strip(), source
        data, source = await self._response_bytes(e)
        return data, e.mime_type or "application/octet-stream", source

    async def save_body(
        self,
        entry_id: int,
        *,
        which: str = "response",
        dest_dir: str | Path,
        max_bytes: int | None = None,
        allow_binary: bool = False,
    ) -> SavedBody:
        """Write a request or response body to ``dest_dir``; capped at ``max_bytes``."""
        if which not in ("response", "request"):
            raise ValueError("which must be 'response' or 'request'")
        e = self._entries.get(int(entry_id))
        if e is None:
            raise EntryNotFound(self._missing_message(entry_id))
        data, mime, source = await self.body_bytes(entry_id, which)
        binary = not is_text_mime(mime) and not looks_textual(data)
        if binary and not allow_binary:
            raise BodyIsBinary(f"the {which} body of entry {entry_id} is binary ({mime}, {len(data)} bytes)")
        if which == "request" and not binary:
            # What the page sent may carry a typed password or token (login forms, JSON APIs): the
            # file gets the same field redaction as the preview, since saved files are tool output too.
            ctype = header(e.request_extra_headers or e.request_headers, "content-type") or mime
            data = redact_form_fields(data.decode("utf-8", "surrogateescape"), ctype).encode("utf-8", "surrogateescape")
        cap = self.body_max_bytes if max_bytes is None else max(0, int(max_bytes))
        total = len(data)
        truncated = total > cap
        kept = data[:cap] if truncated else data
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
        path = Path(dest_dir) / f"{stamp}-{e.id}-{which}-{slug(e.url)}{extension(mime, binary)}"
        write_file(path, kept)
        if which == "response":
            e.response_body_file = str(path)
        else:
            e.request_body_file = str(path)
        preview = "" if binary else kept[: self.preview_bytes].decode("utf-8", "replace")
        if which == "request" and preview:
            preview = redact_secrets_in_text(preview)  # already redacted whole above; a cut preview stays so
        return SavedBody(
            file_path=str(path),
            bytes=len(kept),
            total_bytes=total,
            mime_type=mime,
            sha256=hashlib.sha256(kept).hexdigest(),
            preview=preview,
            truncated=truncated,
            source=source,
        )
