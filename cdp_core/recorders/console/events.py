"""Collecting console capture: the CDP event handlers, synchronous and cheap, in the reader.

Each handler turns one event (``Runtime.consoleAPICalled``, ``Runtime.exceptionThrown``,
``Log.entryAdded``, ``Audits.issueAdded``) into a timeline entry from the event's own data
(bounded previews of its ``RemoteObject`` arguments; nothing is fetched back from the page)
and hands it to the store (:class:`~cdp_core.recorders.console.ConsoleRecorder`); frame and context events keep
the map that says which frame an entry came from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...connection import CDPSession
from ...events import CDPEvent
from ..network import iso_time
from ..redact import redact_secrets_in_text
from .audits import IssueTracker
from .format import ARG_PREVIEW_CHARS, format_remote_object, frames_from_description, message_text, stack_frames
from .load_errors import parse_load_error

__all__ = ["EventCollector", "TYPE_ALIASES", "CONSOLE_TYPES"]

#: console types Chrome names two ways, and the name the timeline uses
TYPE_ALIASES = {"warn": "warning", "verbose": "debug", "startGroup": "group", "startGroupCollapsed": "group"}
#: Every type an entry can have (Chrome's console API types as recorded, browser log levels, our
#: ``pageerror`` and ``issue``, and the debugger's ``logpoint`` and ``snapshot`` hits): a filter
#: naming anything else would silently match nothing.
CONSOLE_TYPES = (
    "error", "warning", "log", "info", "debug", "pageerror", "issue", "assert", "trace", "table", "dir",
    "dirxml", "group", "endGroup", "clear", "count", "timeEnd", "profile", "profileEnd", "logpoint", "snapshot",
)  # fmt: skip


class EventCollector:
    """Turns console events into timeline entries, handed to ``add``; knows which frame said what.

    It keeps the maps from execution context to frame and from frame to URL, and the replay
    windows (``replaying``) the recorder opens around each enable.
    """

    def __init__(
        self,
        *,
        add: Callable[[dict[str, Any]], None],
        page_url: Callable[[], str],
        issues: IssueTracker,
        preview_chars: int,
    ) -> None:
        self._add = add
        self._page_url = page_url
        self.issues = issues
        self.preview_chars = preview_chars
        #: (domain, sessionId) whose enable has not answered yet: its events are the browser's replay
        self.replaying: set[tuple[str, str | None]] = set()
        self._contexts: dict[tuple[str | None, int], str] = {}  # (session, contextId) -> frameId
        #: frameId -> its URL, from the frame tree at attach and every navigation since
        self.frame_urls: dict[str, str] = {}
        #: CDP request id -> the network entry id an agent passes to ``network_get`` (set by whoever
        #: also records the network, :attr:`ConsoleRecorder.request_ids`)
        self.request_ids: Callable[[str], int | None] | None = None

    @property
    def page_url(self) -> str:
        return self._page_url()

    def learn_frames(self, node: dict[str, Any]) -> None:
        """Take the URLs of a ``Page.getFrameTree`` node and its children."""
        frame = node.get("frame") or {}
        if frame.get("id"):
            self.frame_urls[frame["id"]] = frame.get("url", "")
        for child in node.get("childFrames") or []:
            self.learn_frames(child)

    def on_event(self, session: CDPSession, frame_kind: str, ev: CDPEvent) -> None:
        p = ev.params
        m = ev.method
        if m == "Runtime.consoleAPICalled":
            self._on_console(session, frame_kind, p)
        elif m == "Runtime.exceptionThrown":
            self._on_exception(session, frame_kind, p)
        elif m == "Log.entryAdded":
            self._on_log(session, frame_kind, p)
        elif m == "Audits.issueAdded":
            self._on_issue(session, frame_kind, p)
        elif m == "Runtime.executionContextCreated":
            ctx = p.get("context") or {}
            frame_id = (ctx.get("auxData") or {}).get("frameId")
            if frame_id and ctx.get("id") is not None:
                if len(self._contexts) > 10_000:
                    self._contexts.clear()
                self._contexts[(session.session_id, int(ctx["id"]))] = frame_id
        elif m == "Runtime.executionContextsCleared":
            for key in [k for k in self._contexts if k[0] == session.session_id]:
                del self._contexts[key]
        elif m == "Page.frameNavigated":
            frame = p.get("frame") or {}
            if frame.get("id"):
                if len(self.frame_urls) > 10_000:
                    self.frame_urls.clear()
                self.frame_urls[frame["id"]] = str(frame.get("url", "")) + str(frame.get("urlFragment") or "")
            if frame_kind == "page" and not frame.get("parentId"):
                self.issues.forget()  # a new document: its issues are news again

    def _frame_url(self, session: CDPSession, frame_kind: str, context_id: Any, fallback: str) -> str:
        if frame_kind != "page":
            return str(session.target_info.get("url", "")) or fallback
        if context_id is not None:
            frame_id = self._contexts.get((session.session_id, int(context_id)))
            if frame_id and frame_id in self.frame_urls:
                return self.frame_urls[frame_id]
        return fallback or self.page_url

    def _bounded(self, text: str) -> str:
        return text if len(text) <= self.preview_chars else text[: self.preview_chars] + "…"

    def _on_console(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        args = p.get("args") or []
        previews: list[str] = []
        used = 0
        for arg in args[:20]:
            text = format_remote_object(arg) if isinstance(arg, dict) else str(arg)
            if len(text) > ARG_PREVIEW_CHARS:
                text = text[:ARG_PREVIEW_CHARS] + "…"
            used += len(text)
            previews.append(redact_secrets_in_text(text))
            if used > self.preview_chars:
                previews.append("…")
                break
        if len(args) > 20:
            previews.append(f"… {len(args) - 20} more arguments")
        stack = stack_frames(p.get("stackTrace"))
        top = stack[0] if stack else {}
        kind = str(p.get("type") or "log")
        ts = p.get("timestamp")
        self._add(
            {
                "timestamp": iso_time(ts / 1000.0) if ts else iso_time(),
                "type": TYPE_ALIASES.get(kind, kind),
                "text": self._bounded(message_text(args, previews)),
                "location": {
                    "url": top.get("url", ""),
                    "lineNumber": top.get("lineNumber"),
                    "columnNumber": top.get("columnNumber"),
                },
                "argsPreview": previews,
                "stack": stack,
                "pageUrl": self.page_url,
                "frameUrl": self._frame_url(session, frame_kind, p.get("executionContextId"), top.get("url", "")),
                "source": "console",
                "replayed": ("Runtime", session.session_id) in self.replaying,
            }
        )

    def _on_exception(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        details = p.get("exceptionDetails") or {}
        exc = details.get("exception") or {}
        # An exception's message is page text like a console line: ``Error: bad token=...`` is masked too.
        description = redact_secrets_in_text(str(exc.get("description") or ""))
        message = description.split("\n", 1)[0] if description else ""
        if not message:
            message = format_remote_object(exc) if exc else str(details.get("text") or "Uncaught error")
            message = redact_secrets_in_text(message)
        text = redact_secrets_in_text(str(details.get("text") or "Uncaught"))
        if message and message not in text:
            text = f"{text} {message}".strip()
        stack = stack_frames(details.get("stackTrace")) or frames_from_description(description)
        url = details.get("url") or (stack[0]["url"] if stack else "")
        ts = p.get("timestamp")
        self._add(
            {
                "timestamp": iso_time(ts / 1000.0) if ts else iso_time(),
                "type": "pageerror",
                "text": self._bounded(text),
                "message": self._bounded(message),
                "description": self._bounded(description),
                "location": {
                    "url": url,
                    "lineNumber": int(details.get("lineNumber", 0)) + 1,
                    "columnNumber": int(details.get("columnNumber", 0)) + 1,
                },
                "argsPreview": [],
                "stack": stack,
                "pageUrl": self.page_url,
                "frameUrl": self._frame_url(session, frame_kind, details.get("executionContextId"), url),
                "source": "exception",
                "replayed": ("Runtime", session.session_id) in self.replaying,
            }
        )

    def _on_log(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        e = p.get("entry") or {}
        stack = stack_frames(e.get("stackTrace"))
        url = str(e.get("url") or (stack[0]["url"] if stack else ""))
        line = e.get("lineNumber")
        ts = e.get("timestamp")
        level = str(e.get("level") or "info")
        entry: dict[str, Any] = {
            "timestamp": iso_time(ts / 1000.0) if ts else iso_time(),
            "type": TYPE_ALIASES.get(level, level),
            "text": self._bounded(redact_secrets_in_text(str(e.get("text") or ""))),
            "location": {"url": url, "lineNumber": int(line) + 1 if line is not None else None, "columnNumber": None},
            "argsPreview": [],
            "stack": stack,
            "pageUrl": self.page_url,
            "frameUrl": self._frame_url(session, frame_kind, None, "") if frame_kind != "page" else self.page_url,
            "source": "log",
            "logSource": e.get("source"),
            "replayed": ("Log", session.session_id) in self.replaying,
        }
        loaded = parse_load_error(str(e.get("text") or "")) if e.get("source") == "network" else None
        if loaded:
            entry["loadError"] = loaded  # the line's own outcome, whatever its request shows later
        if e.get("networkRequestId"):
            entry["networkRequestId"] = e["networkRequestId"]
            if not entry["replayed"]:  # a line from before attach names a request never captured
                found = self._network_id(str(e["networkRequestId"]))
                if found is not None:
                    entry["networkId"] = found
        self._add(entry)

    def _network_id(self, request_id: str) -> int | None:
        """The network entry of the request a line names, by Chrome's own id (never by URL).

        Chrome sends the request's events before the line that reports it, so the entry is
        known by now; the answers look again for one that was not.
        """
        if self.request_ids is None:
            return None
        try:
            return self.request_ids(request_id)
        except Exception:  # noqa: BLE001 - a lookup must never lose the line
            return None

    def _on_issue(self, session: CDPSession, frame_kind: str, p: dict[str, Any]) -> None:
        entry = self.issues.entry(p.get("issue") or {}, session)
        if entry is None:
            return  # reported again, or one too many of its kind on this document (counted)
        entry["timestamp"] = iso_time()
        entry["pageUrl"] = self.page_url
        # Every entry says where: the script line when Chrome names one, else the request or the page.
        entry.setdefault("location", {"url": (entry.get("request") or {}).get("url") or self.page_url})
        if frame_kind != "page":
            entry["frameUrl"] = self._frame_url(session, frame_kind, None, "")
        entry["replayed"] = ("Audits", session.session_id) in self.replaying
        self._add(entry)
