"""Debug points of one page: logpoints, snapshot points and exception captures that never freeze it.

Safety first, because this runs in the user's Chrome: the Debugger domain is enabled on the
page's sessions only while a point (or an exception mode) exists, and disabled when the last
one goes. While it is on, a ``debugger;`` statement or a breakpoint nobody here set would
pause the page: such a pause is resumed at once and counted (:attr:`DebugPoints.foreign`).
Every pause of ours is resumed as soon as its capture is read; a watchdog resumes it anyway
when the capture stalls (``capture_timeout``). Names and places are mapped after the resume,
with the page running again. Closing a session (detach, server exit) drops its breakpoints in
Chrome; :meth:`DebugPoints.close` removes them first when it can.

Hits become console entries (``logpoint``, ``snapshot``) of the page's console recorder; the
capture of an uncaught exception goes onto its ``pageerror`` entry.

Several clients may set points on one page (MCP sessions of one server): each point carries
its ``owner``, a name the caller gives (cdp_core gives it no meaning). :meth:`DebugPoints.remove_owned`
and :meth:`DebugPoints.forget_caller` remove one owner's points and leave the others' in place;
the domain goes off only with the last point of anyone.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...errors import CDPException
from ..network import iso_time
from .capture import capture_pause, checked_condition, logpoint_condition
from .entries import capped_entry, logpoint_entry, notice_entry, onto_pageerror, snapshot_entry
from .names import name_capture

if TYPE_CHECKING:
    from ...connection import CDPSession
    from ..console import ConsoleRecorder

__all__ = ["DebugPoints", "Point"]

log = logging.getLogger("cdp_core.debugger")

#: How long a pause may wait for its capture before the watchdog resumes it.
CAPTURE_TIMEOUT_S = 2.0
#: Exception captures per debug_exceptions call (then the mode goes off: a throwing loop stays fast).
EXCEPTION_CAPTURES_MAX = 50
#: How long the capture of an uncaught exception waits for its pageerror entry.
PAGEERROR_WAIT_S = 3.0

#: (session paused, raw capture) -> the capture with original names and places
Mapper = Callable[["CDPSession", dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass
class Point:
    """One logpoint or snapshot point: where (generated, 0-based), what, and how often it hit."""

    id: int
    kind: str  # "logpoint" | "snapshot"
    url: str
    line: int
    column: int
    max_hits: int
    original: dict[str, Any] | None = None  # {"source", "lineNumber"} as asked
    expression: str | None = None
    condition: str | None = None
    generated_expression: str | None = None
    generated_condition: str | None = None
    labels: list[str] = field(default_factory=list)
    hits: int = 0
    capped: bool = False
    bound: bool = False  # V8 placed it in a loaded script
    breakpoints: dict[str | None, str] = field(default_factory=dict)  # session id -> breakpoint id
    #: carried by each record of the point: the page can call the binding, it cannot know this
    nonce: str = field(default_factory=lambda: secrets.token_hex(8))
    #: who set it ("" when nobody said): only its owner's clear removes it
    owner: str = ""


class DebugPoints:
    """The page's points, applied to each of its sessions (the page and its out-of-process iframes)."""

    def __init__(self, console: ConsoleRecorder, mapper: Mapper | None = None) -> None:
        self.console = console
        #: maps a raw capture (frames, scopes) to original names and places; identity when None
        self.mapper = mapper
        self.binding = "__mcpDebug_" + secrets.token_hex(6)
        self.points: dict[int, Point] = {}
        self.exceptions = "none"
        #: who set the exception mode last: that owner's clear turns it off
        self.exceptions_owner = ""
        self.foreign: list[dict[str, Any]] = []  # the last pauses nobody here asked for
        self.foreign_count = 0  # all of them (an anti-debug loop pauses thousands of times)
        self.capture_timeout = CAPTURE_TIMEOUT_S
        self.pause_ms: list[float] = []  # how long each of our pauses held the page (benchmarks read it)
        self._ids = 0
        self._sessions: dict[str | None, CDPSession] = {}
        self._enabled: set[str | None] = set()
        self._subs: dict[str | None, Any] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._script_urls: dict[tuple[str | None, str], str] = {}
        #: where a script starts in its document (an inline <script>): pauses are in document coordinates
        self._script_starts: dict[tuple[str | None, str], tuple[int, int]] = {}
        self.exception_hits = 0

    # -- sessions ------------------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return bool(self.points) or self.exceptions != "none"

    async def add_session(self, session: CDPSession) -> None:
        """A session of the page (its own, an iframe's): points apply there too while any exist."""
        self._sessions[session.session_id] = session
        if self.active:
            await self._enable(session)
            for point in self.points.values():
                await self._place(session, point)

    async def _enable(self, session: CDPSession) -> None:
        sid = session.session_id
        if sid in self._enabled or session.closed:
            return
        self._subs[sid] = session.on(
            ("Debugger.paused", "Runtime.bindingCalled", "Debugger.scriptParsed"),
            lambda ev: self._on_event(session, ev.method, ev.params),
        )
        await session.send("Runtime.addBinding", {"name": self.binding})
        await session.send("Debugger.enable", {"maxScriptsCacheSize": 0})
        await session.send("Debugger.setPauseOnExceptions", {"state": self.exceptions})
        self._enabled.add(sid)

    async def _disable(self, session: CDPSession) -> None:
        sid = session.session_id
        if sid not in self._enabled:
            return
        self._enabled.discard(sid)
        sub = self._subs.pop(sid, None)
        if not session.closed:
            for method, params in (
                ("Debugger.disable", {}),  # drops its breakpoints and resumes a pause
                ("Runtime.removeBinding", {"name": self.binding}),
                # removeBinding leaves the function on the page's global object: the page gets it back as it was
                ("Runtime.evaluate", {"expression": f"delete globalThis[{json.dumps(self.binding)}]"}),
            ):
                try:
                    await session.send(method, params, timeout=5)
                except CDPException as exc:
                    log.debug("%s failed: %s", method, exc)
        if sub is not None:
            sub.cancel()

    def _live_sessions(self) -> list[CDPSession]:
        for sid in [sid for sid, s in self._sessions.items() if s.closed]:
            self._sessions.pop(sid, None)
            self._enabled.discard(sid)
            sub = self._subs.pop(sid, None)
            if sub is not None:
                sub.cancel()
        return list(self._sessions.values())

    # -- points --------------------------------------------------------------------------------

    def next_id(self) -> int:
        self._ids += 1
        return self._ids

    async def add(self, point: Point) -> Point:
        """Turn the domain on where needed and place ``point`` in every session of the page."""
        self.points[point.id] = point
        try:
            for session in self._live_sessions():
                await self._enable(session)
                await self._place(session, point)
        except CDPException:
            await self.remove(point.id)
            raise
        return point

    def condition_of(self, point: Point) -> str:
        if point.kind == "logpoint":
            return logpoint_condition(
                self.binding,
                point.id,
                point.max_hits,
                point.generated_expression or "undefined",
                point.generated_condition,
                point.nonce,
            )
        return checked_condition(self.binding, point.id, point.generated_condition) if point.generated_condition else ""

    async def _place(self, session: CDPSession, point: Point) -> None:
        if point.capped or session.session_id in point.breakpoints:
            return
        reply = await session.send(
            "Debugger.setBreakpointByUrl",
            {
                "url": point.url,
                "lineNumber": point.line,
                "columnNumber": point.column,
                "condition": self.condition_of(point),
            },
        )
        point.breakpoints[session.session_id] = str(reply.get("breakpointId"))
        point.bound = point.bound or bool(reply.get("locations"))

    async def _unplace(self, point: Point) -> None:
        for sid, bp in list(point.breakpoints.items()):
            session = self._sessions.get(sid)
            if session is not None and not session.closed and sid in self._enabled:
                try:
                    await session.send("Debugger.removeBreakpoint", {"breakpointId": bp}, timeout=5)
                except CDPException as exc:
                    log.debug("removeBreakpoint failed: %s", exc)
        point.breakpoints.clear()

    async def remove(self, point_id: int | None = None) -> int:
        """Remove one point (or all, with the exception mode); the domain goes off with the last."""
        ids = list(self.points) if point_id is None else [point_id]
        for pid in ids:
            point = self.points.pop(pid, None)
            if point is not None:
                await self._unplace(point)
        if point_id is None:
            self.exceptions = "none"
        await self._settle()
        return len(ids)

    def owned_by(self, owner: str) -> list[Point]:
        """The points ``owner`` set, oldest first."""
        return [p for p in self.points.values() if p.owner == owner]

    async def remove_owned(self, owner: str) -> int:
        """Remove ``owner``'s points (and the exception mode, if it set it last); the others' stay.

        Returns how many points went; the domain goes off when no point of anyone is left.
        """
        mine = [p.id for p in self.owned_by(owner)]
        for pid in mine:
            point = self.points.pop(pid, None)
            if point is not None:
                await self._unplace(point)
        if self.exceptions != "none" and self.exceptions_owner == owner:
            try:  # Chrome stops pausing on throws; the others' points stay
                await self.set_exceptions("none", owner=owner)
            except CDPException as exc:  # a session going away: the mode is off here all the same
                log.debug("exception mode not turned off: %s", exc)
        await self._settle()
        return len(mine)

    async def forget_caller(self, caller: str) -> None:
        """``caller`` left (its session ended): its points go, the page as it was once none is left."""
        await self.remove_owned(caller)

    async def set_exceptions(self, mode: str, *, owner: str = "") -> None:
        """``none`` | ``uncaught`` | ``all``: pause (capture, resume) when an exception is thrown.

        One mode a page, whoever sets it: ``owner`` (the last to set it) is the one whose clear
        turns it off.
        """
        self.exceptions = mode
        self.exceptions_owner = owner
        self.exception_hits = 0
        for session in self._live_sessions():
            if mode != "none":
                await self._enable(session)
            if session.session_id in self._enabled:
                await session.send("Debugger.setPauseOnExceptions", {"state": mode})
        await self._settle()

    async def _settle(self) -> None:
        if self.active:
            return
        for session in list(self._sessions.values()):
            await self._disable(session)

    async def close(self) -> None:
        """Everything off (detach, page closed, server exit); best effort on sessions already gone."""
        self.points.clear()
        self.exceptions = "none"
        for session in list(self._sessions.values()):
            await self._disable(session)
        for task in list(self._tasks):
            task.cancel()

    # -- events (in the reader: cheap, work goes to tasks) -------------------------------------

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task: asyncio.Task[Any] = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _on_event(self, session: CDPSession, method: str, params: dict[str, Any]) -> None:
        if method == "Debugger.scriptParsed":  # a paused frame names its script by id only
            key = (session.session_id, str(params.get("scriptId")))
            if len(self._script_urls) > 20_000:
                self._script_urls.clear()
                self._script_starts.clear()
            if params.get("url"):
                self._script_urls[key] = str(params["url"])
            if params.get("startLine") or params.get("startColumn"):
                self._script_starts[key] = (int(params.get("startLine") or 0), int(params.get("startColumn") or 0))
        elif method == "Runtime.bindingCalled":
            if params.get("name") == self.binding:
                self._on_logpoint(session, str(params.get("payload") or ""))
        else:
            self._spawn(self._on_paused(session, params, time.monotonic()))

    def _on_logpoint(self, session: CDPSession, payload: str) -> None:
        try:
            hit = json.loads(payload)
            point = self.points.get(int(hit["p"]))
        except (ValueError, KeyError, TypeError):
            return  # not ours (the page can call the function too)
        if point is None or point.kind != "logpoint" or hit.get("k") != point.nonce:
            return  # not ours: the page called the binding itself
        if hit.get("capped") or point.hits >= point.max_hits:
            # the cap is ours too: the page can write the counter the condition keeps on the binding
            if not point.capped:
                point.capped = True
                self._spawn(self._unplace(point))
                self._capped(point)
            return
        point.hits += 1
        values = hit.get("v")
        self.console._add(
            logpoint_entry(self.console.page_url, point, session, int(hit.get("n") or point.hits), values)
        )

    def _capped(self, point: Point) -> None:
        session = next(iter(self._sessions.values()), None)
        if session is not None:
            self.console._add(capped_entry(self.console.page_url, point, session))

    async def _someone_elses(self, session: CDPSession, params: dict[str, Any]) -> bool:
        """True when a pause belongs to another debugger (the user's DevTools): it is left to them.

        Chrome tells each client only its own breakpoints, so a pause of reason ``other`` that
        hit none of ours is a ``debugger;`` statement or another client's breakpoint or step:
        the code at the pause says which. Another client's pause is theirs; a ``debugger;``
        statement is left alone only while a DevTools window is open (it would pause there
        without us too), else resumed. Any doubt resumes: a page left paused is the worse error.
        """
        if params.get("reason") != "other" or params.get("hitBreakpoints"):
            return False
        top = (params.get("callFrames") or [{}])[0]
        loc = top.get("location") or {}
        try:
            source = await session.send("Debugger.getScriptSource", {"scriptId": loc.get("scriptId")}, timeout=2)
        except CDPException:
            return False
        lines = str(source.get("scriptSource") or "").split("\n")
        line, col = int(loc.get("lineNumber", -1)), int(loc.get("columnNumber", 0))
        start_line, start_col = self._script_starts.get((session.session_id, str(loc.get("scriptId"))), (0, 0))
        if line == start_line:
            col -= start_col
        line -= start_line
        if not 0 <= line < len(lines) or col < 0:
            return False
        if not lines[line][col:].lstrip().startswith("debugger"):
            return True  # a breakpoint or a step of another client
        try:
            reply = await session.connection.root.send("Target.getTargets", timeout=2)
        except CDPException:
            return False
        return any(str(t.get("url", "")).startswith("devtools://") for t in reply.get("targetInfos") or ())

    def _url_of(self, session: CDPSession) -> Callable[[str], str]:
        return lambda script_id: self._script_urls.get((session.session_id, script_id), "")

    async def _resume(self, session: CDPSession) -> None:
        try:
            await session.send("Debugger.resume", timeout=5)
        except CDPException as exc:
            log.debug("resume failed: %s", exc)

    async def _on_paused(self, session: CDPSession, params: dict[str, Any], started: float) -> None:
        reason = params.get("reason")
        ours = [
            p
            for p in self.points.values()
            if p.kind == "snapshot" and set(p.breakpoints.values()) & set(params.get("hitBreakpoints") or ())
        ]
        exception = reason in ("exception", "promiseRejection") and self.exceptions != "none"
        if not ours and not exception and reason in ("exception", "promiseRejection"):
            await self._resume(session)  # a throw paused before our exception mode went off: ours, late
            return
        if not ours and not exception:
            top = (params.get("callFrames") or [{}])[0]
            loc = top.get("location") or {}
            left = await self._someone_elses(session, params)
            if not left:
                await self._resume(session)
            self.foreign.append(
                {
                    "reason": reason,
                    "url": top.get("url") or self._url_of(session)(str(loc.get("scriptId"))),
                    "lineNumber": int(loc.get("lineNumber", 0)) + 1,
                    "at": iso_time(),
                    "left": left,
                }
            )
            del self.foreign[:-20]
            self.foreign_count += 1
            return
        point = ours[0] if ours else None
        if point is not None and point.hits >= point.max_hits:
            await self._resume(session)
            return
        if point is not None:
            point.hits += 1
        elif self.exception_hits >= EXCEPTION_CAPTURES_MAX:
            # A page that throws in a loop (mode "all" sees caught exceptions too) would be slowed
            # by a capture each time: past the budget the mode goes off, and that is said.
            await self._resume(session)
            if self.exceptions != "none":
                self._spawn(self.set_exceptions("none"))
                self.console._add(
                    notice_entry(
                        self.console.page_url,
                        session,
                        f"exception captures stopped after {EXCEPTION_CAPTURES_MAX}: mode is off",
                    )
                )
            return
        else:
            self.exception_hits += 1
        before = max(self.console._entries, default=0)
        try:
            reading = capture_pause(session, params, self._url_of(session), timeout=self.capture_timeout)
            capture = await asyncio.wait_for(reading, self.capture_timeout)
        except (TimeoutError, CDPException) as exc:
            capture = {"frames": [], "reason": reason, "error": f"capture not read: {exc or 'timed out'} (resumed)"}
        finally:
            await self._resume(session)
            self.pause_ms.append((time.monotonic() - started) * 1000)
            del self.pause_ms[:-1000]
        if point is not None and point.hits >= point.max_hits and not point.capped:
            point.capped = True
            await self._unplace(point)
        if self.mapper is not None:
            try:
                capture = await self.mapper(session, capture)
            except Exception as exc:  # noqa: BLE001 - a capture unmapped is still a capture
                log.debug("mapping a capture failed: %s", exc)
        capture = name_capture(capture, None) if self.mapper is None else capture
        if point is None and capture.get("uncaught"):
            if await onto_pageerror(self.console, capture, before, PAGEERROR_WAIT_S):
                return
        self.console._add(snapshot_entry(self.console.page_url, point, session, capture))
