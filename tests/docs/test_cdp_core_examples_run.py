"""Every Python example in docs/cdp_core.md runs as a script, exactly as written.

Each example is saved to a file and run with ``python FILE`` (no wrapper, no added
``asyncio.run``), ``CDP_URL`` pointing at the session's real headless Chromium, so what a
reader copies is what was run. tests/project/test_typing.py type-checks the same files.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import paths
import pytest

from cdp_core import ChromiumProcess

DOC = paths.ROOT / "docs" / "cdp_core.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_guide_has_examples() -> None:
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize("index", range(len(EXAMPLES)), ids=lambda i: f"example{i + 1}")
def test_example_runs_as_a_script(index: int, chromium: ChromiumProcess, tmp_path: Path) -> None:
    script = tmp_path / f"example_{index + 1}.py"
    script.write_text(EXAMPLES[index], encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["CDP_URL"] = chromium.cdp_url
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"docs/cdp_core.md example {index + 1} failed:\n{done.stdout}\n{done.stderr}"
    assert "Traceback" not in done.stderr


def test_every_example_is_a_complete_script() -> None:
    for number, code in enumerate(EXAMPLES, 1):
        assert code.rstrip().endswith("asyncio.run(main())"), f"example {number} does not run itself"
        assert "import asyncio" in code, f"example {number} does not import asyncio"
