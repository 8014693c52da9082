"""The Claude Desktop bundle (scripts/build_mcpb.py) passes the official ``mcpb validate``.

The CLI is npm's ``@anthropic-ai/mcpb`` in bench/peers (``make test`` installs it): missing, the
test fails; without Node it skips, except in CI where that is a failure too.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from paths import ROOT

MCPB = ROOT / "bench" / "peers" / "node_modules" / ".bin" / "mcpb"


def test_the_bundle_passes_mcpb_validate(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        if os.environ.get("CI"):
            pytest.fail("node is missing in CI: mcpb validate cannot run")
        pytest.skip("node is not installed: the mcpb CLI cannot run")
    assert MCPB.exists(), f"{MCPB} is missing: `make test` installs @anthropic-ai/mcpb into bench/peers"
    built = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_mcpb.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    bundle = Path(built.stdout.strip())
    unpacked = tmp_path / "unpacked"
    subprocess.run([str(MCPB), "unpack", str(bundle), str(unpacked)], capture_output=True, text=True, check=True)
    done = subprocess.run([str(MCPB), "validate", str(unpacked)], capture_output=True, text=True)
    assert done.returncode == 0 and "validation passes" in done.stdout, done.stdout + done.stderr
    manifest = json.loads((unpacked / "manifest.json").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert (manifest["name"], manifest["version"]) == (project["name"], project["version"])
    assert manifest["server"]["type"] == "uv" and (unpacked / manifest["server"]["entry_point"]).is_file()
    env = manifest["server"]["mcp_config"]["env"]
    assert {"MCP_ARTIFACT_DIR", "PLAYWRIGHT_CDP_URL", "ALLOWED_URLS", "BROWSER_EVALUATE_ENABLED"} <= set(env)
    assert (unpacked / "icon.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
