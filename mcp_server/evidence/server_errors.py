"""The server-side error a response body holds, as one line: which error, which file, which line.

Why: on the stacks this tool is for, the server's error is often printed into a response the
status calls fine. A PHP notice written before the JSON of an AJAX save (``<b>Warning</b>:
Undefined variable $qty in <b>/var/www/html/save.php</b> on line <b>42</b>``) comes with a 200;
the page then fails on ``JSON.parse`` with ``Unexpected token '<'``, and the console error points
at the page's script, not at the server file that broke. ColdFusion, ASP.NET, Java and Python
error pages (with a 500, or a 200 from an error handler) name the file and line in kilobytes of
HTML. This finds that line in the body's visible text, so a follow-up and a bundle can say
``PHP Warning: Undefined variable $qty (/var/www/html/save.php:42)`` beside the request.

Only the known formats of those runtimes are read (no guessing from words such as "error"): a
page that talks about errors is not one.
"""

from __future__ import annotations

import re
from typing import Any

from cdp_core.recorders.redact import redact_secrets_in_text
from mcp_server.evidence.body_preview import html_text, looks_like_html

__all__ = [
    "server_error_in",
    "server_error_stack",
    "held_server_error",
    "held_server_stack",
    "SERVER_ERROR_CHARS",
    "STACK_FRAMES",
]

#: The longest line said of a server error
SERVER_ERROR_CHARS = 200
#: How much visible text is searched: the error is near the top of the page or of the body
_TEXT_CHARS = 20_000
#: How much of a body is read for that text
SCAN_BYTES = 64 * 1024

_PHP = re.compile(
    r"(?:^|\n)(?:PHP )?(Fatal error|Parse error|Warning|Notice|Deprecated|Strict Standards|"
    r"Catchable fatal error|Recoverable fatal error|Uncaught exception)\s*:\s+"
    r"([^\n]{1,400}?) in (\S*[./\\]\S*?)(?: on line |:)(\d+)\b"
)
_ASPNET = re.compile(r"Server Error in '[^']*' Application\.?")
_ASPNET_DETAILS = re.compile(r"Exception Details:\s*([^\n]+)")
_ASPNET_SOURCE = re.compile(r"Source File:\s*(\S[^\n]*?)\s+Line:\s*(\d+)")
_CF = re.compile(r"Error Occurred While Processing Request\s*\n([^\n]+)")
_CF_WHERE = re.compile(r"The error occurred in\s+([^\n]+?):\s*line\s*(\d+)", re.IGNORECASE)
_CF_ROBUST_OFF = re.compile(r"The web site you are accessing has\s+experienced an unexpected error")
_LUCEE = re.compile(r"Lucee [\d.]+ Error \(([\w.]+)\)")
_LUCEE_MESSAGE = re.compile(r"Message\s*\n?\s*([^\n]+)")
_PY = re.compile(r"Traceback \(most recent call last\):")
_PY_FILE = re.compile(r'File "([^"]+)", line (\d+)')
_PY_LAST = re.compile(r"^((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Warning)\b[^\n]*)$", re.M)
_JAVA = re.compile(
    r"\b((?:java|javax|jakarta|org|com|net|io)\.[\w$.]+?(?:Exception|Error))\b(?::[ \t]*([^\n]{0,300}))?"
)
_JAVA_AT = re.compile(r"\bat [\w$.<>]+\(([\w$]+\.java):(\d+)\)")


def _line(kind: str, message: str, where: str | None = None) -> str:
    text = f"{kind}: {' '.join(message.split())}"
    if where:
        text += f" ({where})"
    if len(text) > SERVER_ERROR_CHARS:
        text = text[: SERVER_ERROR_CHARS - 1] + "…"
    return redact_secrets_in_text(text)


def server_error_in(text: str) -> str | None:
    """The first server error of a known runtime in ``text`` (a body's visible text), as one line."""
    text = text[:_TEXT_CHARS]
    m = _worst_php(text)
    if m:
        level, message, path, line = m.groups()
        return _line(f"PHP {level}", message, f"{path}:{line}")
    if _ASPNET.search(text):
        details = _ASPNET_DETAILS.search(text)
        source = _ASPNET_SOURCE.search(text)
        message = details.group(1) if details else _after(text, _ASPNET) or "server error"
        return _line("ASP.NET", message, f"{source.group(1)}:{source.group(2)}" if source else None)
    m = _CF.search(text)
    if m:
        where = _CF_WHERE.search(text)
        return _line("ColdFusion", m.group(1), f"{where.group(1)}:{where.group(2)}" if where else None)
    if _CF_ROBUST_OFF.search(text):
        return _line("ColdFusion", "unexpected error, no details shown (robust exception information is off)")
    m = _LUCEE.search(text)
    if m:
        message = _LUCEE_MESSAGE.search(text, m.end())
        where = _CF_WHERE.search(text, m.end())
        detail = message.group(1) if message else m.group(1)
        return _line(f"Lucee {m.group(1)}", detail, f"{where.group(1)}:{where.group(2)}" if where else None)
    m = _PY.search(text)
    if m:
        files = _PY_FILE.findall(text, m.end())
        last = _PY_LAST.findall(text, m.end())
        if last:
            return _line("Python", last[-1], f"{files[-1][0]}:{files[-1][1]}" if files else None)
    m = _JAVA.search(text)
    if m:
        at = _JAVA_AT.search(text, m.end())
        if at:  # a stack trace, not a page that names an exception class
            message = m.group(1) + (f": {m.group(2)}" if m.group(2) else "")
            return _line("Java", message, f"{at.group(1)}:{at.group(2)}")
    return None


#: PHP levels that stop the script: the line that explains a 500, wherever notices precede it
_PHP_FATAL = ("Fatal error", "Parse error", "Catchable fatal error", "Recoverable fatal error", "Uncaught exception")
#: PHP levels that only warn (a script that went on)
_PHP_WARNING = ("Warning",)


def _worst_php(text: str) -> re.Match[str] | None:
    """The PHP message of the highest level in ``text``, the first of equals.

    Why not simply the first: a script that dies usually printed a ``Deprecated`` notice or a
    ``Warning`` on its way, and the notice is not why the request failed; the fatal error is.
    """
    best: re.Match[str] | None = None
    best_rank = -1
    for m in _PHP.finditer(text):
        level = m.group(1)
        rank = 2 if level in _PHP_FATAL else 1 if level in _PHP_WARNING else 0
        if rank > best_rank:
            best, best_rank = m, rank
            if rank == 2:
                break
    return best


#: Frames of a PHP fatal's stack quoted beyond its top (the one-line error names the top)
STACK_FRAMES = 5
#: The longest frame said
_FRAME_CHARS = 160
_PHP_STACK = re.compile(r"\nStack trace:[ \t]*\n((?:#\d+ [^\n]+(?:\n|$))+)")
_PHP_FRAME = re.compile(r"^#\d+ ((?:\S+?)\((\d+)\)|\[internal function\]): ([^\n(]+)\((.*)\)\s*$", re.M)


def server_error_stack(text: str) -> list[str]:
    """The frames of the stack a PHP fatal error (an uncaught exception) printed after its line,
    the first :data:`STACK_FRAMES`, each ``function (file:line)``: which caller passed what.

    Why: the error's line names the file that threw (often the framework's or the database
    layer's); the frames below name the app's own code that called it. Arguments are left out
    (``fn(…)``): PHP prints their values, a password among them, and no pattern masks a
    positional argument.
    """
    text = text[:_TEXT_CHARS]
    m = _worst_php(text)
    if m is None or m.group(1) not in _PHP_FATAL:
        return []
    stack = _PHP_STACK.search(text, m.end())
    if stack is None or text[m.end() : stack.start()].count("\n") > 2:
        return []
    frames = []
    for frame in _PHP_FRAME.finditer(stack.group(1)):
        place, line, function, args = frame.groups()
        where = "internal" if line is None else f"{place[: -len(line) - 2]}:{line}"
        said = f"{function.strip()}({'…' if args.strip() else ''}) ({where})"
        frames.append(redact_secrets_in_text(said[: _FRAME_CHARS - 1] + "…" if len(said) > _FRAME_CHARS else said))
        if len(frames) == STACK_FRAMES:
            break
    return frames


def _after(text: str, pattern: re.Pattern[str]) -> str | None:
    """The first line of text after ``pattern``'s match (a heading's message)."""
    m = pattern.search(text)
    if m is None:
        return None
    rest = [line for line in text[m.end() :].split("\n") if line.strip()]
    return rest[0] if rest else None


def _held_text(recorder: Any, entry_id: int) -> str | None:
    """The visible text of the response body ``recorder`` holds for an entry (None: none, binary)."""
    body = recorder.held_body(entry_id)
    if not body or b"\x00" in body[:512]:
        return None
    text: str = body[:SCAN_BYTES].decode("utf-8", "replace")
    if looks_like_html(body, "") or text.lstrip().startswith("<"):
        # a page, a fragment (<title>Error</title><p>...), or PHP's html_errors before a JSON body
        text = html_text(text, _TEXT_CHARS)
    return text


def held_server_error(recorder: Any, entry_id: int) -> str | None:
    """:func:`server_error_in` of the response body ``recorder`` holds for an entry (None: none held,
    binary, or no known error in it)."""
    text = _held_text(recorder, entry_id)
    return server_error_in(text) if text else None


def held_server_stack(recorder: Any, entry_id: int) -> list[str]:
    """:func:`server_error_stack` of the response body ``recorder`` holds for an entry."""
    text = _held_text(recorder, entry_id)
    return server_error_stack(text) if text else []
