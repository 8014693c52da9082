"""Ask the person when the answer depends on them: which Chrome, which tab (MCP elicitation).

When attach finds several Chromes, or a tab's title or URL matches several tabs, the answer
is ``AMBIGUOUS_MATCH`` with candidates and the agent has to ask in chat. A client that
declares elicitation can show the person the choice directly; the call is then made again
for the one they chose, and its answer says so. The 2025 form asks with ``elicitation/create``
during the call; the 2026-07-28 form answers the call with an input-required result that the
client answers by calling again with the person's response. Without elicitation, or when the
person cancels, declines or does not answer in time, the answer is today's ``AMBIGUOUS_MATCH``
with a hint that says what happened: a clear answer, never a hang.

Only pure steps are here (which answers ask, the form, reading a response); the server
(:mod:`mcp_server.server.app`) sends the form and makes the call again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Choice", "choice_of", "form_schema", "chosen", "with_hint", "with_lead"]

#: the key of the person's answer in the form
FIELD = "choice"
LABEL_CHARS = 120


@dataclass(frozen=True)
class Choice:
    """What to ask, and for each option the ``browser_session`` arguments of the call it leads to."""

    message: str
    options: dict[str, dict[str, Any]]


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def _chrome(candidate: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    port = candidate.get("port")
    if not isinstance(port, int):
        return None
    where = candidate.get("profileDir")
    label = f"{candidate.get('browser') or 'Chrome'}, port {port}" + (f", profile {where}" if where else "")
    args = {"action": "attach_cdp", **({"user_data_dir": where} if where else {"cdp_url": f"http://127.0.0.1:{port}"})}
    return _cut(label), args


def _tab(candidate: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    page = candidate.get("stable_page_id")
    if not isinstance(page, str):
        return None
    label = f"{page}: {candidate.get('title') or '(untitled)'} <{candidate.get('url') or ''}>"
    return _cut(label), {"action": "select_page", "stable_page_id": page}


#: the actions whose ambiguity a person can settle, the question, and how a candidate becomes a call
_ASKS: dict[str, tuple[str, Callable[[dict[str, Any]], tuple[str, dict[str, Any]] | None]]] = {
    "attach_cdp": ("Several Chromes have remote debugging on. Which one should the agent attach to?", _chrome),
    "select_page_by_title": ("Several tabs match. Which tab should the agent look at?", _tab),
    "select_page_by_url": ("Several tabs match. Which tab should the agent look at?", _tab),
}


def choice_of(action: str | None, structured: dict[str, Any] | None) -> Choice | None:
    """The choice an ``AMBIGUOUS_MATCH`` answer of ``action`` puts to the person, or None."""
    if action not in _ASKS or not structured or structured.get("code") != "AMBIGUOUS_MATCH":
        return None
    question, option = _ASKS[action]
    options: dict[str, dict[str, Any]] = {}
    for candidate in structured.get("candidates") or []:
        made = option(candidate) if isinstance(candidate, dict) else None
        if made is not None and made[0] not in options:
            options[made[0]] = made[1]
    return Choice(question, options) if len(options) >= 2 else None


def form_schema(choice: Choice) -> dict[str, Any]:
    """The elicitation form: one required single-choice field (a titled enum)."""
    return {
        "type": "object",
        "properties": {
            FIELD: {
                "type": "string",
                "title": "Your choice",
                "oneOf": [{"const": k, "title": k} for k in choice.options],
            }
        },
        "required": [FIELD],
    }


def chosen(choice: Choice, action: str, content: dict[str, Any] | None) -> tuple[str, dict[str, Any]] | str:
    """(label, call arguments) of the person's answer, or the reason there is none (for the hint)."""
    if action == "decline":
        return "the person declined to choose"
    if action != "accept":
        return "the person cancelled the choice"
    label = (content or {}).get(FIELD)
    if not isinstance(label, str) or label not in choice.options:
        return "the person's answer matched none of the candidates"
    return label, choice.options[label]


def with_hint(structured: dict[str, Any], text: str, said: str) -> tuple[dict[str, Any], str]:
    """The ambiguous answer with what happened when the person was asked, first in its hint."""
    hint = structured.get("hint") or ""
    new_hint = f"Asked the person: {said}. {hint}".strip()
    data = {**structured, "hint": new_hint}
    return data, text.replace(hint, new_hint) if hint and hint in text else f"{text}\nNext: {new_hint}"


def with_lead(structured: dict[str, Any] | None, text: str, label: str) -> tuple[dict[str, Any] | None, str]:
    """The answer of the chosen call, saying first that the person chose."""
    lead = f"The person chose {label}."
    if structured is None:
        return None, f"{lead}\n{text}"
    message = structured.get("message")
    data = {**structured, "message": f"{lead} {message}" if message else lead}
    return data, f"{lead}\n{text}"
