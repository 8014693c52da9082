"""Clears per reader (issue 46): one reader's clear hides entries from it alone, within the stores' budgets.

Pure logic: entries go straight into the stores (the recorders' own intake), the reader is a
variable the test switches, as the MCP layer switches the caller of the call in progress.
"""

from __future__ import annotations

from typing import Any

import pytest

from cdp_core.recorders.console import ConsoleRecorder
from cdp_core.recorders.floors import Floor, ReaderFloors
from cdp_core.recorders.network import EntryNotFound
from cdp_core.recorders.network.model import Entry
from cdp_core.recorders.network.store import EntryStore


class Readers:
    """Who reads now: the test says it, as a session's call would."""

    def __init__(self) -> None:
        self.now = "a"

    def __call__(self) -> str:
        return self.now


def log(console: ConsoleRecorder, *texts: str) -> None:
    for text in texts:
        console._add({"type": "log", "text": text})


def texts(console: ConsoleRecorder, **filters: Any) -> list[str]:
    return [e["text"] for e in console.list(**filters)]


def request(store: EntryStore, entry_id: int, url: str) -> Entry:
    entry = Entry(
        id=entry_id,
        request_id=str(entry_id),
        session=None,  # type: ignore[arg-type]  # the store never reads it
        wall_time=0.0,
        start_ts=0.0,
        page_url="http://127.0.0.1/",
        method="GET",
        url=url,
        resource_type="fetch",
        request_headers={},
    )
    store.add(entry)
    return entry


def test_a_clear_hides_entries_from_its_reader_only() -> None:
    who = Readers()
    console = ConsoleRecorder(reader=who)
    log(console, "one", "two", "three")
    assert console.clear() == 3
    assert texts(console) == [] and len(console) == 0 and console.counts() == {}
    who.now = "b"
    assert texts(console) == ["one", "two", "three"] and len(console) == 3
    assert console.get(1)["text"] == "one"
    log(console, "four")
    assert texts(console) == ["one", "two", "three", "four"]
    who.now = "a"
    assert texts(console) == ["four"] and console.counts() == {"log": 1}
    assert console.stats["stored"] == 1 and console.stats["cleared"] == 3
    with pytest.raises(EntryNotFound, match="console entry 2 was cleared"):
        console.get(2)
    assert console.get(4)["text"] == "four"
    # paging and filters read the reader's view too
    assert [e["text"] for e in console.query(limit=5).entries] == ["four"]
    assert texts(console, since_id=1) == ["four"] and texts(console, types=["log"]) == ["four"]
    # clearing again hides only what this reader still saw; an empty view keeps its floor
    assert console.clear() == 1 and console.clear() == 0 and console.floor == 4


def test_forget_caller_drops_the_floor_of_that_reader() -> None:
    who = Readers()
    console = ConsoleRecorder(reader=who)
    log(console, "one", "two")
    console.clear()
    who.now = "b"
    console.clear()
    console.forget_caller("a")
    assert texts(console) == []
    who.now = "a"
    assert texts(console) == ["one", "two"] and console.floor == 0
    console.forget_caller("never-read")  # nothing to drop: no error


def test_hidden_entries_are_evicted_first_and_evictions_count_per_reader() -> None:
    who = Readers()
    console = ConsoleRecorder(reader=who, max_entries=5)
    log(console, "e1", "e2", "e3")
    console.clear()  # a: floor 3
    log(console, "e4", "e5", "e6", "e7")  # the cap evicts e1, e2: both hidden from a
    assert texts(console) == ["e4", "e5", "e6", "e7"] and console.evicted == 0
    who.now = "b"
    assert texts(console) == ["e3", "e4", "e5", "e6", "e7"] and console.evicted == 2
    log(console, "e8", "e9")  # e3 (hidden from a) and e4 (seen by a) go
    assert console.evicted == 4
    who.now = "a"
    assert texts(console) == ["e5", "e6", "e7", "e8", "e9"] and console.evicted == 1
    assert console.stats["cleared"] == 0
    with pytest.raises(EntryNotFound, match="console entry 3 was cleared"):
        console.get(3)  # evicted since, but this reader cleared it first: that is what it hears
    with pytest.raises(EntryNotFound, match="console entry 4 was evicted"):
        console.get(4)
    who.now = "b"
    with pytest.raises(EntryNotFound, match="console entry 3 was evicted"):
        console.get(3)


def test_a_single_reader_by_default_clears_as_before() -> None:
    console = ConsoleRecorder()
    log(console, "one", "two")
    assert console.clear() == 2 and texts(console) == []
    log(console, "three")
    assert texts(console) == ["three"] and console.get(3)["text"] == "three"
    with pytest.raises(EntryNotFound, match="cleared"):
        console.get(1)
    with pytest.raises(EntryNotFound, match="never captured"):
        console.get(99)


def test_the_network_store_reads_through_the_floor() -> None:
    who = Readers()
    store = EntryStore(reader=who, max_entries=4)
    for i in (1, 2, 3):
        request(store, i, f"http://127.0.0.1/api/{i}")
    assert store.clear() == 3
    request(store, 4, "http://127.0.0.1/api/4")
    assert [e.id for e in store.matching(None, None, None, None, False, None)] == [4]
    assert [e.id for e in store.matching(None, None, "/api/", None, False, None)] == [4]
    assert len(store) == 1 and 2 in store  # stored still: the collectors find their own entries
    with pytest.raises(EntryNotFound, match="network entry 2 was cleared"):
        store.find(2)
    who.now = "b"
    assert [e.id for e in store.matching(None, None, None, None, False, None)] == [1, 2, 3, 4]
    assert store.find(2).id == 2
    request(store, 5, "http://127.0.0.1/api/5")  # evicts 1 (hidden from a)
    assert store.evicted == 1
    who.now = "a"
    assert store.evicted == 0 and len(store) == 2


def test_a_floor_counts_what_it_hides_without_walking_the_store() -> None:
    floors = ReaderFloors(lambda: "a")
    floors.raise_to(10, stored=6, evicted=4)  # ids 1..10: 4 evicted, 6 stored
    floor = floors.current()
    assert floor == Floor(10, 10)
    assert floor.hidden(4) == 6 and floor.hidden(12) == 0
    assert floor.evicted_since(4) == 0 and floor.evicted_since(13) == 3
    floors.raise_to(7, stored=1, evicted=9)  # a floor never goes down
    assert floors.current().id == 10
    assert floors.readers() == ["a"]
    floors.forget("a")
    assert floors.current() == Floor() and floors.readers() == []
