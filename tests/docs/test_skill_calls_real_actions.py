"""The agent skill names only real actions, with real argument names and valid values.

An agent follows the skill literally: a renamed action or argument there is a failed call in
every session. Every inline call in SKILL.md and references/test-patterns.md (and the hook's
hint) is parsed and checked against the live action table the server is built from.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from paths import ROOT
from pydantic import TypeAdapter, ValidationError

from mcp_server.cli import hook
from mcp_server.features import load_actions
from mcp_server.server import registry

SKILL_DIR = ROOT / "skills" / "mcp-browser-automation"
SKILL = SKILL_DIR / "SKILL.md"
PATTERNS = SKILL_DIR / "references" / "test-patterns.md"

#: The workflow the skill teaches, in this order of use.
WORKFLOW = [
    "get_capabilities",
    "get_browser_status",
    "attach_cdp",
    "list_pages",
    "select_page_by_url",
    "select_page_by_title",
    "debug_bundle",
    "snapshot",
    "network_list",
    "network_get",
    "network_save_body",
    "console_list",
    "console_get",
    "use_launch_browser",
]
#: The situations references/test-patterns.md must walk through (heading words).
PATTERN_TOPICS = ["already open", "attach from a prompt", "two-prompt", "500", "uids", "iframe", "network artifacts"]

_FENCE = re.compile(r"```.*?```", re.S)
_SPAN = re.compile(r"`([^`\n]+)`")
_ACTION = re.compile(r"\baction=(\w+)")
_ARG = re.compile(r"(\w+)=(\"(?:[^\"\\]|\\.)*\"|\[[^\]]*\]|[^\s`]+)")


@pytest.fixture(scope="module", autouse=True)
def _actions_loaded() -> None:
    load_actions()


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _calls(text: str) -> list[str]:
    """Inline code spans that are tool calls (``tool action=NAME field=value ...``)."""
    prose = _FENCE.sub("", text)
    return [span for span in _SPAN.findall(prose) if _ACTION.search(span)]


def _tool_of(span: str, name: str) -> str:
    """The tool the span names, else the tool that has the action (browser_session if none)."""
    for tool in registry.CONDENSED_TOOLS:
        if tool in span:
            return tool
    owners = [tool for tool, action in registry.ACTIONS if action == name]
    return owners[0] if owners else registry.CONDENSED_TOOLS[0]


def _frontmatter(text: str) -> dict[str, str]:
    match = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert match, "SKILL.md must start with YAML frontmatter"
    fields: dict[str, str] = {}
    key = None
    for line in match.group(1).splitlines():
        head = re.match(r"(\w+):\s*(.*)", line)
        if head:
            key, value = head.groups()
            fields[key] = "" if value in (">-", ">", "|") else value
        elif key:
            fields[key] = (fields[key] + " " + line.strip()).strip()
    return fields


def test_frontmatter_names_the_skill_and_when_to_use_it() -> None:
    meta = _frontmatter(_text(SKILL))
    assert meta.get("name") == SKILL_DIR.name
    description = meta.get("description", "")
    assert 100 < len(description) <= 1024
    for phrase in ("attach_cdp", "ho Chrome già aperto", "I already have Chrome open"):
        assert phrase in description


def test_skill_teaches_the_whole_workflow() -> None:
    named = set(_ACTION.findall(_text(SKILL)))
    missing = [name for name in WORKFLOW if name not in named]
    assert not missing, f"SKILL.md does not show action=... for {missing}"


def test_test_patterns_cover_every_situation() -> None:
    headings = " ".join(re.findall(r"^## (.+)$", _text(PATTERNS), re.M)).lower()
    missing = [topic for topic in PATTERN_TOPICS if topic not in headings]
    assert not missing, f"references/test-patterns.md has no section for {missing}"


@pytest.mark.parametrize("path", [SKILL, PATTERNS], ids=lambda p: p.name)
def test_every_action_named_exists(path: Path) -> None:
    known = {action for _, action in registry.ACTIONS}
    unknown = sorted(set(_ACTION.findall(_text(path))) - known)
    assert not unknown, f"{path.name} names actions the server does not have: {unknown}"


@pytest.mark.parametrize("path", [SKILL, PATTERNS], ids=lambda p: p.name)
def test_every_call_uses_real_arguments_with_valid_values(path: Path) -> None:
    calls = _calls(_text(path))
    assert len(calls) >= 10, "expected the skill to show its calls as inline code"
    problems = []
    for span in calls:
        name = _ACTION.search(span).group(1)
        tool = _tool_of(span, name)
        spec = registry.ACTIONS.get((tool, name))
        if spec is None:
            problems.append(f"`{span}`: {tool} has no action {name!r}")
            continue
        for field_name, raw in _ARG.findall(span):
            if field_name == "action":
                continue
            field = spec.args.model_fields.get(field_name)
            if field is None:
                problems.append(f"`{span}`: {tool}.{name} has no argument {field_name!r}")
                continue
            if raw.startswith("<") or '"<' in raw:
                continue  # a placeholder such as frame="<frame id>"
            try:
                value = json.loads(raw)
            except ValueError:
                problems.append(f"`{span}`: {field_name}={raw} is not a JSON value")
                continue
            try:
                TypeAdapter(field.annotation).validate_python(value, strict=True)
            except ValidationError as exc:
                problems.append(f"`{span}`: {field_name}={raw} is not valid: {exc.errors()[0]['msg']}")
    assert not problems, "\n".join(problems)


def test_hook_hint_names_real_actions() -> None:
    names = _ACTION.findall(hook.HINT)
    assert "attach_cdp" in names
    for name in names:
        assert ("browser_session", name) in registry.ACTIONS, f"hook hint names unknown action {name!r}"
