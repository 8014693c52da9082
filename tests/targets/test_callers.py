"""Per-caller slots: what one session chose is its own; a new session starts from the server's view."""

from __future__ import annotations

from targets.callers import PerCaller, acting_as, current_caller, forget_caller, known_callers


def test_a_caller_reads_its_own_value_and_new_callers_start_from_the_default() -> None:
    slot: PerCaller[str | None] = PerCaller(None)
    slot.set("default-pick")
    with acting_as("a"):
        assert slot.get() == "default-pick"  # a new session starts where the server stands
        slot.set("fatture")
    with acting_as("b"):
        slot.set("ordini")
    with acting_as("a"):
        assert slot.get() == "fatture"
    assert slot.get() == "default-pick"
    assert slot.of("b") == "ordini"


def test_a_slot_that_does_not_inherit_gives_each_caller_its_own_from_scratch() -> None:
    marks: PerCaller[dict[str, int]] = PerCaller({}, inherit=False)
    marks.own(dict)["m1"] = 1
    with acting_as("a"):
        assert marks.get() == {}
        marks.own(dict)["m1"] = 7
        assert marks.own(dict) == {"m1": 7}
    assert marks.get() == {"m1": 1}


def test_forgetting_a_caller_drops_its_values_everywhere_but_never_the_default() -> None:
    one: PerCaller[int] = PerCaller(0)
    two: PerCaller[int] = PerCaller(0, inherit=False)
    one.set(5)
    with acting_as("gone"):
        one.set(1)
        two.set(2)
    assert "gone" in known_callers()
    forget_caller("gone")
    assert "gone" not in known_callers()
    with acting_as("gone"):
        assert (one.get(), two.get()) == (5, 0)
    forget_caller("")
    assert one.get() == 5


def test_update_all_reaches_every_caller_and_acting_as_restores_the_caller() -> None:
    slot: PerCaller[int] = PerCaller(0)
    with acting_as("a"):
        slot.set(1)
        with acting_as("b"):
            assert current_caller() == "b"
        assert current_caller() == "a"
    slot.update_all(lambda v: v + 10)
    assert (slot.get(), slot.of("a"), slot.of("b")) == (10, 11, 10)
    assert current_caller() == ""
