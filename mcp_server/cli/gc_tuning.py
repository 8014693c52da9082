"""Garbage-collector settings of the server process: list answers built without collector pauses.

Why: CPython starts a young collection every 700 net new containers (dicts, lists). A long
console list builds tens of thousands of them (fields, rows, the SDK's copies), all alive until
the answer is written, so the collector ran many times per answer, moved every row into the old
generations, and every few answers paid a full collection over the whole heap (modules,
schemas, the recorders) in the middle of a call (tests/bench/ measures it).

With a threshold of :data:`YOUNG_THRESHOLD` an answer is built and freed by reference counting
before a young collection starts, so its rows never reach the old generations; what the start-up
loaded (modules, pydantic models, tool schemas: it lives as long as the process) is frozen out
of full collections. Cycles are still collected, only less often; the recorders are bounded by
bytes, so the heap does not grow with the threshold.
"""

from __future__ import annotations

import gc

__all__ = ["tune_gc", "YOUNG_THRESHOLD"]

#: Net new containers before a young collection (CPython's default: 700).
YOUNG_THRESHOLD = 50_000
#: Young collections per middle one, middle ones per full one (defaults 10, 10).
MIDDLE_EVERY = 20
FULL_EVERY = 20


def tune_gc() -> None:
    """Apply the thresholds and freeze what is alive now (call once the server is loaded).

    No ``gc.collect()`` first: it would cost the first call tens of milliseconds, and the
    start-up leaves little garbage to freeze.
    """
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_EVERY, FULL_EVERY)
    gc.enable()
