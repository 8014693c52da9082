"""Prompt-submit hook: spot "Chrome is already open" in the user's prompt and say how to attach.

Agents default to ``navigate``, which in the user's own Chrome would throw away exactly the
state they want debugged (a half-filled form, the error on screen). A client hook
(Claude Code ``UserPromptSubmit``, the Codex equivalent) runs
``mcp-browser hook user-prompt`` with the hook JSON on stdin; when the prompt says the
browser is already open, we print one line that both clients add to the model's context.

Rules this module keeps, because it runs on every prompt the user types:

- it only reads stdin and prints; it never executes, opens or contacts anything;
- it exits 0 whatever it gets (bad JSON, binary, nothing), so it can never block a prompt;
- it stays silent unless a phrase clearly says the browser or tab is already there.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from typing import Any

__all__ = ["HINT", "extract_prompt", "hint_for", "main", "says_chrome_is_open"]

HINT = (
    "mcp-browser: the user says Chrome is already open. Use the mcp-browser-automation skill: "
    "browser_session action=attach_cdp, then action=list_pages / action=select_page_by_url and "
    "action=debug_bundle, instead of action=navigate; never navigate, reload or close the user's tab."
)

#: Hook payloads are small; a cap keeps a pathological stdin from slowing every prompt down.
MAX_INPUT_BYTES = 1 << 20

#: Keys under which known clients put the prompt text (Claude Code: ``prompt``; Codex: ``prompt``
#: or ``event.user_prompt``; others: ``input``, ``message``...). Checked in this order.
_PROMPT_KEYS = ("prompt", "user_prompt", "userPrompt", "input", "message", "text", "content", "query")
_NESTED_KEYS = ("event", "payload", "data", "params", "hook_input")

_BROWSER = r"(?:google\s+)?(?:chrome|chromium|browser)"
_IT_BROWSER = r"(?:il\s+|un\s+)?(?:mio\s+)?(?:chrome|chromium|browser)"
_GAP = r"[^.?!\n]{0,40}?"  # a few words inside one sentence

# Each pattern is run on the normalised prompt: lower case, accents stripped ("già" -> "gia",
# "è" -> "e"), curly quotes straightened, whitespace collapsed.
_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p)
    for p in (
        # --- English: the browser is already open / running
        rf"\b{_BROWSER}\b{_GAP}\b(?:already|still)\s+(?:open|opened|running|up|launched|started)\b",
        rf"\balready\s+(?:have|got|opened|open|running|launched|started)\b{_GAP}\b{_BROWSER}\b",
        rf"\b(?:have|got|keep|left)\s+(?:my\s+|the\s+|a\s+)?{_BROWSER}\b[^.?!\n]{{0,30}}?\bopen\b(?![\s-]*source)",
        rf"\b{_BROWSER}\s+(?:is|'s)\s+(?:open|opened)\b(?![\s-]*source)",
        # --- English: the tab / page the user is on
        r"\b(?:tab|page|window)\s+(?:that\s+)?(?:i'?m|i\s+am|i'?ve|i\s+have)\s+(?:currently\s+|already\s+)?"
        r"(?:on|in|at|looking\s+at|viewing|using|open|opened|got\s+open)\b",
        rf"\b(?:use|using|stay\s+on|stay\s+in|keep|attach\s+to|with|from)\s+(?:the|my|this)\s+"
        rf"(?:current|active|open|existing|same)\s+(?:{_BROWSER}\s+)?tab\b",
        # --- English: do not start over
        r"\b(?:don'?t|do\s+not|never|no\s+need\s+to)\s+(?:re-?)?navigat\w*+(?!\s+away)",
        r"\bwithout\s+(?:re-?)?navigating\b(?!\s+away)",
        r"\b(?:don'?t|do\s+not|never)\s+(?:reload|refresh)\w*\s+(?:the\s+|this\s+|my\s+)?(?:page|tab|browser|chrome)\b",
        r"\b(?:don'?t|do\s+not|no\s+need\s+to)\s+start\s+(?:all\s+)?over\b",
        r"\b(?:don'?t|do\s+not)\s+(?:open|launch|start)\s+(?:a\s+)?(?:new|another|fresh|second)\s+"
        r"(?:browser|chrome|chromium|window)\b",
        # --- English: attach to the user's browser
        rf"\b(?:attach|connect|hook)\w*\s+(?:in)?to\s+(?:my|your|the\s+(?:open|running|existing))\s+"
        rf"(?:open\s+|running\s+|existing\s+)?{_BROWSER}\b",
        r"\battach_cdp\b|\bremote[\s-]debugging[\s-]port\b|\b(?:localhost|127\.0\.0\.1):9222\b",
        # --- Italian: il browser e' gia' aperto / ho gia' aperto chrome
        rf"\b{_BROWSER}\b{_GAP}\bgia\s+(?:aperto|aperta|avviato|acceso|attivo|lanciato|in\s+esecuzione)\b",
        rf"\bgia\s+(?:aperto|avviato|lanciato|acceso)\s+{_IT_BROWSER}\b",
        rf"\b(?:ho|abbiamo|tengo|hai)\s+(?:gia\s+)?{_IT_BROWSER}\s+(?:gia\s+)?(?:aperto|avviato|acceso)\b",
        rf"\bho\s+(?:gia\s+)?aperto\s+{_IT_BROWSER}\b",
        rf"\b{_BROWSER}\s+e\s+(?:gia\s+)?aperto\b",
        r"\bpagina\b[^.?!\n]{0,25}?\bgia\s+aperta\b|\bgia\s+aperto\s+la\s+pagina\b",
        # --- Italian: la tab che sto guardando
        r"\b(?:tab|scheda|pagina|finestra)\s+che\s+(?:sto\s+(?:guardando|vedendo|usando|visualizzando)|"
        r"stavo\s+(?:guardando|vedendo|usando)|ho\s+(?:gia\s+)?(?:aperto|aperta|davanti)|tengo\s+aperta|vedo)\b",
        r"\b(?:usa|usare|utilizza|resta|rimani|lavora|collegati|agganciati|attaccati)\b[^.?!\n]{0,15}?"
        r"\b(?:tab|scheda)\s+(?:corrente|attuale|attiva|aperta|gia\s+aperta)\b",
        # --- Italian: non navigare / non ripartire da capo
        r"\b(?:non|senza)\s+(?:ri)?navigar\w*",
        r"\bnon\s+(?:ricaricare|ricaricarla|aggiornare|refreshare)\s+(?:la\s+)?(?:pagina|tab|scheda)\b",
        r"\bnon\s+(?:ripartire|ricominciare|rifare\s+tutto)\s+(?:da\s+)?(?:capo|zero)\b",
        r"\bnon\s+(?:aprire|lanciare|avviare)\s+(?:un\s+)?(?:nuovo|altro)\s+(?:browser|chrome|chromium)\b",
        r"\bnon\s+riaprire\s+(?:il\s+)?(?:browser|chrome|chromium)\b",
        # --- Italian: collegati al mio chrome
        r"\b(?:collegati|collegarti|connettiti|connetterti|agganciati|agganciarti|attaccati|attaccarti)\b"
        r"[^.?!\n]{0,15}?\b(?:chrome|chromium|browser)\b",
    )
)


def _normalise(text: str) -> str:
    """Lower case, accents stripped, quotes straightened: one spelling for the patterns."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("`", "'").replace("\u00b4", "'")
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return re.sub(r"\s+", " ", stripped.lower())


def says_chrome_is_open(prompt: str) -> bool:
    """True when the prompt says the browser (or the tab to use) is already open."""
    if not prompt or not prompt.strip():
        return False
    text = _normalise(prompt)
    return any(p.search(text) for p in _PATTERNS)


def hint_for(prompt: str) -> str | None:
    """The one-line hint for ``prompt``, or None when the prompt does not call for it."""
    return HINT if says_chrome_is_open(prompt) else None


def _text_of(value: Any, depth: int = 0) -> str | None:
    """Prompt text from a payload value: a string, a list of messages, or a nested object."""
    if depth > 4:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [t for t in (_text_of(v, depth + 1) for v in value) if t]
        return "\n".join(parts) if parts else None
    if isinstance(value, dict):
        for key in _PROMPT_KEYS + _NESTED_KEYS:
            if key in value:
                found = _text_of(value[key], depth + 1)
                if found:
                    return found
    return None


def extract_prompt(raw: str) -> str:
    """The prompt inside a hook payload: JSON object from a client, a JSON string, or plain text."""
    stripped = raw.strip()
    if not stripped:
        return ""
    try:
        payload = json.loads(stripped)
    except ValueError:
        return raw  # plain text (or broken JSON): read it as the prompt itself
    return _text_of(payload) or ""


def _read_stdin() -> str:
    try:
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES)
    except (OSError, ValueError, AttributeError):
        return ""
    return data.decode("utf-8", errors="replace")


def _user_prompt() -> int:
    hint = hint_for(extract_prompt(_read_stdin()))
    if hint:
        print(hint)
    return 0


def main(argv: list[str] | None = None) -> int:
    """``mcp-browser hook user-prompt``: print the attach hint when the stdin prompt calls for it.

    Always returns 0: a hook that fails would block or clutter the user's prompt.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "hook":
        args = args[1:]
    try:
        if not args or args[0] == "user-prompt":
            return _user_prompt()
        print(f"mcp-browser hook: unknown event {args[0]!r} (known: user-prompt)", file=sys.stderr)
    except Exception as exc:  # never let a hook crash a prompt
        print(f"mcp-browser hook: ignored error: {exc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
