"""Garbage-collector settings of the server process: list answers built without collector pauses.

Why: CPython starts a young collection every 700 net new containers (dicts, lists). A console
list of 2000 entries builds ~20,000 of them (fields, rows, the SDK's copies) and all of them are
alive until the answer is written, so the collector ran ~30 times per answer, moved every row
into the old generations, and every few answers paid a full collection over the whole heap
(modules, schemas, the recorders): 70-200 ms on 2 loaded cores, in the middle of a call.
Measured over stdio (the bench's traffic page, 20 calls): 16 young and 1.5 middle collections
per console list and a full one every ~7 lists.

With a threshold of :data:`YOUNG_THRESHOLD` an answer is built and freed by reference counting
before a young collection starts, so its rows never reach the old generations; what the start-up
loaded (modules, pydantic models, tool schemas: it lives as long as the process) is frozen out
of full collections. Cycles are still collected, only less often; the recorders are bounded by
bytes, so the heap does not grow with the threshold.
"""

from __future__ import annotations

import gc

__all__ = ["pause_for_startup", "tune_gc", "YOUNG_THRESHOLD"]

#: Net new containers before a young collection (CPython's default: 700).
YOUNG_THRESHOLD = 50_000
#: Young collections per middle one, middle ones per full one (defaults 10, 10).
MIDDLE_EVERY = 20
FULL_EVERY = 20


def pause_for_startup() -> None:
    """No collections while the server loads (call first thing; :func:`tune_gc` turns them back on).

    Why: the start-up builds hundreds of thousands of containers that all stay alive (the SDK's
    and our pydantic models, schemas, modules), so the collector's ~700 runs during the imports
    find nothing to free and cost ~75 ms of a ~600 ms start (measured: 10 starts each way on 2
    loaded cores, median 523 vs 600 ms CPU; the same peak RSS). The first call waits for all of it.
    """
    gc.disable()


def tune_gc() -> None:
    """Apply the thresholds and freeze what is alive now (call once the server is loaded).

    No ``gc.collect()`` first: it would cost the first call tens of milliseconds, and the
    start-up leaves little garbage to freeze.
    """
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_EVERY, FULL_EVERY)
    gc.enable()
