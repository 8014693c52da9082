"""UidRegistry on its own: stable keys, no reuse across documents, pages or frames, reasons for staleness."""

import pytest

from cdp_core.recorders.uids import StaleUid, UidRegistry

SESSION = object()  # the registry only stores the session, it never calls it


def frame(registry: UidRegistry, frame_id: str, loader: str, parent: str | None = None):
    return registry.update_frame(frame_id, loader, url=f"http://127.0.0.1/{frame_id}", name="", session=SESSION,
                                 parent_id=parent)  # fmt: skip


def test_same_node_same_uid_new_document_new_uids():
    reg = UidRegistry()
    main = frame(reg, "F", "L1")
    child = frame(reg, "C", "L1", parent="F")
    a = reg.uid_for(main, 10, "button", "Salva")
    assert reg.uid_for(main, 10, "button", "Salva") == a
    b = reg.uid_for(child, 10, "textbox", "Via")  # same backendNodeId in another frame
    assert b != a and main.ref == "main" and child.ref == "f1"
    main = frame(reg, "F", "L2")  # navigation
    with pytest.raises(StaleUid, match="old document"):
        reg.lookup(a)
    assert reg.lookup(b).frame_id == "C"  # the child frame's document did not change
    assert reg.uid_for(main, 10, "button", "Salva") not in (a, b)


def test_uids_are_unique_across_pages_and_pruned_nodes_are_stale():
    first, second = UidRegistry(), UidRegistry()
    u1 = first.uid_for(frame(first, "F", "L"), 5, "link", "A")
    u2 = second.uid_for(frame(second, "G", "L"), 5, "link", "A")
    assert u1 != u2
    with pytest.raises(StaleUid, match="one page"):
        second.lookup(u1)
    f = first.frame("F")
    keep = first.uid_for(f, 6, "link", "B")
    assert first.prune_document(f, present={6}) == 1
    with pytest.raises(StaleUid, match="removed"):
        first.lookup(u1)
    assert first.lookup(keep).backend_node_id == 6
    first.forget_frames_except(set())
    with pytest.raises(StaleUid, match="frame was removed"):
        first.lookup(keep)


def test_find_frame_by_ref_id_or_url():
    reg = UidRegistry()
    frame(reg, "F", "L")
    frame(reg, "C", "L", parent="F")
    assert reg.find_frame("f1").frame_id == "C"
    assert reg.find_frame("C").ref == "f1"
    assert reg.find_frame("127.0.0.1/C").ref == "f1"
    assert reg.find_frame("nope") is None
