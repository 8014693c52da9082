"""Snapshot lines computed inside the page (snapshot step 2, the default source).

The collector (``snapshot_js/*.js``) is evaluated once per document in our isolated world (page scripts
cannot see or patch it, the page's CSP does not apply to it) and computes roles, accessible
names, values and states where the DOM is; only the lines of the answer come back, as one
JSON string. Elements are named by a key that lives in that world: a uid is bound to
``(frame, document, world, key)``, and :func:`element_backend` turns the key into the
element's backendNodeId when an action needs it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from ...errors import CDPError
from ..redact import REDACTED, is_secret_field, redact_credentials
from ..uids import FrameInfo, UidRegistry
from .build import FrameLines, FramePlaceholder, SelectorNotFound, SnapshotOptions
from .format import SnapshotLine

__all__ = [
    "CollectorFailed",
    "Prefetch",
    "prefetch",
    "isolated_world",
    "read_frame",
    "owner_key",
    "element_backend",
    "WORLD_NAME",
]

WORLD_NAME = "mcp-snapshot"
_SOURCE: str | None = None


class CollectorFailed(Exception):
    """The collector could not run in this frame (the caller reads the accessibility tree instead)."""


#: The collector's files, joined in this order inside one function scope (see dom.js).
SCRIPT_FILES = ("dom.js", "roles.js", "names.js", "walk.js")


def _source() -> str:
    global _SOURCE
    if _SOURCE is None:
        folder = Path(__file__).with_name("snapshot_js")
        parts = [(folder / name).read_text(encoding="utf-8") for name in SCRIPT_FILES]
        _SOURCE = '(() => {\n"use strict";\n' + "\n".join(parts) + "\n})()"
    return _SOURCE


async def isolated_world(frame: FrameInfo, *, fresh: bool = False) -> int:
    """Execution context id of our isolated world in the frame's document, with the collector installed.

    Created once per document (``frame.world`` remembers it per loader id); ``fresh`` makes a
    new one when the old context is gone.
    """
    if not fresh and frame.world is not None and frame.world[0] == frame.loader_id:
        return frame.world[1]
    world = await frame.session.send("Page.createIsolatedWorld", {"frameId": frame.frame_id, "worldName": WORLD_NAME})
    context_id = int(world["executionContextId"])
    result = await frame.session.send("Runtime.evaluate", {"expression": _source(), "contextId": context_id})
    if result.get("exceptionDetails"):
        raise CollectorFailed(_exception_text(result["exceptionDetails"]))
    frame.world = (frame.loader_id, context_id)
    return context_id


def _exception_text(details: dict[str, Any]) -> str:
    exc = details.get("exception") or {}
    return str(exc.get("description") or details.get("text") or "exception")[:300]


def _context_gone(exc: CDPError) -> bool:
    return "context" in exc.message.lower()


async def read_frame(
    frame: FrameInfo,
    registry: UidRegistry,
    options: SnapshotOptions,
    *,
    selector: str | None = None,
    max_lines: int | None = None,
    prefetched: Prefetch | None = None,
) -> FrameLines:
    """This frame's lines from the in-page collector; uids through ``registry``.

    ``selector`` starts the lines at the first match (:class:`SelectorNotFound` when there is
    none); ``max_lines`` lets the page leave out non-essential lines past the cap (counted in
    ``omitted``). ``prefetched`` is the same read already sent (:func:`prefetch`), used when it
    ran in this frame's current world. Raises :class:`CollectorFailed` when the collector
    cannot run here.
    """
    expression = _expression(options, selector, max_lines)
    result: dict[str, Any] | None = None
    for attempt in range(2):
        previous = frame.world
        try:
            context_id = await isolated_world(frame, fresh=attempt > 0)
        except CDPError as exc:
            raise CollectorFailed(f"no isolated world: {exc.message}") from exc
        if previous is not None and previous[0] == frame.loader_id and previous[1] != context_id:
            # same document, new world: keys of the old world name nothing any more
            registry.retire_world(frame, context_id, "the page's document was replaced")
        early = prefetched.take(frame, expression) if attempt == 0 and prefetched is not None else None
        try:
            if early is not None:
                result = await early
            else:
                result = await frame.session.send(
                    "Runtime.evaluate", {"expression": expression, "contextId": context_id, "returnByValue": True}
                )
        except CDPError as exc:
            if attempt == 0 and _context_gone(exc):
                continue  # our world went with the document: make a new one
            raise CollectorFailed(exc.message) from exc
        if result.get("exceptionDetails"):
            if attempt == 0 and "__mcpSnapshot" in _exception_text(result["exceptionDetails"]):
                continue
            raise CollectorFailed(_exception_text(result["exceptionDetails"]))
        break
    if result is None:  # pragma: no cover - the loop either breaks with a result or raises
        raise CollectorFailed("no result")
    data = json.loads(result["result"]["value"])
    error = data.get("error")
    if error == "invalid-selector":
        raise SelectorNotFound(f"invalid selector {selector!r}")
    if error == "no-match":
        raise SelectorNotFound(f"no element matches {selector!r}")
    if error == "hidden":
        raise SelectorNotFound(f"{selector!r} matches an element that is not shown (hidden?)")
    if data.get("gone"):
        registry.retire_keys(frame, context_id, data["gone"])
    return FrameLines(
        frame,
        _lines(data["lines"], frame, context_id, registry),
        title=data.get("title") or "",
        omitted=int(data.get("omitted") or 0),
    )


def _expression(options: SnapshotOptions, selector: str | None, max_lines: int | None) -> str:
    params = {
        "selector": selector,
        "interactiveOnly": options.interactive_only,
        "includeUrls": options.include_urls,
        "maxOptions": options.max_options,
        "maxLines": max_lines,
        "messagesOnly": options.messages_only,
    }
    return f"__mcpSnapshot.snapshot({json.dumps(params)})"


class Prefetch:
    """The main frame's read, sent before the frame tree is known (one round trip instead of two).

    A repeated snapshot of the same document needs ``Page.getFrameTree`` (did the page navigate,
    which frames are there?) and then the collector's evaluate in our world. When our world of
    the page's document is already known, both are sent at once; the read is used only if the
    frame tree shows that same document (:meth:`take`), and dropped otherwise (the world died
    with its document, so nothing in the page depends on the dropped answer).
    """

    def __init__(self, frame: FrameInfo, world: tuple[str, int], expression: str) -> None:
        self.frame_id = frame.frame_id
        self.world = world
        self.expression = expression
        params = {"expression": expression, "contextId": world[1], "returnByValue": True}
        self.task: asyncio.Task[dict[str, Any]] | None = asyncio.ensure_future(
            frame.session.send("Runtime.evaluate", params)
        )

    def take(self, frame: FrameInfo, expression: str) -> asyncio.Task[dict[str, Any]] | None:
        """The read, if it is this frame's in its current world with these options (then it is used up)."""
        task = self.task
        if task is None or frame.frame_id != self.frame_id or expression != self.expression:
            return None
        if frame.world != self.world or frame.loader_id != self.world[0]:
            return None
        self.task = None
        return task

    def drop(self) -> None:
        """Forget an unused read (its answer or error is consumed, never reported)."""
        task, self.task = self.task, None
        if task is not None:
            task.cancel()
            task.add_done_callback(lambda t: t.cancelled() or t.exception())


def prefetch(
    registry: UidRegistry, session: Any, options: SnapshotOptions, *, selector: str | None, max_lines: int | None
) -> Prefetch | None:
    """Send the main frame's read now when our world of its document is known (see :class:`Prefetch`)."""
    for frame in registry.frames:
        if frame.parent_id is None and frame.session is session and frame.world is not None:
            if frame.world[0] == frame.loader_id:
                return Prefetch(frame, frame.world, _expression(options, selector, max_lines))
    return None


def _lines(
    raw: list[dict[str, Any]], frame: FrameInfo, context_id: int, registry: UidRegistry
) -> list[SnapshotLine | FramePlaceholder]:
    ref = frame.ref
    uid_for_key = registry.uid_for_key
    out: list[SnapshotLine | FramePlaceholder] = []
    for item in raw:
        role = item["r"]
        depth = item["d"]
        if role == "frame":
            out.append(FramePlaceholder(depth, ("w", item["k"])))
            continue
        name = item.get("n", "")
        if role == "text":
            out.append(SnapshotLine(role="text", name=name, frame=ref, depth=depth, whole=bool(item.get("w"))))
            continue
        key = item.get("k")
        line = SnapshotLine(
            role=role,
            name=name,
            uid=uid_for_key(frame, context_id, key, role, name) if key else None,
            value=_field_value(item),
            states=item.get("s") or [],
            frame=ref,
            depth=depth,
            level=item.get("l"),
            href=item.get("h"),
            interactive=bool(item.get("i")),
            field=None if name else item.get("f"),
            error=item.get("e") or None,
        )
        if "o" in item:
            line.options = item["o"]
            line.options_total = item.get("ot", 0)
        out.append(line)
    return out


async def _call_on_backend(frame: FrameInfo, backend_node_id: int, function: str) -> Any:
    """Run ``function`` on the element in our world of the frame, returning its value (None if gone)."""
    context_id = await isolated_world(frame)
    try:
        obj = (
            await frame.session.send(
                "DOM.resolveNode", {"backendNodeId": backend_node_id, "executionContextId": context_id}
            )
        )["object"]
    except CDPError:
        return None
    try:
        result = await frame.session.send(
            "Runtime.callFunctionOn",
            {"objectId": obj["objectId"], "functionDeclaration": function, "returnByValue": True},
        )
    finally:
        await _release(frame, obj.get("objectId"))
    return (result.get("result") or {}).get("value")


async def owner_key(parent: FrameInfo, owner_backend: int) -> int | None:
    """The collector's key of the ``<iframe>`` element ``owner_backend`` in the parent frame."""
    try:
        value = await _call_on_backend(parent, owner_backend, "function() { return __mcpSnapshot.ownerKey(this); }")
    except CDPError:
        return None
    return int(value) if isinstance(value, int) else None


async def element_backend(frame: FrameInfo, context_id: int, key: int) -> int | None:
    """backendNodeId of the element the collector knows as ``key`` (None: it left the document).

    Raises :class:`CDPError` when the world itself is gone (its document was replaced).
    """
    result = await frame.session.send(
        "Runtime.evaluate", {"expression": f"__mcpSnapshot.byKey({int(key)})", "contextId": context_id}
    )
    obj = result.get("result") or {}
    if result.get("exceptionDetails") or "objectId" not in obj:
        return None
    try:
        node = (await frame.session.send("DOM.describeNode", {"objectId": obj["objectId"]}))["node"]
    finally:
        await _release(frame, obj["objectId"])
    return int(node["backendNodeId"])


async def _release(frame: FrameInfo, object_id: str | None) -> None:
    if object_id is None:
        return
    try:
        await frame.session.send("Runtime.releaseObject", {"objectId": object_id})
    except CDPError:
        pass


def _field_value(item: dict[str, Any]) -> Any:
    """A field's value for the snapshot: masked whole when its name says secret (a password's bullets
    stay bullets), JWTs and Bearer credentials masked by value whatever the field is called."""
    value = item.get("v")
    if not value:
        return value
    if item.get("f") and is_secret_field(str(item["f"])) and set(str(value)) != {"•"}:
        return REDACTED
    return redact_credentials(str(value))
