"""The CI workflow for Linux, Windows and macOS is valid, though it cannot run here.

Checked against GitHub's workflow schema (vendored by check-jsonschema, no network), plus what
a schema cannot know: the three systems are in the matrix, and every test file and script the
workflow names exists (a renamed test would otherwise be skipped in silence on Windows).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from paths import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"


def _validate(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_workflow_matches_githubs_schema():
    done = _validate(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_rejects_a_broken_workflow(tmp_path: Path):
    broken = tmp_path / "ci.yml"
    broken.write_text(WORKFLOW.read_text().replace("runs-on:", "run-on:", 1))
    assert _validate(broken).returncode != 0


def test_three_systems_and_the_files_it_names_exist():
    text = WORKFLOW.read_text()
    assert "os: [ubuntu-latest, windows-latest, macos-latest]" in text
    named = set(re.findall(r"\b((?:tests|scripts)/[\w/]+\.py)\b", text))
    assert {
        "scripts/smoke_installed.py",
        "scripts/mypy_platforms.py",
        "tests/cdp_core/test_browser_paths_per_platform.py",
    } <= named
    missing = sorted(name for name in named if not (ROOT / name).is_file())
    assert not missing, f"the workflow names files that do not exist: {missing}"
