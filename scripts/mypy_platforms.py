"""mypy for Windows and macOS: no name the code uses may be missing on those systems.

Why: the Linux server ran fine while ``signal.SIGHUP``, ``os.O_CLOEXEC`` and ``os.geteuid``
stopped it on Windows before it answered. ``mypy --platform win32`` knows which names each
system's ``os``/``signal``/``fcntl`` have (typeshed), and ``sys.platform`` guards tell it which
code runs where.

Scope: the three packages are not clean under plain mypy today (about 20 findings, the same on
every platform: Optional narrowing, aliases; see the Linux run). So this check reports what is
*platform-specific*: every finding of the win32 or darwin run that the Linux run of the same
code does not have (a missing ``os``/``signal`` name is always such a finding). Each run takes
about 5 s; ``--strict`` stays on cdp_core alone (tests/project/test_typing.py).

    .venv/bin/python scripts/mypy_platforms.py            # exit 1 and the findings, or "ok"
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("cdp_core", "targets", "mcp_server")
PLATFORMS = ("win32", "darwin")
_FINDING = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+): error: (?P<text>.*)$")


def findings(platform: str) -> set[str]:
    """``file:line: message`` of every error mypy reports for ``platform``."""
    cmd = [
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        str(ROOT / "scripts" / "mypy_platforms.ini"),
        "--platform",
        platform,
        "--cache-dir",
        str(ROOT / ".venv" / f".mypy-cache-{platform}"),
        *PACKAGES,
    ]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"mypy --platform {platform} failed to run:\n{done.stdout}{done.stderr}")
    out: set[str] = set()
    for line in done.stdout.splitlines():
        match = _FINDING.match(line.strip())
        if match:
            out.add(f"{match['file']}:{match['line']}: {match['text']}")
    return out


def main() -> int:
    baseline = findings("linux")
    problems: list[str] = []
    for platform in PLATFORMS:
        problems += [f"[{platform}] {f}" for f in sorted(findings(platform) - baseline)]
    if problems:
        print("names or code paths that do not exist on Windows/macOS:", *problems, sep="\n  ")
        return 1
    print(f"mypy --platform {' / '.join(PLATFORMS)}: ok (no platform-specific findings in {', '.join(PACKAGES)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
