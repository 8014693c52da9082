"""The application error a response carries, as one line: the text the person saw, wherever it sits.

Why: real apps answer their own errors with a status that calls them fine. phpMyAdmin answers a
duplicate key with ``200 application/json {"success":false,"error":"<div class=\\"alert
alert-danger\\">…"}`` whose ``#1062 - Duplicate entry …`` sits some 1,200 characters in, past
every preview; WordPress answers ``{"success":false,"data":…}``, a bare ``-1`` or a
``text/xml`` ``<wp_ajax>`` whose ``<wp_error>`` holds the message; Laravel, Rails, Symfony,
ASP.NET, ColdFusion, JSON-RPC and GraphQL each have their shape; a form post comes back as a
page with an error block (Adminer's, never closed). Counted as nothing, the bundle said "0 failed, 0 HTTP
errors" beside the request that failed. This reads those shapes and quotes the message, its
HTML stripped, entities decoded, secrets masked, with the file and line it names.

Precision matters as much as recall: a false "error" sends the agent down the wrong path. Only
the top level of a JSON answer is read (a list of log rows with an ``error`` column, a form
field named ``error``, ``{"errors": []}`` and ``{"error": null}`` are not errors), a plain
``message`` is an error only with a failure flag or an error status, and an HTML block counts
only when its class, id or role says it is an error container and a reader would see its text
(with JavaScript on: WordPress's ``hide-if-js`` notices are not seen). tests/realapps runs this on
every answer of whole sessions of real apps; corpus/sessions keeps some of them.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

from cdp_core.recorders.redact import redact_secrets_in_text
from mcp_server.evidence.body_preview import html_text, looks_like_html

__all__ = ["app_error_in", "held_app_error", "APP_ERROR_CHARS"]

#: The longest line said of an application error
APP_ERROR_CHARS = 300
#: A body larger than this is not parsed as JSON (a data export, not an error answer)
_JSON_BYTES = 2 * 1024 * 1024
#: How much of an HTML body is read for error blocks
_HTML_BYTES = 512 * 1024

#: Keys whose string value is the message, the most telling first
_MESSAGE_KEYS = (
    "exceptionmessage",
    "error_description",
    "errormessage",
    "error_message",
    "errormsg",
    "hydra:description",
    "detail",
    "message",
    "msg",
    "description",
    "reason",
    "title",
    "hydra:title",
    "text",
)
#: Keys that name the message only in an object that describes an error (JSON:API's
#: ``{"status":"422","title":…}``), not in a map of fields (JSend's ``{"title":"A title is required"}``)
_WEAK_KEYS = frozenset({"title", "hydra:title", "text", "description"})
_DESCRIBED_BY = frozenset({"status", "code", "type", "detail", "source", "id", "@type"})
#: Status words that say a request failed (``status``, ``result``, ``outcome``)
_FAILED_WORDS = frozenset({"error", "fail", "failed", "failure", "ko"})
_STATUS_KEYS = ("status", "result", "outcome", "stat")
#: Values of an ``error`` key that say there is none
_NO_ERROR = frozenset({"", "0", "false", "no", "none", "null", "ok", "success", "nil", "undefined"})
#: Lines of an HTML message that are headings or buttons, not the message
_BOILERPLATE = re.compile(
    r"^(?:errors?|error!|warning|notice|alert|oops!?|an error occurred\.?|sql query:|mysql said:?|"
    r"static analysis:|documentation|copy|edit|create php code|close|dismiss|×|x|ok)$",
    re.IGNORECASE,
)
#: A database's own error line: the most specific text a message holds
_DB_ERROR = re.compile(r"(?:#\d{3,5} - |SQLSTATE\[|ORA-\d{4,5}\b|ERROR \d{4} \(|ERROR: {1,2}\S|\(HY\d{3}/\d{4}\))")
_IN_FILE = re.compile(r"\s+in\s+(\S*[/\\]\S*?\.\w{1,5})(?:\s+on\s+line\s+|:)(\d+)\b")
_FILE_LINE = re.compile(r"((?:[A-Za-z]:)?[/\\][\w.\-/\\]+\.(?:php|phtml|inc|py|rb|java|cs|cfm|cfc|js|ts|pl)):(\d+)\b")


def _cut(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > APP_ERROR_CHARS:
        text = text[: APP_ERROR_CHARS - 1] + "…"
    return redact_secrets_in_text(text)


def _with_place(message: str, path: str | None = None, line: Any = None) -> str:
    """``message (path:line)``: the file and line the text names (``in /x.php on line 12``) or the
    answer gives (Laravel's ``file`` and ``line``), said as server errors say them."""
    m = _IN_FILE.search(message)
    if m:
        message = (message[: m.start()] + message[m.end() :]).strip()
        path, line = m.group(1), m.group(2)
    elif path is None:
        found = _FILE_LINE.search(message)
        if found:
            return _cut(message)
    if path and line is not None:
        return _cut(f"{message} ({path}:{line})")
    return _cut(message)


def _html_message(markup: str) -> str:
    """The text of an HTML message, its most specific line first (a database's ``#1062 - …``),
    headings and buttons (``Error``, ``SQL query:``, ``Copy``) left out."""
    lines = [line for line in html_text(markup, 20_000).split("\n") if not _BOILERPLATE.match(line.strip())]
    for line in lines:
        if _DB_ERROR.search(line):
            return line
    return " ".join(lines)


def _as_text(value: Any, depth: int = 0, described: bool = False) -> str:
    """The message a JSON value holds ('' when none): a string (HTML stripped), the message key of
    an object, the messages of a list or of a field -> messages map (``email: is taken``).
    ``described``: the object is known to describe an error (the value of an ``error`` key)."""
    if depth > 4 or value is None or isinstance(value, bool):
        return ""
    if isinstance(value, (int, float)):
        return ""
    if isinstance(value, str):
        text = value.strip()
        if "<" in text and ">" in text:
            text = _html_message(text)
        return "" if text.lower() in _NO_ERROR else text
    if isinstance(value, list):
        texts = [t for t in (_as_text(v, depth + 1) for v in value[:5]) if t]
        return "; ".join(dict.fromkeys(texts))
    if isinstance(value, dict):
        low = {str(k).lower(): v for k, v in value.items()}
        described = described or depth == 0 or bool(_DESCRIBED_BY.intersection(low))
        for key in _MESSAGE_KEYS:
            if key in _WEAK_KEYS and not described:
                continue  # {"title": "A title is required"}: a field named title, not the message's title
            text = _as_text(low.get(key), depth + 1) if isinstance(low.get(key), str) else ""
            if text:
                code = low.get("code")
                if isinstance(code, str) and code and depth > 0:  # WP_Error's {"code":"invalid_nonce",…}
                    return f"{code} {text}" if code not in text else text
                return text
        for key in ("error", "errors", "exception", "violations", "modelstate", "data"):
            text = _as_text(low.get(key), depth + 1)
            if text:
                return text
        return _field_messages(value)
    return ""


def _field_messages(fields: dict[str, Any]) -> str:
    """``field: message`` of a validation map (Laravel, Rails, ASP.NET ModelState), '' if it is not one."""
    parts = []
    for name, value in list(fields.items())[:5]:
        items = value if isinstance(value, list) else [value]
        texts = [v.strip() for v in items if isinstance(v, str) and v.strip()]
        if not texts or len(texts) != len(items):
            return ""
        parts.append(f"{name}: {'; '.join(texts[:2])}")
    return ", ".join(parts)


def _failure_flag(low: dict[str, Any]) -> str | None:
    """The key and value that say the request failed (``success:false``), None if none does, "" if
    a flag says it succeeded (then nothing else in the answer is read as an error)."""
    for key in ("success", "ok", "succeeded"):
        value = low.get(key)
        if value is False or (isinstance(value, str) and value.lower() == "false"):
            return f"{key}:false"
        if value is True or (isinstance(value, str) and value.lower() == "true"):
            return ""
    for key in _STATUS_KEYS:
        value = low.get(key)
        if isinstance(value, str):
            if value.lower() in _FAILED_WORDS:
                return f'{key}:"{value}"'
            if value.lower() in ("ok", "success", "succeeded"):
                return ""
    if low.get("error") is True:
        return "error:true"
    return None


def _json_error(data: Any, status: int | None) -> str | None:
    """The application error of a parsed JSON answer (its top level only), or None."""
    if not isinstance(data, dict) or not data:
        return None
    low = {str(k).lower(): v for k, v in data.items()}
    place = (low.get("file"), low.get("line")) if isinstance(low.get("file"), str) else (None, None)
    flag = _failure_flag(low)
    if flag == "":
        return None
    rpc = low.get("error") if "jsonrpc" in low else None
    if isinstance(rpc, dict):
        text = _as_text(rpc)
        code = rpc.get("code")
        return _with_place(f"{code} {text}".strip() if code is not None else text or "JSON-RPC error")
    wp_status = (low.get("data") or {}).get("status") if isinstance(low.get("data"), dict) else None
    if isinstance(low.get("code"), str) and isinstance(low.get("message"), str) and isinstance(wp_status, int):
        if wp_status >= 400:  # WordPress REST: {"code":"rest_forbidden","message":…,"data":{"status":403}}
            return _with_place(f"{_as_text(low['message'])} ({low['code']})")
    if "exceptionmessage" in low or "exceptiontype" in low:  # ASP.NET Web API with error detail
        kind = low.get("exceptiontype")
        text = _as_text(low.get("exceptionmessage")) or _as_text(low.get("message"))
        return _with_place(f"{kind}: {text}" if isinstance(kind, str) and text else text or str(kind))
    errors = _as_text(low.get("errors"), 1) or _as_text(low.get("modelstate"), 1)
    error = _as_text(low.get("error"), 1, described=True)
    exception = _as_text(low.get("exception"), 1, described=True)
    message = next((t for k in _MESSAGE_KEYS if isinstance(low.get(k), str) and (t := _as_text(low[k]))), "")
    if errors:  # Laravel/ASP.NET put the summary beside the field errors: both, the summary first
        summary = message if message and message not in errors else ""
        return _with_place(f"{summary}: {errors}" if summary else errors, *place)
    if error:
        return _with_place(f"{error}: {message}" if message and message not in error else error, *place)
    if exception:  # Laravel in debug: {"message":…,"exception":"Illuminate\\…","file":…,"line":…}
        return _with_place(f"{exception}: {message}" if message else exception, *place)
    problem = isinstance(low.get("status"), int) and low["status"] >= 400 and ("title" in low or "detail" in low)
    hydra = "hydra:description" in low or str(low.get("@type", "")).endswith(("Error", "ConstraintViolationList"))
    if problem or hydra:
        return _with_place(message or "problem without a title", *place)
    if flag:
        text = message or _as_text(low.get("data"), 1)
        if text:
            return _with_place(text, *place)
        rest = [f"{k}={v}" for k, v in data.items() if str(k).lower() not in ("success", "ok") and _scalar(v)]
        return _cut(f"{flag} ({', '.join(rest[:4])})" if rest else flag)
    if message and (status is not None and status >= 400 or message.lower() == "an error has occurred."):
        return _with_place(message, *place)
    return None


def _scalar(value: Any) -> bool:
    """A flag worth saying beside ``success:false`` (``redirect_flag=1``; not an empty ``error``)."""
    return isinstance(value, (int, float, bool)) or (isinstance(value, str) and 0 < len(value.strip()) <= 40)


#: class or id tokens of an element that holds an error message
_ERROR_TOKENS = frozenset(
    {
        "alert-danger", "alert-error", "error", "errors", "errormsg", "errormessage", "error-message",
        "error_message", "error-msg", "notice-error", "login_error", "message-error", "flash-error",
        "form-error", "form-errors", "errorbox", "error-box", "errorlist", "validation-summary-errors",
        "field-validation-error", "ui-state-error", "is-danger", "text-danger", "callout-danger",
    }
)  # fmt: skip
#: class tokens of a role=alert element that say it is not an error
_NOT_ERROR_TOKENS = frozenset(
    {"alert-success", "alert-info", "success", "info", "notice-success", "notice-info", "updated", "alert-warning"}
)
#: words a role=alert element without an error class must hold to be read as an error
_ERROR_WORDS = re.compile(
    r"\b(?:error|failed|failure|invalid|denied|not allowed|forbidden|cannot|can't|could not|unable|"
    r"incorrect|wrong|required|expired|duplicate)\b",
    re.IGNORECASE,
)
_HIDDEN_TAGS = frozenset(
    {"button", "script", "style", "noscript", "template", "svg", "head", "title", "textarea", "select"}
)
#: classes that hide an element from a reader (WordPress's ``hide-if-js``: shown only without JavaScript)
_HIDDEN_CLASSES = frozenset(
    {"hidden", "d-none", "hide", "sr-only", "visually-hidden", "screen-reader-text", "hide-if-js"}
)
_NOT_CONTAINERS = frozenset({"html", "body", "main", "form", "table", "tbody", "thead", "tr", "input", "option"})
#: Tags that end an open ``<p>`` (HTML's rule: a paragraph cannot hold a block)
_CLOSES_P = frozenset(
    {
        "address", "article", "aside", "blockquote", "details", "div", "dl", "fieldset", "figure", "footer",
        "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "main", "menu", "nav", "ol", "p", "pre",
        "section", "table", "ul",
    }
)  # fmt: skip
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
)
#: class tokens of parts of a message that are not its text: Adminer's ``<span class='time'>``
_NOT_TEXT_CLASSES = frozenset({"time", "timestamp"})
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


class _ErrorBlocks(HTMLParser):
    """The visible text of the outermost error containers of a page (class, id or role says so)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        #: open elements: (tag, hidden, kind) where kind is "error", "alert" or ""
        self.stack: list[tuple[str, bool, str]] = []
        self.blocks: list[tuple[str, list[str]]] = []
        self.current: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _CLOSES_P and any(open_tag == "p" for open_tag, _h, _k in self.stack):
            self.handle_endtag("p")  # Adminer's <p class='error'>… is never closed: the <form> after it ends it
        if tag in _VOID:
            if tag == "br" and self.current is not None:
                self.current.append("\n")
            return
        a = {k: (v or "") for k, v in attrs}
        classes = set(a.get("class", "").lower().split())
        hidden = bool(
            tag in _HIDDEN_TAGS
            or "hidden" in a
            or a.get("aria-hidden") == "true"
            or _HIDDEN_STYLE.search(a.get("style", ""))
            or classes & _HIDDEN_CLASSES
            or self._control(tag, a, classes)
            or (self.stack and self.stack[-1][1])
        )
        kind = ""
        if not hidden and self.current is None and tag not in _NOT_CONTAINERS:
            if (classes | {a.get("id", "").lower()}) & _ERROR_TOKENS:
                kind = "error"
            elif a.get("role", "").lower() == "alert" and not classes & _NOT_ERROR_TOKENS:
                kind = "alert"
            if kind:
                self.current = []
                self.blocks.append((kind, self.current))
        elif self.current is not None and tag in ("p", "div", "li", "h1", "h2", "h3", "h4", "tr", "pre", "code"):
            self.current.append("\n")
        self.stack.append((tag, hidden, kind))

    def _control(self, tag: str, attrs: dict[str, str], classes: set[str]) -> bool:
        """A part of an error block that is not the message: its time (``<time>``, Adminer's
        ``<span class='time'>12:52:09</span>``) or a toggle link (``<a href='#sql-1'>SQL command</a>``)."""
        if self.current is None:
            return False
        if tag == "time" or classes & _NOT_TEXT_CLASSES:
            return True
        return tag == "a" and attrs.get("href", "").strip().lower().startswith(("#", "javascript:"))

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                for _tag, _hidden, kind in self.stack[i:]:
                    if kind:
                        self.current = None
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        if self.current is not None and not (self.stack and self.stack[-1][1]):
            self.current.append(data)


#: Visible error blocks of one page said at most (phpMyAdmin's failed login shows "Cannot log in
#: to the MySQL server" and, further down, the driver's "Access denied for user …")
_BLOCKS_SAID = 3


def _html_error(markup: str) -> str | None:
    """The visible error blocks of a page or fragment (the first few, each once), as one message."""
    parser = _ErrorBlocks()
    try:
        parser.feed(markup[:_HTML_BYTES])
        parser.close()
    except AssertionError:  # pragma: no cover - the stdlib parser on badly broken markup
        pass
    said: list[str] = []
    for kind, parts in parser.blocks:
        lines = [" ".join(line.split()) for line in "".join(parts).split("\n")]
        lines = [line for line in lines if line and not _BOILERPLATE.match(line)]
        if not lines:
            continue
        specific = next((line for line in lines if _DB_ERROR.search(line)), None)
        text = specific or " ".join(lines)
        if kind == "alert" and not _ERROR_WORDS.search(text):
            continue
        if text not in said:
            said.append(text)
        if len(said) == _BLOCKS_SAID:
            break
    return _with_place("; ".join(said)) if said else None


_WP_ERROR = re.compile(
    r"<wp_error\s+code=(['\"])(.*?)\1\s*>\s*(?:<!\[CDATA\[(.*?)\]\]>|([^<]*))\s*</wp_error>", re.DOTALL
)


def _wp_ajax_error(xml: str) -> str | None:
    """The ``<wp_error>`` messages of a WordPress ``WP_Ajax_Response`` (``text/xml``): the add-tag
    form's ``A term with the name provided already exists… (term_exists)``; None when it has none
    (a successful response carries the new row's HTML, not an error)."""
    said: list[str] = []
    for m in _WP_ERROR.finditer(xml[:_HTML_BYTES]):
        text = m.group(3) if m.group(3) is not None else m.group(4) or ""
        text = " ".join(html_text(text, 2_000).split()) if "<" in text or "&" in text else " ".join(text.split())
        line = f"{text} ({m.group(2)})" if text and m.group(2) else text or m.group(2)
        if line and line not in said:
            said.append(line)
    return _cut("; ".join(said)) if said else None


def app_error_in(
    body: bytes | str, mime: str = "", *, status: int | None = None, url: str = "", resource_type: str = ""
) -> str | None:
    """The application error a response carries (JSON shapes of real frameworks, a WordPress
    admin-ajax ``-1``/``0``, a visible HTML error block), as one short line; None if it carries none."""
    raw = body if isinstance(body, bytes) else body.encode("utf-8", "replace")
    if not raw or b"\x00" in raw[:512]:
        return None
    head = raw[:64].lstrip()
    mime = (mime or "").lower()
    bare = not mime or mime.startswith(("text/html", "text/plain"))  # wp_die's -1/0; a script's "0" is its code
    if len(raw) <= 8 and bare and "admin-ajax.php" in url and head.strip() in (b"-1", b"0"):
        what = "the nonce check failed" if head.strip() == b"-1" else "no handler for this action, or not logged in"
        return f"admin-ajax.php answered {head.strip().decode()} (WordPress: {what})"
    if "json" in mime or head[:1] in (b"{", b"["):
        if len(raw) > _JSON_BYTES:
            return None
        try:
            data = json.loads(raw.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            data = None
        if data is not None:
            return _json_error(data, status)
    if b"<wp_ajax" in raw[:512] and ("xml" in mime or head.startswith(b"<?xml")):
        return _wp_ajax_error(raw.decode("utf-8", "replace"))
    if resource_type in ("", "document", "xhr", "fetch") and (
        "html" in mime or looks_like_html(raw, mime) or head[:1] == b"<"
    ):
        return _html_error(raw[:_HTML_BYTES].decode("utf-8", "replace"))
    return None


def held_app_error(recorder: Any, entry: dict[str, Any]) -> str | None:
    """:func:`app_error_in` of the response body ``recorder`` holds for a document, XHR or fetch
    ``entry`` (None: another kind, no body held, or no application error in it)."""
    if entry.get("resourceType") not in ("document", "xhr", "fetch") or entry.get("status") is None:
        return None
    body = recorder.held_body(entry["id"])
    if not body:
        return None
    return app_error_in(
        body,
        entry.get("mimeType") or "",
        status=entry.get("status"),
        url=entry.get("url") or "",
        resource_type=entry.get("resourceType") or "",
    )
