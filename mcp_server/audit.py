"""The audit log: one JSON line per tool call, secrets redacted, rotated by size.

Why: the server runs for hours beside a user's logged-in Chrome, driven by an agent.
The user must be able to see afterwards what was done in their browser (which tool,
which action, with which arguments, how it ended), without the log itself becoming a
place where passwords or tokens leak. No tool reads or deletes this file.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import urllib.parse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["AuditLog", "redact_arguments"]

_SECRET_KEY = re.compile(r"pass(word|wd)?|secret|token|auth|cookie|api[-_]?key|session[-_]?id|credential", re.I)
#: Arguments that carry what the agent types into the page: kept as a length only, at any
#: depth (fill_form's ``fields``), since a fill into a password field looks like any other fill.
_TYPED_VALUE_KEYS = frozenset({"value", "text", "prompt_text", "values"})
_MAX_STRING = 300
_MAX_DEPTH = 6


def _redact_url(value: str) -> str:
    """A URL argument without its password (``user:pw@``) and secret-named query values (``?token=``)."""
    try:
        parts = urllib.parse.urlsplit(value)
        if not parts.scheme or not parts.netloc:
            return value
        netloc = parts.netloc
        if "@" in netloc:
            user, _, host = netloc.rpartition("@")
            netloc = (user.split(":", 1)[0] + ":[redacted]@" if ":" in user else user + "@") + host
        query = parts.query
        if query:
            pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
            if any(_SECRET_KEY.search(k) for k, _ in pairs):
                query = urllib.parse.urlencode(
                    [(k, "[redacted]" if _SECRET_KEY.search(k) else v) for k, v in pairs], safe="[]"
                )
        return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:
        return value


def _typed(value: Any) -> str:
    """What the log keeps of typed text: its length."""
    length = len(value) if isinstance(value, str | list) else 1
    return f"[{length} chars]" if isinstance(value, str) else f"[{length} items]"


def _redact(value: Any, key: str | None = None, depth: int = 0) -> Any:
    if key is not None and _SECRET_KEY.search(key):
        return "[redacted]"
    if key in _TYPED_VALUE_KEYS and value is not None:
        return _typed(value)  # nested too: fill_form's fields=[{uid, value}]
    if isinstance(value, dict | list | tuple) and depth >= _MAX_DEPTH:
        return "[nested]"  # a hostile, deeply nested argument must not cost the call its log line
    if isinstance(value, dict):
        return {str(k)[:100]: _redact(v, str(k), depth + 1) for k, v in list(value.items())[:50]}
    if isinstance(value, list | tuple):
        return [_redact(v, None, depth + 1) for v in value[:50]]
    if isinstance(value, str):
        if "://" in value[:20]:
            value = _redact_url(value)
        if len(value) > _MAX_STRING:
            return value[:_MAX_STRING] + f"...[{len(value)} chars]"
    return value


def redact_arguments(arguments: dict[str, Any] | None) -> dict[str, Any]:
    """A copy of a call's arguments fit for the log: secret-looking keys and typed text hidden."""
    out: dict[str, Any] = {}
    items = list((arguments or {}).items())
    if len(items) > 50:  # real calls have a handful of fields; a flood must not make a huge line
        out["[more fields]"] = len(items) - 50
        items = items[:50]
    for key, value in items:
        out[str(key)[:100]] = _redact(value, key)
    return out


class AuditLog:
    """Append-only JSON lines with size rotation (``audit.jsonl`` -> ``audit.jsonl.1`` ...)."""

    def __init__(self, path: str | Path, *, max_bytes: int = 10 * 1024 * 1024, backups: int = 3) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.backups = backups
        self._lock = threading.Lock()

    def record(
        self,
        *,
        tool: str,
        action: str | None,
        arguments: dict[str, Any] | None,
        status: str,
        error_code: str | None,
        duration_ms: float,
    ) -> None:
        """Append one call. Failures to write are swallowed: auditing never breaks a call."""
        entry: dict[str, Any] = {
            "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "tool": str(tool)[:200],
            "action": action[:200] if isinstance(action, str) else None,
            "arguments": None,
            "status": status,
            "errorCode": error_code,
            "durationMs": round(duration_ms, 1),
            "pid": os.getpid(),
        }
        try:
            entry["arguments"] = redact_arguments(arguments)
            line = json.dumps(entry, ensure_ascii=False, default=str)
        except Exception:  # noqa: BLE001 - odd arguments still leave a line saying the call happened
            entry["arguments"] = "[unrecordable]"
            line = json.dumps(entry, ensure_ascii=False, default=str)
        try:
            with self._lock:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._rotate_if_needed(len(line) + 1)
                # Owner-only: the log lists every URL and selector the agent used in the user's browser.
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                with os.fdopen(fd, "a", encoding="utf-8") as fh:
                    fh.write(line + "\n")
        except OSError:
            pass

    def _rotate_if_needed(self, incoming: int) -> None:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return
        if size + incoming <= self.max_bytes:
            return
        for index in range(self.backups, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{index}")
            newer = self.path.with_name(f"{self.path.name}.{index - 1}") if index > 1 else self.path
            if newer.exists():
                if index == self.backups and older.exists():
                    older.unlink()
                newer.replace(older)

    @staticmethod
    def now() -> float:
        return time.perf_counter()
