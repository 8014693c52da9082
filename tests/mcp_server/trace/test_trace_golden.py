"""Golden answers of the trace feature (numbers are measurements: hidden)."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden import Golden

GOLDEN = Path(__file__).parent / "golden"

#: Every figure of a trace is a measurement of this run (the file name is already a <STAMP>).
#: The hot functions are a sampling profiler's catch and a long task comes with the machine's
#: load: present or not, run by run, so their lines and keys are left out.
FIGURES = [
    (r"\n(?:Hot functions \(self time\)|Longest tasks):[^\n]*", ""),
    (r"(?<![\w.])\d+(?:[.,]\d+)*(?= (?:ms|MB|KB|GB|B|long task|request|layout shift|tasks|objects)\b)", "N"),
]

SAMPLED: dict[str, str | None] = {"hotFunctions": None, "longestTasks": None, "columns": None}


@pytest.fixture(scope="module")
async def g(app_client_module, http_server) -> Golden:
    return await Golden.open(app_client_module, GOLDEN, http_server=http_server)


async def test_trace(g: Golden, http_server) -> None:
    await g.call("navigate", url=http_server.url("/golden/home.html"))
    await g.check("performance_summary", scenario="none", error=True)
    await g.check("performance_start_trace")
    await g.call("evaluate_js", expression="document.body.append('traced'); 1")
    await g.check("performance_stop_trace", subs=FIGURES, numbers=True, keys=SAMPLED)
    await g.check("performance_summary", subs=FIGURES, numbers=True, keys=SAMPLED)
