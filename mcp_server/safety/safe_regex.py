r"""Caller-supplied regular expressions, run with a time bound and off the event loop.

A pattern such as ``(a+)+b`` backtracks exponentially on a long run of ``a``: with the
standard ``re`` module one ``search`` on a 30-character URL takes minutes, holding the GIL,
so the whole server (every client's ``tools/list`` included) would stop answering. Python's
``re`` can neither be interrupted nor run without the GIL, so caller patterns go through the
``regex`` package (same syntax as ``re``): its ``timeout`` stops a runaway match and
``concurrent=True`` releases the GIL while it runs, in a worker thread.

Compiling is bounded too. ``regex`` (like ``re``) writes a counted repeat out in full, through
every level of nesting: ``((a{100}){100}){300}`` (45 characters) compiles to three million nodes,
and the server's memory stayed that large, since compiled patterns are cached.
So a caller pattern is parsed first (Python's own ``re`` parser: it builds the tree without
expanding anything), its expanded size is counted (:func:`expanded_size`), and a pattern over
:data:`MAX_EXPANDED_SIZE` is refused before ``regex.compile`` runs; the compiled pattern is
never put in ``regex``'s cache. ``regex`` accepts more than ``re`` (``\p{L}``, ``(?V1)`` set
operations, fuzzy matches): a pattern only ``regex`` understands is measured by
:func:`rough_size`, a small tokenizer that multiplies ``{n,m}`` counts through group nesting
(an upper bound of the real expansion), and then ``regex`` itself judges its syntax.

Every regex an agent sends (``wait_for url_matches``, and any action that adds one) must use
:func:`compile_pattern` and :func:`search`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import regex

if TYPE_CHECKING:
    # typeshed describes re's parser under its old public names only; importing those at run time
    # warns (DeprecationWarning since 3.11), so the server imports the modules they forward to.
    import sre_constants
    import sre_parse
else:
    import re._constants as sre_constants
    import re._parser as sre_parse

from targets.errors import ErrorCode, ToolFailure

__all__ = [
    "CallerPattern",
    "compile_pattern",
    "expanded_size",
    "rough_size",
    "search",
    "MATCH_TIMEOUT_S",
    "MAX_EXPANDED_SIZE",
    "MAX_PATTERN_CHARS",
]

#: The time one match may take. ``regex`` checks it now and then, so a runaway match may
#: overrun it, the more so on a long text.
MATCH_TIMEOUT_S = 0.25
MAX_PATTERN_CHARS = 2000
#: The most nodes a caller pattern may expand to (counted repeats multiplied out through their
#: nesting). A node is a few hundred bytes of compiled pattern, so this stays at a few MiB;
#: a URL pattern needs a few hundred nodes.
MAX_EXPANDED_SIZE = 20_000

_REPEATS = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT)


@dataclass(frozen=True)
class CallerPattern:
    """A compiled caller pattern (``field`` names the argument in errors)."""

    source: str
    compiled: regex.Pattern[str]
    field: str


def expanded_size(tree: Any) -> int:
    """How many nodes a parsed pattern (``re._parser`` output) expands to once counted repeats are written out.

    A repeat counts its body times its upper count when that is finite (``a{1,100}``: 100), its
    lower count otherwise (``a{100,}``: 100; ``a*``: 1): the compiler writes the fixed part out,
    and an upper bound is counted too so that no form of repeat escapes the bound.
    """
    total = 0
    for op, av in tree:
        if op in _REPEATS:
            low, high, body = av
            times = low if high == sre_constants.MAXREPEAT else high
            total += max(times, 1) * expanded_size(body)
        elif op == sre_constants.SUBPATTERN:
            total += 1 + expanded_size(av[3])
        elif op == sre_constants.BRANCH:
            total += 1 + sum(expanded_size(branch) for branch in av[1])
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            total += 1 + expanded_size(av[1])
        elif op == sre_constants.ATOMIC_GROUP:
            total += 1 + expanded_size(av)
        elif op == sre_constants.GROUPREF_EXISTS:
            total += 1 + expanded_size(av[1]) + (expanded_size(av[2]) if av[2] else 0)
        else:
            total += 1
    return total


_COUNT = regex.compile(r"\{(\d*)(?:(,)(\d*))?\}")
#: Group nesting the tokenizer follows; deeper is refused (re's parser gives up near there too).
_MAX_DEPTH = 200


def rough_size(source: str) -> int:
    r"""An upper bound of the nodes ``source`` expands to, for a pattern ``re`` cannot parse.

    Each atom (a character, an escape such as ``\p{L}``, a whole ``[...]`` class) counts 1, a
    group 1 plus its content, and a counted repeat ``{n}``, ``{n,m}``, ``{n,}``, ``{,m}`` multiplies
    the atom or group before it by its upper count when finite, its lower count otherwise, as
    :func:`expanded_size` does. A brace that is not a count (``{e<=1}``) is an atom. Raises
    ValueError for nesting deeper than :data:`_MAX_DEPTH`.
    """
    frames: list[list[int]] = [[0, 0]]  # per open group: [total, size of the last atom]
    i, n = 0, len(source)
    while i < n:
        char = source[i]
        if char == "\\":
            i += 2
            if source[i - 1 : i] in ("p", "P", "N", "x") and source[i : i + 1] == "{":
                closing = source.find("}", i)
                i = n if closing < 0 else closing + 1  # \p{L}, \N{name}, \x{263a}: one atom
            atom = 1
        elif char == "[":
            i += 1
            depth = 1
            while i < n and depth:  # nested sets are regex's V1 syntax
                if source[i] == "\\":
                    i += 1
                elif source[i] == "[" and i + 1 < n and source[i + 1] != "]":
                    depth += 1
                elif source[i] == "]":
                    depth -= 1
                i += 1
            atom = 1
        elif char == "(":
            if len(frames) > _MAX_DEPTH:
                raise ValueError(f"groups nested deeper than {_MAX_DEPTH}")
            frames.append([0, 0])
            i += 1
            continue
        elif char == ")" and len(frames) > 1:
            inner = frames.pop()
            atom = 1 + inner[0]
            i += 1
        elif char == "{" and (count := _COUNT.match(source, i)) is not None and (count[1] or count[3]):
            low = int(count[1] or 0)
            high = None if count[2] and not count[3] else int(count[3] or count[1])
            times = max(high if high is not None else low, 1)
            frame = frames[-1]
            frame[0] += frame[1] * (times - 1)
            frame[1] *= times
            i = count.end()
            continue
        else:
            atom = 1
            i += 1
        frames[-1][0] += atom
        frames[-1][1] = atom
    while len(frames) > 1:  # an unclosed group: regex refuses it, the count is still an upper bound
        inner = frames.pop()
        frames[-1][0] += 1 + inner[0]
    return frames[0][0]


def compile_pattern(source: str, *, field: str) -> CallerPattern:
    """Compile ``source`` after checking its syntax and its expanded size; INVALID_ARGUMENT otherwise.

    An invalid pattern is refused rather than matched as text: taken literally, a typo such as
    ``done.html?q=(1`` would just never match and the wait would end in a silent timeout.
    """
    if len(source) > MAX_PATTERN_CHARS:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{field}: the pattern has {len(source)} characters (at most {MAX_PATTERN_CHARS})",
            hint="use a shorter pattern or a plain substring",
        )
    try:
        try:
            size = expanded_size(sre_parse.parse(source))
        except sre_constants.error:
            size = rough_size(source)  # perhaps valid for regex (\p{L}...): regex.compile judges it below
    except (sre_constants.error, OverflowError, RecursionError, ValueError) as exc:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{field}: {source[:100]!r} is not a valid regular expression ({str(exc) or type(exc).__name__})",
            hint="escape special characters (\\. \\? \\( \\[) to match them as text; Python re syntax",
            pattern=source[:200],
        ) from None
    if size > MAX_EXPANDED_SIZE:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{field}: {source[:100]!r} expands to {size:,} nodes once its counted repeats are written out "
            f"(at most {MAX_EXPANDED_SIZE:,}), so it was not compiled",
            hint="use smaller {n} counts (or * and +) and no nested counted repeats",
            pattern=source[:200],
        )
    try:
        compiled = regex.compile(source, cache_pattern=False)  # never kept in regex's cache
    except (regex.error, ValueError, OverflowError, RecursionError) as exc:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{field}: {source[:100]!r} is not a valid regular expression ({exc})",
            hint="escape special characters to match them as text; Python re syntax",
            pattern=source[:200],
        ) from None
    return CallerPattern(source, compiled, field)


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
