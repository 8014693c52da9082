"""docs/tools.md is generated from the real tools/list; these tests fail when it is stale or incomplete."""

from __future__ import annotations

import asyncio
import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Literal

from pydantic import Field

from mcp_server import registry
from mcp_server.registry import ActionArgs, ActionResult, ActionSpec

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "gen_tool_reference.py"
TOOLS_MD = ROOT / "docs" / "tools.md"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_tool_reference", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


GEN = _generator()


def test_tools_md_is_current() -> None:
    """Regenerate in memory from the fully loaded server and compare with the committed file."""
    expected = GEN.generate()
    assert TOOLS_MD.exists(), f"docs/tools.md missing: run {GEN.REGENERATE}"
    assert TOOLS_MD.read_text(encoding="utf-8") == expected, f"docs/tools.md is stale: run {GEN.REGENERATE}"


def test_reference_covers_every_tool_and_action() -> None:
    text = GEN.generate()
    tools = asyncio.run(GEN.list_tools())
    assert registry.ACTIONS, "no action registered: the server loaded no action module"
    for tool, name in registry.ACTIONS:
        assert f"### {tool} action={name}\n" in text, f"{tool}.{name} missing from the reference"
    for tool in tools:
        assert f"`{tool['name']}`" in text
    for legacy, (tool, name) in registry.legacy_map().items():
        assert f"| `{legacy}` | `{tool} action={name}` |" in text


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
    ActionSpec("browser_session", "find", FindArgs, _noop, "Find requests", read_only=True),
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
    assert "No arguments." in text
    assert "*experimental; same code as the legacy tool `browser_poke`*" in text
    assert "| `browser_nothing` | `browser_session action=nothing` | none |" in text
    assert "| `browser_poke` | `browser_interact action=poke` | `uid` |" in text
    assert '"schemaVersion"' in text  # the envelope outputSchema is shown


def test_render_is_deterministic() -> None:
    assert GEN.generate(SPECS) == GEN.generate(SPECS)


def test_check_mode_reports_stale_file(tmp_path: Path) -> None:
    target = tmp_path / "tools.md"
    target.write_text("# old\n", encoding="utf-8")
    stale = subprocess.run(
        [sys.executable, str(SCRIPT), "--check", "--output", str(target)], capture_output=True, text=True, check=False
    )
    assert stale.returncode == 1 and "stale" in stale.stderr
    wrote = subprocess.run([sys.executable, str(SCRIPT), "--output", str(target)], capture_output=True, check=False)
    assert wrote.returncode == 0
    fresh = subprocess.run(
        [sys.executable, str(SCRIPT), "--check", "--output", str(target)], capture_output=True, text=True, check=False
    )
    assert fresh.returncode == 0, fresh.stderr
