"""The answer-size rule, in one place: an answer's compact JSON is at most ``FACTOR`` x its text + ``SLACK``.

Why a module of its own: both renderings are the product (Claude Code and Codex hand the model
``JSON(structuredContent)`` and drop the text; other clients pass only the text), so neither may
carry much more than the other. Tests (tests/lean_util.py) and any server-side check read the
bound from here, so tightening it (issue 35, whole diagnoses) is one edit.
"""

from __future__ import annotations

__all__ = ["FACTOR", "SLACK", "json_limit", "within_budget"]

#: How many times the text's characters the compact JSON may take.
FACTOR = 1.3
#: Characters the JSON may take beyond that (envelope keys, a short answer's fixed cost).
SLACK = 400


def json_limit(text_chars: int, *, factor: float = FACTOR, slack: int = SLACK) -> float:
    """The most characters an answer's compact JSON may take next to a text of ``text_chars``."""
    return factor * text_chars + slack


def within_budget(text_chars: int, json_chars: int) -> bool:
    """Whether an answer keeps the rule."""
    return json_chars <= json_limit(text_chars)
