"""What an action caused: navigation, the requests it sent (most relevant first), console errors, a dialog.

A :class:`Followup` takes a baseline before the action (the last network and console ids,
the main frame's loader) and compares after it. The answer leads with what an agent
debugging a form needs: the navigation, the requests that change something (POST, PUT,
DELETE...) with their status, document loads, failures and HTTP errors, XHR/fetch; static
files (scripts, styles, images, fonts) are only counted by type, so a page load's tail of
assets never hides the POST -> 302 that saved the form.
"""

from __future__ import annotations

import asyncio
from collections import Counter, deque
from typing import TYPE_CHECKING, Any

from cdp_core import CDPException, CDPSession
from cdp_core.recorders.console.load_errors import load_error_text
from mcp_server.answers.console import request_link
from mcp_server.answers.lean import short_url
from mcp_server.answers.listing import NETWORK_COLUMNS, frame_text
from mcp_server.answers.models import NetworkRow
from mcp_server.answers.network import network_row
from mcp_server.evidence.app_errors import held_app_error
from mcp_server.evidence.console_requests import link_requests
from mcp_server.evidence.dialogs import DialogWatch, public_dialog
from mcp_server.evidence.followup_text import MAX_ERRORS
from mcp_server.evidence.form_validation import ValidationWatch
from mcp_server.evidence.server_errors import held_server_error
from mcp_server.server.registry import Answer

if TYPE_CHECKING:
    from cdp_core.recorders.console import ConsoleRecorder
    from cdp_core.recorders.network import NetworkRecorder
    from targets import PageHandle

__all__ = [
    "Followed",
    "Followup",
    "rank_requests",
    "in_flight",
    "frames_now",
    "last_id",
    "BODY_GRACE_S",
]

#: Requests listed by name (after ranking); the rest are counted.
MAX_LISTED = 8
_LISTED_TYPES = ("document", "xhr", "fetch", "websocket", "eventsource", "other", "ping", "preflight")


def _rank(r: dict[str, Any]) -> int:
    """0 = changes something (non-GET), 1 = a document, failure or HTTP error, 2 = XHR/fetch, 3 = static."""
    method = str(r.get("method") or "GET").upper()
    if method not in ("GET", "HEAD", "OPTIONS"):
        return 0
    status = r.get("status")
    if r.get("resourceType") == "document" or r.get("failed") or (isinstance(status, int) and status >= 400):
        return 1
    if r.get("resourceType") in _LISTED_TYPES:
        return 2
    return 3


def rank_requests(requests: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], Counter[str]]:
    """(the requests worth naming, most relevant first, in order within a rank; static ones counted by type)."""
    named = sorted((r for r in requests if _rank(r) < 3), key=_rank)  # sorted() is stable: time order kept
    static = Counter(str(r.get("resourceType") or "other") for r in requests if _rank(r) == 3)
    return named, static


#: How long a request that has its answer may take to end its body before the action stops waiting for it.
BODY_GRACE_S = 0.3

#: Connections that stay open as long as the page wants: never waited for.
LONG_LIVED = frozenset({"websocket", "eventsource"})


def in_flight(requests: list[dict[str, Any]], answered_at: dict[Any, float], now: float) -> list[dict[str, Any]]:
    """The requests the page may still be waiting on, or about to react to.

    That is a request with no answer yet, or one answered less than :data:`BODY_GRACE_S` ago whose
    body has not ended (``answered_at``, kept by the caller across polls, remembers when each answer
    was first seen). A WebSocket or EventSource stays open for as long as the page likes, and a
    ``fetch()`` whose body the page never reads (a log call) never ends: waiting for either would
    wait for nothing.
    """
    out = []
    for r in requests:
        if r.get("durationMs") is not None or r.get("failed") or r.get("resourceType") in LONG_LIVED:
            continue
        if r.get("status") is not None and now - answered_at.setdefault(r.get("id"), now) >= BODY_GRACE_S:
            continue
        out.append(r)
    return out


#: How long a debounced handler may take to send its request in a background tab: Chrome wakes a
#: hidden page's timers once a second, so a short debounce timer due just after a wake-up runs
#: at the next one, over a second after the keystroke; plus the fetch
HIDDEN_TIMER_WAKEUP_S = 1.3

#: Requests whose response bodies are read for a server's error text
_READ_TYPES = frozenset({"document", "xhr", "fetch"})
#: How long a follow-up waits for response bodies Chrome is still handing over
BODY_WAIT_S = 0.5


def _body_coming(network: Any, entry_id: int) -> bool:
    """The response body is still on its way to us: streaming (no end yet) or being fetched."""
    try:
        entry = network.get(entry_id)
    except Exception:  # noqa: BLE001 - an entry evicted meanwhile is not waited for
        return False
    state = entry.get("bodyState")
    streaming = state == "none" and entry.get("durationMs") is None and not entry.get("failed")
    return state == "pending" or streaming


#: How much of each console error message a follow-up shows (the same in the text and the JSON); how
#: many: MAX_ERRORS (followup_text).
ERROR_CHARS = 120


def _error_row(entry: dict[str, Any], page_url: str | None) -> list[Any]:
    """``[id, type, text]`` of a console error a step caused, plus where an uncaught one was thrown.

    Why the place: "why does Save do nothing" ends at the line that threw; with it in the click's
    answer the agent needs no console_get. Only for uncaught errors (``pageerror``), whose top frame
    is the throw; a ``console.error`` call's frame is where it was logged, which the text's own
    ``at ...`` (an Error's stack printed) says better. Generated locations: console_get maps them.
    """
    text = str(entry.get("text", ""))
    if entry.get("loadError"):  # Chrome's load error: its own status or net error, and its request by id
        link = request_link(entry.get("linkedRequest"))
        text = load_error_text(entry["loadError"]) + (f" → {link}" if link else "")
    row = [entry.get("id"), entry.get("type"), " ".join(text.split())[:ERROR_CHARS]]
    stack = entry.get("stack") or []
    if entry.get("type") == "pageerror" and stack:
        row.append(frame_text(stack[0], page_url))
    return row


class Followup:
    """Baseline taken before an action, compared after it: navigation, requests, errors, dialog."""

    def __init__(self, page: PageHandle, watch: DialogWatch | None) -> None:
        self.page = page
        self.watch = watch
        self.url = page.url
        self.network: NetworkRecorder | None = page.data.get("network")
        self.console: ConsoleRecorder | None = page.data.get("console")
        self.net_id = last_id(self.network)
        self.downloads_seen = self.network.downloads_seen if self.network is not None else 0
        self.console_id = last_id(self.console)
        self.loader: str | None = None
        #: the page's child frames before the action (a frameset's ``main`` whose form was posted)
        self.frames: dict[str, FrameState] = {}
        #: the browser's tabs before the action (None: unknown, new tabs are not looked for)
        self.tabs: set[str] | None = None
        #: fields the browser's own form validation rejects during the action (armed by start)
        self.validation: ValidationWatch | None = None

    async def start(self) -> Followup:
        (main, self.loader, self.frames), tabs = await asyncio.gather(
            _frame_tree(self.page.session), _tabs(self.page.session)
        )
        if main is not None:
            self.validation = ValidationWatch(self.page)
            watched = [(main, self.loader)] + [(f, state[0]) for f, state in self.frames.items()]
            await self.validation.arm(watched)
        self.tabs = None if tabs is None else {t["targetId"] for t in tabs}
        return self

    def _dialog_open(self) -> bool:
        return self.watch is not None and self.watch.open is not None

    def _new_requests(self) -> list[dict[str, Any]]:
        if self.network is None:
            return []
        return self.network.list(since_id=self.net_id)

    def _new_downloads(self, listed: set[int]) -> list[dict[str, str]]:
        """Downloads the action started that no listed request shows: a file made in the page
        (``blob:``, ``data:``), or one whose request is past the listed ones."""
        if self.network is None:
            return []
        return [
            {"file": d["file"]}
            for d in list(self.network.downloads)
            if d["seq"] > self.downloads_seen and d["entry"] not in listed
        ]

    async def settle(self, *, quiet_s: float = 0.15, max_s: float = 2.0, typing: bool = False) -> None:
        """Give the page a moment to react: until no request it started is in flight (bounded).

        ``typing``: the action typed into a field the page reacts to typing in. Its handler is often
        debounced (a search-as-you-type, an autocomplete: ``setTimeout(fetch, 150)``), and in a
        background tab Chrome runs a page's timers only once a second: the 150 ms timer fires up
        to a second later, after a 0.15 s wait has said nothing followed. In a hidden tab the wait
        then goes on until a request shows, for up to :data:`HIDDEN_TIMER_WAKEUP_S`.

        A request whose answer came but whose body has not ended after :data:`BODY_GRACE_S` no
        longer holds the action: a ``fetch()`` whose response the page never reads (a log or
        analytics call) ends only when its body is read, which may be never, and every click
        then waited the whole ``max_s``. The grace leaves time for the page to read the body
        and react to it (an error thrown in ``onload`` is still in the answer).
        """
        loop = asyncio.get_running_loop()
        # typing in a hidden tab: until a request shows, wait up to one timer wake-up
        patient_until = None
        if typing and await self.page.is_hidden(timeout=2):
            patient_until = loop.time() + HIDDEN_TIMER_WAKEUP_S
            max_s += HIDDEN_TIMER_WAKEUP_S
        deadline = loop.time() + max_s
        answered_at: dict[Any, float] = {}
        await asyncio.sleep(quiet_s)
        while loop.time() < deadline and not self._dialog_open():
            requests = self._new_requests()
            if not requests and patient_until is not None and loop.time() < patient_until:
                await asyncio.sleep(0.05)
                continue
            if not in_flight(requests, answered_at, loop.time()):
                return
            await asyncio.sleep(0.05)

    async def report(self) -> dict[str, Any]:
        requests = self._new_requests()
        data: dict[str, Any] = {}
        loader, frames = (None, {}) if self._dialog_open() else await frames_now(self.page.session)
        known = loader is not None and self.loader is not None
        # A URL that changed while the document stayed (history.pushState/replaceState, a hash):
        # the page, its state and the snapshot's uids are all still there, unlike after a load.
        same_document = known and loader == self.loader and self.page.url != self.url
        navigated = (known and loader != self.loader) or self.page.url != self.url
        if navigated:
            data["navigation"] = {"from": self.url, "to": self.page.url}
            if same_document:
                data["navigation"]["sameDocument"] = "hash" if _only_hash(self.url, self.page.url) else "history"
        else:
            moved = [
                {"frame": now[2] or short_url(before[1], self.page.url), "to": short_url(now[1], self.page.url)}
                for frame_id, before in self.frames.items()
                if (now := frames.get(frame_id)) is not None and now[0] != before[0] and now[1]
            ]
            if moved:
                data["frameNavigations"] = moved
        if requests:
            named, static = rank_requests(requests)
            if named:
                # rows as network_list writes them (its columns said once): the text names the same ones
                data["columns"] = NETWORK_COLUMNS
                data["requests"] = [network_row(r, self.page.url) for r in named[:MAX_LISTED]]
                server_errors, app_errors = await self._body_errors(named[:MAX_LISTED])
                if server_errors:
                    data["serverErrors"] = server_errors
                if app_errors:
                    data["appErrors"] = app_errors
            if static:
                data["static"] = dict(static.most_common())
            data["requestCount"] = len(requests)
        downloads = self._new_downloads({row[0] for row in data.get("requests", ())})
        if downloads:
            data["downloads"] = downloads
        if self.console is not None:
            errors = self.console.list(since_id=self.console_id, types=["error", "pageerror"], include_stack=True)
            if errors:
                shown = errors[-MAX_ERRORS:]
                link_requests(shown, self.network)
                data["consoleErrors"] = [_error_row(e, self.page.url) for e in shown]
                if len(errors) > MAX_ERRORS:
                    data["consoleErrorCount"] = len(errors)
        if self.watch is not None and self.watch.open is not None:
            self.watch.mark_agents()  # it followed the agent's action, whose answer reports it
            data["dialog"] = public_dialog(self.watch.open)
        elif self.validation is not None and (same_document or not navigated):
            rejected = await self.validation.rejected()
            if rejected:
                data["invalidFields"] = rejected
        opened = await self._new_tabs()
        if opened:
            data["newTabs"] = opened
        if self.page.closed:  # a lookup popup that filled its opener's field and closed its window
            closed: dict[str, str] = {"page": self.page.stable_page_id}
            opener = self.page.opener()
            if opener is not None:
                closed.update(opener=opener.stable_page_id, openerTitle=opener.title or opener.url)
            data["pageClosed"] = closed
        return data

    async def _body_errors(self, requests: list[dict[str, Any]]) -> tuple[list[list[Any]], list[list[Any]]]:
        """``[id, line]`` of each listed document or AJAX request whose response body holds a known
        server error (:mod:`.server_errors`), and of each whose body holds an application's error
        and no server error (:mod:`.app_errors`: ``{"success":false,"error":…}``). A body Chrome is
        still handing over is waited for, briefly (:data:`BODY_WAIT_S`): the page has already read
        it when the action settles."""
        network = self.network
        if network is None:
            return [], []
        read = [r for r in requests if r.get("resourceType") in _READ_TYPES and r.get("status") is not None]
        ids = [r["id"] for r in read]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BODY_WAIT_S
        while ids and loop.time() < deadline and any(_body_coming(network, i) for i in ids):
            await asyncio.sleep(0.05)
        server, app = [], []
        for r in read:
            line = held_server_error(network, r["id"])
            if line:
                server.append([r["id"], line])
            elif line := held_app_error(network, r):
                app.append([r["id"], line])
        return server, app

    async def _new_tabs(self) -> list[dict[str, str]]:
        """Tabs our page opened during the action (``openerId``), each once its URL is known (bounded)."""
        if self.tabs is None:
            return []
        for poll in range(NEW_TAB_POLLS):
            tabs = await _tabs(self.page.session) or []
            new = [t for t in tabs if t["targetId"] not in self.tabs and t.get("openerId") == self.page.target_id]
            if all(t.get("url") for t in new) and (poll >= TITLE_POLLS or all(_page_title(t) for t in new)):
                break
            await asyncio.sleep(0.1)  # a target=_blank tab has no URL for its first few ms, no title for more
        return [{"url": t.get("url") or "(loading)", "title": _page_title(t)} for t in new]


def last_id(recorder: Any) -> int:
    """The newest entry's id of a network or console recorder (0: none): what came after is new."""
    if recorder is None:
        return 0
    try:
        last = recorder.list(limit=1)
    except Exception:  # noqa: BLE001 - a recorder mid-change must not fail the action
        return 0
    return int(last[-1]["id"]) if last else 0


#: How many times (0.1 s apart) a new tab's URL and title are asked for before it is said to be
#: loading: a target=_blank tab shows its URL only once its document commits, its title once parsed.
NEW_TAB_POLLS = 30
#: Of those, how many may wait for a title (a page without one must not hold every answer to the end).
TITLE_POLLS = 15


def _page_title(tab: dict[str, Any]) -> str:
    """The tab's own title, or "" while Chrome shows its URL in its place (the document has no title yet)."""
    title = str(tab.get("title") or "")
    url = str(tab.get("url") or "")
    placeholder = url.split("://", 1)[-1]
    return "" if title in (url, placeholder) else title


async def _tabs(session: CDPSession) -> list[dict[str, Any]] | None:
    """The browser's page targets (``Target.getTargets`` answers on a page's session too), None on failure."""
    try:
        infos = (await session.send("Target.getTargets", timeout=3))["targetInfos"]
    except (CDPException, TimeoutError, KeyError):
        return None
    return [t for t in infos if t.get("type") == "page"]


def _only_hash(before: str, after: str) -> bool:
    """Whether two URLs differ only after ``#`` (a hash change, not the history API)."""
    return before.split("#", 1)[0] == after.split("#", 1)[0]


#: A frame as a follow-up compares it: (loaderId, url, name).
FrameState = tuple[str | None, str, str]


async def frames_now(session: CDPSession) -> tuple[str | None, dict[str, FrameState]]:
    """(the main frame's loaderId, every child frame by id), from one frame-tree read; (None, {}) on failure."""
    return (await _frame_tree(session))[1:]


async def _frame_tree(session: CDPSession) -> tuple[str | None, str | None, dict[str, FrameState]]:
    """(the main frame's id, its loaderId, every child frame by id); (None, None, {}) on failure."""
    try:
        tree = (await session.send("Page.getFrameTree", timeout=3))["frameTree"]
    except (CDPException, TimeoutError, KeyError):
        return None, None, {}
    children: dict[str, FrameState] = {}
    # Breadth first, in document order: the page's own frames (a frameset's work frame) come first.
    queue = deque(tree.get("childFrames") or ())
    while queue and len(children) < MAX_FRAMES:
        node = queue.popleft()
        frame = node.get("frame") or {}
        if frame.get("id"):
            children[frame["id"]] = (frame.get("loaderId"), str(frame.get("url") or ""), str(frame.get("name") or ""))
        queue.extend(node.get("childFrames") or ())
    return tree["frame"].get("id"), tree["frame"].get("loaderId"), children


#: Frames of a page compared at most (a page of hundreds of ad frames costs no more than this).
MAX_FRAMES = 200


class Followed(Answer):
    """What followed an input action: navigation, requests (rows), console errors, a dialog."""

    navigation: dict[str, str] | None = None
    #: child frames the action navigated (a frameset's ``main`` whose form was posted): ``{frame, to}``
    frameNavigations: list[dict[str, str]] = []
    columns: list[str] = []
    requests: list[NetworkRow] = []
    requestCount: int = 0
    static: dict[str, int] = {}
    consoleErrors: list[Any] = []
    consoleErrorCount: int = 0
    #: ``[id, line]`` of listed requests whose response holds a server's error (a PHP warning before
    #: the JSON of a 200, an ASP.NET error page): which error, which file and line
    serverErrors: list[Any] = []
    #: ``[id, line]`` of listed requests whose response holds an application's error (a 200's
    #: ``{"success":false,"error":…}``, an error block of the page): the app's own text
    appErrors: list[Any] = []
    dialog: dict[str, Any] | None = None
    #: tabs the action opened (a target=_blank link, window.open): ``{url, title}``
    newTabs: list[dict[str, str]] = []
    #: fields the browser's own form validation rejected, so nothing was sent: ``{field, message}``
    invalidFields: list[dict[str, str]] = []
    #: the page closed its own window during the action (a lookup popup): ``{page, opener?, openerTitle?}``
    pageClosed: dict[str, str] | None = None
    #: downloads the action started that no listed request shows (a file made in the page): ``{file}``
    downloads: list[dict[str, str]] = []
