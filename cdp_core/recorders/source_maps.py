"""Source-mapped stack frames: the original file, function and line behind minified code.

Resolved lazily, when an entry is read, never while events arrive. Nothing here touches
the page or the Debugger domain (enabling Debugger would make ``debugger;`` statements
pause the user's page): a script's text comes from the page's resource tree
(``Page.getResourceContent``: also for scripts loaded before we attached), else from the
network capture (``Network.getResponseBody``); its map URL from the ``SourceMap`` /
``X-SourceMap`` response header or the ``sourceMappingURL`` comment; the map itself from a
``data:`` URL or through the page's own network context (``Network.loadNetworkResource``,
the way DevTools loads maps: the page's cookies for a same-origin map, no request in the
page's network log, no CORS involvement). A map that cannot be read is said
(:attr:`ResolveResult.notes`), and its frames keep only their generated location.

The cache holds parsed maps by script URL (with the network entry that loaded the script,
so a reload that fetched the script again is not mapped with the old map), bounded by entry
count and by :attr:`SourceMap.cost`; failures are cached too, so a missing map is asked for
once, not on every read.
"""

from __future__ import annotations

import asyncio
import base64
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import CDPError, CDPException
from ..sourcemap import (
    SourceMap,
    SourceMapError,
    decode_data_url,
    function_declaration,
    parse_source_map,
    resolve_url,
    source_mapping_url,
)

if TYPE_CHECKING:
    from ..connection import CDPSession
    from .network import NetworkRecorder

__all__ = ["SourceMapResolver", "ResolveResult"]

MiB = 1024 * 1024


@dataclass
class _Script:
    """What we know of one script URL: its text (for function names) and its map, or why not."""

    key: tuple[str, int | None]
    text: str = ""
    map_url: str | None = None
    source_map: SourceMap | None = None
    error: str | None = None  # the map exists but cannot be read
    cost: int = 0
    at: float = field(default_factory=time.monotonic)


@dataclass
class ResolveResult:
    """Frames with ``original`` added where a map says where they came from, and notes."""

    frames: list[dict[str, Any]]
    notes: list[str]


class SourceMapResolver:
    """Maps stack frames of one page back through its scripts' source maps (bounded cache)."""

    def __init__(
        self,
        session: CDPSession,
        network: NetworkRecorder | None = None,
        *,
        max_bytes: int = 64 * MiB,
        max_scripts: int = 64,
        max_map_bytes: int = 32 * MiB,
        max_script_bytes: int = 16 * MiB,
        fetch_timeout: float = 5.0,
        error_ttl: float = 30.0,
        refuse_url: Callable[[str], str | None] | None = None,
    ) -> None:
        self.session = session
        self.network = network
        self.max_bytes = max_bytes
        self.max_scripts = max_scripts
        self.max_map_bytes = max_map_bytes
        self.max_script_bytes = max_script_bytes
        self.fetch_timeout = fetch_timeout
        self.error_ttl = error_ttl
        #: Says why a map URL must not be fetched (the launch browser's URL policy), else None.
        self.refuse_url = refuse_url
        self._cache: OrderedDict[str, _Script] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}
        self.bytes_held = 0

    # -- public ------------------------------------------------------------------------------

    async def resolve(self, frames: Iterable[dict[str, Any]], *, budget_s: float = 10.0) -> ResolveResult:
        """Copies of ``frames`` (1-based ``lineNumber``/``columnNumber``, ``url``, ``function``),
        each with ``original`` when its script's map maps it; notes for maps that cannot be read."""
        frames = [dict(f) for f in frames]
        scripts, notes = await self._scripts(dict.fromkeys(str(f.get("url") or "") for f in frames), budget_s)
        for frame in frames:
            script = scripts.get(str(frame.get("url") or ""))
            if script is None or script.source_map is None:
                continue
            try:
                original = self._original(script, frame)
            except SourceMapError as exc:
                note = f"{frame.get('url')}: source map {script.map_url} could not be read ({exc})"
                if note not in notes:
                    notes.append(note)
                continue
            if original is not None:
                frame["original"] = original
        return ResolveResult(frames, notes)

    async def mapped_urls(self, urls: Iterable[str], *, budget_s: float = 10.0) -> tuple[set[str], list[str]]:
        """Which of ``urls`` name a script with a readable source map, and the notes :meth:`resolve` would give.

        Lets a caller holding thousands of frames from a few scripts copy and resolve only the
        frames a map can change (scripts and maps are fetched and cached as :meth:`resolve` does).
        """
        scripts, notes = await self._scripts(dict.fromkeys(urls), budget_s)
        return {url for url, script in scripts.items() if script is not None and script.source_map is not None}, notes

    async def _scripts(self, urls: Iterable[str], budget_s: float) -> tuple[dict[str, _Script | None], list[str]]:
        """Each URL's script (None: not mappable, or not resolved within ``budget_s``) and the notes."""
        scripts: dict[str, _Script | None] = {}
        notes: list[str] = []
        deadline = time.monotonic() + budget_s
        for url in urls:
            if not _mappable(url):
                scripts[url] = None
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                notes.append(f"{url}: source map not resolved within {budget_s:.0f} s (ask again)")
                scripts[url] = None
                continue
            cached = self._fresh(url)
            if cached is not None:  # no fetch to bound: skip the task wait_for would start
                scripts[url] = cached
                continue
            try:
                scripts[url] = await asyncio.wait_for(self._script(url), left)
            except TimeoutError:
                notes.append(f"{url}: source map not resolved within {budget_s:.0f} s (ask again)")
                scripts[url] = None
        for url, script in scripts.items():
            if script is not None and script.error:
                notes.append(f"{url}: source map {script.map_url} could not be read ({script.error})")
        return scripts, notes

    async def script_and_map(self, url: str, *, budget_s: float = 10.0) -> tuple[str, SourceMap | None, str | None]:
        """A script's text, its parsed map and why the map could not be read (debug points need all three)."""
        scripts, notes = await self._scripts([url], budget_s)
        script = scripts.get(url)
        if script is None:
            return "", None, notes[0] if notes else None
        return script.text, script.source_map, script.error

    def clear(self) -> None:
        self._cache.clear()
        self.bytes_held = 0

    async def load_map(self, ref: str, base: str) -> SourceMap:
        """A map named by a stylesheet's ``sourceMappingURL`` (``ref``, relative to ``base``), fetched
        as script maps are (data: URL, or through the page under the URL policy); SourceMapError if not."""
        if ref.startswith("data:"):
            return parse_source_map(decode_data_url(ref), base)
        url = resolve_url(base, ref)
        return parse_source_map(await self._fetch(url, same_origin=_same_origin(base, url)), url)

    # -- mapping -----------------------------------------------------------------------------

    def _original(self, script: _Script, frame: dict[str, Any]) -> dict[str, Any] | None:
        smap = script.source_map
        assert smap is not None
        line = int(frame.get("lineNumber") or 1) - 1
        col = int(frame.get("columnNumber") or 1) - 1
        pos = smap.lookup(line, col)
        if pos is None:
            return None
        out: dict[str, Any] = {}
        function = str(frame.get("function") or "")
        if function and function != "(anonymous)" and script.text:
            # V8's frame name may be qualified ("Obj.method"): the declaration carries the last part.
            short = function.rsplit(".", 1)[-1]
            decl = function_declaration(script.text, line, col, short)
            if decl is not None:
                name = smap.name_at(*decl)
                if name:
                    out["function"] = name
        out["url"] = pos.source
        out["lineNumber"] = pos.line + 1
        out["columnNumber"] = pos.column + 1
        code = smap.source_line(pos)
        if code:
            out["code"] = code
        if smap.is_ignored(pos):
            out["ignoreListed"] = True
        return out

    # -- fetching ------------------------------------------------------------------------------

    async def _script(self, url: str) -> _Script:
        lock = self._locks.setdefault(url, asyncio.Lock())
        async with lock:
            entry_id = self._latest_entry(url)
            key = (url, entry_id)
            cached = self._cache.get(url)
            if cached is not None and cached.key == key:
                fresh = cached.error is None or time.monotonic() - cached.at < self.error_ttl
                if fresh:
                    self._cache.move_to_end(url)
                    return cached
            script = await self._load(url, key, entry_id)
            self._remember(url, script)
            return script

    def _fresh(self, url: str) -> _Script | None:
        """The cached script of ``url`` when :meth:`_script` would return it without fetching."""
        cached = self._cache.get(url)
        if cached is None or cached.key != (url, self._latest_entry(url)):
            return None
        if cached.error is not None and time.monotonic() - cached.at >= self.error_ttl:
            return None
        self._cache.move_to_end(url)
        return cached

    def _remember(self, url: str, script: _Script) -> None:
        old = self._cache.pop(url, None)
        if old is not None:
            self.bytes_held -= old.cost
        script.cost = len(script.text) + (script.source_map.cost if script.source_map is not None else 0)
        self._cache[url] = script
        self.bytes_held += script.cost
        while self._cache and (len(self._cache) > self.max_scripts or self.bytes_held > self.max_bytes):
            _, dropped = self._cache.popitem(last=False)
            self.bytes_held -= dropped.cost
            if dropped is script:
                break

    def _latest_entry(self, url: str) -> int | None:
        if self.network is None:
            return None
        hits = [e for e in self.network.list(url_contains=url) if e.get("url") == url]
        return int(hits[-1]["id"]) if hits else None

    async def _load(self, url: str, key: tuple[str, int | None], entry_id: int | None) -> _Script:
        script = _Script(key=key)
        text, header_map = await self._script_text(url, entry_id)
        if text is None:
            return script  # not a script we can read (gone, not a script): nothing to say
        ref = header_map or source_mapping_url(text)
        script.text = text if len(text) <= self.max_script_bytes else ""
        if not ref:
            return script
        script.map_url = ref if ref.startswith("data:") else resolve_url(url, ref)
        try:
            if ref.startswith("data:"):
                script.map_url = "inline data: URL"
                if len(ref) > self.max_map_bytes * 4 // 3 + 1024:
                    raise SourceMapError(f"larger than {self.max_map_bytes // MiB} MiB, not read")
                body = decode_data_url(ref)
                smap = parse_source_map(body, url)
            else:
                body = await self._fetch(script.map_url, same_origin=_same_origin(url, script.map_url))
                smap = parse_source_map(body, script.map_url)
            if not smap._sections:
                _ = smap.mappings  # decode now: a corrupt map is said at once, not at each lookup
            script.source_map = smap
        except SourceMapError as exc:
            script.error = str(exc)
        except CDPException as exc:
            script.error = f"the browser refused to load it: {exc}"
        return script

    async def _script_text(self, url: str, entry_id: int | None) -> tuple[str | None, str | None]:
        """The script's text and its ``SourceMap`` header (when the network capture saw it)."""
        header_map = None
        if self.network is not None and entry_id is not None:
            try:
                entry = self.network.get(entry_id)
            except LookupError:
                entry = None
            if entry is not None:
                if entry.get("resourceType") not in ("script", "other", None):
                    return None, None
                headers = {str(k).lower(): v for k, v in (entry.get("responseHeaders") or {}).items()}
                header_map = headers.get("sourcemap") or headers.get("x-sourcemap")
        text = await self._from_resource_tree(url)
        if text is None and self.network is not None and entry_id is not None:
            try:
                raw, _mime, _source = await asyncio.wait_for(self.network.body_bytes(entry_id), self.fetch_timeout)
                text = raw.decode("utf-8", "replace")
            except Exception:  # noqa: BLE001 - gone, evicted, refused: no text, nothing mapped
                text = None
        return text, header_map

    async def _from_resource_tree(self, url: str) -> str | None:
        try:
            tree = await self.session.send("Page.getResourceTree", timeout=self.fetch_timeout)
        except CDPException:
            return None
        frame_id = _frame_with_script(tree.get("frameTree") or {}, url)
        if frame_id is None:
            return None
        params = {"frameId": frame_id, "url": url}
        try:
            try:
                reply = await self.session.send("Page.getResourceContent", params, timeout=self.fetch_timeout)
            except CDPError as exc:
                if "not enabled" not in exc.message:
                    raise
                # The resource content needs the Page agent (events only; nothing the user sees).
                await self.session.send("Page.enable", timeout=self.fetch_timeout)
                reply = await self.session.send("Page.getResourceContent", params, timeout=self.fetch_timeout)
        except CDPException:
            return None
        content = reply.get("content", "")
        if reply.get("base64Encoded"):
            return base64.b64decode(content).decode("utf-8", "replace")
        return str(content)

    async def _fetch(self, url: str, *, same_origin: bool) -> str:
        """A map's text through the page's network context; raises SourceMapError with why not."""
        scheme = urllib.parse.urlsplit(url).scheme
        if scheme not in ("http", "https"):
            raise SourceMapError(f"{scheme or 'relative'}: URLs are not fetched")
        why = self.refuse_url(url) if self.refuse_url is not None else None
        if why:
            raise SourceMapError(f"not fetched: {why}")
        params: dict[str, Any] = {
            "url": url,
            "options": {"disableCache": False, "includeCredentials": same_origin},
        }
        frame_id = self.session.target_info.get("targetId")
        if frame_id:
            params["frameId"] = frame_id
        reply = await self.session.send("Network.loadNetworkResource", params, timeout=self.fetch_timeout)
        resource = reply.get("resource") or {}
        if not resource.get("success"):
            status = resource.get("httpStatusCode")
            why = f"HTTP {status}" if status else str(resource.get("netErrorName") or "load failed")
            raise SourceMapError(why)
        handle = resource.get("stream")
        if not handle:
            raise SourceMapError("the browser returned no data")
        chunks: list[bytes] = []
        size = 0
        try:
            while True:
                part = await self.session.send(
                    "IO.read", {"handle": handle, "size": 1 * MiB}, timeout=self.fetch_timeout
                )
                data = part.get("data", "")
                raw = base64.b64decode(data) if part.get("base64Encoded") else data.encode("utf-8")
                size += len(raw)
                if size > self.max_map_bytes:
                    raise SourceMapError(f"larger than {self.max_map_bytes // MiB} MiB, not read")
                chunks.append(raw)
                if part.get("eof"):
                    break
        finally:
            try:
                await self.session.send("IO.close", {"handle": handle}, timeout=self.fetch_timeout)
            except CDPException:
                pass
        return b"".join(chunks).decode("utf-8", "replace")


def _mappable(url: str) -> bool:
    return urllib.parse.urlsplit(url).scheme in ("http", "https")


def _same_origin(a: str, b: str) -> bool:
    pa, pb = urllib.parse.urlsplit(a), urllib.parse.urlsplit(b)
    return (pa.scheme, pa.netloc) == (pb.scheme, pb.netloc)


def _frame_with_script(node: dict[str, Any], url: str) -> str | None:
    """The id of a frame whose resource tree lists ``url`` as a script."""
    frame = node.get("frame") or {}
    for resource in node.get("resources") or ():
        if resource.get("url") == url and resource.get("type") in ("Script", "Other"):
            return str(frame.get("id"))
    for child in node.get("childFrames") or ():
        found = _frame_with_script(child, url)
        if found is not None:
            return found
    return None
