"""The call locks (mcp_server/locking.py) as pure logic: who waits for whom, and nothing left behind.

The browser-level proofs (reads during a long wait, page scripts never interleaving over
stdio and HTTP, cancellation) are in test_long_work.py and test_faults_concurrency.py.
"""

from __future__ import annotations

import asyncio

import pytest

from mcp_server.locking import Busy, CallHold, CallLocks, Holder, StateLock
from mcp_server.registry import action


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
