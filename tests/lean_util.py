"""Checks every action's answer must pass: the two renderings say the same, at about the same size.

Use from any test that drives an action through a real MCP client::

    from lean_util import assert_lean, assert_carries

    result = await client.call_tool("browser_session", {"action": "console_list"})
    sc = assert_lean(result)                      # the answer-size bound, no nulls / empties
    assert_carries(result, "#3", "save failed")   # what the text says is in the JSON too

The bound (mcp_server/answers/budget.py, one constant set for every test): the compact JSON
of structuredContent (``json.dumps(sc, separators=(",", ":"), ensure_ascii=False)``) is at most
``FACTOR`` x the text + ``SLACK`` characters; the same rule in o200k tokens is ``FACTOR`` x +
``SLACK_TOKENS`` (:func:`bpe_tokens` counts them when bench/peers has the tokenizer;
tests/mcp_server/answers/test_answer_size_per_action.py holds every action to both).
"""

from __future__ import annotations

import importlib.util
import json
from typing import Any

from paths import ROOT

__all__ = [
    "FACTOR",
    "SLACK",
    "SLACK_TOKENS",
    "bpe_tokens",
    "assert_lean",
    "assert_carries",
    "structured_json",
    "answer_text",
    "empties",
    "records",
    "record",
]

from mcp_server.answers.budget import (  # the one rule, shared with the server
    FACTOR,
    SLACK,
    SLACK_TOKENS,
    json_limit,
)
from mcp_server.fixtures.answer_rows import record  # the one reader of rows, shared with mcp_server.testing.rows


def bpe_tokens(texts: list[str]) -> list[int] | None:
    """o200k counts of ``texts`` by bench/tokens.py (gpt-tokenizer in bench/peers), None without it.

    Loaded by path: ``tests/bench`` shadows the top-level ``bench`` package in tests.
    """
    spec = importlib.util.spec_from_file_location("bench_tokens", ROOT / "bench" / "tokens.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.bpe_tokens(texts, ROOT / "bench" / "peers")


def answer_text(result: Any) -> str:
    """The text content blocks, as a text-only client shows them to the model."""
    return "\n".join(getattr(block, "text", "") for block in result.content if getattr(block, "type", "") == "text")


async def session_call(client: Any, action: str, **args: Any) -> tuple[bool, dict[str, Any], str]:
    """``browser_session`` ``action``: (is it an error, its structuredContent, its text)."""
    result = await client.call_tool("browser_session", {"action": action, **args})
    return bool(result.is_error), result.structured_content or {}, answer_text(result)


def structured_json(result: Any) -> str:
    """``JSON(structuredContent)`` as Claude Code / Codex hand it to the model (compact)."""
    return json.dumps(result.structured_content, separators=(",", ":"), ensure_ascii=False)


#: get_capabilities' keys of the seed server, always there (false and null too): clients read them
SEED_KEYS = (
    "$.browser.supportsLaunch",
    "$.browser.supportsCdpAttach",
    "$.browser.activeTarget",
    "$.browser.launch.active",
    "$.browser.cdp.active",
)


def empties(value: Any, path: str = "$", skip: tuple[str, ...] = ()) -> list[str]:
    """Paths of null / false / empty values under dict keys (what the lean pass removes)."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}"
            if where in skip:
                continue
            if item is None or item is False or (isinstance(item, (list, dict)) and not item):
                found.append(where)
            else:
                found += empties(item, where, skip)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += empties(item, f"{path}[{i}]", skip)
    return found


def assert_lean(result: Any, *, verbatim: tuple[str, ...] = (), factor: float = FACTOR, slack: int = SLACK) -> dict:
    """Assert the answer's JSON is within ``factor`` x text + ``slack`` chars and has no null/empty keys.

    ``verbatim``: JSON paths (``$.result``) of page data kept as is (``Keep``). Returns the
    structuredContent.
    """
    assert result.structured_content is not None, "no structuredContent"
    text, js = answer_text(result), structured_json(result)
    limit = json_limit(len(text), factor=factor, slack=slack)
    assert len(js) <= limit, (
        f"structuredContent is {len(js)} chars, over {factor}x the text ({len(text)} chars) + {slack} = {limit:.0f}"
        f"\n--- text ---\n{text[:2000]}\n--- json ---\n{js[:2000]}"
    )
    found = empties(result.structured_content, skip=(*verbatim, *SEED_KEYS))
    assert not found, f"null/false/empty values in structuredContent: {found[:10]}"
    return result.structured_content


def assert_carries(result: Any, *needles: Any) -> None:
    """Each needle (str or number) appears in the text and in the JSON answer."""
    text, js = answer_text(result), structured_json(result)
    for needle in needles:
        if isinstance(needle, str):
            in_json = needle in js or json.dumps(needle, ensure_ascii=False)[1:-1] in js
        else:
            in_json = str(needle) in js
        assert str(needle) in text, f"{needle!r} missing from the text:\n{text[:1500]}"
        assert in_json, f"{needle!r} missing from structuredContent:\n{js[:1500]}"


def records(data: dict[str, Any], key: str = "entries") -> list[dict[str, Any]]:
    """The rows under ``key`` as dicts, read with the ``columns`` beside them (empty when absent)."""
    rows = data.get(key) or []
    columns = data.get("columns") or []
    out = [record(row, columns) for row in rows]
    for rec in out:  # what every row shares is said once, beside them
        rec.update(data.get("shared") or {})
    return out
