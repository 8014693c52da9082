"""The last pass over every answer: byte caps on text and structured content that no page can lift.

Why a pass of its own: each action bounds what it asks for (``max_chars``, ``limit``), but what
fills the answer is the page's: a 1.5 MB URL in ``list_pages``, a snapshot of a page with 60,000
lines, a console message of megabytes. Over stdio a 6 MB answer floods the agent's context; over
streamable HTTP a message over about 1 MiB breaks the client's stream. So after the envelope is
built, whatever the action, the text is cut to :data:`MAX_TEXT_BYTES` and the structured content
is shrunk to :data:`MAX_STRUCTURED_BYTES` (UTF-8 bytes of its compact JSON), keeping its shape
(every key, every type: strings get shorter, lists lose their tail) so it still validates, and
both say what was cut. Inline images beyond :data:`MAX_IMAGE_BYTES` are left out (the file path
is in the answer). The caps are the server's (``MCP_MAX_ANSWER_BYTES``, set by the user), not
arguments: neither the agent nor the page can raise them.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import msgspec

from cdp_core.recorders.redact import holds_url_secret, redact_url_params, redact_url_params_in
from mcp_server.server.tool_answer import ImageBlock, TextBlock, ToolAnswer

if TYPE_CHECKING:
    from targets import BrowserManager

__all__ = [
    "cap_answer",
    "final_pass",
    "redact_answer_urls",
    "MAX_TEXT_BYTES",
    "MAX_STRUCTURED_BYTES",
    "MAX_IMAGE_BYTES",
    "CAP_KEY",
]

MAX_TEXT_BYTES = 256 * 1024
MAX_STRUCTURED_BYTES = 256 * 1024
#: Base64 bytes of inline images per answer (a screenshot the agent asked to see inline).
MAX_IMAGE_BYTES = 4 * 1024 * 1024
#: The key of structuredContent that says what the cap cut.
CAP_KEY = "capped"
_MARK = "…[cut]"
_MAX_PASSES = 64


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8"))


_encode = msgspec.json.Encoder(enc_hook=str).encode
#: How far under the cap msgspec's size must be to skip the exact one (their JSON differs by a few
#: bytes at most: non-finite floats).
_SURE = 0.9


def _within(value: Any, limit: int) -> bool:
    """Whether ``value``'s compact JSON fits ``limit`` UTF-8 bytes (what :func:`_size` says).

    Every answer is measured, so the common case, far under the cap, is told by msgspec (several
    times faster than ``json.dumps`` on a long list); near the cap, or for what msgspec cannot
    encode, :func:`_size` decides.
    """
    try:
        if len(_encode(value)) <= limit * _SURE:
            return True
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
        pass
    return _size(value) <= limit


def _cut_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, on a character boundary."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[: max(0, limit)].decode("utf-8", "ignore")


def cap_answer(
    result: ToolAnswer,
    *,
    max_text: int = MAX_TEXT_BYTES,
    max_structured: int = MAX_STRUCTURED_BYTES,
    max_images: int = MAX_IMAGE_BYTES,
) -> ToolAnswer:
    """``result`` with its text, structured content and images within the caps (unchanged when it fits)."""
    notes: list[str] = []
    content: list[Any] = []
    text_budget = max_text
    image_budget = max_images
    for block in result.content:
        if isinstance(block, TextBlock):
            data_len = len(block.text.encode("utf-8"))
            if data_len > text_budget:
                kept = _cut_text(block.text, max(0, text_budget - 200))
                note = f"[answer cut at {len(kept.encode('utf-8'))} of {data_len} bytes by the server's answer cap]"
                notes.append(f"text {data_len} -> {len(kept.encode('utf-8'))} bytes")
                block = TextBlock(f"{kept}\n{note}")
                text_budget = 0
            else:
                text_budget -= data_len
        elif isinstance(block, ImageBlock):
            if len(block.data) > image_budget:
                notes.append(f"inline image of {len(block.data)} base64 bytes left out")
                continue
            image_budget -= len(block.data)
        content.append(block)
    structured = result.structured_content
    cut_paths: list[str] = []
    if structured is not None and not _within(structured, max_structured):
        original = _size(structured)
        if original > max_structured:
            structured, cut_paths = _shrink(structured, max_structured - 1024)
            structured[CAP_KEY] = {
                "limit": max_structured,
                "bytes": original,
                "cut": cut_paths[:20],
            }
            notes.append(f"structured {original} -> {_size(structured)} bytes ({', '.join(cut_paths[:5])})")
    if not notes:
        return result
    if structured is not None and CAP_KEY not in structured:
        structured[CAP_KEY] = {"limit": max_text, "cut": notes}
    if not any(isinstance(b, TextBlock) and "answer cap" in b.text for b in content):
        content.append(TextBlock(f"[answer capped: {'; '.join(notes)}]"))
    return result.replace(content=content, structured_content=structured)


def _shrink(structured: dict[str, Any], budget: int) -> tuple[dict[str, Any], list[str]]:
    """A copy of ``structured`` under ``budget`` bytes: the biggest strings shortened, the longest lists cut.

    Envelope keys (``schemaVersion``, ``status``, ``message``, ``code``, ``hint``) are never cut
    below a readable length; every key stays, every value keeps its type.
    """
    value = json.loads(json.dumps(structured, ensure_ascii=False, default=str))
    cuts: list[str] = []
    for _ in range(_MAX_PASSES):
        size = _size(value)
        if size <= budget:
            break
        path, parent, key, node = _biggest(value)
        if key is None:
            break
        excess = size - budget
        if isinstance(node, str):
            keep = max(40, len(node.encode("utf-8")) - excess - 64)
            parent[key] = _cut_text(node, keep) + _MARK
            cuts.append(f"{path} (text)")
        elif isinstance(node, dict):
            # A wide object of comparable members (headers, a map of many keys): drop its last keys.
            items = list(node.items())
            allowed = max(0, _size(node) - excess - 64)
            kept, used = 0, 2
            while kept < len(items) and used + _size({items[kept][0]: items[kept][1]}) <= allowed:
                used += _size({items[kept][0]: items[kept][1]})
                kept += 1
            parent[key] = dict(items[: max(0, min(kept, len(items) - 1))])
            cuts.append(f"{path} ({len(items)} -> {len(parent[key])} keys)")
        elif isinstance(node, list):
            sizes = [_size(item) for item in node]
            kept, used = 0, 2
            allowed = max(0, sum(sizes) - excess - 64)
            while kept < len(node) and used + sizes[kept] + 1 <= allowed:
                used += sizes[kept] + 1
                kept += 1
            if kept == len(node):
                kept = max(0, len(node) - 1)
            parent[key] = node[:kept]
            cuts.append(f"{path} ({len(node)} -> {kept} items)")
        else:
            break
    else:  # pragma: no cover - the passes always converge on real answers; stay safe anyway
        pass
    if _size(value) > budget:
        # Nothing left to shorten usefully: the envelope alone, which always fits.
        value = {k: value[k] for k in ("schemaVersion", "status", "message", "code", "hint") if k in value}
        cuts.append("everything but the envelope")
    return value, cuts


_PROTECTED = ("schemaVersion", "status", "code")


def _biggest(root: dict[str, Any]) -> tuple[str, Any, Any, Any]:
    """The path, parent, key and value of the node to cut next: descend into the biggest child
    while it holds most of its parent's bytes; stop at a string or at a list of many small items."""
    parent: Any = root
    key: Any = None
    node: Any = root
    path = ""
    while True:
        if isinstance(node, dict):
            children = [(k, v) for k, v in node.items() if not (node is root and k in _PROTECTED)]
        elif isinstance(node, list):
            children = list(enumerate(node))
        else:
            return path or str(key), parent, key, node
        if not children:
            return path or str(key), parent, key, node
        sized = [(k, v, _size(v)) for k, v in children]
        k, v, biggest = max(sized, key=lambda item: item[2])
        total = sum(s for _, _, s in sized)
        many = biggest * 2 < total or not isinstance(v, (dict, list, str))
        if isinstance(node, list) and many:
            return path, parent, key, node  # many comparable items: cut the list itself
        if isinstance(node, dict) and node is not root and many and len(children) > 8:
            return path, parent, key, node  # a wide object: drop members
        parent, key, node = node, k, v
        path = f"{path}.{k}" if path else str(k)


def redact_answer_urls(result: ToolAnswer) -> ToolAnswer:
    """``result`` with the values of secret-named URL parameters (phpMyAdmin's ``token=``) masked in
    its text and structured content, wherever a URL stands: a tab's URL, a frame, a stack, an error.

    Why here too: records are redacted where they are shaped (network, console, HAR, bundle files),
    but URLs reach answers from many more places (the page's own URL, navigation, tabs, snapshots,
    errors); this pass makes sure no rendering forgets one. One scan when there is nothing to mask.
    """
    texts = [b.text for b in result.content if isinstance(b, TextBlock)]
    structured = result.structured_content
    try:
        blob = _encode(structured).decode("utf-8", "replace") if structured is not None else ""
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
        blob = json.dumps(structured, ensure_ascii=False, default=str)
    if LONG_URL.search(blob) or any(LONG_URL.search(t) for t in texts):
        result = _cut_long_urls(result)
        texts = [b.text for b in result.content if isinstance(b, TextBlock)]
        structured = result.structured_content
        blob = json.dumps(structured, ensure_ascii=False, default=str) if structured is not None else ""
    if not any(holds_url_secret(t) for t in texts) and not holds_url_secret(blob):
        return result
    content = [TextBlock(redact_url_params(b.text)) if isinstance(b, TextBlock) else b for b in result.content]
    return result.replace(
        content=content, structured_content=redact_url_params_in(structured) if structured is not None else None
    )


#: A URL this long is the page's doing (pushState, a data: URL), not an address to read: it would
#: fill an answer whatever its max_chars or limit say, so it is cut to its head, and said so.
LONG_URL_CHARS = 2048
LONG_URL_HEAD = 300
LONG_URL = re.compile(r"(?:https?|data|blob|file|wss?):[^\s\"'<>]{" + str(LONG_URL_CHARS) + ",}")


def _cut_url(match: re.Match[str]) -> str:
    url = match.group(0)
    return f"{url[:LONG_URL_HEAD]}…[URL cut: {len(url)} chars]"


def _cut_in(value: Any) -> Any:
    if isinstance(value, str):
        return LONG_URL.sub(_cut_url, value) if len(value) >= LONG_URL_CHARS else value
    if isinstance(value, dict):
        return {k: _cut_in(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut_in(v) for v in value]
    return value


def _cut_long_urls(result: ToolAnswer) -> ToolAnswer:
    content = [TextBlock(LONG_URL.sub(_cut_url, b.text)) if isinstance(b, TextBlock) else b for b in result.content]
    structured = result.structured_content
    return result.replace(content=content, structured_content=_cut_in(structured) if structured is not None else None)


def final_pass(result: ToolAnswer, manager: BrowserManager | None, *, limit: int | None = None) -> ToolAnswer:
    """What every answer goes through last: the relaunch notice, secret URL parameters masked, then
    the caps (``limit``: the user's ``MCP_MAX_ANSWER_BYTES`` for text and for structured content, each)."""
    result = redact_answer_urls(result)
    relaunch = manager.last_relaunch if manager is not None else None  # None: a server with no browser
    if manager is not None and relaunch is not None:
        manager.last_relaunch = None  # said once, by the call that restarted the browser
        result = _say_relaunched(result, relaunch)
    if limit is None:
        return cap_answer(result)
    return cap_answer(result, max_text=limit, max_structured=limit)


def _say_relaunched(result: ToolAnswer, relaunch: dict[str, Any]) -> ToolAnswer:
    """``relaunched: true`` and one line of text: the internal browser crashed and this call restarted it."""
    reason = (relaunch.get("lost") or {}).get("reason", "it closed or crashed")
    kept = relaunch.get("carriedFrom")
    line = f"[relaunched: the internal browser went away ({reason}) and was started again for this call; " + (
        f"what page {kept} captured before is still listed (ids go on), the page itself starts blank]"
        if kept
        else "the page itself starts blank]"
    )
    structured = dict(result.structured_content) if result.structured_content is not None else None
    if structured is not None:
        structured["relaunched"] = True
    content = [*result.content, TextBlock(line)]
    return result.replace(content=content, structured_content=structured)
