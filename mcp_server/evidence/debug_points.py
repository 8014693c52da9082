"""Wire debug points to pages: one :class:`DebugPoints` a page, its sessions, its source maps.

Where a point goes: ``source`` names an original file of a map (``ordini.js``) or a script URL;
``line`` is 1-based in that file. An original line becomes the generated position where its
code starts (:func:`cdp_core.sourcemap.scopes.generated_position`), and a logpoint's expression,
written with original names, is rewritten with the generated names nearest to that position.
After a pause, frames are mapped to original functions and places by the page's resolver
(:mod:`mcp_server.evidence.stacks`) and variables renamed per scope (:mod:`cdp_core.recorders.debugger.names`).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cdp_core import CDPSession
from cdp_core.errors import CDPException
from cdp_core.recorders.debugger import DebugPoints
from cdp_core.recorders.debugger.names import name_capture
from cdp_core.recorders.source_maps import SourceMapResolver
from cdp_core.sourcemap import SourceMap
from cdp_core.sourcemap.scopes import NameIndex, generated_position, source_index
from mcp_server.evidence.stacks import BUDGET_S, resolver_of
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from targets import BrowserManager, PageHandle

__all__ = ["install", "debug_of", "existing", "Where", "locate", "page_scripts"]

log = logging.getLogger("mcp_server.debug")


def existing(page: PageHandle) -> DebugPoints | None:
    found = page.data.get("debug")
    return found if isinstance(found, DebugPoints) else None


def debug_of(page: PageHandle) -> DebugPoints:
    """The page's debug points (made on first use, with every session the page has now)."""
    points = existing(page)
    if points is None:
        console = page.data.get("console")
        if console is None:
            raise ToolFailure(ErrorCode.NOT_ATTACHED, "no capture on this page", hint="select a page first")
        points = DebugPoints(console, mapper=lambda session, capture: _map_capture(page, session, capture))
        page.data["debug"] = points
    return points


def page_sessions(page: PageHandle) -> list[CDPSession]:
    """The page's own session and its iframes' (out-of-process iframes have their own), open ones."""
    sessions = [page.session, *(r.session for r in getattr(page, "sessions", ()) if r.kind == "iframe")]
    return [s for s in sessions if not s.closed]


def resolver_for(page: PageHandle, session: CDPSession, policy: Any = None) -> SourceMapResolver:
    """The source-map resolver of one of the page's sessions (an iframe's scripts are read through its own)."""
    if session is page.session:
        return resolver_of(page, policy)
    held: dict[str | None, SourceMapResolver] = page.data.setdefault("debug_resolvers", {})
    resolver = held.get(session.session_id)
    if resolver is None or resolver.session is not session:
        resolver = SourceMapResolver(session, page.data.get("network"))
        held[session.session_id] = resolver
    if policy is not None:
        resolver.refuse_url = resolver_of(page, policy).refuse_url
    return resolver


async def sync_sessions(page: PageHandle, points: DebugPoints) -> None:
    """Every open session of the page gets the points."""
    for session in page_sessions(page):
        if not session.closed and session.session_id not in points._sessions:
            await points.add_session(session)


def install(manager: BrowserManager) -> None:
    """New iframe sessions get the points; a closed page's points go with it."""

    async def on_session(page: PageHandle, session: CDPSession, kind: str) -> None:
        points = existing(page)
        if points is not None and kind in ("page", "iframe"):
            try:
                await points.add_session(session)
            except CDPException as exc:
                log.debug("debug points on a new %s session: %s", kind, exc)

    def on_closed(page: PageHandle) -> None:
        points = existing(page)
        if points is not None:
            points.points.clear()
            points.exceptions = "none"

    manager.add_session_listener(on_session)
    manager.add_page_closed_listener(on_closed)
    manager.add_before_detach_listener(
        release
    )  # every way of letting the user's Chrome go: detach, shutdown, re-attach


async def release(pages: list[PageHandle]) -> None:
    """Remove every debug point of these pages before their sessions go: the page as it was.

    Run by the cdp target's detach (``before_detach``), so the ``__mcpDebug_*`` binding and the
    breakpoints never outlive the attachment, however it ends.
    """
    for page in pages:
        points = existing(page)
        if points is not None:
            try:
                await asyncio.wait_for(points.close(), 5)
            except (TimeoutError, CDPException) as exc:
                log.debug("debug points not released: %s", exc)


# -- scripts and places ------------------------------------------------------------------------


async def page_scripts(session: CDPSession) -> list[str]:
    """URLs of a session's scripts (its frames), from the resource tree: no Debugger needed."""
    try:
        tree = await session.send("Page.getResourceTree", timeout=5)
    except CDPException:
        return []
    urls: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        for res in node.get("resources") or ():
            if res.get("type") == "Script" and res.get("url", "").startswith(("http:", "https:")):
                urls.append(res["url"])
        for child in node.get("childFrames") or ():
            walk(child)

    walk(tree.get("frameTree") or {})
    return list(dict.fromkeys(urls))


@dataclass
class Where:
    """A point's place: the generated script and 0-based position, the original file and line asked."""

    url: str
    line: int
    column: int
    text: str = ""
    smap: SourceMap | None = None
    src: int | None = None
    original: dict[str, Any] | None = None


async def locate(page: PageHandle, source: str, line: int, policy: Any = None) -> Where:
    """Where ``line`` (1-based) of ``source`` (original path or script URL, a substring) runs."""
    scripts: list[tuple[str, SourceMapResolver]] = []
    for session in page_sessions(page):
        resolver = resolver_for(page, session, policy)
        scripts += [(url, resolver) for url in await page_scripts(session)]
    candidates: list[tuple[str, str, SourceMap, int, str]] = []
    for url, resolver in scripts:
        text, smap, _error = await resolver.script_and_map(url, budget_s=BUDGET_S)
        if smap is None or smap._sections:
            continue
        for src in source_index(smap, source):
            candidates.append((url, smap.sources[src], smap, src, text))
    originals = list(dict.fromkeys(c[1] for c in candidates))
    if len(originals) > 1:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"source {source!r} names {len(originals)} files: {', '.join(originals[:5])}",
            hint="pass a longer part of the path",
        )
    if candidates:
        url, name, smap, src, text = candidates[0]
        pos = generated_position(smap, src, line - 1)
        if pos is None:
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                f"line {line} of {name} has no code in the bundle (a comment, a blank line, or removed by the build)",
                hint="source_get shows the lines around it; pick a line with a statement",
            )
        return Where(url, pos[0], pos[1], text, smap, src, {"source": name, "lineNumber": line})
    direct = [(u, r) for u, r in scripts if source in u]
    if direct:
        text, _smap, _ = await direct[0][1].script_and_map(direct[0][0], budget_s=BUDGET_S)
        return Where(direct[0][0], line - 1, 0, text, None)
    raise ToolFailure(
        ErrorCode.INVALID_ARGUMENT,
        f"no script or original source matches {source!r}",
        hint="source_list shows the page's scripts and the original files their maps name",
    )


def original_to_generated(where: Where, expression: str) -> dict[str, str]:
    """Original identifiers of ``expression`` -> the generated names nearest to the point."""
    if where.smap is None or not where.text:
        return {}
    from cdp_core.sourcemap.scopes import _IDENT

    index = _index(where.url, where.smap, where.text)
    renamed: dict[str, str] = {}
    for ident in set(_IDENT.findall(expression)):
        generated = index.generated_name(ident, (where.line, where.column), where.src)
        if generated and generated != ident:
            renamed[ident] = generated
    return renamed


async def _map_capture(page: PageHandle, session: CDPSession, capture: dict[str, Any]) -> dict[str, Any]:
    """Original functions and places on every frame, original names on the top frames' variables."""
    frames = capture.get("frames") or []
    if not frames or page.closed or session.closed:
        return name_capture(capture, None)
    resolver = resolver_for(page, session)
    try:
        result = await resolver.resolve(frames, budget_s=BUDGET_S)
        for frame, mapped in zip(frames, result.frames, strict=True):
            if mapped.get("original"):
                frame["original"] = mapped["original"]
    except CDPException as exc:
        log.debug("mapping capture frames: %s", exc)
    indexes: dict[str, NameIndex | None] = {}
    for frame in frames:
        url = str(frame.get("url") or "")
        if frame.get("scopes") and url not in indexes:
            text, smap, _ = await resolver.script_and_map(url, budget_s=BUDGET_S)
            indexes[url] = _index(url, smap, text) if smap is not None and text and not smap._sections else None
    return name_capture(capture, indexes.get)


_INDEXES: dict[str, tuple[SourceMap, NameIndex]] = {}


def _index(url: str, smap: SourceMap, text: str) -> NameIndex:
    """One NameIndex per parsed map (built once: a large bundle's mappings take a while to walk)."""
    held = _INDEXES.get(url)
    if held is not None and held[0] is smap:
        return held[1]
    if len(_INDEXES) > 16:
        _INDEXES.clear()
    index = NameIndex(smap, text)
    _INDEXES[url] = (smap, index)
    return index
