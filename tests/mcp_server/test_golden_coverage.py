"""Every action the server lists has a golden answer (tests/golden.py, docs/testing.md#golden-answers).

The actions are read from the server itself (``tools/list``: the ``action`` enum of
``browser_session`` and ``browser_interact``), so a new action without a golden file fails here,
and a golden file of an action that is gone fails too.
"""

from __future__ import annotations

import json

from golden import ROOT, action_of, golden_files, unlayout

#: Actions allowed to have no golden yet, each with the reason. Empty: every action has one.
#: An entry here must really be missing (the test fails when it is covered, so the list shrinks).
NO_GOLDEN_YET: dict[str, str] = {}


async def _listed_actions(client) -> set[str]:
    listed = await client.list_tools()
    actions: set[str] = set()
    for tool in listed.tools:
        if tool.name in ("browser_session", "browser_interact"):
            actions |= set(tool.input_schema["properties"]["action"]["enum"])
    return actions


async def test_every_listed_action_has_a_golden(app_client) -> None:
    actions = await _listed_actions(app_client)
    assert len(actions) > 50, sorted(actions)
    covered = {action_of(path) for path in golden_files()}
    missing = sorted(actions - covered - set(NO_GOLDEN_YET))
    assert not missing, (
        f"actions with no golden answer: {missing}; add one to tests/mcp_server/<feature>/"
        "test_<feature>_golden.py and run `make golden`"
    )
    now_covered = sorted(set(NO_GOLDEN_YET) & covered)
    assert not now_covered, f"covered now, remove from NO_GOLDEN_YET: {now_covered}"
    stale = sorted({str(p.relative_to(ROOT)) for p in golden_files() if action_of(p) not in actions})
    assert not stale, f"golden files of actions the server no longer lists: {stale}"


def test_golden_files_are_well_formed() -> None:
    files = golden_files()
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        head, _, rest = text.partition("\n## text\n")
        assert head.startswith("# browser_") and "\n# is_error: " in head, path
        _, sep, json_part = rest.partition("\n## json\n")
        assert sep, f"{path}: no ## json section"
        json.loads(unlayout(json_part.rstrip("\n")))  # the compact JSON comes back whole
        assert path.parent.name == "golden" and path.parent.parent.parent == ROOT, path
