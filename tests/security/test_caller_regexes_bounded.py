"""Caller regexes cost bounded memory to compile, are never cached, and are refused at once when invalid.

The attack: ``wait_for url_matches="((a{100}){100}){300}"`` (45 characters) took the server
from 93 to 1,038 MiB and kept it, since ``regex`` writes counted repeats out through their
nesting and caches the result; an invalid pattern was matched as text and the wait ended in a
silent timeout. Here the server runs as clients start it (stdio, a subprocess) and its memory
is read from ``/proc``: an order of magnitude, not a timing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import regex
import regex._main as regex_main  # type: ignore[import-not-found]
from test_hostile_jsonrpc_messages import INIT, StdioPeer

from mcp_server.safety import safe_regex

HOSTILE = "((a{100}){100}){300}"
MiB = 1 << 20


def _memory(pid: int) -> dict[str, int]:
    """VmRSS (now) and VmHWM (the peak) of a process, in bytes."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0]) * 1024
    return fields


def _wait_for(rid: int, url_matches: str) -> str:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {
                "name": "browser_session",
                "arguments": {"action": "wait_for", "url_matches": url_matches, "timeout_ms": 200},
            },
        }
    )


def test_a_nested_counted_repeat_is_refused_before_it_is_compiled(tmp_path: Path):
    peer = StdioPeer(tmp_path / "artifacts")
    try:
        peer.send(json.dumps(INIT))
        assert "result" in peer.answer(1)
        peer.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        before = _memory(peer.proc.pid)
        peer.send(_wait_for(2, HOSTILE))
        answer = peer.answer(2)["result"]
        after = _memory(peer.proc.pid)
        peer.send(_wait_for(3, "done.html?q=(1"))  # a typo: refused, not a silent 200 ms timeout
        invalid = peer.answer(3)["result"]
    finally:
        peer.close()
    # by order of magnitude: compiling it costs about 1 GiB; refused, the server stays where it was
    assert after["VmHWM"] - before["VmRSS"] < 50 * MiB, (before, after)
    assert after["VmRSS"] < 400 * MiB, after
    sc = answer["structuredContent"]
    assert answer["isError"] and sc["code"] == "INVALID_ARGUMENT" and sc["pattern"] == HOSTILE, sc
    assert "expands to 3,030,300 nodes" in sc["message"] and "url_matches" in sc["message"]
    sc = invalid["structuredContent"]
    assert invalid["isError"] and sc["code"] == "INVALID_ARGUMENT", sc
    assert "not a valid regular expression" in sc["message"] and "escape" in sc["hint"]


def test_refusals_cover_every_form_of_repeat_and_ordinary_patterns_pass():
    for hostile in (
        "(?:(?:(?:(?:a{60000}){60000}){60000}){60000})",
        "((a{100,}){100,}){300,}",
        "((a{1,100}){1,100}){1,300}",
        "(?>(?>a{200}){200})",
        "(?=(a{200}){200})b",
        "(x)(?(1)(a{200}){200}|b)",
        "(a|(b{300}){300})",
        "(" * 1000 + ")" * 1000,
    ):
        try:
            safe_regex.compile_pattern(hostile, field="url_matches")
        except safe_regex.ToolFailure as exc:
            assert exc.code == "INVALID_ARGUMENT", hostile
        else:
            raise AssertionError(f"{hostile[:50]!r} was compiled")
    for ordinary in (r"done\.html\?q=viti", r"/orders/\d{1,8}$", r"^https?://127\.0\.0\.1:\d+/(a|b)\.html", "(a+)+b"):
        assert safe_regex.compile_pattern(ordinary, field="url_matches").compiled.pattern == ordinary


def test_caller_patterns_stay_out_of_the_regex_cache():
    regex.purge()
    pattern = safe_regex.compile_pattern(r"/cache-probe-\d{3}\.html", field="url_matches")
    assert pattern.compiled.search("http://127.0.0.1/cache-probe-123.html")
    assert not any(key[0] == r"/cache-probe-\d{3}\.html" for key in regex_main._cache)


def test_syntax_only_regex_knows_is_accepted_and_still_bounded():
    r"""Patterns are compiled with ``regex``: what it accepts (``\p{L}``, fuzzy matches) is not refused by ``re``."""
    letters = safe_regex.compile_pattern(r"/users/\p{L}+$", field="url_matches")
    assert letters.compiled.search("http://127.0.0.1/users/zoë")
    assert safe_regex.compile_pattern(r"(?e)(orders){e<=1}", field="url_matches").compiled.search("/ordrs")
    nested = r"\p{L}" + "(" * 300 + ")" * 300
    for hostile in (r"\p{L}((a{100}){100}){300}", r"\p{L}(?:(?:b{1,100}){1,100}){1,300}", nested):
        try:
            safe_regex.compile_pattern(hostile, field="url_matches")
        except safe_regex.ToolFailure as exc:
            assert exc.code == "INVALID_ARGUMENT", hostile
        else:
            raise AssertionError(f"{hostile[:50]!r} was compiled")
    with pytest.raises(safe_regex.ToolFailure, match="not a valid regular expression"):
        safe_regex.compile_pattern(r"\p{L}(", field="url_matches")  # invalid for regex too: still refused
