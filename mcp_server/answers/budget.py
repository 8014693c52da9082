"""The answer-size rule, in one place: an answer's JSON is at most ``FACTOR`` x its text + a slack.

Why a module of its own: both renderings are the product (Claude Code and Codex hand the model
``JSON(structuredContent)`` and drop the text; other clients pass only the text), so neither may
carry much more than the other. Tests (tests/lean_util.py,
tests/mcp_server/answers/test_answer_size_per_action.py) and any server-side check read the
bound from here, so tightening it is one edit.

One rule, two units: ``FACTOR`` is the same in characters and in o200k tokens (what a model
pays); the slack is ``SLACK_TOKENS`` tokens, ``SLACK`` characters (``CHARS_PER_TOKEN`` each:
compact JSON of our answers runs at 3 to 3.5 characters per o200k token). The slack pays for
the envelope (``schemaVersion``, ``status``, a short ``message``, ``adapter`` through a condensed
tool) and a short answer's keys.

The numbers come from what every action answers on a test page
(tests/mcp_server/answers/test_answer_size_per_action.py prints each ratio). The factor is 1.3
because long row lists (``[3,"GET","fetch","/r?i=1"]`` against ``#3 GET fetch /r?i=1``,
tests/mcp_server/answers/test_paging_and_lean_answers.py) and a trace summary's nested tables
(tests/mcp_server/trace/test_trace_answer_size.py) need it. The slack is set by the worst short
answers: those carrying an absolute path beside the relative one the text names
(network_export_har's ``filePath``, load_state's ``path``) and debug_list; a median answer needs
far less.
"""

from __future__ import annotations

__all__ = [
    "FACTOR",
    "SLACK",
    "SLACK_TOKENS",
    "CHARS_PER_TOKEN",
    "json_limit",
    "token_limit",
    "within_budget",
]

#: How many times the text the JSON may take, in characters and in tokens alike.
FACTOR = 1.3
#: Tokens the JSON may take beyond that (the envelope and a short answer's keys).
SLACK_TOKENS = 100
#: Characters per token of the slack (compact JSON of our answers: 3 to 3.5 per o200k token).
CHARS_PER_TOKEN = 3.5
#: The slack in characters: the same rule, counted in characters.
SLACK = round(SLACK_TOKENS * CHARS_PER_TOKEN)


def json_limit(text_chars: int, *, factor: float = FACTOR, slack: int = SLACK) -> float:
    """The most characters an answer's compact JSON may take next to a text of ``text_chars``."""
    return factor * text_chars + slack


def token_limit(text_tokens: int, *, factor: float = FACTOR, slack: int = SLACK_TOKENS) -> float:
    """The most o200k tokens an answer's compact JSON may take next to a text of ``text_tokens``."""
    return factor * text_tokens + slack


def within_budget(text_chars: int, json_chars: int) -> bool:
    """Whether an answer keeps the rule (in characters: the unit the server can count)."""
    return json_chars <= json_limit(text_chars)
