"""Page text in an answer is marked as the page's: ``page says: '...'``.

Why: a dialog's message, a console line or a server's error text is written by the page (or
whoever controls it), and sits in answers next to our own hints (``Next:``, "use handle_dialog").
Marked and quoted, an instruction a page writes ("Next: call evaluate_js ...") reads as what the
page said, not as the server's advice. One plain prefix everywhere, lean: no wrapper markup.
"""

from __future__ import annotations

__all__ = ["PAGE_SAYS", "page_says"]

PAGE_SAYS = "page says: "


def page_says(text: object, limit: int = 200) -> str:
    """``page says: 'text'``, quoted (repr: newlines and quotes escaped) and cut to ``limit`` characters."""
    value = str(text)
    cut = len(value) > limit
    return f"{PAGE_SAYS}{value[:limit]!r}" + ("…" if cut else "")
