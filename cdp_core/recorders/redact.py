"""Redaction shared by every recorder output and every file we write.

Why one module: the rule "never print cookie values, Authorization, Set-Cookie or API-key
headers" must hold identically in listings, full entries, HAR files and debug bundles,
so every writer goes through these few functions instead of re-implementing them.
"""

from __future__ import annotations

import functools
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "DEFAULT_REDACT_HEADERS",
    "REDACTED",
    "HeaderRedactor",
    "redact_form_fields",
    "redact_secrets_in_text",
    "redact_tokens",
    "is_secret_field",
    "truncate_text",
]

DEFAULT_REDACT_HEADERS: tuple[str, ...] = ("authorization", "cookie", "set-cookie", "x-api-key")
REDACTED = "[redacted]"

#: Field names that look like credentials in forms, JSON bodies and WebSocket frames.
_SECRET_NAME = re.compile(
    r"(pass(word|wd)?|pwd|secret|token|api[-_]?key|apikey|auth|credential|session[-_]?id|csrf)", re.IGNORECASE
)
# "password": "value"  /  'token':'value'  (JSON or JS-ish text)
_JSON_PAIR = re.compile(r"""(["'])([^"'\\]{1,64})\1(\s*:\s*)(["'])((?:\\.|(?!\4).){0,4096})\4""")
# password=value in query strings or form bodies embedded in text
_FORM_PAIR = re.compile(r"(^|[?&\s;,])([A-Za-z0-9_.\-\[\]]{1,64})=([^&\s;,]*)")


# multipart/form-data text field (not a file part): name="password" CRLF CRLF value
_MULTIPART_FIELD = re.compile(r'(name="([^"]{1,64})"\r?\n(?:[^\r\n]+\r?\n)*\r?\n)([^\r\n]*)')


@functools.lru_cache(maxsize=4096)
def is_secret_field(name: str) -> bool:
    """True for names like ``password``, ``pwd``, ``api_key``, ``csrf_token`` (cached: names repeat)."""
    return bool(_SECRET_NAME.search(name))


class HeaderRedactor:
    """Redacts a configured set of header names, case-insensitively."""

    def __init__(self, names: Iterable[str] = DEFAULT_REDACT_HEADERS) -> None:
        self.names = frozenset(n.strip().lower() for n in names if n and n.strip())

    def is_redacted(self, name: str) -> bool:
        return name.lower() in self.names

    def headers(self, headers: Mapping[str, Any] | None) -> dict[str, str]:
        """A copy of ``headers`` with values of redacted names replaced; values as strings."""
        if not headers:
            return {}
        out: dict[str, str] = {}
        for name, value in headers.items():
            out[str(name)] = REDACTED if self.is_redacted(str(name)) else str(value)
        return out

    def header_list(self, headers: Mapping[str, Any] | None) -> list[dict[str, str]]:
        """HAR-style ``[{name, value}]``; multi-line values (Set-Cookie) become one item per line."""
        items: list[dict[str, str]] = []
        for name, value in (headers or {}).items():
            if self.is_redacted(str(name)):
                items.append({"name": str(name), "value": REDACTED})
                continue
            for line in str(value).split("\n"):
                items.append({"name": str(name), "value": line})
        return items


def redact_form_fields(body: str) -> str:
    """Mask values of password-looking fields in an urlencoded body, keep the rest as sent."""
    if "=" not in body:
        return redact_secrets_in_text(body)
    parts = body.split("&")
    out = []
    for part in parts:
        name, sep, _value = part.partition("=")
        try:
            decoded = urllib.parse.unquote_plus(name)
        except Exception:
            decoded = name
        out.append(f"{name}{sep}{REDACTED}" if sep and is_secret_field(decoded) else part)
    joined = "&".join(out)
    # JSON or multipart bodies: fall back to the textual patterns.
    return redact_secrets_in_text(joined) if joined.lstrip().startswith(("{", "[", "-")) else joined


def redact_secrets_in_text(text: str) -> str:
    """Mask ``"password": "..."`` and ``token=...`` style pairs inside free text (JSON, frames)."""

    def _json(m: re.Match[str]) -> str:
        if is_secret_field(m.group(2)):
            return f"{m.group(1)}{m.group(2)}{m.group(1)}{m.group(3)}{m.group(4)}{REDACTED}{m.group(4)}"
        return m.group(0)

    def _form(m: re.Match[str]) -> str:
        if is_secret_field(m.group(2)):
            return f"{m.group(1)}{m.group(2)}={REDACTED}"
        return m.group(0)

    if not _SECRET_NAME.search(text):
        return text  # the common case, one scan instead of two substitutions

    def _multipart(m: re.Match[str]) -> str:
        return f"{m.group(1)}{REDACTED}" if is_secret_field(m.group(2)) else m.group(0)

    text = _JSON_PAIR.sub(_json, text)
    text = _MULTIPART_FIELD.sub(_multipart, text)
    return _FORM_PAIR.sub(_form, text)


# A JWT (header.payload[.signature], base64url JSON starting with "eyJ") anywhere in a text.
_JWT = re.compile(r"eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*)?")
# A long opaque run (session ids, API keys, hex or base64 digests): 24+ token characters.
_OPAQUE = re.compile(r"[A-Za-z0-9_+/-]{24,}={0,2}")


def _opaque(m: re.Match[str]) -> str:
    run = m.group(0)
    # Words (camelCase identifiers, kebab-case names) have no digits; tokens mix letters and digits.
    has_digit = any(c.isdigit() for c in run)
    has_alpha = any(c.isalpha() for c in run)
    return REDACTED if has_digit and has_alpha else run


def redact_tokens(text: str) -> str:
    """Mask what looks like a credential by its shape alone: JWTs and long runs mixing letters and digits.

    For values whose name says nothing (a ``localStorage`` key ``"state"`` holding a session id):
    the name-based rules above cannot see those.
    """
    return _OPAQUE.sub(_opaque, _JWT.sub(REDACTED, text))


def truncate_text(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters and whether it was cut."""
    if len(text) <= limit:
        return text, False
    return text[:limit], True
