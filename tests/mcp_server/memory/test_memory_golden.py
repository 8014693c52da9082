"""Golden answers of the memory feature (sizes and counts are this run's: hidden)."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden import Golden

GOLDEN = Path(__file__).parent / "golden"

FIGURES = [
    (r"(Top by [\w ]+ size:).*", r"\1 <TOP>"),
    (r"(?<![\w.])\d+(?:[.,]\d+)*(?= (?:ms|MB|KB|GB|B|long task|request|layout shift|tasks|objects)\b)", "N"),
]


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def test_memory_snapshot(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/home.html"))
    await g.check(
        "memory_snapshot",
        subs=FIGURES,
        numbers=True,
        keys={"topBySelfSize": "<TOP>", "topByRetainedSize": "<TOP>"},
    )
