"""JavaScript dialogs (alert, confirm, prompt, beforeunload): seen from attach, answered only by handle_dialog.

Facts measured on Chromium 156 that shape this module:

- An open dialog freezes its page: every command the renderer answers (``Runtime.*``,
  ``DOM.*``, ``Page.getFrameTree``, ``Accessibility.*``, screenshots, even ``Page.enable``)
  waits until the dialog closes. Only browser-side commands (``Target.*``,
  ``Page.getNavigationHistory``, ``Page.handleJavaScriptDialog``) still answer.
- Chrome reports a dialog (``Page.javascriptDialogOpening``) only to the sessions that had
  ``Page.enable`` on when it opened, and only those can answer it. ``Page.enable`` sent later
  does not report it again (its reply waits for the dialog to close), and
  ``Page.handleJavaScriptDialog`` then answers "No dialog is showing".

So :func:`install` enables Page on every page session as soon as the hub attaches it (before
the page runs on), which makes every dialog opened after attach visible with its message and
answerable. A dialog already open when we attach cannot be read nor answered through CDP:
the page simply stops answering. The watch notices (its ``Page.enable`` stays unanswered)
and every call that needs the page says so at once (DIALOG_OPEN, ``beforeAttach``), asking
the user to answer it in Chrome; once they do, ``Page.enable`` returns and all is normal.

Nobody but ``handle_dialog`` answers: Playwright, when connected (the internal browser),
listens for dialogs and leaves them open (see :mod:`targets.internal.launch`).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from cdp_core import CDPEvent, CDPException, CDPSession
from mcp_server.answers.page_text import page_says
from mcp_server.input.calls import input_call
from mcp_server.server.registry import ActionResult
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from mcp_server.server.context import ToolContext
    from targets import BrowserManager, PageHandle

T = TypeVar("T")

__all__ = [
    "DialogWatch",
    "install",
    "dialog_watch",
    "watch_of",
    "require_no_dialog",
    "public_dialog",
    "no_dialog",
    "unless_dialog",
    "act",
    "race_dialog",
    "with_dialog",
]

#: A page whose ``Page.enable`` is still unanswered after this long is blocked (a dialog from before attach).
BLOCKED_AFTER_S = 0.8
#: How long a page we believe blocked by a dialog gets to answer a renderer command (see _confirm_open).
CONFIRM_OPEN_S = 0.3


class DialogWatch:
    """The JavaScript dialog open on a page, if any.

    Fed by sync handlers on the page session (``Page.javascriptDialogOpening`` / ``Closed``).
    ``cleanups`` are CDP calls postponed because the dialog blocks the page (releasing a remote
    object); they run once the dialog is handled.
    """

    def __init__(self) -> None:
        self.open: dict[str, Any] | None = None
        self.opened = asyncio.Event()
        self.history: deque[dict[str, Any]] = deque(maxlen=20)
        self.cleanups: list[Callable[[], Awaitable[None]]] = []
        self.subscribed: set[int] = set()
        #: our ``Page.enable`` on the page session while Chrome has not answered it, and since when
        self.enabling: asyncio.Future[Any] | None = None
        self.enabling_since = 0.0
        #: which browser the page is in: in the user's Chrome ("cdp") a dialog no action of ours
        #: opened is the user's own, and the answers say so
        self.target = ""

    def on_opening(self, event: CDPEvent) -> None:
        p = event.params
        self.open = {
            "type": p.get("type", ""),
            "message": str(p.get("message", ""))[:2000],
            "defaultPrompt": p.get("defaultPrompt") or "",
            "url": p.get("url", ""),
            "hasBrowserHandler": bool(p.get("hasBrowserHandler")),
            "openedAt": time.time(),
            #: set when the agent's own action opened it (the action's answer reported it)
            "byAgent": False,
        }
        self.opened.set()

    def mark_agents(self) -> None:
        """The dialog open now came from the agent's own action (its answer reports it)."""
        if self.open is not None:
            self.open["byAgent"] = True

    @property
    def users(self) -> bool:
        """A dialog in the user's Chrome that no action of ours opened (or one from before attach)."""
        if self.target != "cdp":
            return False
        return (self.open is not None and not self.open.get("byAgent")) or self.blocked_since_attach

    def listing(self) -> dict[str, Any] | None:
        """The open dialog as list_pages and get_browser_status show it (None: none)."""
        if self.open is not None:
            d = {"type": self.open.get("type", ""), "message": str(self.open.get("message", ""))[:200]}
            if self.users:
                d["byUser"] = True
            return d
        if self.blocked_since_attach:
            return {"type": "unknown", "beforeAttach": True, "byUser": self.target == "cdp"}
        return None

    def on_closed(self, event: CDPEvent) -> None:
        self.mark_closed("accepted" if event.params.get("result") else "dismissed")

    def mark_closed(self, result: str) -> None:
        if self.open is not None:
            closed = dict(self.open)
            closed["result"] = result
            self.history.append(closed)
        self.open = None
        self.opened.clear()

    @property
    def blocked_since_attach(self) -> bool:
        """Our Page.enable has waited too long: a dialog opened before attach (or a script that never yields)."""
        return (
            self.open is None
            and self.enabling is not None
            and not self.enabling.done()
            and time.monotonic() - self.enabling_since >= BLOCKED_AFTER_S
        )

    async def run_cleanups(self) -> None:
        tasks, self.cleanups = self.cleanups, []
        for fn in tasks:
            try:
                await asyncio.wait_for(fn(), 2.0)
            except (CDPException, TimeoutError):
                pass


def watch_of(page: PageHandle) -> DialogWatch:
    watch = page.data.get("dialogs")
    if not isinstance(watch, DialogWatch):
        watch = DialogWatch()
        page.data["dialogs"] = watch
    return watch


def _subscribe(session: CDPSession, watch: DialogWatch) -> None:
    """Listen, then enable Page without waiting for the reply (a page blocked by a dialog never gives one)."""
    if id(session) in watch.subscribed or session.closed:
        return
    watch.subscribed.add(id(session))
    session.on("Page.javascriptDialogOpening", watch.on_opening)
    session.on("Page.javascriptDialogClosed", watch.on_closed)
    future = asyncio.ensure_future(session.send("Page.enable", timeout=24 * 3600))
    future.add_done_callback(lambda f: f.cancelled() or f.exception())
    watch.enabling = future
    watch.enabling_since = time.monotonic()


async def _settle_enable(watch: DialogWatch, wait: float) -> None:
    """Wait briefly for Page.enable's reply (a normal page answers in about a millisecond)."""
    if watch.enabling is None or watch.enabling.done():
        return
    await asyncio.wait({watch.enabling}, timeout=wait)


_installed: weakref.WeakSet[Any] = weakref.WeakSet()


def install(manager: BrowserManager) -> None:
    """Watch dialogs on every page session from the moment it is attached (idempotent per manager)."""
    if manager in _installed or not hasattr(manager, "add_session_listener"):
        return
    try:
        _installed.add(manager)
    except TypeError:  # pragma: no cover - a manager that cannot be weakly referenced
        pass

    async def on_session(page: PageHandle, session: CDPSession, kind: str) -> None:
        if kind == "page":
            watch = watch_of(page)
            watch.target = page.target
            _subscribe(session, watch)
            await _settle_enable(watch, BLOCKED_AFTER_S)

    manager.add_session_listener(on_session)


async def dialog_watch(ctx: ToolContext, page: PageHandle) -> DialogWatch:
    """The page's DialogWatch (installing the watch for every page on first use, if not yet done)."""
    install(ctx.manager)
    watch = watch_of(page)
    watch.target = page.target
    _subscribe(page.session, watch)
    await _settle_enable(watch, max(0.0, BLOCKED_AFTER_S - (time.monotonic() - watch.enabling_since)))
    await _confirm_open(watch, page.session)
    return watch


async def _confirm_open(watch: DialogWatch, session: CDPSession) -> None:
    """Check that a dialog we saw open still blocks the page before a call is refused for it.

    A dialog the user answers in Chrome closes there first; our ``Page.javascriptDialogClosed``
    arrives on our own socket and, on a busy machine, can trail the agent's next call. A renderer
    command answers only when no dialog blocks the page, so a quick one settles it: answered
    means the dialog is gone (its Closed event was late or lost), silence means it is open.
    Costs ``CONFIRM_OPEN_S`` only when a dialog is believed open.
    """
    if watch.open is None or session.closed:
        return
    try:
        await session.send("Runtime.evaluate", {"expression": "0", "returnByValue": True}, timeout=CONFIRM_OPEN_S)
    except CDPException:  # CDPTimeout included: the dialog still blocks the page
        return
    if watch.open is not None:
        watch.mark_closed("answered in Chrome")


def require_no_dialog(watch: DialogWatch, what: str) -> None:
    """Refuse at once when a dialog blocks the page (the call would hang until it is answered)."""
    if watch.open is not None:
        d = watch.open
        if d.get("type") == "beforeunload":
            # What a leave of the page (navigate, reload, back) opens on a form with unsaved changes:
            # Chrome shows no text of the page's own, so the answer says what it means.
            raise ToolFailure(
                ErrorCode.DIALOG_OPEN,
                f"{what}: the page asks before it is left (a beforeunload prompt, as a form with unsaved "
                "changes shows); the tab stays on it until the prompt is answered",
                hint="browser_session action=handle_dialog dialog_action=accept leaves the page (the move goes on), "
                "dismiss stays on it with what was typed",
                dialog=public_dialog(d),
            )
        if watch.users:
            raise ToolFailure(
                ErrorCode.DIALOG_OPEN,
                f"{what}: the user has a JavaScript {d['type']} open in this tab of their Chrome (no action of "
                f"yours opened it), and it blocks the page: {d['message'][:200]!r}",
                hint="the dialog is the user's: ask the user to answer it in Chrome (or work in another tab), "
                "then call again; answer it with handle_dialog only if the user asks you to",
                dialog={**public_dialog(d), "byUser": True},
            )
        raise ToolFailure(
            ErrorCode.DIALOG_OPEN,
            f"{what}: a JavaScript {d['type']} is open and blocks the page; {page_says(d['message'])}",
            hint="call browser_session action=handle_dialog (dialog_action accept or dismiss) first",
            dialog=public_dialog(d),
        )
    if watch.blocked_since_attach:
        waited = time.monotonic() - watch.enabling_since
        raise ToolFailure(
            ErrorCode.DIALOG_OPEN,
            f"{what}: the page has not answered since we attached {waited:.0f} s ago: a JavaScript dialog that "
            "was already open then blocks it (Chrome reports neither its text nor lets us answer it), or a "
            "script that never yields",
            hint="the dialog is the user's: ask the user to answer it in their Chrome (handle_dialog cannot), "
            "then call again",
            dialog={"type": "unknown", "beforeAttach": True, "byUser": True},
        )


def public_dialog(d: dict[str, Any]) -> dict[str, Any]:
    return {k: d[k] for k in ("type", "message", "defaultPrompt", "url") if k in d}


async def no_dialog(ctx: ToolContext, page: PageHandle, what: str) -> DialogWatch:
    """The page's dialog watch (from the snapshot module, when present), refusing if a dialog blocks the page.

    An open ``alert()`` freezes the page: any script or input would hang until the timeout.
    Saying DIALOG_OPEN at once (hint: handle_dialog) is the useful answer.
    """
    watch = await dialog_watch(ctx, page)
    require_no_dialog(watch, what)
    return watch


async def unless_dialog(watch: DialogWatch | None, call: Awaitable[T], what: str) -> T:
    """Await ``call`` (a script on the page), but answer DIALOG_OPEN as soon as a dialog opens meanwhile.

    A script that calls ``alert()`` does not return until someone answers the dialog, so the
    call would wait for its whole timeout. The evaluation is abandoned; the dialog stays open
    for handle_dialog.
    """
    if watch is None:
        return await call
    task = asyncio.ensure_future(call)
    if await _dialog_first(task, watch):  # the agent's script opened it
        task.cancel()
        require_no_dialog(watch, what)
    return await task


async def act(ctx: ToolContext, page: PageHandle, what: str, call: Coroutine[Any, Any, Any]) -> dict[str, Any] | None:
    """Run an input coroutine; return the dialog it opened and left open (None otherwise).

    A dialog opened by the input (an ``alert()`` in a click handler) blocks the page's answer
    to the last input event until someone handles it, so the call answers as soon as the
    dialog opens; the dialog stays open for handle_dialog (nobody else answers it).
    """
    try:
        watch = await no_dialog(ctx, page, what)
    except BaseException:
        call.close()  # never started: close the coroutine instead of leaking it
        raise
    return await race_dialog(call, watch, what)


async def race_dialog(call: Awaitable[Any], watch: DialogWatch | None, what: str) -> dict[str, Any] | None:
    """Await ``call``; if a JavaScript dialog opens first, return it (the call goes on once it is handled)."""
    task = asyncio.ensure_future(input_call(call, what=what))
    if watch is None:
        await task
        return None
    if await _dialog_first(task, watch):  # the agent's input opened it (so watch.open is set)
        dialog = watch.open or {}
        return {k: dialog[k] for k in ("type", "message", "url") if k in dialog}
    await task
    return None


async def _dialog_first(task: asyncio.Future[Any], watch: DialogWatch) -> bool:
    """Wait for ``task`` or a dialog, whichever comes first; True when a dialog opened first and is open.

    The task gets a moment after the dialog: it may complete right after it (a timer's alert after the
    script ended). When the dialog wins, the task is left to the caller, its outcome never reported
    as unretrieved, and the dialog is marked as the agent's.
    """
    opened = asyncio.ensure_future(watch.opened.wait())
    try:
        await asyncio.wait({task, opened}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:  # the call was cancelled: stop its work too, now
        task.cancel()
        raise
    finally:
        opened.cancel()
    if not task.done():
        await asyncio.wait({task}, timeout=0.2)
    if task.done() or watch.open is None:
        return False
    task.add_done_callback(lambda t: t.cancelled() or t.exception())
    watch.mark_agents()
    return True


def with_dialog(result: ActionResult, dialog: dict[str, Any] | None) -> ActionResult:
    if dialog:
        result.text += f"; a JavaScript {dialog.get('type')} is open: {str(dialog.get('message'))[:200]!r}"
        result.text += " (answer it with handle_dialog)"
        result.data["dialog"] = dialog
    return result
