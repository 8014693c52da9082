"""The quick start's front: one asyncio loop from process start that owns the stdio wire.

What it does while the server loads in a worker thread (quickstart.py says why):

1. answers ``initialize`` and the first ``tools/list`` from the SDK's recorded answers;
2. once our tools are loaded (before the SDK's server side), runs the ``tools/call``
   requests :func:`early_calls.eligible` accepts, for real, and writes their answers;
3. once the SDK server is built, hands it every other line in the order they came, in the
   same loop: the SDK never sees a request answered here, and sees everything else in order.

The first line only the SDK can answer (a ``ping``, ``logging/setLevel``, a call with a
``progressToken``, bad JSON, an unknown tool, ...) ends 1 and 2: it and every later line go to
the SDK, as on an ordinary start. One reader (:class:`~.quick_wire.LineReader`) and one writer with a lock
(:class:`~.quick_wire.LineWriter`) serve the front and then the SDK, so no byte is read twice or lost at the
hand-over and answers never interleave. A ``notifications/cancelled`` for a call running here
cancels it (no answer, as the SDK does), before and after the hand-over; at the end of the input
the calls still running here end when the SDK's do, with its ``Connection closed`` answer.

Until the client's first call has run here (at most :data:`FIRST_CALL_HOLD_S` after our tools
loaded), and while a call runs here (at most :data:`BUILD_HOLD_S`), the SDK server's load waits:
its import would take half the CPU of the call (the GIL), ~146 ms instead of ~30 for a first
attach. That load also imports the action modules a first call did not need (call_routes.py). Stop
signals are taken from the start, so a browser an early call launched is closed as on SIGTERM
once the SDK serves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from . import early_calls
from .quick_wire import EOF, LineReader, LineWriter
from .quickstart import SENTINEL

__all__ = ["run"]

log = logging.getLogger("mcp_server")

#: longest the SDK server's load waits for the calls running here to end (see ``run``)
BUILD_HOLD_S = 1.0
#: longest the SDK server's load waits for a first call that has not come yet (see ``run``)
FIRST_CALL_HOLD_S = 0.3
#: The GIL switch interval while the SDK server loads beside running calls (see ``load``)
BUILD_SWITCH_INTERVAL_S = 0.0005


class _Front:
    """Sorts the client's lines: replayed here, run here, or queued for the SDK (see the module doc)."""

    def __init__(
        self, cache: dict[str, Any], reader: LineReader, writer: LineWriter, tools: asyncio.Future[Any]
    ) -> None:
        self.cache = cache
        self.reader = reader
        self.writer = writer
        self.tools = tools  # (manager, BrowserMCP) once loaded, or the loader's exit code
        self.for_sdk: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.version: str | None = None
        self.initialized = False
        self.called = False  # a call ran here: the recorded tools/list is not replayed any more
        self.drop_id: Any = None  # the SDK's answer to this initialize is a duplicate
        self.forwarding = False  # something only the SDK can answer came, or the SDK took over
        self.early = early_calls.enabled()
        self.running: dict[Any, asyncio.Task[None]] = {}  # calls run here, by JSON-RPC id
        self.write_started: set[Any] = set()  # ids whose answer has begun to go out (never answered twice)
        self.waiting = 0  # calls waiting for the tools to load, to be run here or not
        #: set when the SDK server may load: its import would halve the CPU of a call running here
        self.build_gate = threading.Event()

    async def pump(self) -> None:
        try:
            while (line := await self.reader.line()) is not EOF:
                try:
                    await self.handle(line)
                except Exception:  # noqa: BLE001 - a bug in sorting one line must not end the session
                    log.exception("quick start: could not sort a line; the SDK answers it")
                    self._forward(line)
        finally:
            # The calls running here go on until the SDK reaches the end too (``close_running``).
            self.for_sdk.put_nowait(EOF)
            self.build_gate.set()

    async def handle(self, line: bytes) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if not isinstance(msg, dict):
            return self._forward(line)
        method, msg_id, params = msg.get("method"), msg.get("id"), msg.get("params")
        if method == "notifications/cancelled" and isinstance(params, dict) and self._cancel(params.get("requestId")):
            return None
        if self.forwarding:
            return self._forward(line)
        if method == "initialize" and msg_id is not None and self.version is None and isinstance(params, dict):
            asked = params.get("protocolVersion")
            self.version = asked if asked in self.cache["versions"] else self.cache["latest"]
            await self._replay(self.cache["initialize"][self.version], msg_id)
            self.drop_id = msg_id
            self.for_sdk.put_nowait(line)  # the SDK must see the handshake too
            return None
        if method == "notifications/initialized" and self.version is not None:
            self.initialized = True
            self.for_sdk.put_nowait(line)
            return None
        if method == "tools/list" and msg_id is not None and self.version is not None and not self.called:
            # After a call the SDK answers it: replayed at once, it would overtake the call's answer.
            cursor = params.get("cursor") if isinstance(params, dict) else None
            if params is None or (isinstance(params, dict) and not cursor):
                return await self._replay(self.cache["tools/list"][self.version], msg_id)
        if method == "tools/call" and self.early and self.initialized and await self._run_early(line, msg):
            return None
        return self._forward(line)

    def _forward(self, line: bytes) -> None:
        self.forwarding = True
        self.build_gate.set()  # the SDK is needed now
        self.for_sdk.put_nowait(line)

    def open_gate_if_idle(self) -> None:
        """Let the SDK server load once the client's first call ran here and no call runs (or waits to).

        Until that first call the load waits too (at most :data:`FIRST_CALL_HOLD_S`, see :func:`run`):
        a client that compiles our outputSchemas before it calls (the TypeScript SDK, ~100 ms
        after ``tools/list``) would otherwise send its first call into the middle of that load,
        at half the CPU. A line only the SDK answers opens the gate at once (``_forward``).
        """
        if not self.running and not self.waiting and (self.called or not self.early):
            self.build_gate.set()

    async def _replay(self, recorded: str, msg_id: Any) -> None:
        text = recorded.replace(f'"id":{SENTINEL}', f'"id":{json.dumps(msg_id)}', 1)
        await self.writer.write(text.encode("utf-8") + b"\n")

    async def _run_early(self, line: bytes, msg: dict[str, Any]) -> bool:
        """Start the call here if it is one the SDK would answer the same; False: it goes to the SDK."""
        self.waiting += 1
        try:
            if not self.tools.done():
                await asyncio.wait([self.tools])  # our tools load first (~0.3 s before the SDK server)
            return self._start_early(line, msg)
        except Exception:  # noqa: BLE001 - a bug here must not stop the wire: the SDK answers the call
            log.exception("early tools/call: could not start it here; the SDK answers it")
            return False
        finally:
            self.waiting -= 1

    def _start_early(self, line: bytes, msg: dict[str, Any]) -> bool:
        if self.forwarding or self.tools.cancelled() or self.tools.exception() is not None:
            return False
        prepared = self.tools.result()
        if isinstance(prepared, int):
            return False
        app = prepared[1]
        if not early_calls.eligible(line, msg, self.version, app.tool_names()):
            return False
        msg_id, params = msg["id"], msg["params"]
        if msg_id in self.running:
            return False  # a duplicate id: the SDK's to judge
        self.called = True
        task = asyncio.get_running_loop().create_task(self._call(app, msg_id, params))
        self.running[msg_id] = task
        task.add_done_callback(lambda _: (self.running.pop(msg_id, None), self.open_gate_if_idle()))
        return True

    async def _call(self, app: Any, msg_id: Any, params: dict[str, Any]) -> None:
        version = self.version or ""
        try:
            # The light answer (surface/tool_answer.py): the SDK's CallToolResult would import mcp_types
            answer = await app.answer(params["name"], params.get("arguments"))
            line = early_calls.answer_line(msg_id, answer.wire_form(), version)
        except Exception as exc:  # noqa: BLE001 - call_tool answers everything; this is a bug in the shaping
            log.exception("early tools/call %r failed", msg_id)
            line = early_calls.error_line(msg_id, 0, str(exc))  # what the SDK's dispatcher answers then
        # Once the answer's first byte may be out, it is written whole (a cancel here would leave half a
        # line for the next writer to append to) and nothing else answers this id: as the SDK prefers,
        # possibly no answer to a cancelled call, never two.
        self.write_started.add(msg_id)
        await asyncio.shield(self.writer.write(line))
        log.info("quick start: answered tools/call %s, started before the SDK server was ready", json.dumps(msg_id))

    async def close_running(self) -> None:
        """The wire's end reached the SDK: end the calls still running here as it ends its own.

        The SDK cancels its calls in flight and answers each ``Connection closed`` (-32000);
        the same here, before the SDK's serving closes the browsers under them.
        """
        running = dict(self.running)
        for task in running.values():
            task.cancel()
        await asyncio.gather(*running.values(), return_exceptions=True)
        for msg_id, task in running.items():
            if task.cancelled() and msg_id not in self.write_started:
                await self.writer.write(early_calls.error_line(msg_id, -32000, "Connection closed"))

    def _cancel(self, request_id: Any) -> bool:
        plain = isinstance(request_id, (str, int)) and not isinstance(request_id, bool)
        task = self.running.get(request_id) if plain else None
        if task is None:
            return False
        task.cancel()
        return True


class _SdkStdin:
    """The SDK's line source after the hand-over: what the front queued for it, in order."""

    def __init__(self, front: _Front) -> None:
        self.front = front

    def __aiter__(self) -> _SdkStdin:
        return self

    async def __anext__(self) -> str:
        line = await self.front.for_sdk.get()
        if line is EOF:
            self.front.for_sdk.put_nowait(EOF)  # stays at the end for any later read
            await self.front.close_running()
            raise StopAsyncIteration
        return line.decode("utf-8", "replace")


class _SdkStdout:
    """The SDK's stdout: the shared writer; drops its answer to the initialize the front answered."""

    def __init__(self, writer: LineWriter, drop_id: Any) -> None:
        self.writer = writer
        self.drop_id = drop_id
        self.dropping = drop_id is not None

    async def write(self, text: str) -> None:
        if self.dropping:
            try:
                msg = json.loads(text)
            except ValueError:
                msg = None
            if isinstance(msg, dict) and msg.get("id") == self.drop_id and "method" not in msg:
                self.dropping = False
                return
        await self.writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        return None


async def run(
    cache: dict[str, Any],
    wire_in: int,
    wire_out: int,
    prepare: Callable[[], Any],
    serve_streams: Callable[[Any, Any, Any, Any], Awaitable[None]],
) -> int:
    """Front until the SDK server is built, then the SDK on the same wire; the exit code."""
    loop = asyncio.get_running_loop()
    tools: asyncio.Future[Any] = loop.create_future()
    server: asyncio.Future[Any] = loop.create_future()

    def settle(future: asyncio.Future[Any], value: Any = None, error: BaseException | None = None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def tools_ready(prepared: Any) -> None:
        if isinstance(prepared, tuple) and isinstance(cache.get("actionModules"), dict):
            prepared[1].action_modules = cache["actionModules"]  # a first call imports only its own module
        settle(tools, prepared)
        loop.call_soon(front.open_gate_if_idle)

    def load() -> None:
        target = tools
        try:
            prepared = prepare()
            loop.call_soon_threadsafe(tools_ready, prepared)
            if isinstance(prepared, int):
                loop.call_soon_threadsafe(settle, server, prepared)
                return
            target = server
            # The client's first call, run here, gets the CPU first, whether it came before the tools
            # loaded or soon after (a client that compiles our schemas first, ~0.1 s): the SDK
            # server's import would take half of it for ~0.3 s. Bounded: a client that has not called
            # within FIRST_CALL_HOLD_S, or a call that waits long (an Allow dialog), must not hold
            # the SDK back; a line only the SDK answers opens the gate at once.
            if not front.build_gate.wait(FIRST_CALL_HOLD_S) and (front.running or front.waiting):
                front.build_gate.wait(BUILD_HOLD_S - FIRST_CALL_HOLD_S)
            log.info("quick start: the SDK server loads now")
            # Calls go on on the loop meanwhile: with the interpreter's 5 ms switch interval each of
            # their waits for the GIL cost up to 5 ms behind this import (list_pages right after an
            # early attach: 2 ms median, 16 ms p95, instead of 1.1 / 1.3); 0.5 ms keeps them near that.
            interval = sys.getswitchinterval()
            sys.setswitchinterval(min(interval, BUILD_SWITCH_INTERVAL_S))
            try:
                built = prepared[1].build()
                prepared[1].calls  # noqa: B018 - every action module, here rather than on the loop at the SDK's first call
            finally:
                sys.setswitchinterval(interval)
            loop.call_soon_threadsafe(settle, server, built)
        except BaseException as exc:  # noqa: BLE001 - reported by the loop
            for future in {target, server}:
                loop.call_soon_threadsafe(settle, future, None, exc)

    front = _Front(cache, LineReader(wire_in, loop), LineWriter(wire_out, loop), tools)
    threading.Thread(target=load, name="mcp-browser-load", daemon=True).start()
    pump = loop.create_task(front.pump())
    # A call run here may have launched a browser: a stop signal closes it, as the SDK's serving does
    # (its own handlers replace these once it serves; these stay until then).
    stops = loop.create_task(_watch_signals(tools))
    try:
        built = await server
        if isinstance(built, int):
            return built
        front.forwarding = True  # the SDK answers every later line
        if front.version is not None:
            log.info("quick start: answered the handshake from the recorded answers (protocol %s)", front.version)
        manager = tools.result()[0]
        await serve_streams(manager, built, _SdkStdin(front), _SdkStdout(front.writer, front.drop_id))
        return 0
    finally:
        stops.cancel()
        pump.cancel()
        for task in list(front.running.values()):
            task.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.gather(stops, pump, *front.running.values(), return_exceptions=True)
        sys.stderr.flush()


async def _watch_signals(tools: asyncio.Future[Any]) -> None:
    """Until the SDK serves: a stop signal closes the browsers (if the tools are loaded), then leaves at once."""
    from .stop_signals import StopSignals

    async with StopSignals() as stops:
        signum = await stops.wait()
        log.info("signal %s: shutting down", signum)
        prepared = tools.result() if tools.done() and not tools.cancelled() and tools.exception() is None else None
        if isinstance(prepared, tuple):
            from .cli import _close

            await _close(prepared[0])
        sys.stderr.flush()
        os._exit(0)
