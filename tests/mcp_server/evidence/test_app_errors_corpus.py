"""The application-error detector on a corpus of real shapes and their look-alikes: every error
quoted as its app says it, and nothing else called an error.

Pure logic (the detector reads bytes): the end-to-end tests of the answers that use it run in a
real Chromium (test_app_errors_in_answers.py). ``corpus/app_errors.json`` holds the shapes of the
frameworks, each with the line the answer must quote; ``corpus/real/`` holds bodies captured from
real applications (phpMyAdmin 5.2.1 so far), their token values redacted, with
the same expectations beside them; ``corpus/sessions/<app>/`` holds every document, XHR and fetch
answer of one whole recorded session of a real app (Adminer 4.8.1, WordPress 6.1: logins,
dashboards, heartbeats, the failing call), made by tests/realapps/session_corpus.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_server.evidence.app_errors import APP_ERROR_CHARS, app_error_in

CORPUS = Path(__file__).parent / "corpus"


def _cases() -> list[dict[str, Any]]:
    data = json.loads((CORPUS / "app_errors.json").read_text(encoding="utf-8"))
    cases = data["positives"] + data["lookalikes"]
    real = CORPUS / "real" / "index.json"
    if real.exists():
        for case in json.loads(real.read_text(encoding="utf-8")):
            case["body"] = (CORPUS / "real" / case.pop("file")).read_text(encoding="utf-8")
            cases.append(case)
    for index in sorted((CORPUS / "sessions").glob("*/index.json")):
        cases.extend(_session(index))
    return list(cases)


def _session(index: Path) -> list[dict[str, Any]]:
    """The answers of one recorded whole session, in the order the app sent them."""
    cases: list[dict[str, Any]] = json.loads(index.read_text(encoding="utf-8"))
    for case in cases:
        case["body"] = (index.parent / case.pop("file")).read_text(encoding="utf-8")
    return cases


def _detect(case: dict[str, Any]) -> str | None:
    body = json.dumps(case["json"], ensure_ascii=False) if "json" in case else case["body"]
    return app_error_in(
        body.encode("utf-8"), case["mime"], status=case["status"], url=case["url"], resource_type=case["type"]
    )


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_each_shape_is_quoted_and_each_look_alike_is_not_an_error(case: dict[str, Any]) -> None:
    assert _said(case, _detect(case)), (_detect(case), case["expect"])


def _said(case: dict[str, Any], found: str | None) -> bool:
    """Whether ``found`` is the expected quote (``match: prefix``: it starts with it; the rest of
    phpMyAdmin's login error, ``(using password: YES)``, is for the redaction rules to decide)."""
    if case["expect"] is None or found is None:
        return bool(found == case["expect"])
    return found.startswith(case["expect"]) if case.get("match") == "prefix" else found == case["expect"]


def test_precision_and_recall_on_the_whole_corpus() -> None:
    positives = [c for c in CASES if c["expect"] is not None]
    lookalikes = [c for c in CASES if c["expect"] is None]
    assert len(positives) >= 40 and len(lookalikes) >= 30
    found = {c["name"]: _detect(c) for c in CASES}
    true_pos = sum(1 for c in positives if _said(c, found[c["name"]]))
    false_pos = [c["name"] for c in lookalikes if found[c["name"]] is not None]
    flagged = true_pos + len(false_pos)
    precision = true_pos / flagged if flagged else 1.0
    recall = true_pos / len(positives)
    print(
        f"app errors corpus: {len(positives)} errors, {len(lookalikes)} look-alikes; "
        f"precision {precision:.0%}, recall {recall:.0%}"
    )
    assert (precision, recall, false_pos) == (1.0, 1.0, [])


def test_a_message_deep_in_a_long_body_is_quoted_whole_and_short() -> None:
    """phpMyAdmin's message sits ~1,200 characters in; a long one is cut to the line's size."""
    case = next(c for c in CASES if c["name"] == "phpmyadmin duplicate key")
    body = json.dumps(case["json"])
    assert body.index("#1062") > 1000  # past any preview of the body's head
    long = {"success": False, "message": "Bad row: " + "x" * 2000}
    said = app_error_in(json.dumps(long).encode(), "application/json")
    assert said is not None and len(said) == APP_ERROR_CHARS and said.endswith("…")


SESSIONS = sorted((CORPUS / "sessions").glob("*/index.json"))


@pytest.mark.parametrize("index", SESSIONS, ids=[p.parent.name for p in SESSIONS])
def test_a_whole_recorded_session_has_errors_only_where_the_app_failed(index: Path) -> None:
    """Precision on everything a real session sends: the flagged answers are exactly the failures."""
    cases = _session(index)
    assert len(cases) >= 5
    flagged = [(c["name"], found) for c in cases if (found := _detect(c)) is not None]
    assert flagged == [(c["name"], c["expect"]) for c in cases if c["expect"] is not None]
