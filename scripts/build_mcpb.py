"""Build the Claude Desktop bundle (``.mcpb``): ``python scripts/build_mcpb.py [--out DIR]``.

Server type ``uv`` (manifest 0.4): the bundle carries the source and ``pyproject.toml``, and the
host installs the dependencies with uv for the user's platform. Type ``python`` would need every
dependency vendored in ``server/lib`` as pure Python, and ours are not (msgspec, pydantic-core,
regex and Playwright's driver are per-platform builds). ``user_config`` exposes the settings a
person sets (mcp_server/server/settings.py); every entry has a default, and a blank value means
unset there, so an empty field leaves the server's default in force.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import struct
import sys
import tomllib
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("cdp_core", "targets", "mcp_server")
FILES = ("pyproject.toml", "README.md", "LICENSE")
ENTRY = "server/main.py"
MAIN = (
    '"""The bundle\'s entry point: the mcp-browser command on stdio."""\n\n'
    "import sys\n\nfrom mcp_server.cli.entry import main\n\nsys.exit(main())\n"
)

#: user_config key -> (environment variable, type, title, description, default)
USER_CONFIG: dict[str, tuple[str, str, str, str, str | bool]] = {
    "artifact_dir": (
        "MCP_ARTIFACT_DIR",
        "directory",
        "Artifacts folder",
        "Where bodies, screenshots, traces and bundles are written.",
        "${HOME}/mcp-browser-artifacts",
    ),
    "cdp_url": (
        "PLAYWRIGHT_CDP_URL",
        "string",
        "Chrome debugging address",
        "A Chrome to attach to, e.g. http://127.0.0.1:9222. Empty: the agent finds your Chrome.",
        "",
    ),
    "allowed_urls": (
        "ALLOWED_URLS",
        "string",
        "Allowed URLs",
        "Comma-separated URL patterns the browser may open. Empty: any.",
        "",
    ),
    "evaluate_enabled": (
        "BROWSER_EVALUATE_ENABLED",
        "boolean",
        "Allow JavaScript evaluation",
        "Let the agent run JavaScript in the page.",
        True,
    ),
    "headless": (
        "BROWSER_HEADLESS",
        "boolean",
        "Headless internal browser",
        "Run the server's own Chromium without a window.",
        True,
    ),
    "chrome_path": (
        "CHROME_PATH",
        "string",
        "Chrome executable",
        "Path of Chrome, Chromium or Edge. Empty: found where the installers put it.",
        "",
    ),
}


def manifest() -> dict[str, object]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    env = {name: "${user_config." + key + "}" for key, (name, *_rest) in USER_CONFIG.items()}
    config = {
        key: {"type": kind, "title": title, "description": text, "required": False, "default": default}
        for key, (_name, kind, title, text, default) in USER_CONFIG.items()
    }
    return {
        "manifest_version": "0.4",
        "name": project["name"],
        "display_name": "Browser debugging (mcp-browser)",
        "version": project["version"],
        "description": project["description"],
        "author": {"name": "The mcp-browser-debug authors"},
        "license": project["license"],
        "keywords": project["keywords"],
        "icon": "icon.png",
        "server": {
            "type": "uv",
            "entry_point": ENTRY,
            "mcp_config": {"command": "uv", "args": ["run", "--directory", "${__dirname}", ENTRY], "env": env},
        },
        "compatibility": {
            "platforms": ["darwin", "linux", "win32"],
            "runtimes": {"python": project["requires-python"]},
        },
        "tools_generated": True,
        "user_config": config,
    }


def icon_png(size: int = 256) -> bytes:
    """The server icon (mcp_server/server/mcp_features/icons.py, SERVER_ICON) drawn as a PNG.

    The same strokes on the same 24-unit grid: a window (rounded rectangle and its title bar)
    and a magnifier; the manifest wants a PNG file, and no SVG renderer is a dependency.
    """
    scale = size / 24
    half = 1.0  # stroke-width 2
    segments = [((2, 8), (22, 8)), ((13.5, 15.5), (17, 19))]

    def on_stroke(x: float, y: float) -> float:
        d = abs(math.hypot(x - 11, y - 13) - 3)
        for (ax, ay), (bx, by) in segments:
            t = max(0.0, min(1.0, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)))
            d = min(d, math.hypot(x - ax - t * (bx - ax), y - ay - t * (by - ay)))
        # rounded rectangle x=2 y=3 w=20 h=16 rx=2: distance to its outline
        qx, qy = abs(x - 12) - 8, abs(y - 11) - 6
        d = min(d, abs(math.hypot(max(qx, 0), max(qy, 0)) + min(max(qx, qy), 0) - 2))
        return max(0.0, min(1.0, (half - d) * scale + 0.5))

    rows = bytearray()
    for py in range(size):
        rows.append(0)
        for px in range(size):
            alpha = on_stroke((px + 0.5) / scale, (py + 0.5) / scale)
            rows += bytes((0x1A, 0x73, 0xE8, round(alpha * 255)))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + chunk(b"IEND", b"")
    )


def stage(folder: Path) -> Path:
    """Lay the bundle's files out in ``folder`` (what ``mcpb validate`` reads)."""
    folder.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in PACKAGES:
        shutil.copytree(ROOT / name, folder / name, ignore=ignore)
    shutil.copytree(ROOT / "skills" / "mcp-browser-automation", folder / "skills" / "mcp-browser-automation")
    for name in FILES:
        shutil.copy2(ROOT / name, folder / name)
    (folder / "server").mkdir()
    (folder / ENTRY).write_text(MAIN, encoding="utf-8")
    (folder / "icon.png").write_bytes(icon_png())
    (folder / "manifest.json").write_text(json.dumps(manifest(), indent=2) + "\n", encoding="utf-8")
    return folder


def build(out: Path) -> Path:
    """Stage into ``out``/bundle and zip it into ``out``/mcp-browser-debug-VERSION.mcpb."""
    staged = stage(out / "bundle")
    version = json.loads((staged / "manifest.json").read_text(encoding="utf-8"))["version"]
    target = out / f"mcp-browser-debug-{version}.mcpb"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(staged.rglob("*")):
            if path.is_file():
                zf.write(path, path.relative_to(staged).as_posix())
    shutil.rmtree(staged)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="folder for the .mcpb (default: dist/)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    print(build(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
