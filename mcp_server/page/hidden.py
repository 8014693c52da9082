"""Timings of a tab in the background are Chrome's throttling, not the person's: one note, said first.

Chrome throttles a hidden tab: its requests wait in Chrome's queue, its timers wake once a second
(once a minute after five minutes hidden) and it paints no frames. A phpMyAdmin page that loads in
1.7 s in front took 6.8 s behind another tab, its 435-byte icons 5.5 s each, all of it queueing. Every
answer that reports how long a load took (a trace, a load still going at the call bound, a wait for a
load state or for the network to go idle) says so first when the tab is hidden, in the same words,
in the text and as ``visibility`` and ``warning`` in the JSON.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from targets import PageHandle

__all__ = ["HIDDEN_WARNING", "hidden_fields", "hidden_first", "hidden_line"]

#: What an answer with timings of a hidden tab says first.
HIDDEN_WARNING = (
    "Chrome throttles loading and timers in a background tab (requests wait in its queue, timers wake "
    "once a second, no frames are painted), so these timings are not what the person sees"
)


def hidden_line() -> str:
    """The first line of such an answer's text."""
    return f"The tab is hidden (in the background): {HIDDEN_WARNING}."


async def hidden_fields(page: PageHandle | None) -> dict[str, Any]:
    """``{"visibility": "hidden", "warning": ...}`` when ``page`` is in the background now, else nothing
    (a page that does not answer is not said to be hidden)."""
    if page is None or page.closed or not await page.is_hidden(timeout=2):
        return {}
    return {"visibility": "hidden", "warning": HIDDEN_WARNING}


def hidden_first(fields: dict[str, Any], text: str, data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``text`` and ``data`` with the hidden note first, when ``fields`` (of :func:`hidden_fields`) say so."""
    if not fields:
        return text, data
    return f"{hidden_line()}\n{text}", {**fields, **data}
