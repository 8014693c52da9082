"""``mcp-browser skill path|install``: the skill the prompt hook names is where the client looks.

Run as a user runs it (the console script's entry, a HOME of the test's own), and compared file
by file with the skill in the repository, so an installed copy is never a stale or partial one.
"""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT

SKILL = ROOT / "skills" / "mcp-browser-automation"
ENTRY = [sys.executable, "-m", "mcp_server.cli.entry", "skill"]


def _run(*args: str, home: Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
    env["HOME"] = str(home)
    return subprocess.run([*ENTRY, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=60)


def _same_tree(a: Path, b: Path) -> bool:
    cmp = filecmp.dircmp(a, b, ignore=["__pycache__"])
    if cmp.left_only or cmp.right_only or cmp.diff_files or cmp.funny_files:
        return False
    return all(_same_tree(a / d, b / d) for d in cmp.common_dirs)


def test_path_prints_the_shipped_skill(tmp_path: Path) -> None:
    done = _run("path", home=tmp_path)
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    assert (path / "SKILL.md").is_file() and _same_tree(path, SKILL)


@pytest.mark.parametrize(
    ("client", "where"), [("claude", ".claude/skills"), ("codex", ".agents/skills")], ids=["claude", "codex"]
)
def test_install_copies_the_skill_for_the_client(tmp_path: Path, client: str, where: str) -> None:
    done = _run("install", "--client", client, home=tmp_path)
    assert done.returncode == 0, done.stderr
    target = tmp_path / where / "mcp-browser-automation"
    assert str(target) in done.stdout
    assert not target.is_symlink() and _same_tree(target, SKILL)
    # Running it again updates the copy (here: a file edited since is restored).
    (target / "SKILL.md").write_text("---\nname: mcp-browser-automation\n---\nold\n", encoding="utf-8")
    assert _run("install", "--client", client, home=tmp_path).returncode == 0
    assert _same_tree(target, SKILL)


def test_install_into_a_project(tmp_path: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    done = _run("install", "--client", "codex", "--project", home=tmp_path / "home", cwd=project)
    assert done.returncode == 0, done.stderr
    assert _same_tree(project / ".agents" / "skills" / "mcp-browser-automation", SKILL)
    assert not (tmp_path / "home" / ".agents").exists()


def test_claude_config_dir_is_honoured(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude-config")}
    done = subprocess.run([*ENTRY, "install", "--client", "claude"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "claude-config" / "skills" / "mcp-browser-automation" / "SKILL.md").is_file()


def test_install_leaves_someone_elses_skill_alone(tmp_path: Path) -> None:
    theirs = tmp_path / ".claude" / "skills" / "mcp-browser-automation"
    theirs.mkdir(parents=True)
    (theirs / "SKILL.md").write_text("---\nname: something-else\n---\nmine\n", encoding="utf-8")
    done = _run("install", "--client", "claude", home=tmp_path)
    assert done.returncode == 1 and "--force" in done.stderr
    assert "mine" in (theirs / "SKILL.md").read_text(encoding="utf-8")
    assert _run("install", "--client", "claude", "--force", home=tmp_path).returncode == 0
    assert _same_tree(theirs, SKILL)


def test_install_replaces_a_link_made_by_hand(tmp_path: Path) -> None:
    skills = tmp_path / ".claude" / "skills"
    skills.mkdir(parents=True)
    elsewhere = tmp_path / "old-checkout"
    elsewhere.mkdir()
    (skills / "mcp-browser-automation").symlink_to(elsewhere)
    assert _run("install", "--client", "claude", home=tmp_path).returncode == 0
    target = skills / "mcp-browser-automation"
    assert not target.is_symlink() and _same_tree(target, SKILL)
    assert elsewhere.is_dir()  # the link's target is not touched


def test_unknown_client_is_refused(tmp_path: Path) -> None:
    done = _run("install", "--client", "cursor", home=tmp_path)
    assert done.returncode == 2 and "claude" in done.stderr and "codex" in done.stderr
