"""The docs point only at things that exist: tests they cite as evidence, files they link to.

docs/security.md and docs/server-capability-matrix.md back each promise with a named test;
a renamed or deleted test would leave a promise that nothing checks any more.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from paths import ROOT

DOCS = sorted((ROOT / "docs").glob("*.md"))
MARKDOWN = [ROOT / "README.md", *DOCS, *sorted((ROOT / "skills").rglob("*.md"))]

# A test is cited by its path under tests/ (``tests/security/test_x.py::test_y``).
_TEST_REF = re.compile(r"(?:tests/)?((?:\w+/)*test_\w+\.py)::(test_\w+)")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _defined_tests(path: Path) -> set[str]:
    return set(re.findall(r"^(?:async\s+)?def\s+(test_\w+)\s*\(", path.read_text(encoding="utf-8"), re.M))


def _cited(path: Path) -> list[tuple[str, str]]:
    text = path.read_text(encoding="utf-8")
    # The planned section of security.md names tests that do not exist yet, on purpose.
    text = text.split("## Planned tests", 1)[0]
    return sorted(set(_TEST_REF.findall(text)))


CITING = [p for p in DOCS if _TEST_REF.search(p.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("doc", CITING, ids=lambda p: p.name)
def test_cited_tests_exist(doc: Path) -> None:
    missing = []
    for file_name, test_name in _cited(doc):
        test_file = ROOT / "tests" / file_name
        if not test_file.exists() or test_name not in _defined_tests(test_file):
            missing.append(f"{file_name}::{test_name}")
    assert not missing, f"{doc.name} cites tests that do not exist: {missing}"


def test_security_page_cites_tests() -> None:
    assert len(_cited(ROOT / "docs" / "security.md")) >= 10


@pytest.mark.parametrize("doc", [p for p in MARKDOWN if p.exists()], ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc: Path) -> None:
    broken = []
    for target in _LINK.findall(doc.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # external URL or in-page anchor
        path = (doc.parent / target.split("#", 1)[0]).resolve()
        if not path.exists():
            broken.append(target)
    assert not broken, f"{doc.relative_to(ROOT)} links to missing files: {broken}"


def _blocks(lang: str) -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


def test_readme_config_snippets_parse() -> None:
    """A newcomer pastes these into their client's config: each must be valid JSON / TOML."""
    json_blocks, toml_blocks = _blocks("json"), _blocks("toml")
    assert len(json_blocks) >= 4 and len(toml_blocks) >= 2
    for block in json_blocks:
        json.loads(block)
    for block in toml_blocks:
        assert "mcp_servers" in tomllib.loads(block)


def test_readme_chrome_command_lines_bind_loopback_with_a_dedicated_profile() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    windows = (
        '"%ProgramFiles%\\Google\\Chrome\\Application\\chrome.exe" --remote-debugging-port=9222 '
        '--remote-debugging-address=127.0.0.1 --user-data-dir="%LOCALAPPDATA%\\ChromeMcpProfile"'
    )
    assert windows in text
    lines = [line for line in text.splitlines() if "--remote-debugging-port=9222" in line and "--user-data-dir" in line]
    assert len(lines) >= 4  # Windows cmd, PowerShell, macOS, Linux
    for line in lines:
        assert "--remote-debugging-address=127.0.0.1" in line
        assert "0.0.0.0" not in line


def test_readme_hook_command_is_the_real_entry_point() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert '"command": "/path/to/mcp-browser-debug/.venv/bin/mcp-browser hook user-prompt"' in text
    assert '"UserPromptSubmit"' in text
