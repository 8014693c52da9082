"""Run the plugin's async fixtures on the event loop of the test that uses them.

A CDP connection or an MCP client belongs to the loop it was opened on: a test awaiting it
from another loop waits forever (the reader task never runs), which is how ``cdp_page``
under pytest-asyncio used to fail after 30 s with ``CDPTimeout``. Which loop a test gets
depends on the plugin that runs it, and the two plugins disagree on who takes an async
fixture when both are installed. So the public fixtures are *sync* fixtures (neither plugin
touches them) that open their async resources on the runner that will run the test:

- a test pytest-asyncio runs (marked ``asyncio``, or any coroutine test in its auto mode,
  anyio-marked ones included: pytest-asyncio then runs them): its ``asyncio.Runner`` for the
  test's ``loop_scope``;
- a test anyio runs (``anyio`` mark, or anyio's auto mode): anyio's test runner, leased for
  as long as the fixture lives so the loop is the test's;
- anything else (a sync test, no async plugin) gets a :class:`LoopModeError` naming the fix.

Each resource is an async context manager kept open by a host task of its own
(:class:`Hosted`), so its ``__aenter__`` and ``__aexit__`` run in the same task, as anyio's
cancel scopes (the MCP client's) require, whatever task runs the test.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, ExitStack
from typing import Any, Generic, TypeVar

import pytest

__all__ = ["Hosted", "LoopModeError", "TestLoop", "loop_of_test"]

T = TypeVar("T")

_SCOPE_ORDER = ("function", "class", "module", "package", "session")


class LoopModeError(pytest.UsageError):
    """The fixture cannot share the test's event loop in this set-up; the message says how to fix it."""


class TestLoop:
    """The event loop a test runs on, and a way to run a coroutine there from sync code."""

    __test__ = False  # not a test class, whatever its name

    def __init__(self, kind: str, scope: str, run: Callable[[Callable[[], Awaitable[Any]]], Any], key: object) -> None:
        self.kind = kind  # "pytest-asyncio" or "anyio"
        self.scope = scope  # how long the loop lives: "function" ... "session"
        self._run = run
        self.key = key  # identifies the loop (tests sharing a loop share a key)

    def run(self, factory: Callable[[], Awaitable[T]]) -> T:
        """Run ``factory()`` to completion on the test's loop (from a fixture's sync code)."""
        result: T = self._run(factory)
        return result


def _asyncio_loop_scope(item: pytest.Item) -> str:
    marker = item.get_closest_marker("asyncio")
    scope = (marker.kwargs.get("loop_scope") or marker.kwargs.get("scope")) if marker else None
    return str(scope or item.config.getini("asyncio_default_test_loop_scope") or "function")


def _is_coroutine_test(item: pytest.Item) -> bool:
    func = getattr(item, "obj", None)
    inner = getattr(getattr(func, "hypothesis", None), "inner_test", func)
    return inspect.iscoroutinefunction(inner)


def loop_of_test(request: pytest.FixtureRequest, fixture: str, stack: ExitStack, needs: str = "function") -> TestLoop:
    """The loop the requesting test runs on (``needs``: how long the caller's resource lives).

    ``stack`` keeps what the loop needs alive (anyio's runner lease) until the caller's teardown.
    """
    item = request.node
    if not isinstance(item, pytest.Function):
        raise LoopModeError(f"{fixture}: request it from a test function (it opens resources on the test's loop)")
    if not _is_coroutine_test(item):
        raise LoopModeError(
            f"{fixture} is async (its objects live on the test's event loop): make {item.name} an `async def` "
            "test run by anyio (@pytest.mark.anyio) or pytest-asyncio (@pytest.mark.asyncio)"
        )
    plugins = item.config.pluginmanager
    if plugins.has_plugin("asyncio") and item.get_closest_marker("asyncio") is not None:
        scope = _asyncio_loop_scope(item)
        if _SCOPE_ORDER.index(scope) < _SCOPE_ORDER.index(needs):
            raise LoopModeError(
                f"{fixture} lives for the {needs} but {item.name} runs on a {scope}-scoped pytest-asyncio loop, "
                f"so the {needs}'s tests cannot share it: mark them @pytest.mark.asyncio(loop_scope={needs!r}) "
                f"(or set asyncio_default_test_loop_scope = {needs}), or use the function-scoped fixture"
            )
        runner = request.getfixturevalue(f"_{scope}_scoped_runner")  # pytest-asyncio's asyncio.Runner
        return TestLoop("pytest-asyncio", scope, lambda factory: runner.run(factory()), runner.get_loop())
    if "anyio_backend" in item.fixturenames:
        from anyio.pytest_plugin import extract_backend_and_options, get_runner

        backend, options = extract_backend_and_options(request.getfixturevalue("anyio_backend"))
        if backend != "asyncio":
            pytest.skip(f"{fixture}: cdp_core runs on asyncio, not {backend}: return 'asyncio' from `anyio_backend`")
        runner = stack.enter_context(get_runner(backend, options))  # a lease: the loop outlives this fixture

        async def call(factory: Callable[[], Awaitable[Any]]) -> Any:
            return await factory()

        return TestLoop("anyio", needs, lambda factory: runner.run_fixture(call, {"factory": factory}), runner)
    hint = "pip install anyio (then @pytest.mark.anyio) or pytest-asyncio (then @pytest.mark.asyncio)"
    if plugins.has_plugin("asyncio"):
        hint = "mark it @pytest.mark.asyncio, or set asyncio_mode = auto"
    raise LoopModeError(f"{fixture}: no async plugin runs {item.name}: {hint}")


class Hosted(Generic[T]):
    """An async context manager held open on a test's loop by a task of its own.

    ``open()`` runs until the context has been entered and answers its value; ``close()``
    exits it in the same task. Both are called from sync fixture code.
    """

    def __init__(self, loop: TestLoop, factory: Callable[[], AbstractAsyncContextManager[T]]) -> None:
        self.loop = loop
        self._factory = factory
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    def open(self) -> T:
        async def start() -> T:
            ready: asyncio.Future[T] = asyncio.get_running_loop().create_future()
            self._stop = asyncio.Event()
            stop = self._stop

            async def host() -> None:
                try:
                    async with self._factory() as value:
                        ready.set_result(value)
                        await stop.wait()
                except BaseException as exc:
                    if ready.done():
                        raise
                    ready.set_exception(exc)

            self._task = asyncio.get_running_loop().create_task(host(), name="mcp-browser fixture")
            return await ready

        return self.loop.run(start)

    def close(self) -> None:
        task, stop = self._task, self._stop
        if task is None or stop is None:
            return

        async def finish() -> None:
            stop.set()
            with contextlib.suppress(asyncio.CancelledError):
                await task

        self._task = None
        self.loop.run(finish)
