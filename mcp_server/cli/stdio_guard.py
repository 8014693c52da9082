"""stdio lines the SDK cannot parse get a JSON-RPC error answer instead of silence.

The SDK's stdio transport validates each line; a line it cannot parse (arguments nested deeper
than its parser's 200 levels, an integer of 4300+ digits, broken JSON) is dropped with no answer,
so the client waits for its request until its own timeout. Over HTTP the same message gets a
parse error. This guard reads stdin for the transport (with the same claim of fd 0 the SDK makes,
so children never read the wire), validates each line the way the SDK will, and answers a line
that fails with an error carrying the request's ``id`` (found by a scan of the top level of the
raw text, which needs no parse): ``-32602`` for a well-formed message over our limits,
``-32700`` for text that is not JSON. The refusal is reported to ``on_refused`` (the audit log).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from anyio import AsyncFile

__all__ = ["GuardedStdin", "request_id", "open_guarded_stdin"]

log = logging.getLogger("mcp_server.stdio")

_LONG_NUMBER = re.compile(r"\d{4000}")
#: Deepest nesting a message may have: the SDK's parser refuses beyond 200; real calls use < 10.
MAX_DEPTH = 100


def _scan(line: str) -> Iterator[tuple[int, int, int]]:
    """A linear scan of raw JSON text, no parse: ``(depth, start, end)`` at each bracket that opens outside
    a string (``start == end``) and at the end of each string (its text is ``line[start:end]``)."""
    depth = 0
    in_string = escaped = False
    start = 0
    for i, ch in enumerate(line):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
                yield depth, start, i
        elif ch == '"':
            in_string = True
            start = i + 1
        elif ch in "{[":
            depth += 1
            yield depth, i, i
        elif ch in "}]":
            depth -= 1


def request_id(line: str) -> str | int | None:
    """The ``id`` of a JSON-RPC message from its raw text, at the top level only; None if absent or unclear."""
    for depth, start, end in _scan(line):
        if depth == 1 and line[start:end] == "id":
            rest = line[end + 1 :].lstrip()
            if rest.startswith(":"):
                return _scalar(rest[1:].lstrip())
    return None


def _scalar(text: str) -> str | int | None:
    if text.startswith('"'):
        end = 1
        while end < len(text) and end < 300:
            if text[end] == "\\":
                end += 2
                continue
            if text[end] == '"':
                try:
                    value = json.loads(text[: end + 1])
                except ValueError:
                    return None
                return value if isinstance(value, str) else None
            end += 1
        return None
    digits = ""
    for ch in text[:25]:
        if ch.isdigit() or (ch == "-" and not digits):
            digits += ch
        else:
            break
    return int(digits) if digits.strip("-") else None


def _depth_over(line: str, limit: int) -> bool:
    """Whether brackets outside strings nest deeper than ``limit``."""
    return any(depth > limit for depth, _, _ in _scan(line))


def problem_of(line: str) -> tuple[int, str] | None:
    """``(JSON-RPC error code, message)`` when the SDK could not take ``line``, else None."""
    if not line.strip():
        return None
    if line.count("[") + line.count("{") > MAX_DEPTH and _depth_over(line, MAX_DEPTH):
        return -32602, f"the message nests deeper than {MAX_DEPTH} levels; arguments must be flatter"
    import mcp_types as types

    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception as exc:  # noqa: BLE001 - whatever the SDK's parser refuses
        text = str(exc)
        if _LONG_NUMBER.search(line):
            return -32602, "a number in the message is too long (over 4000 digits)"
        try:
            json.loads(line)
        except (ValueError, RecursionError):
            return -32700, "the line is not valid JSON"
        return -32600, f"not a valid JSON-RPC message: {text.splitlines()[0][:200]}"
    return None


class GuardedStdin:
    """The line source of the SDK's stdio transport; lines it would drop are answered here."""

    def __init__(self, source: AsyncFile[str], on_refused: Callable[[str | None, str], None] | None = None) -> None:
        self.source = source
        self.on_refused = on_refused
        #: The transport's write stream, set once ``stdio_server`` has made it.
        self.write: Any = None

    def __aiter__(self) -> GuardedStdin:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self.source.readline()
            if not line:
                raise StopAsyncIteration
            problem = problem_of(line)
            if problem is None:
                return line
            await self._answer(line, *problem)

    async def _answer(self, line: str, code: int, message: str) -> None:
        rid = request_id(line)
        log.warning("refused a stdio message (id %r): %s", rid, message)
        if self.on_refused is not None:
            try:
                self.on_refused(_tool_name(line), message)
            except Exception:  # noqa: BLE001 - reporting never stops the transport
                log.exception("refusal observer failed")
        if rid is None or self.write is None:
            return  # a notification (or an id we cannot read): JSON-RPC answers none
        import mcp_types as types
        from mcp.shared.message import SessionMessage  # the SDK's transport is loaded by now

        error = types.JSONRPCError(jsonrpc="2.0", id=rid, error=types.ErrorData(code=code, message=message))
        await self.write.send(SessionMessage(error))


def _tool_name(line: str) -> str | None:
    marker = line.find('"name"')
    if marker < 0:
        return None
    rest = line[marker + 6 :].lstrip()
    if not rest.startswith(":"):
        return None
    value = _scalar(rest[1:].lstrip())
    return value if isinstance(value, str) else None


def open_guarded_stdin(
    on_refused: Callable[[str | None, str], None] | None = None,
) -> tuple[GuardedStdin, Callable[[], None] | None]:
    """Read the wire from a private copy of fd 0 and point fd 0 at the null device; returns the guard and
    the release callback (None when nothing was diverted).

    The SDK makes this claim only when it reads stdin itself; the guard reads it instead, so it makes
    the same claim with plain ``os`` calls: nothing else in the process (a library reading ``sys.stdin``,
    a child process that inherits fd 0) can take a line off the wire. The browsers we start get their
    own stdin anyway. Where fd 0 cannot be copied, the guard reads ``sys.stdin`` in place.
    """
    import anyio

    try:
        private = os.dup(0)
    except OSError:
        return GuardedStdin(anyio.wrap_file(sys.stdin), on_refused), None
    wire = open(private, encoding="utf-8", errors="replace", closefd=True)  # noqa: SIM115 - closed by release()
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
    except OSError:
        diverted = False
    else:
        diverted = True

    def release() -> None:
        if diverted:
            try:
                os.dup2(wire.fileno(), 0)  # fd 0 is the wire again, for whatever runs after us
            except OSError:
                log.debug("could not point fd 0 back at stdin", exc_info=True)
        wire.close()

    return GuardedStdin(anyio.wrap_file(wire), on_refused), release
