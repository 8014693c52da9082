"""docs/tools.md is generated from the real tools/list; these tests fail when it is stale or incomplete."""

from __future__ import annotations

import asyncio
import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Literal

import pytest
from paths import ROOT
from pydantic import Field

from mcp_server.server import registry
from mcp_server.server.registry import ActionArgs, ActionResult, ActionSpec

SCRIPT = ROOT / "scripts" / "gen_tool_reference.py"
TOOLS_MD = ROOT / "docs" / "tools.md"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_tool_reference", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


GEN = _generator()


@pytest.fixture(scope="module")
def generated() -> str:
    return GEN.generate()


def test_tools_md_is_current(generated: str) -> None:
    """Regenerate in memory from the fully loaded server and compare with the committed file."""
    assert TOOLS_MD.exists(), f"docs/tools.md missing: run {GEN.REGENERATE}"
    assert TOOLS_MD.read_text(encoding="utf-8") == generated, f"docs/tools.md is stale: run {GEN.REGENERATE}"


def test_reference_covers_every_tool_and_action(generated: str) -> None:
    tools = asyncio.run(GEN.list_tools())
    assert registry.ACTIONS, "no action registered: the server loaded no action module"
    for tool, name in registry.ACTIONS:
        assert f"### {tool} action={name}\n" in generated, f"{tool}.{name} missing from the reference"
    for tool in tools:
        assert f"`{tool['name']}`" in generated
    for legacy, (tool, name) in registry.legacy_map().items():
        assert f"| `{legacy}` | `{tool} action={name}` |" in generated


# -- the renderer on a small action table of our own (pure logic, no browser) ---------------------


class FindArgs(ActionArgs):
    url_contains: str = Field(description="Part of the URL | with a pipe")
    limit: int = Field(30, ge=1, le=500, description="How many")
    kinds: list[Literal["xhr", "fetch"]] | None = Field(None, description="Resource types")


class PokeArgs(ActionArgs):
    uid: str = Field(description="Snapshot uid")


async def _noop(ctx, args) -> ActionResult:
    return ActionResult(text="ok")


SPECS = [
    ActionSpec("browser_session", "find", FindArgs, _noop, "Find requests in <artifacts>/x, `<kept>`", read_only=True),
    ActionSpec("browser_session", "nothing", ActionArgs, _noop, "No arguments at all", legacy="browser_nothing"),
    ActionSpec("browser_interact", "poke", PokeArgs, _noop, "Poke by uid", legacy="browser_poke", experimental=True),
]


def test_render_tables_types_defaults_and_flags() -> None:
    text = GEN.generate(SPECS)
    assert "### browser_session action=find\n" in text
    assert "| `url_contains` | string | yes |  | Part of the URL \\| with a pipe |" in text
    assert "| `limit` | integer (>= 1, <= 500) |  | `30` | How many |" in text
    assert '| `kinds` | list of "xhr" \\| "fetch" |' in text
    assert "*read-only*" in text
    assert "Find requests in &lt;artifacts>/x, `<kept>`" in text  # no stray HTML tag, code spans untouched
    assert "No arguments." in text
    assert "*experimental; same code as the legacy tool `browser_poke`*" in text
    assert "| `browser_nothing` | `browser_session action=nothing` | none |" in text
    assert "| `browser_poke` | `browser_interact action=poke` | `uid` |" in text
    assert '"schemaVersion"' in text  # the envelope outputSchema is shown


def test_render_is_deterministic() -> None:
    assert GEN.generate(SPECS) == GEN.generate(SPECS)


def test_check_mode_reports_stale_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "tools.md"
    target.write_text("# old\n", encoding="utf-8")
    assert GEN.main(["--check", "--output", str(target)]) == 1
    assert "stale" in capsys.readouterr().err
    assert GEN.main(["--output", str(target)]) == 0
    assert GEN.main(["--check", "--output", str(target)]) == 0


def test_script_runs_as_a_file(tmp_path: Path) -> None:
    """The command the docs tell contributors to run, as a real process."""
    target = tmp_path / "tools.md"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--output", str(target)], capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert target.read_text(encoding="utf-8").startswith("# Tool reference")
