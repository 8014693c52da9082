"""Secret URL parameters masked in a trace as it streams to disk, line by line.

Why: a trace names every URL the page loaded (``ResourceSendRequest``'s ``url``, frames, stacks),
phpMyAdmin's CSRF ``token=`` among them, and a saved trace is a file the user shares. Chrome writes
one event per line, so whole lines are masked (:func:`~cdp_core.recorders.redact.redact_url_params`:
values only, every quote and brace stays), and the file stays the JSON DevTools loads.
"""

from __future__ import annotations

from ..redact import redact_url_params

__all__ = ["TraceMasker"]

#: A line longer than this is cut at its last comma so memory stays bounded (Chrome's lines are events).
MAX_CARRY = 8 * 1024 * 1024


class TraceMasker:
    """Feed it the stream's chunks in order; it returns the masked bytes ready to write."""

    def __init__(self) -> None:
        self._carry = b""

    def feed(self, raw: bytes) -> bytes:
        """The masked complete lines of what came so far; the unfinished line waits for the next chunk."""
        data = self._carry + raw
        cut = data.rfind(b"\n")
        if cut < 0 and len(data) > MAX_CARRY:
            cut = data.rfind(b",")
        if cut < 0:
            self._carry = data
            return b""
        self._carry = data[cut + 1 :]
        return _mask(data[: cut + 1])

    def finish(self) -> bytes:
        """What is left after the last chunk, masked."""
        rest, self._carry = self._carry, b""
        return _mask(rest)


def _mask(data: bytes) -> bytes:
    if not data or b"=" not in data and b"%3" not in data.upper():
        return data
    # split on newlines (or commas): never inside a UTF-8 sequence, so the round trip is exact
    text = data.decode("utf-8", "surrogateescape")
    masked = redact_url_params(text)
    return data if masked == text else masked.encode("utf-8", "surrogateescape")
