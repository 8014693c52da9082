"""The CI and release workflows are valid, though neither can run here.

Both are checked against GitHub's workflow schema (vendored by check-jsonschema, no network) and
by actionlint (a dev dependency; its binary comes in the wheel), which also knows what the schema
cannot: jobs that ``needs:`` names, expressions, the inputs and runtimes of the actions used (an
action on a runtime GitHub removed fails there). Beyond both: the three systems are in the CI
matrix, every test file and script a workflow names exists (a renamed test would otherwise be
skipped in silence on Windows), and the release publishes the way PyPI's trusted publishing needs.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from paths import ROOT
from ruamel.yaml import YAML

WORKFLOWS = ROOT / ".github" / "workflows"
WORKFLOW = WORKFLOWS / "ci.yml"
RELEASE = WORKFLOWS / "release.yml"
BOTH = [WORKFLOW, RELEASE]


def _validate(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )


def _actionlint(*paths: Path) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("actionlint", path=str(Path(sys.executable).parent))
    if tool is None:
        pytest.fail(f"actionlint is missing from {Path(sys.executable).parent}: it is a dev dependency (make setup)")
    # shellcheck and pyflakes run only where they happen to be installed: off, so every machine agrees.
    command = [tool, "-oneline", "-no-color", "-shellcheck=", "-pyflakes=", *map(str, paths)]
    return subprocess.run(command, capture_output=True, text=True, check=False, cwd=paths[0].parent)


def _load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    return loaded


@pytest.mark.parametrize("path", BOTH, ids=lambda p: p.name)
def test_the_workflow_matches_githubs_schema(path: Path):
    done = _validate(path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_rejects_a_broken_workflow(tmp_path: Path):
    broken = tmp_path / "ci.yml"
    broken.write_text(WORKFLOW.read_text().replace("runs-on:", "run-on:", 1))
    assert _validate(broken).returncode != 0


def test_actionlint_accepts_both_workflows():
    done = _actionlint(*BOTH)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("needs: build", "needs: biuld", 'needs job "biuld" which does not exist'),
        ("actions/checkout@v5", "actions/checkout@v4", 'runtime "node20" is deprecated'),
    ],
)
def test_actionlint_rejects_what_the_schema_lets_through(tmp_path: Path, old: str, new: str, says: str):
    broken = tmp_path / "release.yml"
    broken.write_text(RELEASE.read_text().replace(old, new, 1))
    assert _validate(broken).returncode == 0
    done = _actionlint(broken)
    assert done.returncode == 1 and says in done.stdout, done.stdout + done.stderr


def test_three_systems_and_the_files_it_names_exist():
    text = WORKFLOW.read_text()
    assert "os: [ubuntu-latest, windows-latest, macos-latest]" in text
    named = {name for path in BOTH for name in re.findall(r"\b((?:tests|scripts)/[\w/]+\.py)\b", path.read_text())}
    assert {
        "scripts/smoke_installed.py",
        "scripts/mypy_platforms.py",
        "scripts/build_mcpb.py",
        "tests/cdp_core/test_browser_paths_per_platform.py",
    } <= named
    missing = sorted(name for name in named if not (ROOT / name).is_file())
    assert not missing, f"the workflows name files that do not exist: {missing}"


def _runs(job: dict[str, Any]) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def _uses(job: dict[str, Any]) -> list[str]:
    return [step["uses"].split("@")[0] for step in job["steps"] if "uses" in step]


def test_a_tag_builds_checks_and_publishes_with_trusted_publishing():
    release = _load(RELEASE)
    assert release["on"] == {"push": {"tags": ["v*"]}}
    assert release["permissions"] == {"contents": "read"}
    jobs = release["jobs"]
    build = _runs(jobs["build"])
    assert "python -m build" in build and "twine check --strict dist/*" in build
    assert "scripts/build_mcpb.py" in build
    # PyPI trusts this workflow in this environment: the OIDC token is the only credential, and only this job has it.
    publish = jobs["publish-pypi"]
    assert publish["permissions"] == {"id-token": "write"} and publish["environment"]["name"] == "pypi"
    assert _uses(publish) == ["actions/download-artifact", "pypa/gh-action-pypi-publish"]
    assert not any("with" in step and "password" in step["with"] for step in publish["steps"])
    assert [job for job, spec in jobs.items() if "id-token" in spec.get("permissions", {})] == ["publish-pypi"]
    # The bundle is no PyPI file: it travels in its own artifact, attached to the GitHub release with the dists.
    assert jobs["publish-pypi"]["steps"][0]["with"]["name"] == "python-dists"
    attach = jobs["github-release"]
    assert attach["permissions"] == {"contents": "write"} and set(attach["needs"]) == {"build", "publish-pypi"}
    assert "gh release upload" in _runs(attach)
    assert attach["steps"][0]["with"] == {"path": "assets/", "merge-multiple": True}
