"""Types users rely on: ``mypy --strict`` on cdp_core, targets and the docs' examples, and mypy
catching a wrong parameter in a user's script; the generated protocol is current and costs
the server nothing.

One mypy run checks everything (about 5 s with a warm cache, which lives in
``.venv/.mypy-cache``): the ``cdp_core`` and ``targets`` packages, every Python example of
docs/cdp_core.md and docs/testing.md saved as files, and a user script with mistakes in it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT

DOCS = {name: ROOT / "docs" / f"{name}.md" for name in ("cdp_core", "testing")}

#: A user's script typed against cdp_core, with three mistakes a type checker must catch.
WRONG = """\
import cdp_core


async def check(page: cdp_core.CDPSession) -> None:
    await page.cdp.Runtime.evaluate(expression=42)
    await page.cdp.Page.navigate(ur="http://127.0.0.1/")
    result = await page.cdp.Runtime.evaluate(expression="1")
    print(result["result"]["valeu"])
"""

#: The same script written right: it must pass.
RIGHT = """\
import cdp_core


async def check(page: cdp_core.CDPSession) -> None:
    await page.cdp.Runtime.evaluate(expression="42")
    frame = await page.cdp.Page.navigate(url="http://127.0.0.1/")
    result = await page.cdp.Runtime.evaluate(expression="1", returnByValue=True)
    print(frame["frameId"], result["result"].get("value"))
    event = await page.wait_for(page.cdp.Page.loadEventFired, timeout=5)
    timestamp: float = event.params["timestamp"]
    print(timestamp)
"""


def _examples(doc: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)


@pytest.fixture(scope="module")
def mypy_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """``{file: [error lines]}`` of one ``mypy --strict`` run over everything this module checks."""
    work = tmp_path_factory.mktemp("typing")
    files = [str(ROOT / "cdp_core"), str(ROOT / "targets")]
    for name, doc in DOCS.items():
        for index, code in enumerate(_examples(doc), 1):
            path = work / f"{name}_example_{index}.py"
            path.write_text(code, encoding="utf-8")
            files.append(str(path))
    for name, code in (("user_wrong.py", WRONG), ("user_right.py", RIGHT)):
        (work / name).write_text(code, encoding="utf-8")
        files.append(str(work / name))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--python-version",
            "3.11",
            "--cache-dir",
            str(ROOT / ".venv" / ".mypy-cache"),
            "--no-error-summary",
            *files,
        ],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode in (0, 1), done.stderr[-3000:]
    report: dict[str, list[str]] = {}
    for line in done.stdout.splitlines():
        match = re.match(r"(.+?\.py):\d+: error: ", line)
        if match:
            report.setdefault(match.group(1), []).append(line)
    return report


def _errors_in(report: dict[str, list[str]], needle: str) -> list[str]:
    return [line for path, lines in report.items() if needle in path for line in lines]


def test_cdp_core_is_strict_clean(mypy_report: dict[str, list[str]]) -> None:
    """All of it, the recorders and the generated protocol included."""
    errors = _errors_in(mypy_report, "cdp_core/")
    assert not errors, (
        "cdp_core must stay clean under mypy --strict (its users' type checkers see it through py.typed); "
        "run .venv/bin/mypy:\n" + "\n".join(errors)
    )


def test_targets_is_strict_clean(mypy_report: dict[str, list[str]]) -> None:
    """The browser layer: the manager and its collaborators are typed, not probed with getattr."""
    errors = _errors_in(mypy_report, "targets/")
    assert not errors, "targets must stay clean under mypy --strict; run .venv/bin/mypy:\n" + "\n".join(errors)


@pytest.mark.parametrize("doc", sorted(DOCS))
def test_docs_examples_are_strict_clean(doc: str, mypy_report: dict[str, list[str]]) -> None:
    assert _examples(DOCS[doc]), f"docs/{doc}.md has no Python example"
    errors = _errors_in(mypy_report, f"{doc}_example_")
    assert not errors, "\n".join(errors)


def test_mypy_catches_wrong_parameters_in_a_user_script(mypy_report: dict[str, list[str]]) -> None:
    errors = "\n".join(_errors_in(mypy_report, "user_wrong.py"))
    assert (
        'Argument "expression" to "evaluate" of "RuntimeDomain" has incompatible type "int"; expected "str"' in errors
    )
    assert 'Unexpected keyword argument "ur" for "navigate" of "PageDomain"' in errors
    assert 'TypedDict "RemoteObject" has no key "valeu"' in errors
    assert not _errors_in(mypy_report, "user_right.py"), "the correct script must pass"


def test_the_generated_protocol_matches_its_pinned_description() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_cdp_protocol.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_the_protocol_names_the_browser_it_came_from() -> None:
    import json

    from cdp_core import protocol

    pinned = json.loads((ROOT / "scripts" / "cdp_protocol.json").read_text(encoding="utf-8"))
    assert protocol.BROWSER == pinned["x-pinned-from"]["Browser"] and protocol.BROWSER.startswith("Chrome/")
    assert len(protocol.DOMAINS) == len(pinned["domains"]) >= 50
    commands = sum(len(d.get("commands", [])) for d in pinned["domains"])
    assert commands > 600


def test_the_typed_protocol_costs_the_server_nothing(tmp_path: Path) -> None:
    """Building the whole server never imports the generated modules; a user's first use imports one domain."""
    code = (
        "import sys\n"
        "from mcp_server.cli.main import build_app, settings_from, parse_args\n"
        "build_app(settings_from(parse_args([])))\n"
        "import mcp_server.features; mcp_server.features.load_actions()\n"
        "print(sorted(m for m in sys.modules if m.startswith('cdp_core.protocol')))\n"
        "import cdp_core\n"
        "class Session: pass\n"
        "cdp = cdp_core.CDPSession.cdp.fget(Session())\n"
        "cdp.Runtime\n"
        "print(sorted(m for m in sys.modules if m.startswith('cdp_core.protocol')))\n"
    )
    env = {**os.environ, "MCP_ARTIFACT_DIR": str(tmp_path / "artifacts")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    server, first_use = done.stdout.splitlines()[-2:]
    assert server == "[]"
    assert first_use == "['cdp_core.protocol', 'cdp_core.protocol.runtime']"
