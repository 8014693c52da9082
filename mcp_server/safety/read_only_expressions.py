"""With evaluate off, what a logpoint may log and a point's condition may test: reads, no code.

Why: ``BROWSER_EVALUATE_ENABLED=false`` promises that the agent runs no JavaScript of its own,
yet a logpoint's expression and a point's condition run in the page at every hit. The third attack
review sent ``(fetch('/log?c='+document.cookie), 1)`` as an expression and
``(document.title='AGENT_JS_RAN', false)`` as a condition, and both ran. So with evaluate off
they are kept to what reads the page's values: names, member paths (``a.b``, ``a[0]``,
``a["k"]``), literals, comparisons, ``!``, ``&&``, ``||``, parentheses around those, and several of
them separated by commas. Anything that calls, assigns, builds a function,
a template or an object (``(``after a value, ``=``, ``=>``, `````, ``{``, ``new``…) is refused
with the part that was not allowed. A getter the page defined may still run: that is the page's
code, not the agent's.
"""

from __future__ import annotations

import re

from targets.errors import ErrorCode, ToolFailure

__all__ = ["refuse_code_in", "read_only_problem"]

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<name>[A-Za-z_$][\w$]*)
    | (?P<number>(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?))
    | (?P<string>'(?:[^'\\\n]|\\[^\n])*'|"(?:[^"\\\n]|\\[^\n])*")
    | (?P<op>===|!==|==|!=|<=|>=|&&|\|\||\?\.|[.\[\](),!<>-])
    )""",
    re.VERBOSE,
)
#: words that build or run code, or change state, whatever follows them
_WORDS = frozenset(
    {"new", "delete", "function", "class", "import", "await", "yield", "async", "eval", "Function", "void", "in"}
)
_OPENS = {")": "(", "]": "["}
#: tokens after which ``(`` calls what came before
_CALLABLE_END = ("name", "string", ")", "]", "?.")


def read_only_problem(text: str) -> str | None:
    """Why ``text`` is more than a read (the first part that is not allowed), else None."""
    pos, last = 0, ""
    brackets: list[str] = []
    while text[pos:].strip():
        match = _TOKEN.match(text, pos)
        if match is None:
            return repr(text[pos:].strip()[:20])
        pos = match.end()
        kind = match.lastgroup or ""
        value = match.group(kind)
        if kind == "name" and value in _WORDS:
            return repr(value)
        if kind != "op":
            last = kind
            continue
        if value == "(" and last in _CALLABLE_END:
            return "a call"
        if value == "-" and last == "-":
            return "'--'"
        if value in "([":
            brackets.append(value)
        elif value in ")]" and (not brackets or brackets.pop() != _OPENS[value]):
            return f"an unbalanced {value!r}"
        last = value if value in (")", "]", "?.", "-") else "op"
    return "an unclosed bracket" if brackets else None


def refuse_code_in(text: str | None, what: str, *, evaluate_enabled: bool) -> None:
    """Raise EVALUATE_DISABLED when evaluate is off and ``text`` (a point's ``what``) does more than read."""
    if evaluate_enabled or not text:
        return
    problem = read_only_problem(text)
    if problem is None:
        return
    raise ToolFailure(
        ErrorCode.EVALUATE_DISABLED,
        f"evaluate is off on this server: a point's {what} may only read values (names, member paths,"
        f" literals, comparisons, !, &&, ||), and {problem} is more than that",
        hint='log the variables themselves, e.g. expression="order.id, order.total"',
    )
