"""Reading and saving network bodies on demand: the held copy if there is one, else the browser's.

Why a read says why it failed: the browser forgets bodies on navigation, for redirect hops,
beyond ``maxResourceBufferSize`` and with the tab; a bare "not found" would leave the agent
guessing, so each case is named (:class:`BodyUnavailable`). Saved request bodies get the same
password and token redaction as their previews, since a saved file is tool output too.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path

from ...errors import CDPException
from ..redact import redact_form_fields, redact_secrets_in_text
from .held import HeldBodies
from .model import (
    BodyIsBinary,
    BodyUnavailable,
    Entry,
    SavedBody,
    decode_body,
    extension,
    header,
    is_text_mime,
    looks_textual,
    post_data_bytes,
    slug,
    write_file,
)
from .store import EntryStore

__all__ = ["BodyReader"]


class BodyReader:
    """Request and response bodies of stored entries, as bytes or written to a file."""

    def __init__(
        self,
        store: EntryStore,
        held: HeldBodies,
        *,
        max_bytes: int,
        preview_bytes: int,
        browser_max_bytes: int,
    ) -> None:
        self._store = store
        self._held = held
        #: default cap of a saved body
        self.max_bytes = int(max_bytes)
        self.preview_bytes = preview_bytes
        #: ``maxResourceBufferSize``: Chrome keeps no response body larger than this
        self.browser_max_bytes = int(browser_max_bytes)

    async def _response_bytes(self, e: Entry) -> tuple[bytes, str]:
        held = self._held.get(e.id)
        if held is not None:
            return held, "held"
        if e.frames is not None:
            raise BodyUnavailable(f"entry {e.id} is a WebSocket; its frames are in network_get", "websocket")
        if e.redirected_to is not None:
            # The requestId now names the next hop: asking the browser would return the wrong body.
            raise BodyUnavailable(
                f"entry {e.id} is a redirect hop ({e.status}); see entry {e.redirected_to}", "redirect_hop"
            )
        if e.failed and e.status is None:
            raise BodyUnavailable(f"request {e.id} failed ({e.failure_text}); there is no response body", "no_response")
        if not e.finished:
            raise BodyUnavailable(f"response {e.id} has not finished loading yet", "not_finished")
        if e.session.closed:
            raise BodyUnavailable(f"the tab or frame of entry {e.id} is gone and its body was not held", "tab_closed")
        try:
            result = await e.session.send("Network.getResponseBody", {"requestId": e.request_id}, timeout=15)
        except CDPException as exc:
            if e.encoded_bytes and e.encoded_bytes > self.browser_max_bytes:
                # Chrome keeps no body beyond maxResourceBufferSize: say why, not just "not found".
                raise BodyUnavailable(
                    f"the body of entry {e.id} ({e.encoded_bytes} bytes on the wire) is larger than the "
                    f"{self.browser_max_bytes} bytes Chrome keeps per response, so no copy exists",
                    "over_chrome_limit",
                ) from exc
            raise BodyUnavailable(f"the browser no longer has the body of entry {e.id}: {exc}") from exc
        return decode_body(result), "browser"

    async def _request_bytes(self, e: Entry) -> tuple[bytes, str]:
        if e.post_data is not None:
            return e.post_data.encode("utf-8", "surrogateescape"), "request"
        if not e.has_post_data:
            raise BodyUnavailable(f"request {e.id} ({e.method}) has no body", "no_request_body")
        try:
            result = await e.session.send("Network.getRequestPostData", {"requestId": e.request_id}, timeout=15)
        except CDPException as exc:
            raise BodyUnavailable(
                f"the browser no longer has the request body of entry {e.id}: {exc}", "request_gone"
            ) from exc
        return post_data_bytes(result), "browser"

    async def body_bytes(self, entry_id: int, which: str = "response") -> tuple[bytes, str, str]:
        """Raw body bytes, its mime type and where it came from (held/browser/request)."""
        e = self._store.find(entry_id)
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
        e = self._store.find(entry_id)
        data, mime, source = await self.body_bytes(entry_id, which)
        binary = not is_text_mime(mime) and not looks_textual(data)
        if binary and not allow_binary:
            raise BodyIsBinary(f"the {which} body of entry {entry_id} is binary ({mime}, {len(data)} bytes)")
        if which == "request" and not binary:
            # What the page sent may carry a typed password or token (login forms, JSON APIs): the
            # file gets the same field redaction as the preview, since saved files are tool output too.
            ctype = header(e.request_extra_headers or e.request_headers, "content-type") or mime
            data = redact_form_fields(data.decode("utf-8", "surrogateescape"), ctype).encode("utf-8", "surrogateescape")
        cap = self.max_bytes if max_bytes is None else max(0, int(max_bytes))
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
