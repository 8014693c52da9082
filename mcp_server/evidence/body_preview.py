"""The inline preview of a response body: what a reader of the page would see, secrets masked.

Why not the body's first characters: the error page of a PHP, ColdFusion, Django or Laravel
app starts with kilobytes of ``<head>``, ``<style>`` and ``<script>``; its first 400 characters
are CSS, and the message the agent needs ("The value x cannot be converted to a number",
"Division by zero") comes much later. An HTML body is previewed as its title and visible text;
any other text body as it is. Either way the preview goes through the same secret patterns as a
request payload (a login answer's ``access_token``, a JWT), since it is printed inline; the
saved file keeps the body as the server sent it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from cdp_core.recorders.network import is_text_mime
from cdp_core.recorders.redact import redact_secrets_in_text

__all__ = [
    "readable_preview",
    "held_response_preview",
    "html_text",
    "looks_like_html",
    "HTML_SCAN_BYTES",
    "RESPONSE_PREVIEW_CHARS",
]

#: What an answer prints of a response body inline (debug_bundle, network_get).
RESPONSE_PREVIEW_CHARS = 400

#: How much of an HTML body is read for its text: an error page's message is in its first
#: hundreds of kilobytes even when a framework inlines its whole stylesheet first.
HTML_SCAN_BYTES = 512 * 1024
#: Elements whose content no reader sees.
_HIDDEN = frozenset({"script", "style", "noscript", "template", "svg"})
#: Elements that end a line of text (a heading, a paragraph, a table row, a list item...).
_BLOCKS = frozenset(
    {
        "p", "div", "br", "h1", "h2", "h3", "h4", "h5", "h6", "li", "tr", "table", "pre", "section",
        "article", "header", "footer", "main", "form", "ul", "ol", "dl", "dt", "dd", "blockquote", "hr",
        "title", "body", "fieldset", "legend", "label", "caption",
    }
)  # fmt: skip
#: Elements whose text runs on beside the previous one's, after a space (table cells).
_CELLS = frozenset({"td", "th"})
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_HTML_START = re.compile(rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.IGNORECASE | re.DOTALL)


class _Enough(Exception):
    """Raised from the parser once the text is long enough: the rest of the page is not read."""


class _TextOf(HTMLParser):
    def __init__(self, limit: int) -> None:
        super().__init__(convert_charrefs=True)
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.hidden = 0
        self.in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self.in_title = True
        elif tag in _HIDDEN:
            self.hidden += 1
        if tag in _BLOCKS:
            self.parts.append("\n")
        elif tag in _CELLS:
            self.parts.append(" ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        elif tag in _HIDDEN and self.hidden:
            self.hidden -= 1
        if tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.hidden and not self.in_title:
            return
        self.parts.append(data)
        self.size += len(data.strip())
        if self.size > self.limit:
            raise _Enough


def html_text(html: str, limit: int) -> str:
    """The title and visible text of ``html``, one line per block, about ``limit`` characters of it."""
    parser = _TextOf(limit)
    try:
        parser.feed(html)
        parser.close()
    except _Enough:
        pass
    except AssertionError:  # pragma: no cover - the stdlib parser on badly broken markup
        pass
    lines = [line for line in (_SPACES.sub(" ", raw).strip() for raw in "".join(parser.parts).split("\n")) if line]
    if len(lines) > 1 and lines[1] == lines[0]:  # a title repeated by the first heading: once
        del lines[1]
    return "\n".join(lines)


def looks_like_html(data: bytes, mime: str) -> bool:
    return "html" in mime.lower() or bool(_HTML_START.match(data[:1024]))


def readable_preview(data: bytes, mime: str, limit: int) -> tuple[str, bool]:
    """(preview, is_page_text) of a text body: an HTML page's visible text, else the text itself;
    at most ``limit`` characters (``…`` when cut), secrets masked."""
    if looks_like_html(data, mime):
        text = html_text(data[:HTML_SCAN_BYTES].decode("utf-8", "replace"), limit)
        if text:
            cut = text[:limit] + ("…" if len(text) > limit else "")
            return redact_secrets_in_text(cut), True
    decoded = data[: limit * 4].decode("utf-8", "replace")
    cut = decoded[:limit] + ("…" if len(decoded) > limit or len(data) > limit * 4 else "")
    return redact_secrets_in_text(cut), False


def held_response_preview(recorder: Any, entry: dict[str, Any]) -> tuple[str, bool] | None:
    """:func:`readable_preview` of the response body ``recorder`` holds for ``entry`` (None: none held,
    or not text): what debug_bundle and network_get print of the answer a request got."""
    body = recorder.held_body(entry["id"])
    mime = entry.get("mimeType") or ""
    if not body or not is_text_mime(mime):
        return None
    return readable_preview(body, mime, RESPONSE_PREVIEW_CHARS)
