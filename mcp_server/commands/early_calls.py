"""The first ``tools/call`` requests of a quick start, run while the SDK's server side still loads.

Why: on a quick start (quickstart.py) the handshake is answered from the recording at ~40 ms,
but a call waited for the whole load: the SDK's server side (``mcp.server``: lowlevel server,
stdio transport, the protocol-version surfaces, HTTP pieces) is ~250 ms of CPU more than what a
call needs (our tools and pydantic; not even ``mcp_types``: answers are built in our light form,
mcp_server/surface/tool_answer.py). Here a call is really run, through the same
:meth:`BrowserMCP.answer` every SDK-routed call takes (validation, locks, audit, answer cap,
envelope), never answered from a recording; its answer is written in the exact bytes the SDK
would write for it (:func:`answer_line`; tests/test_early_calls.py compares them with the SDK's
own serializer for every handshake version).

Only what is plainly the same as through the SDK runs here (:func:`eligible`): a well-formed
``tools/call`` of a known tool, on a negotiated handshake-era version, without a
``progressToken`` (those wait for the SDK, which sends the progress notifications). Anything
else goes to the SDK in order, and from then on the SDK alone answers (quick_front.py).

One difference stays: an early call has no SDK session yet, so the warnings our code logs while
it runs go to stderr only, not to the client as ``notifications/message`` (the SDK path sends
those at the default "warning" level). The answer itself says what happened, as on either path.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

__all__ = ["eligible", "answer_line", "error_line", "ENABLED_ENV", "enabled"]

log = logging.getLogger("mcp_server")

ENABLED_ENV = "MCP_EARLY_CALLS"

#: JSON-RPC ids the SDK's parser takes as they are (a bool is no id; an int past 2**53 loses precision in JS)
_MAX_ID = 2**53
_LONG_NUMBER = re.compile(r"\d{4000}")
_TOP_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
_PARAM_KEYS = frozenset({"name", "arguments", "_meta"})
#: the handshake-era wire form of the answers our tools give: keys of each content block, in the SDK's order
_BLOCK_KEYS = {"text": ("text", "type"), "image": ("data", "mimeType", "type")}
_HANDSHAKE_VERSIONS = frozenset({"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"})


def enabled() -> bool:
    import os

    from .quickstart import FALSE_WORDS

    return os.environ.get(ENABLED_ENV, "true").strip().lower() not in FALSE_WORDS


def eligible(line: bytes, msg: dict[str, Any], version: str | None, tools: Any) -> bool:
    """A ``tools/call`` the early path answers exactly as the SDK would; anything else waits for it.

    ``tools``: the names of the listed tools (an unknown tool is the SDK's -32602 to give).
    """
    if version not in _HANDSHAKE_VERSIONS or not set(msg) <= _TOP_KEYS or msg.get("jsonrpc") != "2.0":
        return False
    msg_id = msg.get("id")
    if isinstance(msg_id, bool) or not (isinstance(msg_id, str) or (isinstance(msg_id, int) and abs(msg_id) < _MAX_ID)):
        return False
    params = msg.get("params")
    if msg.get("method") != "tools/call" or not isinstance(params, dict) or not set(params) <= _PARAM_KEYS:
        return False
    meta = params.get("_meta")
    if meta is not None and (not isinstance(meta, dict) or "progressToken" in meta):
        return False  # progress notifications: the SDK's session sends them
    arguments = params.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        return False
    name = params.get("name")
    if not isinstance(name, str) or name not in tools:
        return False
    if _LONG_NUMBER.search(line.decode("utf-8", "replace")) or _too_deep(line):
        return False  # the stdio guard's refusals (stdio_guard.py) are the SDK path's to give
    return _parses(line, msg)


def _too_deep(line: bytes) -> bool:
    from mcp_server.surface.stdio_guard import MAX_DEPTH, _depth_over

    text = line.decode("utf-8", "replace")
    return text.count("[") + text.count("{") > MAX_DEPTH and _depth_over(text, MAX_DEPTH)


def _parses(line: bytes, msg: dict[str, Any]) -> bool:
    """The SDK's JSON parser reads ``line`` as the value ``json.loads`` gave (``msg``).

    The SDK parses a line with pydantic's JSON parser (``jsonrpc_message_adapter.validate_json``),
    then validates the params with its models; :func:`eligible` checked ``msg`` against all those
    models ask of a call we take (``jsonrpc`` "2.0", a strict int or str id, a str ``name``, an
    object of ``arguments``, an object or null ``_meta``; the handshake-era surfaces ask no more
    of ``_meta``), so what is left is the parser: one that refuses (a lone surrogate
    ``json.loads`` takes) or reads another value (a NaN, equal to nothing) sends the call to the
    SDK. Checked with pydantic-core's parser itself, not with ``mcp_types``: its import is
    60-100 ms the first call would wait for. tests/test_early_calls.py holds this to the SDK's
    own parse over a set of awkward lines.
    """
    from pydantic_core import from_json

    try:
        return bool(from_json(line) == msg)
    except ValueError:  # whatever the SDK refuses, the SDK answers
        return False


def answer_line(msg_id: Any, wire: dict[str, Any], version: str) -> bytes:
    """The JSON-RPC response line the SDK writes for a tool's ``wire_form`` answer on ``version``.

    The SDK validates the result against the version's CallToolResult surface and dumps it
    (fields in the surface's order, ``resultType`` dropped on handshake-era versions), then
    dumps the response with pydantic's JSON serializer. An answer with anything beyond the
    blocks our tools make goes through the SDK's own serializer (``mcp_types.methods``).
    """
    from pydantic_core import to_json

    result = _handshake_form(wire) if version in _HANDSHAKE_VERSIONS else None
    if result is None:
        from mcp_types import methods

        result = methods.serialize_server_result("tools/call", version, wire)
    return to_json({"jsonrpc": "2.0", "id": msg_id, "result": result}) + b"\n"


def _handshake_form(wire: dict[str, Any]) -> dict[str, Any] | None:
    if not set(wire) <= {"content", "isError", "structuredContent", "resultType"}:
        return None
    content = []
    for block in wire.get("content") or []:
        keys = _BLOCK_KEYS.get(block.get("type")) if isinstance(block, dict) else None
        if keys is None or set(block) != set(keys):
            return None
        content.append({key: block[key] for key in keys})
    result: dict[str, Any] = {"content": content}
    if "isError" in wire:
        result["isError"] = wire["isError"]
    if wire.get("structuredContent") is not None:
        result["structuredContent"] = wire["structuredContent"]
    return result


def error_line(msg_id: Any, code: int, message: str) -> bytes:
    """A JSON-RPC error line (the early path broke where the SDK would have answered an error)."""
    return (
        json.dumps(
            {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}, separators=(",", ":")
        ).encode()
        + b"\n"
    )
