"""Which captured request a console line is about: by the request id Chrome gives, never by URL.

Why by id: an app calls one endpoint many times (a save that answers 500, then 200 on retry);
the newest request with the line's URL is often another call than the one the line reports.
Chrome's "Failed to load resource" line carries the request's id (``networkRequestId``), which
the console recorder turned into our network entry id as the line arrived (``networkId``). A line
replayed at attach (logged before ``capturedSince``) is about a request that was never captured:
it links to none and says it is from before attach.
"""

from __future__ import annotations

from typing import Any

from cdp_core.recorders.network import EntryNotFound, NetworkRecorder

__all__ = ["link_requests", "BEFORE_ATTACH"]

#: what a line from before attach links to
BEFORE_ATTACH: dict[str, Any] = {"beforeAttach": True}


def link_requests(entries: list[dict[str, Any]], network: NetworkRecorder | None) -> None:
    """Give each entry that names a request its ``linkedRequest``, in place (the entry is replaced
    by a copy: the list may hold the recorder's own entries).

    ``linkedRequest`` is ``{"id": 12, "method": "POST"}`` (``method`` absent once the request
    was evicted), or :data:`BEFORE_ATTACH`. An entry whose request was not captured (it started
    before attach, or capture missed it) gets none: the answer claims no link.
    """
    for n, entry in enumerate(entries):
        request_id = entry.get("networkRequestId")
        if not request_id or "linkedRequest" in entry:
            continue
        link = _link(entry, str(request_id), network)
        if link is not None:
            entries[n] = {**entry, "linkedRequest": link}


def _link(entry: dict[str, Any], request_id: str, network: NetworkRecorder | None) -> dict[str, Any] | None:
    if entry.get("replayed"):
        return BEFORE_ATTACH
    found = entry.get("networkId")
    if found is None and network is not None:
        found = network.entry_id_for(request_id)  # the request's events came after the line
    if found is None:
        return None
    link: dict[str, Any] = {"id": found}
    if network is not None:
        try:
            link["method"] = network.get(int(found)).get("method")
        except EntryNotFound:
            pass  # evicted since: its id is still the right one to name
    return link
