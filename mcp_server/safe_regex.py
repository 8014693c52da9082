"""Caller-supplied regular expressions, run with a time bound and off the event loop.

A pattern such as ``(a+)+b`` backtracks exponentially on a long run of ``a``: with the
standard ``re`` module one ``search`` on a 30-character URL takes minutes, holding the GIL,
so the whole server (every client's ``tools/list`` included) would stop answering. Python's
``re`` can neither be interrupted nor run without the GIL, so caller patterns go through the
``regex`` package (same syntax as ``re``): its ``timeout`` stops a runaway match and
``concurrent=True`` releases the GIL while it runs, in a worker thread.

Every regex an agent sends (``wait_for url_matches``, and any action that adds one) must use
:func:`compile_pattern` and :func:`search`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import regex

from targets.errors import ErrorCode, ToolFailure

__all__ = ["CallerPattern", "compile_pattern", "search", "MATCH_TIMEOUT_S", "MAX_PATTERN_CHARS"]

#: The time one match may take. ``regex`` checks it now and then, so a runaway match may
#: overrun it (measured: up to ~1 s for a 0.25 s bound on a 20,000-character text).
MATCH_TIMEOUT_S = 0.25
MAX_PATTERN_CHARS = 2000


@dataclass(frozen=True)
class CallerPattern:
    """A compiled caller pattern; ``literal`` when the text was not a valid regex (matched as a substring)."""

    source: str
    compiled: regex.Pattern[str]
    literal: bool
    field: str


def compile_pattern(source: str, *, field: str) -> CallerPattern:
    """Compile ``source`` (``field`` names the argument in errors); an invalid regex is taken literally."""
    if len(source) > MAX_PATTERN_CHARS:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{field}: the pattern has {len(source)} characters (at most {MAX_PATTERN_CHARS})",
            hint="use a shorter pattern or a plain substring",
        )
    try:
        return CallerPattern(source, regex.compile(source), False, field)
    except (regex.error, ValueError, OverflowError):
        return CallerPattern(source, regex.compile(regex.escape(source)), True, field)


async def search(pattern: CallerPattern, text: str, *, timeout_s: float | None = None) -> bool:
    """Whether ``pattern`` occurs in ``text``, computed in a worker thread within ``timeout_s``.

    ``timeout_s`` defaults to :data:`MATCH_TIMEOUT_S` as it is at call time (read then, not at
    import, so a deployment or a test that changes the module's bound is obeyed).

    Raises INVALID_ARGUMENT when the match runs out of time: a pattern that backtracks without
    end is a mistake the caller can fix, and retrying it would only burn a core.
    """
    if timeout_s is None:
        timeout_s = MATCH_TIMEOUT_S
    try:
        found = await asyncio.to_thread(pattern.compiled.search, text, concurrent=True, timeout=timeout_s)
    except TimeoutError:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{pattern.field}: matching {pattern.source[:100]!r} against {len(text)} characters took longer than "
            f"{timeout_s * 1000:.0f} ms (nested quantifiers such as (a+)+ backtrack without end), so it was stopped",
            hint="use a simpler pattern (no nested quantifiers) or a plain substring",
            pattern=pattern.source[:200],
        ) from None
    return found is not None
