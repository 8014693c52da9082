"""The audit log: one bounded JSON line per tool call, secrets redacted, rotation the agent cannot use.

Why: the server runs for hours beside a user's logged-in Chrome, driven by an agent. The user
must be able to see afterwards what was done in their browser (which tool, which action, with
which arguments, how it ended), without the log itself becoming a place where passwords or
tokens leak, and without the agent being able to push the evidence out of it:

- every line is at most :data:`MAX_LINE_BYTES` (arguments are shrunk, then summarised);
- refused calls (bad arguments, unknown tools, policy refusals) beyond a rate are counted into
  one summary line instead of written one by one;
- rotation keeps at least ``backups`` old files, and never deletes one younger than
  ``keep_seconds`` (one hour) unless the whole history would pass ``max_total_bytes``;
- each rotation writes a record (what was rotated, what was deleted and how recent its newest
  line was) as the first line of the new file.

No tool reads, writes or deletes these files (:mod:`mcp_server.safety.artifacts` refuses the paths).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import threading
import time
import weakref
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcp_server.safety.audit_arguments import redact_arguments, shrunk_arguments

__all__ = ["AuditLog", "flush_all", "write_failures", "MAX_LINE_BYTES", "REFUSED_CODES"]

#: Longest line the log writes, in UTF-8 bytes, whatever the arguments.
MAX_LINE_BYTES = 4096
#: Error codes of calls refused before or instead of doing anything: rate-limited in the log.
REFUSED_CODES = frozenset(
    {
        "INVALID_ARGUMENT",
        "UNKNOWN_ACTION",
        "NOT_ALLOWED",
        "BLOCKED_BY_POLICY",
        "PATH_OUTSIDE_ARTIFACTS",
        "EVALUATE_DISABLED",
    }
)


class AuditLog:
    """Append-only JSON lines with size rotation (``audit.jsonl`` -> ``audit.jsonl.1`` ...).

    ``backups`` old files are always kept; more are kept while the oldest is younger than
    ``keep_seconds``, up to ``max_total_bytes`` for the whole history. ``refused_per_minute``
    refused calls are written in full, the rest summarised (counts per tool, action and code).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        max_bytes: int = 10 * 1024 * 1024,
        backups: int = 5,
        keep_seconds: float = 3600.0,
        max_total_bytes: int = 200 * 1024 * 1024,
        refused_per_minute: int = 60,
        clock: Any = time.time,
    ) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.backups = backups
        self.keep_seconds = keep_seconds
        self.max_total_bytes = max_total_bytes
        self.refused_per_minute = refused_per_minute
        self._clock = clock
        self._lock = threading.Lock()
        self._tokens = float(refused_per_minute)
        self._refill_at = clock()
        self._suppressed: dict[str, Any] | None = None
        self._summary_at = 0.0
        self._fd: int | None = None
        self._held: tuple[int, int] | None = None
        #: The last write failure not yet followed by a good write (``get_browser_status`` says it).
        self.failure: dict[str, Any] | None = None
        _OPEN.add(self)

    # -- recording ------------------------------------------------------------------------

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
        """Append one call. A failure to write never breaks a call; it is kept in :attr:`failure`
        (what, since when, lines lost) for ``get_browser_status`` to report."""
        with self._lock:
            now = self._clock()
            refused = status == "error" and error_code in REFUSED_CODES
            if refused and not self._take_token(now):
                self._count_suppressed(now, tool, action, error_code)
                if now - self._summary_at >= 10.0:
                    self._flush_summary(now)
                return
            self._flush_summary(now)
            self._write(self._call_line(tool, action, arguments, status, error_code, duration_ms))

    def flush(self) -> None:
        """Write the pending summary of suppressed refused calls (shutdown)."""
        with self._lock:
            self._flush_summary(self._clock())

    def _call_line(
        self, tool: str, action: str | None, arguments: Any, status: str, error_code: str | None, duration_ms: float
    ) -> str:
        entry: dict[str, Any] = {
            "timestamp": _iso(self._clock()),
            "tool": str(tool)[:200],
            "action": action[:200] if isinstance(action, str) else None,
            "arguments": None,
            "status": status,
            "errorCode": str(error_code)[:100] if error_code is not None else None,
            "durationMs": round(duration_ms, 1),
            "pid": os.getpid(),
        }
        try:
            entry["arguments"] = redact_arguments(arguments)
            line = _dumps(entry)
        except Exception:  # noqa: BLE001 - odd arguments still leave a line saying the call happened
            entry["arguments"] = "[unrecordable]"
            line = _dumps(entry)
        if len(line.encode("utf-8")) > MAX_LINE_BYTES:
            entry["arguments"] = shrunk_arguments(entry["arguments"])
            entry["argumentsShrunk"] = True
            line = _dumps(entry)
        if len(line.encode("utf-8")) > MAX_LINE_BYTES:
            entry["arguments"] = "[too large]"
            line = _dumps(entry)
        return line

    # -- the rate limit of refused calls --------------------------------------------------

    def _take_token(self, now: float) -> bool:
        rate = self.refused_per_minute / 60.0
        self._tokens = min(float(self.refused_per_minute), self._tokens + (now - self._refill_at) * rate)
        self._refill_at = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

    def _count_suppressed(self, now: float, tool: str, action: str | None, code: str | None) -> None:
        if self._suppressed is None:
            self._suppressed = {"count": 0, "first": now, "last": now, "calls": {}}
        s = self._suppressed
        s["count"] += 1
        s["last"] = now
        key = f"{str(tool)[:60]}/{str(action)[:60] if action else '-'}/{code}"
        if key in s["calls"] or len(s["calls"]) < 20:
            s["calls"][key] = s["calls"].get(key, 0) + 1
        else:
            s["calls"]["[other]"] = s["calls"].get("[other]", 0) + 1

    def _flush_summary(self, now: float) -> None:
        s, self._suppressed = self._suppressed, None
        if s is None:
            return
        self._summary_at = now
        self._write(
            json.dumps(
                {
                    "timestamp": _iso(now),
                    "event": "refused-calls-summarised",
                    "count": s["count"],
                    "from": _iso(s["first"]),
                    "to": _iso(s["last"]),
                    "calls": s["calls"],
                    "note": f"over {self.refused_per_minute} refused calls a minute: counted, not written one by one",
                    "pid": os.getpid(),
                },
                ensure_ascii=False,
            )
        )

    # -- the file -------------------------------------------------------------------------

    def _write(self, line: str) -> None:
        data = (line + "\n").encode("utf-8")
        try:
            size = self._size_now()
            record = self._rotate_if_needed(len(data), size)
            if record is not None:
                data = (record + "\n").encode("utf-8") + data
            _write_all(self._descriptor(), data)
        except OSError as exc:
            self._release()
            if self.failure is None:
                self.failure = {"since": _iso(self._clock()), "error": f"{type(exc).__name__}: {exc}"[:200], "lost": 0}
            self.failure["lost"] += 1
        else:
            self.failure = None

    def _size_now(self) -> int | None:
        """The log file's size (None: there is none), and whether the held descriptor is still it.

        Why a descriptor held open: opening, wrapping and closing the file on every call was a
        noticeable part of a short call. One ``stat`` per line tells both the size (rotation) and
        whether the path still names the held file: another server process sharing this log may
        have rotated it, or the user moved it away.
        """
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._release()
            return None
        if self._fd is not None and self._held != (st.st_dev, st.st_ino):
            self._release()
        return st.st_size

    def _descriptor(self) -> int:
        if self._fd is None:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            # Owner-only: the log lists every URL and selector the agent used in the user's browser.
            # O_CLOEXEC is POSIX only (Python's descriptors are non-inheritable everywhere anyway).
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
            fd = os.open(self.path, flags, 0o600)
            st = os.fstat(fd)
            self._fd, self._held = fd, (st.st_dev, st.st_ino)
        return self._fd

    def _release(self) -> None:
        fd, self._fd, self._held = self._fd, None, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def close(self) -> None:
        """Write the pending summary and let the file go (shutdown; a later line reopens it)."""
        with self._lock:
            self._flush_summary(self._clock())
            self._release()
            self.failure = None  # shut down: nothing more to report for this log

    def _backup(self, index: int) -> Path:
        return self.path.with_name(f"{self.path.name}.{index}")

    def _rotate_if_needed(self, incoming: int, size: int | None) -> str | None:
        """Rotate when ``incoming`` bytes would pass ``max_bytes``; returns the rotation record to write."""
        if size is None or size + incoming <= self.max_bytes or size == 0:
            return None
        self._release()  # the held file becomes the first backup
        backups: list[Path] = []
        while self._backup(len(backups) + 1).exists():
            backups.append(self._backup(len(backups) + 1))
        total = size + sum(_size(p) for p in backups)
        now = time.time()  # compared with file times
        deleted: list[tuple[str, int, float]] = []
        # Drop the oldest files while there are more than `backups` of them and the oldest is
        # older than keep_seconds, or while the history would pass max_total_bytes.
        while backups and (
            (len(backups) >= self.backups and now - _mtime(backups[-1]) >= self.keep_seconds)
            or total + self.max_bytes > self.max_total_bytes
        ):
            oldest = backups.pop()
            deleted.append((oldest.name, _size(oldest), _mtime(oldest)))
            total -= _size(oldest)
            oldest.unlink(missing_ok=True)
        for index in range(len(backups), 0, -1):
            self._backup(index).replace(self._backup(index + 1))
        self.path.replace(self._backup(1))
        record: dict[str, Any] = {
            "timestamp": _iso(now),
            "event": "rotated",
            "previous": self._backup(1).name,
            "previousBytes": size,
            "backups": len(backups) + 1,
            "pid": os.getpid(),
        }
        if deleted:
            # What left the history, and how recent the newest line in it was (bounded: a summary).
            record["deleted"] = {
                "files": len(deleted),
                "bytes": sum(size for _, size, _ in deleted),
                "newestEntryAt": _iso(max(mtime for _, _, mtime in deleted)),
                "names": [name for name, _, _ in deleted[:5]],
            }
        return json.dumps(record, ensure_ascii=False)

    @staticmethod
    def now() -> float:
        return time.perf_counter()


_OPEN: weakref.WeakSet[AuditLog] = weakref.WeakSet()


def flush_all() -> None:
    """Write every log's pending summary and close its file (server shutdown)."""
    for log in list(_OPEN):
        log.close()


def write_failures() -> list[str]:
    """One sentence per audit log that could not be written (full disk, removed folder), for status."""
    out = []
    for log in list(_OPEN):
        f = log.failure
        if f is not None:
            out.append(f"audit log {log.path} not written since {f['since']} ({f['error']}; {f['lost']} lines lost)")
    return out


def _dumps(entry: dict[str, Any]) -> str:
    """Strict JSON (no ``Infinity``/``NaN``, which JSON readers refuse): non-finite numbers as strings."""
    try:
        return json.dumps(entry, ensure_ascii=False, default=str, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(entry), ensure_ascii=False, default=str, allow_nan=False)


def _finite(value: Any, depth: int = 0) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if depth > 20:
        return "[nested]"
    if isinstance(value, dict):
        return {k: _finite(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v, depth + 1) for v in value]
    return value


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")
