"""Whether the page got the input: trusted events seen from an isolated world, not Chrome's acknowledgement.

Chrome acknowledges ``Input.dispatch*Event`` when its browser process has routed the event,
and in a headful tab whose page loaded hidden it acknowledges events the page never receives
(:mod:`.wake`). So an action says "clicked", "pressed" or "typed" only when the page saw the
event: before the input, :func:`watching` installs capture-phase listeners on the window of
the element's frame, in an isolated world of ours (``Page.createIsolatedWorld``: the page's
scripts can neither see nor stop them, and the page's own listeners run as before). Each
trusted event of the kinds asked for is reported at once through a ``Runtime.addBinding``
binding exposed only to that world, with whether it reached the element (its composed path)
or where it landed instead, so a click that submits a form and leaves the page is still seen.
Cost: three or four round trips before the input (a few ms, tests/bench/background_input.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import weakref
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from itertools import count
from typing import Any

from cdp_core import CDPEvent, CDPException, CDPSession
from mcp_server.input.wake import forget, wake
from targets.errors import ErrorCode, ToolFailure

__all__ = ["Seen", "watching", "keys_reach", "not_delivered", "PRESS", "RELEASE", "KEYS", "TEXT", "MOVE", "DROP"]

WORLD = "mcp-input-check"
BINDING = "__mcpInputSeen"
PRESS = ("pointerdown", "mousedown")
RELEASE = ("pointerup", "mouseup", "click", "auxclick", "contextmenu", "dblclick")
KEYS = ("keydown", "keyup")
TEXT = ("beforeinput", "input")
MOVE = ("pointermove", "mousemove", "mouseover", "pointerover")
DROP = ("dragstart", "drop", "dragend")
#: How long after Chrome's acknowledgement the page's report may take to arrive. Only input that
#: did not arrive waits this long; 0.5 s was seen to miss a report on a loaded 2-core machine.
REPORT_WAIT = 2.0

_INSTALL_JS = """function(kinds, token, binding) {
  const el = this, send = globalThis[binding];
  const name = (n) => !n || !n.tagName ? String(n && n.nodeName || 'window').toLowerCase()
    : '<' + n.tagName.toLowerCase() + (n.id ? ' id="' + n.id + '"' : '') + '>';
  const on = (e) => {
    if (!e.isTrusted) return;
    const path = e.composedPath();
    const inside = el === globalThis || el.nodeType === 9 || path.includes(el);
    send(JSON.stringify({token, type: e.type, inside, on: inside ? '' : name(path[0])}));
  };
  for (const kind of kinds) globalThis.addEventListener(kind, on, true);
  globalThis.__mcpStop = () => { for (const kind of kinds) globalThis.removeEventListener(kind, on, true); };
}"""

_bound: weakref.WeakSet[Any] = weakref.WeakSet()
_tokens = count(1)
_cleanups: set[asyncio.Task[Any]] = set()


@dataclass
class Seen:
    """The trusted events the page reported for one action, in order."""

    events: list[dict[str, Any]] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    #: False when the check could not be installed (the page did not answer): nothing is claimed
    watching: bool = True

    def got(self, kinds: Iterable[str], *, inside: bool | None = None) -> bool:
        wanted = set(kinds)
        return any(e["type"] in wanted and (inside is None or e["inside"] == inside) for e in self.events)

    def landed_on(self, kinds: Iterable[str]) -> str:
        """Where the events of ``kinds`` went instead of the element ('' when none went elsewhere)."""
        wanted = set(kinds)
        return next((e["on"] for e in self.events if e["type"] in wanted and not e["inside"]), "")

    async def wait(self, done: Callable[[Seen], bool], timeout: float = REPORT_WAIT) -> bool:
        """Wait until ``done(self)`` holds (at once when it does), at most ``timeout`` s; returns it."""
        if not self.watching or done(self):
            return True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not done(self):
            left = deadline - loop.time()
            if left <= 0:
                return False
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)
        return True


@contextlib.asynccontextmanager
async def watching(
    session: Any, frame_id: str | None, kinds: Iterable[str], object_id: str | None = None
) -> AsyncIterator[Seen]:
    """Report the trusted ``kinds`` events of the frame's window while the block runs.

    ``object_id`` (a main-world remote object of the element) makes each report say whether the
    event reached that element. A page that does not let us install the check yields a
    :class:`Seen` with ``watching`` False (its waits succeed at once: nothing is claimed either way).
    """
    token = next(_tokens)
    seen = Seen()

    def on_binding(event: CDPEvent) -> None:
        if event.params.get("name") != BINDING:
            return
        try:
            report = json.loads(event.params.get("payload") or "{}")
        except ValueError:
            return
        if report.get("token") == token:
            seen.events.append(report)
            seen.changed.set()

    subscription = session.on("Runtime.bindingCalled", on_binding)
    context_id: int | None = None
    try:
        try:
            context_id = await _install(session, frame_id, list(kinds), token, object_id)
        except (CDPException, KeyError, TimeoutError):
            seen.watching = False
            await wake(session)
        yield seen
    finally:
        subscription.cancel()
        if context_id is not None:
            _stop_later(session, context_id)


async def _install(session: Any, frame_id: str | None, kinds: list[str], token: int, object_id: str | None) -> int:
    if session not in _bound:
        await session.send("Runtime.addBinding", {"name": BINDING, "executionContextName": WORLD}, timeout=10)
        _bound.add(session)
    if frame_id is None:
        tree = await session.send("Page.getFrameTree", timeout=10)
        frame_id = tree["frameTree"]["frame"]["id"]
    world = asyncio.ensure_future(
        session.send("Page.createIsolatedWorld", {"frameId": frame_id, "worldName": WORLD}, timeout=10)
    )
    node = None
    if object_id is not None:
        node = (await session.send("DOM.describeNode", {"objectId": object_id}, timeout=10))["node"]["backendNodeId"]
    context_id = int((await world)["executionContextId"])
    await wake(session, context_id)  # before the input: a page loaded hidden gets none until woken
    if node is not None:
        resolved = await session.send(
            "DOM.resolveNode", {"backendNodeId": node, "executionContextId": context_id}, timeout=10
        )
        target: dict[str, Any] = {"objectId": resolved["object"]["objectId"]}
    else:
        target = {"executionContextId": context_id}
    reply = await session.send(
        "Runtime.callFunctionOn",
        {
            **target,
            "functionDeclaration": _INSTALL_JS,
            "arguments": [{"value": kinds}, {"value": token}, {"value": BINDING}],
        },
        timeout=10,
    )
    if reply.get("exceptionDetails"):
        raise KeyError("install")
    return context_id


def _stop_later(session: Any, context_id: int) -> None:
    """Remove the listeners (in the background: a page that navigated took them along)."""

    async def stop() -> None:
        with contextlib.suppress(CDPException, TimeoutError):
            await session.send(
                "Runtime.evaluate",
                {"expression": "globalThis.__mcpStop && __mcpStop()", "contextId": context_id},
                timeout=5,
            )

    task = asyncio.get_running_loop().create_task(stop())
    _cleanups.add(task)
    task.add_done_callback(_cleanups.discard)


def not_delivered(what: str, label: str, seen: Seen, kinds: Iterable[str], did: str, session: Any) -> ToolFailure:
    """INPUT_NOT_DELIVERED: Chrome took the input, the page did not get it (or not at ``label``).

    A page that got nothing is woken again before the next input (:func:`.wake.forget`)."""
    elsewhere = seen.landed_on(kinds)
    if not seen.events:
        forget(session)
    if elsewhere:
        message = f"{what}: the {did} landed on {elsewhere}, not on {label}"
        hint = "something covered it at that moment (a tooltip, an overlay, an animation): snapshot again and retry"
    else:
        message = f"{what}: Chrome accepted the {did} for {label} but the page received no event"
        hint = (
            "nothing happened on the page; retry once, or ask the user to show that tab "
            "(select_page with bring_to_front=true switches the tab they see)"
        )
    return ToolFailure(ErrorCode.INPUT_NOT_DELIVERED, message, hint=hint)


@contextlib.asynccontextmanager
async def keys_reach(session: Any, element: Any, what: str, did: str) -> AsyncIterator[None]:
    """Raise INPUT_NOT_DELIVERED when the keys sent in the block reached neither ``element`` nor
    (without one) the window of the session's main frame: Chrome acknowledged keys the page never got."""
    frame_id = element.frame_id if element is not None else await _focused_frame(session)
    object_id = element.object_id if element is not None else None
    async with watching(session, frame_id, KEYS + TEXT, object_id) as seen:
        yield
        if await seen.wait(lambda s: s.got(KEYS + TEXT, inside=True)):
            return
    label = element.label if element is not None else "the focused element"
    raise not_delivered(what, label, seen, KEYS + TEXT, did, session)


_FOCUSED_OWNER_JS = """(() => {
  let el = document.activeElement, owner = null;
  while (el && (el.tagName === 'IFRAME' || el.tagName === 'FRAME')) {
    let inner = null;
    try { inner = el.contentDocument; } catch (e) {}
    if (!inner) break;
    owner = el;
    el = inner.activeElement;
  }
  return owner;
})()"""


async def _focused_frame(session: CDPSession) -> str | None:
    """The same-process frame whose document has the focus (None: the main frame): keys go there,
    and a key event in a child frame never reaches the main frame's window."""
    try:
        reply = await session.send("Runtime.evaluate", {"expression": _FOCUSED_OWNER_JS}, timeout=10)
        owner = reply.get("result", {}).get("objectId")
        if not owner:
            return None
        node = await session.send("DOM.describeNode", {"objectId": owner}, timeout=10)
        await session.send("Runtime.releaseObject", {"objectId": owner}, timeout=10)
        frame: str | None = node["node"].get("frameId")
        return frame
    except (CDPException, KeyError):
        return None
