"""What an audit line says of a call's arguments: secrets masked, typed text as its length, bounded.

Why a module of its own: the log (:mod:`mcp_server.safety.audit`) decides when and where a line is
written; this decides what the agent's arguments may show of the user's data. A fill into a
password field looks like any other fill, so every typed value is kept as its length only; a
script keeps its code with secret-looking literals masked; a hostile argument costs a bounded
walk.
"""

from __future__ import annotations

import json
import re
from typing import Any

from cdp_core.recorders.redact import REDACTED, is_secret_field, redact_secrets_in_text, redact_url

__all__ = ["redact_arguments", "shrunk_arguments"]

#: Arguments that carry what the agent types into the page: kept as a length only, at any
#: depth (fill_form's ``fields``), since a fill into a password field looks like any other fill.
_TYPED_VALUE_KEYS = frozenset({"value", "text", "prompt_text", "values"})
#: Arguments that are JavaScript: kept, with secret-looking literals masked.
_SCRIPT_KEYS = frozenset({"expression", "predicate", "function"})
#: Keystroke arguments: named keys (Enter, Tab, Control+A) are kept, typed characters are not.
_KEYSTROKE_KEYS = frozenset({"key", "keys"})
#: Keys that are not secrets although the shared predicate says "key"/"token" (structural arguments).
_NOT_SECRET = frozenset({"key", "keys"})
_MAX_STRING = 300
_MAX_DEPTH = 6
_MAX_ITEMS = 50
#: Values (nodes) visited per call at most: a hostile argument costs the log a bounded walk.
_NODE_BUDGET = 2000
_VALUE_ASSIGN = re.compile(
    r"""((?:\.value|\.innerText|\.textContent)\s*=\s*|setAttribute\(\s*['"]value['"]\s*,\s*|\.fill\([^,]*,\s*|\.type\([^,]*,\s*)"""
    r"""("(?:\\.|[^"\\])*(?:"|$)|'(?:\\.|[^'\\])*(?:'|$)|`(?:\\.|[^`\\])*(?:`|$))"""
)


# ``token === 'abc'``, ``x.csrf != "abc"``: a secret-named name compared with a literal.
_COMPARED = re.compile(
    r"""(?P<lhs>(?P<name>[A-Za-z_$][\w$]{0,99})\s*[!=]==?\s*)"""
    r"""(?P<value>"(?:\\.|[^"\\])*(?:"|$)|'(?:\\.|[^'\\])*(?:'|$)|`(?:\\.|[^`\\])*(?:`|$)|-?\d[\d.]*)"""
)


_LITERAL = r"""(?P<value>"(?:\\.|[^"\\])*(?:"|$)|'(?:\\.|[^'\\])*(?:'|$)|`(?:\\.|[^`\\])*(?:`|$))"""
# ``localStorage.setItem('token', '...')``, ``headers.set("Authorization", "...")``, ``fd.append('pw', '...')``:
# a secret-named string argument followed by the literal stored under it.
_NAMED_ARGUMENT = re.compile(r"""(?P<lhs>(?P<q>["'`])(?P<name>[^"'`\\\n]{1,100})(?P=q)\s*,\s*)""" + _LITERAL)
# ``btoa('user:password')``: what is encoded is a credential more often than not (Basic auth).
_ENCODED = re.compile(r"""(?P<lhs>\b(?:btoa|atob)\s*\(\s*)""" + _LITERAL)


class _Budget:
    def __init__(self, nodes: int) -> None:
        self.left = nodes

    def take(self) -> bool:
        self.left -= 1
        return self.left >= 0


def _keystroke(value: Any) -> Any:
    """``Enter``, ``Control+A`` stay; a typed character (``a``, ``Shift+A``) becomes its length."""
    if not isinstance(value, str):
        return value
    *mods, last = value.split("+") if value != "+" else ["+"]
    if len(last) == 1 and set(m.lower() for m in mods) <= {"shift"}:
        return "[1 chars]"
    return value[:_MAX_STRING]


def _script(value: str) -> str:
    """A script argument with literals that look like secrets (and values it types) masked."""
    masked = _VALUE_ASSIGN.sub(lambda m: m.group(1) + m.group(2)[:1] + REDACTED + m.group(2)[:1], value)

    def compared(m: re.Match[str]) -> str:
        if not is_secret_field(m.group("name")):
            return m.group(0)
        quote = m.group("value")[:1]
        return m.group("lhs") + (quote + REDACTED + quote if quote in "'\"`" else REDACTED)

    def named(m: re.Match[str]) -> str:
        if not is_secret_field(m.group("name")):
            return m.group(0)
        quote = m.group("value")[:1]
        return m.group("lhs") + quote + REDACTED + quote

    masked = _COMPARED.sub(compared, masked)
    masked = _NAMED_ARGUMENT.sub(named, masked)
    masked = _ENCODED.sub(lambda m: m.group("lhs") + m.group("value")[:1] + REDACTED + m.group("value")[:1], masked)
    return redact_secrets_in_text(masked)


def _string(value: str) -> str:
    if "://" in value[:20]:
        value = redact_url(value)
    value = redact_secrets_in_text(value)
    if len(value) > _MAX_STRING:
        return value[:_MAX_STRING] + f"...[{len(value)} chars]"
    return value


def _typed(value: Any) -> str:
    if isinstance(value, str):
        return f"[{len(value)} chars]"
    if isinstance(value, (list, dict)):
        return f"[{len(value)} items]"
    return "[1 items]"


def _redact(value: Any, key: str | None, depth: int, budget: _Budget) -> Any:
    if not budget.take():
        return "[more]"
    if key is not None:
        if key in _TYPED_VALUE_KEYS and value is not None:
            return _typed(value)
        if key in _KEYSTROKE_KEYS:
            return [_keystroke(v) for v in value[:_MAX_ITEMS]] if isinstance(value, list) else _keystroke(value)
        if key not in _NOT_SECRET and is_secret_field(key):
            return REDACTED
        if key in _SCRIPT_KEYS and isinstance(value, str):
            value = _script(value)
    if isinstance(value, dict | list | tuple) and depth >= _MAX_DEPTH:
        return "[nested]"  # a hostile, deeply nested argument must not cost the call its log line
    if isinstance(value, dict):
        items = list(value.items())
        out = {str(k)[:100]: _redact(v, str(k), depth + 1, budget) for k, v in items[:_MAX_ITEMS]}
        if len(items) > _MAX_ITEMS:
            out["[more fields]"] = len(items) - _MAX_ITEMS
        return out
    if isinstance(value, list | tuple):
        return [_redact(v, None, depth + 1, budget) for v in value[:_MAX_ITEMS]]
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        return f"[integer of {len(str(abs(value))) if abs(value) < 10**4000 else 'over 4000'} digits]"
    return value


def redact_arguments(arguments: dict[str, Any] | None) -> dict[str, Any]:
    """A copy of a call's arguments fit for the log: secrets masked, typed text as its length, bounded."""
    result = _redact(dict(arguments or {}), None, 0, _Budget(_NODE_BUDGET))
    return result if isinstance(result, dict) else {"[arguments]": result}


def shrunk_arguments(arguments: Any) -> Any:
    """Arguments that made the line too long: names and sizes only."""
    if not isinstance(arguments, dict):
        return "[too large]"
    summary: dict[str, Any] = {}
    for key, value in list(arguments.items())[:20]:
        text = json.dumps(value, ensure_ascii=False, default=str)
        summary[str(key)[:60]] = value if len(text) <= 80 else f"[{len(text)} chars]"
    return summary
