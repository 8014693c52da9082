"""Wire the capture recorders to every page the browser manager attaches.

Why a session listener: the manager calls it for each page's own session and for every
auto-attached iframe/worker session *before* that child runs, so the recorders see a
frame's very first request and console message. One NetworkRecorder and one
ConsoleRecorder live per page in ``page.data``; child sessions feed the same pair.

Every MCP session reads the same capture; each reads it as itself (``reader=current_caller``), so
one session's console_clear / network_clear hides entries from that session only.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from cdp_core import CDPSession
from cdp_core.errors import CDPException
from cdp_core.recorders.console import ConsoleRecorder
from cdp_core.recorders.network import NetworkRecorder
from cdp_core.recorders.redact import DEFAULT_REDACT_HEADERS
from targets.callers import current_caller
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from targets import BrowserManager, PageHandle

log = logging.getLogger("mcp_server.evidence.capture")

__all__ = ["install", "network_of", "console_of", "recorders_for"]

MiB = 1024 * 1024
_DEFAULTS: dict[str, Any] = {
    "network_max_entries": None,
    "network_buffer_bytes": 32 * MiB,
    "network_preview_bytes": 2048,
    "network_redact_headers": list(DEFAULT_REDACT_HEADERS),
    "network_body_max_bytes": 5 * MiB,
    "network_eager_body_max_bytes": 1 * MiB,
    "network_eager_body_budget": 64 * MiB,
    "console_max_entries": None,
    "console_buffer_bytes": 16 * MiB,
}


def _setting(settings: Any, name: str) -> Any:
    value = getattr(settings, name, None)
    return _DEFAULTS[name] if value is None else value


def _cap(settings: Any, name: str) -> int | None:
    """An explicit entry cap (NETWORK_MAX_ENTRIES / CONSOLE_MAX_ENTRIES); None leaves only the byte budget."""
    value = getattr(settings, name, None)
    return int(value) if value else None


def recorders_for(page: PageHandle, settings: Any) -> tuple[NetworkRecorder, ConsoleRecorder]:
    """The page's recorders, created on first use with the configured limits."""
    network = page.data.get("network")
    if network is not None and page.data.get("capture_owner") is not page:
        # Stores handed on from a crashed browser's page: they now describe this page.
        for recorder in (network, page.data.get("console")):
            if recorder is not None:
                recorder._page_url_fn = lambda: page.url
    page.data["capture_owner"] = page
    if network is None:
        network = NetworkRecorder(
            max_entries=_cap(settings, "network_max_entries"),
            max_bytes=_setting(settings, "network_buffer_bytes"),
            preview_bytes=_setting(settings, "network_preview_bytes"),
            redact_headers=_setting(settings, "network_redact_headers"),
            body_max_bytes=_setting(settings, "network_body_max_bytes"),
            eager_body_max_bytes=_setting(settings, "network_eager_body_max_bytes"),
            eager_body_budget=_setting(settings, "network_eager_body_budget"),
            page_url=lambda: page.url,
            reader=current_caller,
        )
        page.data["network"] = network
    console = page.data.get("console")
    if console is None:
        console = ConsoleRecorder(
            max_entries=_cap(settings, "console_max_entries"),
            max_bytes=_setting(settings, "console_buffer_bytes"),
            preview_chars=_setting(settings, "network_preview_bytes") or 2048,
            page_url=lambda: page.url,
            reader=current_caller,
        )
        # a load error line and an issue name their request's network entry id, by Chrome's request id
        console.request_ids = network.entry_id_for
        page.data["console"] = console
    return network, console


_deferred: set[asyncio.Task[None]] = set()


def install(manager: BrowserManager, settings: Any) -> None:
    """Register the listener that attaches both recorders to every page/iframe/worker session.

    The dialog watch is installed first, so every page has Page enabled (dialogs reported)
    before capture's own commands; a page that a dialog opened before attach keeps frozen
    gets its capture attached as soon as it answers again, instead of holding the attach.
    """
    from mcp_server.evidence import debug_points, dialogs
    from mcp_server.input import frames

    dialogs.install(manager)
    debug_points.install(manager)  # debug points follow new iframe sessions and go with a closed page
    frames.install(manager)  # subscribes before the console recorder's Runtime.enable announces the contexts

    async def attach_all(page: PageHandle, session: CDPSession, kind: str) -> None:
        network, console = recorders_for(page, settings)
        for recorder in (network, console):
            try:
                await recorder.attach(session, frame_kind=kind)
            except CDPException as exc:
                # A session that vanished while attaching must not break the others.
                log.debug("capture attach failed on %s session: %s", kind, exc)

    async def when_free(watch: Any, page: PageHandle, session: CDPSession, kind: str) -> None:
        try:
            await watch.enabling
        except (CDPException, asyncio.CancelledError):
            return
        if not session.closed:
            await attach_all(page, session, kind)

    async def on_session(page: PageHandle, session: CDPSession, kind: str) -> None:
        recorders_for(page, settings)  # the stores exist (and say capturedSince) even while the page is frozen
        watch = page.data.get("dialogs") if kind == "page" else None
        if watch is not None and watch.enabling is not None and not watch.enabling.done():
            task = asyncio.get_running_loop().create_task(when_free(watch, page, session, kind))
            _deferred.add(task)
            task.add_done_callback(_deferred.discard)
            return
        await attach_all(page, session, kind)

    def on_closed(page: PageHandle) -> None:
        for key in ("network", "console"):
            recorder = page.data.get(key)
            if recorder is not None:
                recorder.detach()  # entries stay readable until the handle is dropped

    manager.add_session_listener(on_session)
    manager.launch.carry_keys = ("network", "console")  # kept across a relaunch after a crash
    manager.add_page_closed_listener(on_closed)


def _recorder(page: PageHandle, key: str) -> Any:
    recorder = page.data.get(key)
    if recorder is None:
        raise ToolFailure(
            ErrorCode.NOT_ATTACHED,
            f"no {key} capture on page {page.stable_page_id}",
            hint="capture starts when a page is attached; open or select a page first",
        )
    return recorder


def network_of(page: PageHandle) -> NetworkRecorder:
    """The page's NetworkRecorder (ToolFailure NOT_ATTACHED when capture never started)."""
    recorder: NetworkRecorder = _recorder(page, "network")
    return recorder


def console_of(page: PageHandle) -> ConsoleRecorder:
    """The page's ConsoleRecorder (ToolFailure NOT_ATTACHED when capture never started)."""
    recorder: ConsoleRecorder = _recorder(page, "console")
    return recorder
