"""Who is calling: several MCP sessions share one server, each with its own view of the browsers.

The browsers, their connections and the capture are shared: one websocket and one Allow for
the user's Chrome, one internal Chromium, one store of what was captured. What a session
*chose* is its own: the active target, the selected tab and frame, the listing its ``page_id``
refers to, its marks, the floor of its clears. Those values live in :class:`PerCaller` slots,
keyed by the caller of the call in progress (a context variable the MCP layer sets around each
call), so the code that reads them stays as it was: ``registry.selected`` is the caller's.

The default caller ``""`` is the server's own view: a stdio server's one session, and every
caller that has not chosen a value yet (a new HTTP session starts from it, where a slot says so).
Work that belongs to no call (a connection's read loop, page events) runs as the default caller.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Generic, TypeVar

__all__ = ["DEFAULT_CALLER", "PerCaller", "acting_as", "current_caller", "forget_caller", "known_callers"]

T = TypeVar("T")

DEFAULT_CALLER = ""

_current: ContextVar[str] = ContextVar("mcp_browser_caller", default=DEFAULT_CALLER)
#: every slot, so that a caller who leaves can be forgotten everywhere at once
_slots: weakref.WeakSet[PerCaller[object]] = weakref.WeakSet()


def current_caller() -> str:
    """The caller of the call in progress (``""``: the default caller)."""
    return _current.get()


@contextmanager
def acting_as(caller: str) -> Iterator[None]:
    """Run the block as ``caller``: the slots it reads and writes are that caller's."""
    token = _current.set(caller)
    try:
        yield
    finally:
        _current.reset(token)


def forget_caller(caller: str) -> None:
    """Drop every value ``caller`` set (its session ended); the default caller is never forgotten."""
    if caller == DEFAULT_CALLER:
        return
    for slot in list(_slots):
        slot.forget(caller)


def known_callers() -> set[str]:
    """Every caller that holds a value in some slot, the default caller included."""
    found = {DEFAULT_CALLER}
    for slot in list(_slots):
        found.update(slot.callers())
    return found


class PerCaller(Generic[T]):
    """One value per caller.

    ``inherit=True``: a caller that never set a value reads the default caller's (a new session
    starts where the server stands). ``inherit=False``: it reads ``empty`` until it sets its own.
    """

    def __init__(self, empty: T, *, inherit: bool = True) -> None:
        self._empty = empty
        self._inherit = inherit
        self._values: dict[str, T] = {}
        _slots.add(self)  # type: ignore[arg-type]

    def get(self) -> T:
        caller = _current.get()
        if caller in self._values:
            return self._values[caller]
        if self._inherit and DEFAULT_CALLER in self._values:
            return self._values[DEFAULT_CALLER]
        return self._empty

    def set(self, value: T) -> None:
        self._values[_current.get()] = value

    def own(self, make: Callable[[], T]) -> T:
        """The caller's own value, made (and kept) on first use: never another caller's."""
        caller = _current.get()
        if caller not in self._values:
            self._values[caller] = make()
        return self._values[caller]

    def of(self, caller: str) -> T:
        """``caller``'s value as :meth:`get` would read it in that caller's call."""
        with acting_as(caller):
            return self.get()

    def update_all(self, change: Callable[[T], T]) -> None:
        """Apply ``change`` to the default caller's value and to every caller's own one."""
        self._values[DEFAULT_CALLER] = change(self._values.get(DEFAULT_CALLER, self._empty))
        for caller, value in list(self._values.items()):
            if caller != DEFAULT_CALLER:
                self._values[caller] = change(value)

    def reset(self) -> None:
        """Every caller back to ``empty`` (the thing they chose in is gone)."""
        self._values.clear()

    def callers(self) -> list[str]:
        return list(self._values)

    def forget(self, caller: str) -> None:
        self._values.pop(caller, None)
