"""A request payload as lists and records show it: secrets masked, long values shortened, then cut.

Why shorten values: a business form's payload often starts with state the server keeps in the
page, not with what the user typed. ASP.NET WebForms posts ``__VIEWSTATE`` and
``__EVENTVALIDATION`` (kilobytes of base64) before the fields; JSF posts ``javax.faces.ViewState``;
a JSON save may carry a photo or signature as a data URL. Cut to the preview size, such a payload
showed nothing but that blob, and the fields the agent needs (which customer, which amount) were
never in the answer. Each value longer than :data:`LONG_VALUE` characters now keeps its head and
says its length: :data:`KEPT_OPAQUE` characters of a value with no space in it, a token or blob
whose head says little (``__VIEWSTATE=dDwtMTA4NzEx…[6011 chars]``), :data:`KEPT_TEXT` of text (a
note's first words say what it is about). In a form, the shortened fields go after the others:
the framework's state comes first in the body and would still fill a list's 200 characters, so
the preview reads what the user set first, in the order sent, then the blobs with their lengths.
Field names are shown decoded when that is unambiguous (``ctl00$Main$txtCustomer``, as the
snapshot's ``field=`` says it, not ``ctl00%24Main%24txtCustomer``); values stay as sent. The saved
body (``network_save_body``) and the HAR keep the payload whole.

The fields that name the operation go first (``action``, ``method``, ``op``, ``cmd``, ``task``,
``route``, GraphQL's ``operationName``…), in a form and at the top of a JSON object alike: apps
send many calls to one endpoint (WordPress's admin-ajax.php, a JSON-RPC URL, a ``?do=`` dispatcher)
and the agent tells them apart by that field, which a framework often posts after its state.
"""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

from ..redact import body_kind, redact_body, redact_json_value, truncate_text

__all__ = ["LONG_VALUE", "KEPT_OPAQUE", "KEPT_TEXT", "OPERATION_FIELDS", "payload_preview"]

#: A field value longer than this (in characters, decoded) is shortened in a preview
LONG_VALUE = 100
#: What is kept of a shortened value without whitespace (a token, base64, a data URL)
KEPT_OPAQUE = 12
#: What is kept of a shortened value with whitespace (text someone typed)
KEPT_TEXT = 60
#: Field names (lower case) that name the operation a call asks for: shown first
OPERATION_FIELDS = frozenset(
    {
        "action", "method", "op", "operation", "operationname", "cmd", "command", "task", "route", "do",
        "mode", "event", "fn", "func", "function", "call", "verb", "ajax_action", "_action", "act",
    }
)  # fmt: skip
#: A decoded field name holding one of these is shown as sent
_AMBIGUOUS_IN_NAME = frozenset("&=%+") | frozenset(chr(c) for c in range(33))


def payload_preview(body: str, content_type: str | None, limit: int) -> str:
    """``body`` redacted, its long values shortened, cut to ``limit`` characters (``…`` when cut)."""
    kind = body_kind(body, content_type)
    text = _json_preview(body) if kind == "json" else None
    if text is None:
        if kind == "json":  # it looked like JSON and did not parse
            kind = body_kind(body, content_type, json_failed=True)
        text = redact_body(body, content_type)
        if kind == "form":
            text = _form_preview(text)
    text, cut = truncate_text(text, limit)
    return text + ("…" if cut else "")


def _kept(decoded: str) -> int:
    return KEPT_OPAQUE if not any(c.isspace() for c in decoded) else KEPT_TEXT


def _shortened(value: str) -> str:
    return f"{value[: _kept(value)]}…[{len(value)} chars]"


def _form_preview(redacted: str) -> str:
    """An urlencoded body with names decoded and each long value shortened and moved last."""
    ops, out, long = [], [], []
    for part in redacted.split("&"):
        name, sep, value = part.partition("=")
        if "%" in name:
            decoded_name = urllib.parse.unquote(name, errors="strict") if _decodes(name) else name
            if not _AMBIGUOUS_IN_NAME.intersection(decoded_name):
                name = decoded_name
        if sep and name.lower() in OPERATION_FIELDS and len(value) <= LONG_VALUE:
            ops.append(f"{name}={value}")
            continue
        if sep and len(value) > LONG_VALUE:
            decoded = urllib.parse.unquote_plus(value)
            if len(decoded) > LONG_VALUE:
                kept = value[: _kept(decoded)]
                escape = kept.rfind("%", len(kept) - 2)
                if escape != -1:  # never end inside a %XX escape
                    kept = kept[:escape]
                long.append(f"{name}={kept}…[{len(decoded)} chars]")
                continue
        out.append(f"{name}{sep}{value}")
    return "&".join(ops + out + long)


def _decodes(name: str) -> bool:
    try:
        urllib.parse.unquote(name, errors="strict")
    except UnicodeDecodeError:
        return False
    return True


def _json_preview(body: str) -> str | None:
    """A JSON body redacted and re-serialised compactly with each long string shortened."""
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(parsed, (dict, list)):
        return None
    shown = _shorten_strings(redact_json_value(parsed))
    if isinstance(shown, dict):
        first = [k for k in shown if str(k).lower() in OPERATION_FIELDS and not isinstance(shown[k], (dict, list))]
        shown = {**{k: shown[k] for k in first}, **shown}
    return json.dumps(shown, ensure_ascii=False, separators=(",", ":"))


def _shorten_strings(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str):
        return _shortened(value) if len(value) > LONG_VALUE else value
    if depth > 64:
        return value
    if isinstance(value, dict):
        return {k: _shorten_strings(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_shorten_strings(v, depth + 1) for v in value]
    return value
