"""The records the collector keeps: event categories, per-thread arrays, requests, CPU profiles.

Shared by :mod:`.collect` (which fills them), :mod:`.build` and
:mod:`.insights` (which read them). Compact on purpose: a thread's timed events are
parallel ``array`` columns (19 bytes an event), a profile's samples likewise (20 bytes).
"""

from __future__ import annotations

import threading
from array import array
from dataclasses import dataclass, field
from typing import Any

#: A task longer than this blocks input noticeably (the web's "long task" definition).
LONG_TASK_MS = 50.0
TOP_N = 5

# -- categories ----------------------------------------------------------------------------

SCRIPTING, RENDERING, PAINTING, LOADING, TASK = 0, 1, 2, 3, 4
CATEGORY_NAMES = ("scripting", "rendering", "painting", "loading")

# DevTools-like grouping of main-thread events (its "Summary" tab colours).
_BY_NAME: dict[str, int] = {
    **dict.fromkeys(
        (
            "FunctionCall",
            "EvaluateScript",
            "TimerFire",
            "EventDispatch",
            "RunMicrotasks",
            "FireAnimationFrame",
            "FireIdleCallback",
            "XHRReadyStateChange",
            "XHRLoad",
            "MajorGC",
            "MinorGC",
            "GCEvent",
            "CompileScript",
            "CompileCode",
            "CompileModule",
            "CacheScript",
            "CacheModule",
            "HandlePostMessage",
            "SchedulePostMessage",
            "BackgroundDeserialize",
            "ScheduledAction",
        ),
        SCRIPTING,
    ),
    **dict.fromkeys(
        (
            "Layout",
            "UpdateLayoutTree",
            "RecalculateStyles",
            "InvalidateLayout",
            "UpdateLayerTree",
            "HitTest",
            "PrePaint",
            "Layerize",
            "ScrollLayer",
            "IntersectionObserverController::computeIntersections",
            "ComputeIntersections",
        ),
        RENDERING,
    ),
    **dict.fromkeys(
        (
            "Paint",
            "PaintSetup",
            "PaintImage",
            "UpdateLayer",
            "CompositeLayers",
            "Commit",
            "RasterTask",
            "Decode Image",
            "Decode LazyPixelRef",
            "Draw LazyPixelRef",
            "ImageDecodeTask",
            "GPUTask",
        ),
        PAINTING,
    ),
    **dict.fromkeys(("ParseHTML", "ParseAuthorStyleSheet", "ResourceReceivedData"), LOADING),
}
_SCRIPT_PREFIXES = ("v8.", "V8.", "BlinkGC.", "ThreadState::")
#: Events whose args say which script ran: worth remembering for long-task attribution.
_SCRIPT_INFO = frozenset(("FunctionCall", "EvaluateScript", "v8.compile", "v8.evaluateModule", "TimerFire"))
_INFO_MIN_US = 1000.0  # script details kept for events of 1 ms and more


_NAMES: list[str] = []
_NAME_INDEX: dict[str, int] = {}
_NAMES_LOCK = threading.Lock()  # summaries run in worker threads


def _name_index(name: str) -> int:
    """Timed event names are few (a hundred or so): stored once, per event a 2-byte index."""
    i = _NAME_INDEX.get(name)
    if i is None:
        with _NAMES_LOCK:
            i = _NAME_INDEX.get(name)
            if i is None:
                if len(_NAMES) >= 65535:  # only with made-up names; the activity label degrades
                    return 0
                i = len(_NAMES)
                _NAMES.append(name)
                _NAME_INDEX[name] = i
    return i


def _category(name: str) -> int | None:
    if name == "RunTask":
        return TASK
    cat = _BY_NAME.get(name)
    if cat is None and name.startswith(_SCRIPT_PREFIXES):
        cat = SCRIPTING
    return cat


@dataclass
class _Thread:
    """Timed events of one thread, packed: ts/dur in µs, category code, optional details."""

    ts: array[float] = field(default_factory=lambda: array("d"))
    dur: array[float] = field(default_factory=lambda: array("d"))
    cat: array[int] = field(default_factory=lambda: array("b"))
    name: array[int] = field(default_factory=lambda: array("H"))  # index into _NAMES
    info: dict[int, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    task_us: float = 0.0
    task_count: int = 0
    open_b: dict[str, list[tuple[float, dict[str, Any]]]] = field(default_factory=dict)

    def add(self, ts: float, dur: float, cat: int, name: str, args: dict[str, Any]) -> None:
        if cat == TASK:
            self.task_us += dur
            self.task_count += 1
        if dur >= _INFO_MIN_US and (name in _SCRIPT_INFO or name == "EventDispatch"):
            data = args.get("data")
            self.info[len(self.ts)] = (name, data if isinstance(data, dict) else {})
        self.ts.append(ts)
        self.dur.append(dur)
        self.cat.append(cat)
        self.name.append(_name_index(name))


@dataclass
class _Request:
    url: str = ""
    method: str | None = None
    resource_type: str | None = None
    priority: str | None = None
    start: float | None = None
    response: float | None = None
    end: float | None = None
    status: int | None = None
    mime: str | None = None
    from_cache: bool = False
    failed: bool = False
    encoded: int | None = None
    # What DevTools' insights need (its network handler's start, end and finish times).
    request_id: str = ""
    will_send: float | None = None  # first ResourceWillSendRequest
    first_send: float | None = None  # first ResourceSendRequest (as logged, not the earliest)
    frame: str | None = None
    render_blocking: str | None = None  # as sent
    preload_render_blocking: str | None = None  # the last PreloadRenderBlockingStatusChange
    finish_ts: float | None = None  # the ResourceFinish event itself
    finish_time: float | None = None  # its finishTime: when the network stack finished (µs)
    timing: dict[str, Any] | None = None

    @property
    def devtools_start(self) -> float | None:
        return self.will_send if self.will_send is not None else self.first_send

    @property
    def devtools_end(self) -> float | None:
        return self.finish_ts if self.finish_ts is not None else self.first_send

    @property
    def devtools_finish(self) -> float | None:
        return self.finish_time if self.finish_time is not None else self.devtools_end

    @property
    def blocking(self) -> str:
        return self.preload_render_blocking or self.render_blocking or "non_blocking"


_SKIP_FRAMES = frozenset(("(root)", "(program)", "(idle)"))


@dataclass
class _Profile:
    """One V8 CPU profile (``Profile`` + its ``ProfileChunk`` events): sample times and functions."""

    thread: tuple[Any, Any] | None = None
    clock: float | None = None  # time of the last sample, µs, same clock as ts
    node_fn: dict[int, int] = field(default_factory=dict)  # profile node id -> function index (-1: skip)
    ts: array[float] = field(default_factory=lambda: array("d"))
    fn: array[int] = field(default_factory=lambda: array("i"))
    weight: array[float] = field(default_factory=lambda: array("d"))  # µs until the next sample
    open: int = -1  # index of the last kept sample, whose weight waits for the next sample
    last_delta: float = 0.0  # the latest sampling interval (µs)


def _is_main_frame(frame: dict[str, Any]) -> bool:
    return bool(frame.get("isOutermostMainFrame", frame.get("isInPrimaryMainFrame")))


def _data(ev: dict[str, Any]) -> dict[str, Any]:
    args = ev.get("args")
    if not isinstance(args, dict):
        return {}
    data = args.get("data")
    return data if isinstance(data, dict) else {}


def _ms(us: float | None) -> float | None:
    return None if us is None else round(us / 1000.0, 1)
