"""Every Python example in docs/cdp_core.md runs against a real Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "cdp_core.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_guide_has_examples():
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
async def test_example_runs(index, chromium):
    namespace: dict = {}
    exec(compile(EXAMPLES[index], f"docs/cdp_core.md example {index + 1}", "exec"), namespace)
    await namespace["main"](chromium.http_url)
