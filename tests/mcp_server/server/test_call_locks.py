"""The call locks (mcp_server/server/locking.py) as pure logic: who waits for whom, and nothing left behind.

The browser-level proofs (reads during a long wait, page scripts never interleaving over
stdio and HTTP, cancellation) are in tests/mcp_server/server/test_long_calls.py and
tests/mcp_server/server/test_concurrent_calls.py.
"""

from __future__ import annotations

import asyncio

import pytest

from mcp_server.server.locking import Busy, CallHold, CallLocks, Holder, StateLock
from mcp_server.server.registry import action


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_shared_holders_run_together_and_an_exclusive_one_waits_for_them():
    lock = StateLock()
    a, b = Holder("a", False), Holder("b", False)
    await lock.acquire(a)
    await lock.acquire(b)
    writer = asyncio.ensure_future(lock.acquire(Holder("w", True)))
    await _settle()
    assert not writer.done() and lock.waiting == 1
    lock.release(a)
    await _settle()
    assert not writer.done()
    lock.release(b)
    await _settle()
    assert writer.done() and [h.label for h in lock.holders] == ["w"]


async def test_a_waiting_state_change_is_not_starved_by_later_page_calls():
    lock = StateLock()
    first = Holder("page-1", False)
    await lock.acquire(first)
    writer = asyncio.ensure_future(lock.acquire(Holder("select_page", True)))
    await _settle()
    late = asyncio.ensure_future(lock.acquire(Holder("page-2", False)))
    await _settle()
    assert not late.done()  # it queues behind the waiting writer
    lock.release(first)
    await _settle()
    assert writer.done() and not late.done()
    lock.release(writer.result())
    await _settle()
    assert late.done()


async def test_a_cancelled_waiter_leaves_no_trace_and_lets_the_others_in():
    lock = StateLock()
    reader = Holder("r", False)
    await lock.acquire(reader)
    writer = asyncio.ensure_future(lock.acquire(Holder("w", True)))
    await _settle()
    second_reader = asyncio.ensure_future(lock.acquire(Holder("r2", False)))
    await _settle()
    assert not second_reader.done()
    writer.cancel()
    await _settle()
    # the writer left the queue: the reader behind it joins the one inside
    assert second_reader.done() and lock.waiting == 0 and len(lock.holders) == 2


async def test_a_call_hold_bounded_by_its_deadline_says_who_holds_the_lock():
    locks = CallLocks()
    navigate = CallHold(locks, "page", "navigate")
    await navigate.enter()
    loop = asyncio.get_running_loop()
    attach = CallHold(locks, "state", "attach_cdp", deadline=loop.time() + 0.05)
    with pytest.raises(Busy) as info:
        await attach.enter()
    assert "navigate (running" in info.value.holders
    assert locks.state.waiting == 0  # the timed-out waiter is gone
    navigate.release_all()
    assert not locks.busy()


async def test_page_calls_on_one_page_take_turns_and_a_poll_step_waits_its_turn():
    locks = CallLocks()
    page = object.__new__(type("Page", (), {}))
    first = CallHold(locks, "page", "click_uid")
    second = CallHold(locks, "page", "evaluate_js")
    poll = CallHold(locks, "poll", "wait_for")
    for hold in (first, second, poll):
        await hold.enter()
    await first.hold_page(page)
    waiting = asyncio.ensure_future(second.hold_page(page))

    async def one_step() -> None:
        async with poll.step(page):
            pass

    stepping = asyncio.ensure_future(one_step())
    await _settle()
    assert not waiting.done() and not stepping.done()
    first.release_all()
    await _settle()
    assert waiting.done() and not stepping.done()
    second.release_all()
    await _settle()
    assert stepping.done() and not locks.busy()


async def test_exclusively_gives_back_the_pages_first_so_two_upgrades_cannot_deadlock():
    locks = CallLocks()
    page = object.__new__(type("Page", (), {}))
    a, b = CallHold(locks, "page", "a"), CallHold(locks, "page", "b")
    await a.enter()
    await b.enter()
    await a.hold_page(page)
    b_waits_for_page = asyncio.ensure_future(b.hold_page(page))
    await _settle()

    async def upgrade() -> None:
        async with a.exclusively():
            assert a.exclusive

    upgrading = asyncio.ensure_future(upgrade())
    await _settle()
    # a gave its page back: b gets it; a's exclusive waits for b's shared hold to end
    assert b_waits_for_page.done() and not upgrading.done()
    b.release_all()
    await asyncio.wait_for(upgrading, 1)
    assert not a.exclusive and locks.state.holders[0].label == "a"  # back to shared
    a.release_all()
    assert not locks.busy()


def test_an_action_must_declare_a_known_lock():
    with pytest.raises(ValueError, match="lock must be one of"):
        action("browser_session", "nonsense_lock", lock="sometimes")  # type: ignore[arg-type]


async def test_a_call_stuck_holding_the_state_lock_is_stopped_at_the_call_bound(tmp_path, http_server):
    """A discovery endpoint that never answers once held the state lock 80 s (the bound was 50 s)."""
    import threading

    import anyio
    from httpserver import Reply
    from mcp.client import Client

    from mcp_server.cli.main import build_app
    from mcp_server.server.settings import Settings

    release = threading.Event()

    def stall(_request):
        release.wait(120)
        return Reply(200, "{}", "application/json")

    for path in ("/json/version", "/json/list", "/json"):
        http_server.route(path, stall)
    manager, server = build_app(Settings(artifact_dir=str(tmp_path / "artifacts"), max_call_seconds=1))
    try:
        async with Client(server) as client:
            with anyio.fail_after(60):  # a safety net for the test run, not a speed check
                attach = await client.call_tool(
                    "browser_session", {"action": "attach_cdp", "cdp_url": http_server.base}
                )
                sc = attach.structured_content
                assert attach.is_error and sc["code"] == "TIMEOUT" and "call bound" in sc["message"], sc
                # The lock is free again: another state change runs (and answers for itself, not BUSY).
                detach = await client.call_tool("browser_session", {"action": "detach_cdp"})
                assert detach.structured_content.get("code") != "BUSY", detach.structured_content
    finally:
        release.set()
        await manager.close()


async def test_a_hung_renderer_is_reported_at_the_call_bound(tmp_path, http_server):
    """A page whose script never yields once held every page call past the bound."""
    import anyio
    from httpserver import Reply
    from mcp.client import Client

    from mcp_server.cli.main import build_app
    from mcp_server.server.settings import Settings

    http_server.route("/hung/page.html", Reply(200, "<title>hung</title><p>about to hang</p>"))
    manager, server = build_app(Settings(artifact_dir=str(tmp_path / "artifacts"), max_call_seconds=3))
    try:
        async with Client(server) as client:
            await client.call_tool("browser_session", {"action": "navigate", "url": http_server.url("/hung/page.html")})
            hang = {"action": "evaluate_js", "expression": "setTimeout(() => { for (;;) {} }, 0); 1"}
            assert not (await client.call_tool("browser_session", hang)).is_error
            with anyio.fail_after(60):  # a safety net for the test run, not a speed check
                for action in ("snapshot", "get_dom"):
                    result = await client.call_tool("browser_session", {"action": action})
                    sc = result.structured_content
                    assert result.is_error and sc["code"] in ("TIMEOUT", "BUSY"), sc
                    assert "call bound" in sc["message"], sc
                status = await client.call_tool("browser_session", {"action": "get_browser_status"})
                assert not status.is_error
    finally:
        await manager.close()
