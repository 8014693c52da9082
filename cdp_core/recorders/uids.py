"""Stable element UIDs for snapshots: one :class:`UidRegistry` per page.

Why not a counter per snapshot (``uid=3_14``)? Agents keep uids across turns; a uid
that silently points at another element after the page re-rendered, navigated or was
snapshotted again is the worst failure an action tool can have. Here a uid is bound to
one node of one document: ``(frame id, loader id, backendNodeId)`` when the snapshot came
from Chrome's accessibility tree, ``(frame id, loader id, world context, key)`` when it came
from the in-page collector (the key names the element inside our isolated world; its
backendNodeId is looked up when an action first resolves the uid, and the uid is then
known under both keys):

- the same node of the same document keeps its uid across snapshots;
- a new document (navigation of the page or of one frame: new ``loaderId``) never
  reuses a number, so uids cannot collide across documents or frames;
- a uid of an old document, or of a node that left the document, is refused as stale
  (:class:`StaleUid`), the caller must take a new snapshot.

The registry is plain data (no CDP calls): liveness checks that need the browser live in
:func:`cdp_core.recorders.accessibility.resolve_uid`.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..connection import CDPSession
    from .accessibility.format import Snapshot

__all__ = ["StaleUid", "UidEntry", "UidRegistry", "FrameInfo"]

#: How many retired uids we remember to say *why* they are stale (bounded memory).
MAX_RETIRED = 20_000

#: One counter for the whole process: a uid of one page can never name an element of
#: another page (an agent that switched tabs gets STALE_UID, not a click elsewhere).
_PROCESS_UIDS: Iterator[int] = itertools.count(1)


class StaleUid(Exception):
    """The uid is unknown, from an old document, or its node is gone: take a new snapshot."""

    def __init__(self, uid: int | str, reason: str) -> None:
        super().__init__(f"uid {uid} is stale: {reason}")
        self.uid = uid
        self.reason = reason


@dataclass
class FrameInfo:
    """A frame as the registry knows it: short ref for display, its session and document."""

    ref: str  # "main", "f1", "f2"... stable per page, never reused
    frame_id: str
    loader_id: str
    url: str
    name: str
    session: CDPSession
    parent_id: str | None = None
    #: (loader id, execution context id) of our isolated world in this frame, reused per document.
    world: tuple[str, int] | None = None


@dataclass(frozen=True, slots=True)
class UidEntry:
    """What a uid stands for: enough to find the node again and to check it is the same.

    ``backend_node_id`` is None until a uid from the in-page collector is first resolved;
    ``world`` is then ``(execution context id of our isolated world, element key)``.
    """

    uid: int
    frame_id: str
    loader_id: str
    backend_node_id: int | None
    role: str
    name: str
    session: CDPSession
    world: tuple[int, int] | None = None


def _keys_of(entry: UidEntry) -> list[tuple[Any, ...]]:
    keys: list[tuple[Any, ...]] = []
    if entry.backend_node_id is not None:
        keys.append((entry.frame_id, entry.loader_id, entry.backend_node_id))
    if entry.world is not None:
        keys.append((entry.frame_id, entry.loader_id, "w", *entry.world))
    return keys


class UidRegistry:
    """uid <-> (frame, loader, backendNodeId) for one page, plus the previous snapshot for diffs."""

    def __init__(self, counter: Iterator[int] | None = None) -> None:
        self._counter = counter if counter is not None else _PROCESS_UIDS
        self._issued = 0
        self._by_key: dict[tuple[Any, ...], int] = {}
        self._by_uid: dict[int, UidEntry] = {}
        self._retired: OrderedDict[int, str] = OrderedDict()
        self._frames: dict[str, FrameInfo] = {}
        self._frame_counter = 0
        #: The last snapshot taken of this page (for ``diff``).
        self.previous: Snapshot | None = None

    # -- frames -------------------------------------------------------------------------

    def frame(self, frame_id: str) -> FrameInfo | None:
        return self._frames.get(frame_id)

    @property
    def frames(self) -> list[FrameInfo]:
        return list(self._frames.values())

    def update_frame(
        self,
        frame_id: str,
        loader_id: str,
        *,
        url: str,
        name: str,
        session: CDPSession,
        parent_id: str | None,
    ) -> FrameInfo:
        """Record the frame's current document; a new loader retires the old document's uids."""
        info = self._frames.get(frame_id)
        if info is None:
            ref = "main" if parent_id is None else self._new_frame_ref()
            info = FrameInfo(ref, frame_id, loader_id, url, name, session, parent_id)
            self._frames[frame_id] = info
            return info
        if info.loader_id != loader_id:
            self.retire_document(frame_id, info.loader_id, "the frame navigated to a new document")
            info.loader_id = loader_id
        info.url, info.name, info.session, info.parent_id = url, name, session, parent_id
        return info

    def _new_frame_ref(self) -> str:
        self._frame_counter += 1
        return f"f{self._frame_counter}"

    def forget_frames_except(self, frame_ids: set[str]) -> None:
        """Frames that left the page take their uids with them."""
        for frame_id in list(self._frames):
            if frame_id not in frame_ids:
                info = self._frames.pop(frame_id)
                self.retire_document(frame_id, info.loader_id, "its frame was removed")

    def find_frame(self, query: str) -> FrameInfo | None:
        """A frame by ref ("f1"), id, name, or URL substring."""
        for info in self._frames.values():
            if query in (info.ref, info.frame_id) or (info.name and query == info.name):
                return info
        for info in self._frames.values():
            if query in info.url:
                return info
        return None

    # -- uids ---------------------------------------------------------------------------

    def uid_for(
        self,
        frame: FrameInfo,
        backend_node_id: int,
        role: str,
        name: str,
    ) -> int:
        """The uid of this node in this frame's current document (kept if known, else new)."""
        key = (frame.frame_id, frame.loader_id, backend_node_id)
        uid = self._by_key.get(key)
        if uid is None:
            uid = next(self._counter)
            self._issued += 1
            self._by_key[key] = uid
        old = self._by_uid.get(uid)
        world = old.world if old is not None else None
        self._by_uid[uid] = UidEntry(
            uid, frame.frame_id, frame.loader_id, backend_node_id, role, name, frame.session, world
        )
        return uid

    def uid_for_key(self, frame: FrameInfo, context_id: int, key: int, role: str, name: str) -> int:
        """The uid of the element the in-page collector knows as ``key`` in world ``context_id``."""
        world_key = (frame.frame_id, frame.loader_id, "w", context_id, key)
        known = self._by_key.get(world_key)
        old = self._by_uid.get(known) if known is not None else None
        if old is None:
            uid = next(self._counter)
            self._issued += 1
            self._by_key[world_key] = uid
            self._by_uid[uid] = UidEntry(
                uid, frame.frame_id, frame.loader_id, None, role, name, frame.session, (context_id, key)
            )
            return uid
        if old.role != role or old.name != name or old.session is not frame.session:
            self._by_uid[old.uid] = UidEntry(
                old.uid, old.frame_id, old.loader_id, old.backend_node_id, role, name, frame.session, old.world
            )
        return old.uid

    def bind_backend(self, uid: int, backend_node_id: int) -> UidEntry:
        """Record the backendNodeId found for a collector uid (the accessibility-tree path then finds it too)."""
        entry = self.lookup(uid)
        if entry.backend_node_id == backend_node_id:
            return entry
        entry = UidEntry(
            uid, entry.frame_id, entry.loader_id, backend_node_id, entry.role, entry.name, entry.session, entry.world
        )
        self._by_uid[uid] = entry
        self._by_key.setdefault((entry.frame_id, entry.loader_id, backend_node_id), uid)
        return entry

    def lookup(self, uid: int) -> UidEntry:
        """The entry of a live uid, or :class:`StaleUid` saying why not."""
        entry = self._by_uid.get(uid)
        if entry is not None:
            return entry
        reason = self._retired.get(uid)
        if reason is not None:
            raise StaleUid(uid, reason)
        raise StaleUid(uid, "no snapshot of this page gave this uid (uids belong to one page)")

    def retire(self, uid: int, reason: str) -> None:
        """Refuse ``uid`` from now on (its node left the document)."""
        entry = self._by_uid.pop(uid, None)
        if entry is not None:
            for key in _keys_of(entry):
                if self._by_key.get(key) == uid:
                    del self._by_key[key]
        self._retired[uid] = reason
        while len(self._retired) > MAX_RETIRED:
            self._retired.popitem(last=False)

    def retire_document(self, frame_id: str, loader_id: str, reason: str) -> None:
        """Every uid of one document becomes stale (navigation, frame removed)."""
        for uid, entry in list(self._by_uid.items()):
            if entry.frame_id == frame_id and entry.loader_id == loader_id:
                self.retire(uid, f"it is from an old document ({reason})")

    def prune_document(self, frame: FrameInfo, present: set[int]) -> int:
        """After a full accessibility-tree snapshot of a frame: its uids of nodes absent from the tree become stale.

        Only uids that tree gave (keyed by backendNodeId alone) are judged here; the in-page
        collector reports the elements that left the document itself (:meth:`retire_keys`).
        """
        gone = [
            uid
            for uid, e in self._by_uid.items()
            if e.frame_id == frame.frame_id
            and e.loader_id == frame.loader_id
            and e.world is None
            and e.backend_node_id not in present
        ]
        for uid in gone:
            self.retire(uid, "its element was removed from the page")
        return len(gone)

    def retire_keys(self, frame: FrameInfo, context_id: int, keys: list[int]) -> int:
        """The collector's elements ``keys`` left the document: their uids become stale."""
        retired = 0
        for key in keys:
            uid = self._by_key.get((frame.frame_id, frame.loader_id, "w", context_id, key))
            if uid is not None:
                self.retire(uid, "its element was removed from the page")
                retired += 1
        return retired

    def retire_world(self, frame: FrameInfo, keep_context: int | None, reason: str) -> None:
        """Our isolated world of this document was replaced: keys of the old one mean nothing now."""
        for uid, entry in list(self._by_uid.items()):
            if (
                entry.world is not None
                and entry.frame_id == frame.frame_id
                and entry.loader_id == frame.loader_id
                and entry.world[0] != keep_context
            ):
                self.retire(uid, f"it is from an old document ({reason})")

    def __len__(self) -> int:
        return len(self._by_uid)

    def stats(self) -> dict[str, Any]:
        return {"live": len(self._by_uid), "retired": len(self._retired), "issued": self._issued}
