"""Forms the browser's own validation stopped: which fields, and what the browser told the user.

Why: clicking "Save" on a form with an empty ``required`` field or a value that fails its
``pattern`` sends nothing. Chrome shows a bubble next to the first bad field and the page does
not change, so the action's answer said "nothing observable followed", and the agent went looking
for a JavaScript bug. The ``invalid`` event fires on each field the check rejects, and only when a
submission (or a script) runs the check: a listener in an isolated world of ours (the page's
scripts do not see it) records them during the action, in the main frame and its first child
frames.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from targets import PageHandle

__all__ = ["ValidationWatch", "MAX_FIELDS"]

WORLD_NAME = "mcp-form-validation"
#: Frames watched: the main one and its first child frames (a frameset's work frame).
MAX_FRAMES = 5
#: Fields reported at most.
MAX_FIELDS = 10
#: Install the listener once per document, and forget what an earlier action left.
_ARM = """(() => {
  if (!globalThis.__mcpInvalid) {
    const label = (el) => {
      const own = el.labels && el.labels[0] ? el.labels[0].innerText : "";
      const text = own || el.getAttribute("aria-label") || el.getAttribute("placeholder") || el.name || el.id
        || el.tagName.toLowerCase();
      return String(text).replace(/\\s+/g, " ").trim().slice(0, 80);
    };
    document.addEventListener("invalid", (event) => {
      const found = globalThis.__mcpInvalid;
      const message = String(event.target.validationMessage || "").slice(0, 200);
      if (found.length < 20) found.push([label(event.target), message]);
    }, true);
  }
  globalThis.__mcpInvalid = [];
})()"""
_TAKE = "(() => { const found = globalThis.__mcpInvalid || []; globalThis.__mcpInvalid = []; return found; })()"


class ValidationWatch:
    """Armed before an action (:meth:`arm`), read after it (:meth:`rejected`)."""

    def __init__(self, page: PageHandle) -> None:
        self.page = page
        self.contexts: list[int] = []

    async def arm(self, frames: list[tuple[str, str | None]]) -> None:
        """Listen in each of ``frames`` ((frameId, loaderId), main frame first); failures are skipped."""
        worlds: dict[str, tuple[str | None, int]] = self.page.data.setdefault("validation_worlds", {})
        session = self.page.session

        async def one(frame_id: str, loader: str | None) -> int:
            known = worlds.get(frame_id)
            if known is None or known[0] != loader:
                world = await session.send(
                    "Page.createIsolatedWorld", {"frameId": frame_id, "worldName": WORLD_NAME}, timeout=3
                )
                known = worlds[frame_id] = (loader, int(world["executionContextId"]))
            reply = await session.send("Runtime.evaluate", {"expression": _ARM, "contextId": known[1]}, timeout=3)
            if reply.get("exceptionDetails"):
                worlds.pop(frame_id, None)
                raise ValueError("the listener did not install")
            return known[1]

        results = await asyncio.gather(*(one(f, loader) for f, loader in frames[:MAX_FRAMES]), return_exceptions=True)
        for (frame_id, _), result in zip(frames, results, strict=False):
            if isinstance(result, BaseException):
                worlds.pop(frame_id, None)  # a context gone with its document: made anew next time
        self.contexts = [r for r in results if isinstance(r, int)]

    async def rejected(self) -> list[dict[str, str]]:
        """The fields the browser's validation rejected since :meth:`arm`: ``{field, message}``."""
        if not self.contexts:
            return []

        async def take(context_id: int) -> list[Any]:
            reply = await self.page.session.send(
                "Runtime.evaluate", {"expression": _TAKE, "contextId": context_id, "returnByValue": True}, timeout=3
            )
            value = (reply.get("result") or {}).get("value")
            return value if isinstance(value, list) else []

        results = await asyncio.gather(*(take(c) for c in self.contexts), return_exceptions=True)
        fields: list[dict[str, str]] = []
        for result in results:
            if isinstance(result, BaseException):
                continue  # the document is gone (the action navigated): nothing was stopped there
            for item in result:
                if isinstance(item, list) and len(item) == 2 and len(fields) < MAX_FIELDS:
                    fields.append({"field": str(item[0]), "message": str(item[1])})
        return fields
