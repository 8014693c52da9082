"""Source-mapped stacks in answers: console entries and request initiators, mapped when read.

The recorders keep generated locations only (events are handled in the reader, where no
fetch may happen). Reading actions pass their entries here: each frame whose script has a
readable source map gains ``original`` (file, function, 1-based line and column, the line of
code when the map embeds sources), the generated location stays as it was, and a map that
cannot be read is said once per answer in ``sourceMapNotes``. One resolver a page, created on
first use (:class:`cdp_core.recorders.source_maps.SourceMapResolver`, bounded cache).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cdp_core.recorders.source_maps import SourceMapResolver
from mcp_server.evidence.dialogs import DialogWatch

if TYPE_CHECKING:
    from targets import PageHandle

__all__ = ["resolver_of", "map_console_entries", "map_initiator", "frame_text", "location_text"]

#: Seconds one answer may spend fetching scripts and maps (the rest is said in a note).
BUDGET_S = 10.0

#: said instead of mapping while a dialog freezes the page (its script text cannot be read then)
FROZEN_NOTE = "source maps not read: a JavaScript dialog blocks the page (handle_dialog first, then read again)"


def _frozen(page: PageHandle) -> bool:
    """A dialog blocks the page: Page.getResourceTree would wait for it (a read must answer at once)."""
    watch = page.data.get("dialogs")
    return isinstance(watch, DialogWatch) and (watch.open is not None or watch.blocked_since_attach)


def resolver_of(page: PageHandle, policy: Any = None) -> SourceMapResolver:
    """The page's resolver (made on first use; remade when the page's session changed).

    ``policy``: the launch browser's URL policy; a map outside ``ALLOWED_URLS`` is then not
    fetched (``Network.loadNetworkResource`` is not subject to the request interception).
    """
    resolver = page.data.get("sourcemaps")
    if not isinstance(resolver, SourceMapResolver) or resolver.session is not page.session:
        resolver = SourceMapResolver(page.session, page.data.get("network"))
        page.data["sourcemaps"] = resolver
    if policy is not None and page.target == "launch":

        def refuse(url: str) -> str | None:
            verdict = policy.check_url(url)
            return None if verdict.allowed else verdict.reason

        resolver.refuse_url = refuse
    return resolver


async def map_console_entries(
    page: PageHandle,
    entries: list[dict[str, Any]],
    policy: Any = None,
    *,
    stack: bool = True,
    copy: bool = False,
    located: frozenset[str] | None = None,
) -> list[str]:
    """Add ``original`` to the stack frames and location of console entries, in place; the notes.

    A list of thousands of entries comes from a handful of scripts, most without a map: the
    scripts are looked at once each, and only frames of scripts that have a map are copied
    and resolved (the rest of the list is left as it is, at no cost per entry).

    ``stack=False``: the entries' stacks are not shown, so they are neither read nor mapped
    (as if the entries had none). ``copy=True``: the entries are the recorder's own (a list
    answer reads them without copying all of them), so an entry that gets an ``original`` is
    replaced in ``entries`` by a copy instead of being changed. ``located``: the entry types
    whose location the answer shows (a list shows where errors happened, not where each of 2000
    ``console.log`` lines did); the locations of other types are neither read nor mapped.
    """
    if page.closed or page.session.closed or not entries:
        return []
    if _frozen(page):
        return [FROZEN_NOTE]
    urls = _located_urls(entries, located)
    if stack:
        urls.update(str(frame.get("url") or "") for entry in entries for frame in entry.get("stack") or ())
    resolver = resolver_of(page, policy)
    mapped, notes = await resolver.mapped_urls(sorted(urls), budget_s=BUDGET_S)
    if not mapped:
        return notes
    refs: list[tuple[int, str, int]] = []
    frames: list[dict[str, Any]] = []
    for n, entry in enumerate(entries):
        entry_stack = (entry.get("stack") or ()) if stack else ()
        for i, frame in enumerate(entry_stack):
            if str(frame.get("url") or "") in mapped:
                refs.append((n, "stack", i))
                frames.append(frame)
        loc = entry.get("location") if located is None or entry.get("type") in located else None
        if isinstance(loc, dict) and loc.get("url") in mapped and loc.get("lineNumber") is not None:
            top = (entry_stack or [{}])[0]
            same = top.get("url") == loc["url"] and top.get("lineNumber") == loc["lineNumber"]
            refs.append((n, "location", -1))
            frames.append({**loc, "function": top.get("function") if same else None})
    if not frames:
        return notes
    result = await resolver.resolve(frames, budget_s=BUDGET_S)
    copied: set[int] = set()
    for (n, kind, i), resolved in zip(refs, result.frames, strict=True):
        original = resolved.get("original")
        if original is None:
            continue
        if copy and n not in copied:
            entries[n] = dict(entries[n])
            copied.add(n)
        entry = entries[n]
        if kind == "stack":
            entry["stack"] = list(entry["stack"])
            entry["stack"][i] = {**entry["stack"][i], "original": original}
        else:
            entry["location"] = {**entry["location"], "original": original}
    return notes + [note for note in result.notes if note not in notes]


def _located_urls(entries: list[dict[str, Any]], located: frozenset[str] | None = None) -> set[str]:
    """The script URLs of the entries' locations (a browser message's bare URL, a failed load
    without a line, is no script position). Each URL's line is looked at until one has a line:
    2000 entries of one script cost one set lookup each. ``located``: only entries of these types."""
    found: set[str] = set()
    for entry in entries:
        if located is not None and entry.get("type") not in located:
            continue
        loc = entry.get("location")
        if isinstance(loc, dict):
            url = loc.get("url")
            if url and (url if type(url) is str else str(url)) not in found and loc.get("lineNumber") is not None:
                found.add(str(url))
    return found


async def map_initiator(page: PageHandle, entry: dict[str, Any], policy: Any = None) -> list[str]:
    """Add ``original`` to a network entry's initiator stack (and its ``stackTop``), in place."""
    initiator = entry.get("initiator")
    if not isinstance(initiator, dict) or not initiator.get("stack") or page.closed or page.session.closed:
        return []
    if _frozen(page):
        return [FROZEN_NOTE]
    result = await resolver_of(page, policy).resolve(initiator["stack"], budget_s=BUDGET_S)
    entry["initiator"] = {**initiator, "stack": result.frames, "stackTop": result.frames[0]}
    return result.notes


def _where(url: Any, line: Any, col: Any) -> str:
    return f"{url}:{line}" + (f":{col}" if col is not None else "")


def frame_text(frame: dict[str, Any]) -> str:
    """``validateOrder (…/orders.js:14:5) [generated o …/orders.min.js:1:139]`` or the generated frame."""
    name = frame.get("function") or "(anonymous)"
    here = _where(frame.get("url"), frame.get("lineNumber"), frame.get("columnNumber"))
    original = frame.get("original")
    if not original:
        return f"{name} ({here})"
    o_name = original.get("function") or name
    o_where = _where(original.get("url"), original.get("lineNumber"), original.get("columnNumber"))
    return f"{o_name} ({o_where}) [generated {name} {here}]"


def location_text(loc: dict[str, Any]) -> str:
    """A console entry's location for the text answer (original first when mapped)."""
    line = loc.get("lineNumber")
    here = f"{loc['url']}{'' if line is None else f':{line}'}"
    original = loc.get("original")
    if not original:
        return here
    o_where = _where(original.get("url"), original.get("lineNumber"), original.get("columnNumber"))
    return f"{o_where} [generated {here}]"
