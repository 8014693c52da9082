"""Install the peers from npm into ``bench/peers/`` when they are missing.

npm's ordinary client, no browser download: chrome-devtools-mcp and playwright-mcp
attach to our Chromium over CDP, so their browser downloads are switched off.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["PACKAGES", "ensure_peers", "installed_versions"]

#: npm package -> the executable it installs under node_modules/.bin. The TypeScript MCP SDK is the
#: client of ``bench/first/ts_client.mjs`` and ``bench/schema_compile.mjs`` (ajv comes with it).
PACKAGES = {
    "chrome-devtools-mcp": "chrome-devtools-mcp",
    "@playwright/mcp": "playwright-mcp",
    "gpt-tokenizer": None,
    "@modelcontextprotocol/sdk": None,
}


def _missing(peers_dir: Path) -> list[str]:
    out = []
    for pkg, exe in PACKAGES.items():
        mod = peers_dir / "node_modules" / pkg / "package.json"
        if not mod.exists() or (exe and not (peers_dir / "node_modules" / ".bin" / exe).exists()):
            out.append(pkg)
    return out


def ensure_peers(peers_dir: Path, *, update: bool = False) -> list[str]:
    """Install what is missing (everything with ``update``); returns the packages installed."""
    todo = list(PACKAGES) if update else _missing(peers_dir)
    if not todo:
        return []
    if shutil.which("npm") is None:
        raise RuntimeError("npm not found: install Node.js 20+ to benchmark the peers")
    peers_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1", PUPPETEER_SKIP_DOWNLOAD="1")
    subprocess.run(
        ["npm", "install", "--prefix", str(peers_dir), "--no-audit", "--no-fund", *todo],
        env=env,
        stdout=sys.stderr,  # stdout is for the table
        check=True,
        timeout=600,
    )
    return todo


def installed_versions(peers_dir: Path) -> dict[str, str]:
    out = {}
    for pkg in PACKAGES:
        try:
            out[pkg] = json.loads((peers_dir / "node_modules" / pkg / "package.json").read_text())["version"]
        except (OSError, ValueError, KeyError):
            out[pkg] = "missing"
    return out
