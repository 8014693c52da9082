"""With evaluate off, no URL argument may carry the agent's script: ``data:`` documents of an active type.

Why: ``BROWSER_EVALUATE_ENABLED=false`` promises that the agent runs no JavaScript of its own.
``javascript:`` URLs are refused by the URL policy whatever the setting, but a ``data:text/html``
URL is a whole document written by the agent, scripts and ``onload`` handlers included: opening it
with ``navigate`` or ``new_page`` ran the agent's code all the same. HTML, XHTML, SVG and XML
documents can all carry script, so with evaluate off those ``data:`` URLs are refused outright
(inert ones, ``data:text/plain`` or an image, still open). Telling markup with script from markup
without is not attempted: every element can carry an event handler.
"""

from __future__ import annotations

import urllib.parse

from targets.errors import ErrorCode, ToolFailure

__all__ = ["refuse_script_url"]

#: Media types whose documents run script (text/html is also what a bare ``data:,<script>`` is not:
#: without a type a data: URL is text/plain, inert).
_ACTIVE = ("html", "xhtml", "svg", "xml")


def refuse_script_url(url: str | None, *, evaluate_enabled: bool) -> None:
    """Raise EVALUATE_DISABLED when evaluate is off and ``url`` is a document that can run script."""
    if evaluate_enabled or not url:
        return
    text = urllib.parse.unquote(str(url)).strip().lower()
    if text.startswith("javascript:"):
        kind = "javascript:"
    elif text.startswith("data:"):
        media = text[5:].split(",", 1)[0].split(";", 1)[0].strip()
        if not any(word in media for word in _ACTIVE):
            return
        kind = f"data:{media}"
    else:
        return
    raise ToolFailure(
        ErrorCode.EVALUATE_DISABLED,
        f"a {kind} URL is a document that runs the caller's script, and evaluate is disabled on this server "
        "(BROWSER_EVALUATE_ENABLED=false)",
        hint="open an http(s) page of the app instead; data:text/plain and images still open",
    )
