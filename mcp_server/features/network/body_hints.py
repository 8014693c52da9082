"""What an answer says about a body it cannot show: why it is missing and the step that can work.

Why a module of its own: one generic line ("bodies of document/xhr/fetch responses are kept
automatically; repeat the request") sat in the very answer that said such a body was gone. Each
line here is chosen from what the recorder knows of that entry: its ``bodyState`` (held, pending,
failed, dropped, too_large, none), its type, whether the page navigated after it, and whether this
Chrome keeps bodies across navigations (``Network.configureDurableMessages``; an old Chrome
refuses it). Only what is true of the case is said, and the durable-messages caveat only where a
body was lost, never on every answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["BodyFacts", "missing_body_note", "save_failure_hint"]

#: Resource types whose bodies the recorder reads at once (cdp_core.recorders.network.model.EAGER_TYPES)
_EAGER = frozenset({"document", "xhr", "fetch"})
_REPEAT = "repeat the request to capture it"
_NOT_DURABLE = "this Chrome refused to keep bodies across navigations"


@dataclass(frozen=True)
class BodyFacts:
    """What the recorder knows around one entry's body."""

    #: whether Chrome keeps the page's bodies across navigations (None: not asked, e.g. not attached)
    durable: bool | None = None
    #: the first main-frame navigation after the entry, if any
    navigated_to: int | None = None
    #: bodies up to this size are read at once
    eager_max_bytes: int = 0


def _navigated(facts: BodyFacts) -> str:
    return f"the page navigated (#{facts.navigated_to}) before it was read" if facts.navigated_to else ""


def _lost(entry: dict[str, Any], facts: BodyFacts) -> str:
    """Why Chrome no longer has a response body we did not hold, as far as the recorder knows."""
    state, kind = entry.get("bodyState"), entry.get("resourceType")
    if state == "dropped":
        return "it was held, then dropped (oldest first) to stay within the held-body budget"
    if state == "too_large":
        why = f"it is over the {facts.eager_max_bytes} bytes read at once, so it was not held"
        return why + (f", and the page navigated (#{facts.navigated_to}) since" if facts.navigated_to else "")
    if kind not in _EAGER:
        why = "only document/xhr/fetch bodies are held; Chrome dropped this one"
        return why + (f" at the navigation (#{facts.navigated_to})" if facts.navigated_to else "")
    navigated = _navigated(facts)
    if navigated and facts.durable is False:
        return f"{navigated} and {_NOT_DURABLE}"
    return navigated or "Chrome dropped it before it was read"


def missing_body_note(entry: dict[str, Any], facts: BodyFacts) -> str | None:
    """``network_get``'s line for a response body it does not show, agreeing with ``bodyState``.

    None where there is nothing to say (a WebSocket, a held body, a 204)."""
    state, status = entry.get("bodyState"), entry.get("status")
    if entry.get("resourceType") == "websocket" or state == "held":
        return None
    if entry.get("redirectedTo") is not None:
        return f"a redirect hop has no body of its own: see #{entry['redirectedTo']}"
    if entry.get("failed") and status is None:
        return "no response arrived, so there is no body"
    if status == 204:
        return None
    if state == "pending":
        return "body being read from Chrome: network_get again in a moment"
    if not entry.get("finished"):
        return "body still loading: network_get again once it finished"
    if state == "failed":
        return f"body lost: {_lost(entry, facts)}; {_REPEAT}"
    if state in ("dropped", "too_large") and facts.navigated_to:
        return f"body not held: {_lost(entry, facts)}; Chrome may not have it either, {_REPEAT}"
    if state in ("dropped", "too_large"):
        return f"body not held: {_lost(entry, facts)}; network_save_body asks Chrome for it"
    if facts.navigated_to and facts.durable is False:
        return f"body not held and {_NOT_DURABLE} (#{facts.navigated_to} since): network_save_body may find it gone"
    return "body not held in memory: network_save_body asks Chrome for it"


def save_failure_hint(which: str, reason: str, entry: dict[str, Any] | None, facts: BodyFacts) -> str:
    """The next step beside ``BODY_UNAVAILABLE``: true for the reason the body is missing."""
    if which == "request":
        if reason == "no_request_body":
            return "this request sent no body (GET, HEAD...); body='response' saves what came back"
        return f"Chrome no longer has this request body and it was not read in time; {_REPEAT}"
    hints = {
        "websocket": "network_get shows its frames",
        "redirect_hop": "save the body of the entry it was redirected to",
        "no_response": "there was no response: network_get shows why the request failed",
        "not_finished": "wait for it to finish (wait_for network_idle=true), then save again",
        "tab_closed": f"the tab is gone with it; {_REPEAT} in an open tab",
        "over_chrome_limit": "Chrome never keeps a copy this large; network_get has its URL",
    }
    if reason in hints:
        return hints[reason]
    if entry is None:
        return _REPEAT
    return f"{_lost(entry, facts)}; {_REPEAT}"
