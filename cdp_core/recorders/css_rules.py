"""Which CSS declaration gives an element a property, and where it is written (file:line).

The CSS domain answers with rules and ranges relative to each stylesheet; the stylesheet's
header (``CSS.styleSheetAdded``, sent for every sheet when the domain is enabled) says where
the sheet sits: its URL, and for an inline ``<style>`` its first line in the document, so a
rule's line is the line a person finds in the file (``startLine + range.startLine``). A sheet
with a ``sourceMappingURL`` (SCSS, LESS) is mapped back to its source through a loader the
caller passes (the MCP layer fetches maps through the page, under its URL policy).

:class:`CSSReader` enables DOM and CSS on a session only for the ``async with`` block and
disables them after, so the page is not left with agents that track every stylesheet change.
Nothing here changes the page: it reads computed and matched styles only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..connection import CDPSession
from ..errors import CDPException
from ..sourcemap import SourceMap, SourceMapError

__all__ = ["CSSReader", "Declaration", "MapLoader", "PROPERTY_ALIASES"]

#: a loader of source maps: (map URL, the sheet's URL) -> the parsed map, or None when it cannot be read
MapLoader = Callable[[str, str], Awaitable[SourceMap | None]]

#: the names a computed property is declared under (a shorthand sets its longhands)
PROPERTY_ALIASES: dict[str, tuple[str, ...]] = {
    "overflow-x": ("overflow-x", "overflow"),
    "overflow-y": ("overflow-y", "overflow"),
    "overflow": ("overflow", "overflow-x", "overflow-y"),
    "width": ("width", "inline-size"),
    "height": ("height", "block-size"),
    "left": ("left", "inset", "inset-inline-start", "inset-inline"),
    "top": ("top", "inset", "inset-block-start", "inset-block"),
}


@dataclass
class Declaration:
    """The declaration that wins for a property: its rule and where it is written."""

    prop: str
    value: str
    #: the rule's selector; ``style attribute`` for inline style, ``[hidden]``-like text for UA rules
    selector: str
    #: ``regular`` (the page's CSS), ``user-agent`` (the browser's defaults), ``inline`` (style attribute),
    #: ``attribute`` (an HTML attribute's presentational style: ``hidden``, ``width``)
    origin: str
    important: bool = False
    #: the stylesheet's URL ("" for a sheet made by script)
    url: str = ""
    #: 1-based line and column in that file (the document's lines for an inline <style>)
    line: int | None = None
    column: int | None = None
    #: the original source (SCSS, LESS) through the sheet's source map: "file:line"
    source: str | None = None

    @property
    def where(self) -> str:
        """``url:line`` as a person opens it, or what kind of rule it is."""
        if self.origin == "user-agent":
            return "the browser's default style"
        if self.origin == "inline":
            return "its style attribute"
        if self.origin == "attribute":
            return "an HTML attribute (hidden, width, height...)"
        if not self.url:
            return "a stylesheet made by script"
        return f"{self.url}:{self.line}" if self.line is not None else self.url


class CSSReader:
    """DOM + CSS enabled on ``session`` for the block; computed and matched styles of nodes by backendNodeId."""

    def __init__(self, session: CDPSession, *, load_map: MapLoader | None = None, timeout: float = 10.0) -> None:
        self.session = session
        self.load_map = load_map
        self.timeout = timeout
        self.headers: dict[str, dict[str, Any]] = {}
        self._maps: dict[str, SourceMap | None] = {}
        self._sub: Any = None
        self._document = False

    async def __aenter__(self) -> CSSReader:
        def added(event: Any) -> None:
            header = event.params.get("header") or {}
            if header.get("styleSheetId"):
                self.headers[header["styleSheetId"]] = header

        self._sub = self.session.on("CSS.styleSheetAdded", added)
        try:
            await self.session.send("DOM.enable", timeout=self.timeout)
            # every existing sheet's header arrives before this reply (events precede it on the socket)
            await self.session.send("CSS.enable", timeout=self.timeout)
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._sub is not None:
            self._sub.cancel()
        for method in ("CSS.disable", "DOM.disable"):
            try:
                await self.session.send(method, timeout=self.timeout)
            except CDPException:
                pass  # the page is gone or blocked: nothing left enabled to undo

    async def node_id(self, *, backend_node_id: int | None = None, object_id: str | None = None) -> int:
        """The DOM agent's id of a node (the CSS commands take only these)."""
        if not self._document:
            await self.session.send("DOM.getDocument", {"depth": 0}, timeout=self.timeout)
            self._document = True
        if object_id is not None:
            reply = await self.session.send("DOM.requestNode", {"objectId": object_id}, timeout=self.timeout)
            return int(reply["nodeId"])
        reply = await self.session.send(
            "DOM.pushNodesByBackendIdsToFrontend", {"backendNodeIds": [backend_node_id]}, timeout=self.timeout
        )
        return int(reply["nodeIds"][0])

    async def computed(self, node_id: int, names: tuple[str, ...]) -> dict[str, str]:
        """The computed values of ``names`` (all of them when empty)."""
        reply = await self.session.send("CSS.getComputedStyleForNode", {"nodeId": node_id}, timeout=self.timeout)
        values = {p["name"]: p["value"] for p in reply.get("computedStyle") or []}
        return {n: values[n] for n in names if n in values} if names else values

    async def matched(self, node_id: int) -> dict[str, Any]:
        return await self.session.send("CSS.getMatchedStylesForNode", {"nodeId": node_id}, timeout=self.timeout)

    async def winner(self, matched: dict[str, Any], prop: str) -> Declaration | None:
        """The declaration that gives the node ``prop`` (None: not declared, the initial or inherited value)."""
        names = PROPERTY_ALIASES.get(prop, (prop,))
        found: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
        attributes = _declared(matched.get("attributesStyle") or {}, names)
        for match in matched.get("matchedCSSRules") or []:
            rule = match.get("rule") or {}
            if attributes is not None and rule.get("origin") != "user-agent":
                found.append((attributes, _ATTRIBUTES))  # presentational hints: above the browser's, below the page's
                attributes = None
            best = _declared(rule.get("style") or {}, names)
            if best is not None:
                found.append((best, rule))
        if attributes is not None:
            found.append((attributes, _ATTRIBUTES))
        inline = _declared(matched.get("inlineStyle") or {}, names)
        if inline is not None:
            found.append((inline, None))
        if not found:
            return None
        important = [f for f in found if f[0].get("important")]
        prop_decl, rule = (important or found)[-1]
        return await self._declaration(prop, prop_decl, rule)

    async def _declaration(self, prop: str, decl: dict[str, Any], rule: dict[str, Any] | None) -> Declaration:
        value = str(decl.get("value") or "")
        important = bool(decl.get("important"))
        if rule is None:
            return Declaration(prop, value, "style attribute", "inline", important)
        if rule is _ATTRIBUTES:
            hidden = prop == "display" and value == "none"
            return Declaration(prop, value, "[hidden]" if hidden else "HTML attribute", "attribute")
        origin = str(rule.get("origin") or "regular")
        selector = str((rule.get("selectorList") or {}).get("text") or "")
        out = Declaration(
            prop, value, _short(selector), "user-agent" if origin == "user-agent" else "regular", important
        )
        if origin == "user-agent":
            return out
        header = self.headers.get(str(rule.get("styleSheetId") or ""), {})
        out.url = str(header.get("sourceURL") or "")
        span = decl.get("range") or (rule.get("style") or {}).get("range")
        if span is None:
            return out
        start_line = int(header.get("startLine") or 0)
        start_col = int(header.get("startColumn") or 0)
        line0, col0 = int(span["startLine"]), int(span["startColumn"])
        out.line = start_line + line0 + 1
        out.column = (col0 + start_col if line0 == 0 else col0) + 1
        map_ref = str(header.get("sourceMapURL") or "")
        if map_ref and self.load_map is not None:
            smap = await self._map(map_ref, out.url)
            pos = smap.lookup(line0, col0) if smap is not None else None
            if pos is not None:
                out.source = f"{_file_of(pos.source, out.url)}:{pos.line + 1}"
        return out

    async def _map(self, ref: str, base: str) -> SourceMap | None:
        if ref not in self._maps:
            assert self.load_map is not None
            try:
                self._maps[ref] = await self.load_map(ref, base)
            except (SourceMapError, CDPException):
                self._maps[ref] = None
        return self._maps[ref]


#: stands for the node's presentational attribute style among the rules
_ATTRIBUTES: dict[str, Any] = {"origin": "attribute"}


def _declared(style: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any] | None:
    """The style's last valid, enabled declaration of one of ``names`` (one written in the file preferred)."""
    best = None
    for prop in style.get("cssProperties") or []:
        if prop.get("name") not in names or prop.get("disabled") or prop.get("parsedOk") is False:
            continue
        if best is not None and best.get("range") and not prop.get("range"):
            continue  # the longhand Chrome expands from it, without a place in the file
        best = prop
    return best


def _short(selector: str, limit: int = 120) -> str:
    selector = " ".join(selector.split())
    return selector if len(selector) <= limit else selector[: limit - 1] + "…"


def _file_of(source: str, sheet_url: str) -> str:
    """A mapped source as a person names it: the path under the page's origin, else the URL as given."""
    prefix = sheet_url.split("://", 1)
    if len(prefix) == 2:
        origin = prefix[0] + "://" + prefix[1].split("/", 1)[0]
        if source.startswith(origin + "/"):
            return source[len(origin) :]
    return source
