"""Helpers of the fault tests and most MCP tests: an agent on the real MCP client, the user's tabs, a port.

Every call an :class:`Agent` makes is bounded by ``anyio.fail_after``, so a regression that
makes the server hang fails the test instead of hanging CI.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp.client import Client

import cdp_core
from mcp_server.evidence import capture
from mcp_server.server.app import BrowserMCP
from mcp_server.server.settings import Settings
from targets import BrowserManager

CALL_TIMEOUT = 60.0


class Agent:
    """One MCP client as an agent uses it; every call has a deadline."""

    def __init__(self, client: Client, app: BrowserMCP | None = None) -> None:
        self.client = client
        self.app = app
        #: the text of the last answer (the JSON's ``message`` is only its summary)
        self.last_text = ""

    @property
    def manager(self) -> BrowserManager:
        assert self.app is not None
        return self.app.manager

    async def call(self, tool: str, timeout: float = CALL_TIMEOUT, **args: Any) -> Any:
        with anyio.fail_after(timeout):
            result = await self.client.call_tool(tool, args)
        assert result.structured_content is not None, result.content
        self.last_text = "\n".join(getattr(b, "text", "") for b in result.content if getattr(b, "type", "") == "text")
        return result

    async def s(self, action: str, timeout: float = CALL_TIMEOUT, **args: Any) -> dict[str, Any]:
        """``browser_session action=...`` that must succeed."""
        result = await self.call("browser_session", timeout, action=action, **args)
        assert not result.is_error, result.content[0].text
        return result.structured_content

    async def err(self, action: str, code: str | tuple[str, ...], timeout: float = CALL_TIMEOUT, **args: Any) -> dict:
        """``browser_session action=...`` that must fail with ``code`` (one of them, for a tuple)."""
        result = await self.call("browser_session", timeout, action=action, **args)
        sc = result.structured_content
        codes = (code,) if isinstance(code, str) else code
        assert result.is_error and sc["code"] in codes, (action, result.content[0].text)
        assert sc["message"] and result.content[0].text.startswith(f"Error {sc['code']}")
        return sc

    async def js(self, expression: str, **args: Any) -> Any:
        return (await self.s("evaluate_js", expression=expression, **args))["result"]


@asynccontextmanager
async def serving(artifacts: Path, **settings: Any) -> AsyncIterator[Agent]:
    """A server wired like the CLI (real BrowserManager, capture installed) and a connected client."""
    config = Settings(artifact_dir=artifacts, **settings)
    manager = BrowserManager(config.target_settings())
    capture.install(manager, config)
    app = BrowserMCP(config, manager)
    try:
        async with Client(app.build()) as client:
            yield Agent(client, app)
    finally:
        with anyio.move_on_after(30, shield=True):
            await manager.close()


async def wait_until(predicate: Any, timeout: float = 10.0, what: str = "condition") -> None:
    """Poll ``predicate()`` (sync) until true; fail after ``timeout`` s."""
    with anyio.fail_after(timeout):
        while not predicate():
            await asyncio.sleep(0.02)


def calls_running(app: BrowserMCP, action: str) -> int:
    """How many calls of ``action`` the server has in progress: the point a test waits for."""
    return sum(1 for c in app.running.values() if c.action == action)


class UserTabs:
    """The user's hands on their Chrome: open and close tabs over a CDP client of their own."""

    def __init__(self, http_url: str) -> None:
        self.http_url = http_url

    async def open(self, url: str, *, background: bool = False) -> str:
        """Open ``url`` in a new tab and wait until it has loaded (its scripts ran, its title is set).

        ``background``: the tab opens behind the one in front and the page loads hidden, as a
        Ctrl+click opens it (in a headful Chrome such a page has never drawn a frame)."""
        async with cdp_core.connect(self.http_url) as user:
            created = await user.send("Target.createTarget", {"url": url, "background": background})
            session = await user.attach(created["targetId"])
            with anyio.fail_after(15):
                # Loaded, and the browser's target info shows the title the script set. The new tab's
                # first document is about:blank, complete at once: the page asked for must have
                # replaced it (else a navigation sent next replaces the pending one, and the tab's
                # history lacks the page: "no page to go back to").
                while True:
                    reply = await session.send(
                        "Runtime.evaluate",
                        {"expression": "[document.readyState, document.title, location.href]", "returnByValue": True},
                    )
                    state, title, href = reply["result"]["value"]
                    info = await user.send("Target.getTargetInfo", {"targetId": created["targetId"]})
                    arrived = href != "about:blank" or url == "about:blank"
                    if arrived and state == "complete" and info["targetInfo"]["title"] == title:
                        break
                    await asyncio.sleep(0.02)
            await session.detach()
            return created["targetId"]

    async def close(self, target_id: str) -> None:
        async with cdp_core.connect(self.http_url) as user:
            await user.close_target(target_id)

    async def close_all_but(self, keep: set[str]) -> None:
        async with cdp_core.connect(self.http_url) as user:
            for tab in await user.pages():
                if tab["targetId"] not in keep:
                    await user.close_target(tab["targetId"])


class StablePort:
    """A loopback port forwarding to whichever Chromium runs now ("the user's Chrome on port P").

    Chromium cannot listen on a killed browser's port again for about a minute (TIME_WAIT),
    so a restart "on the same port" goes through this forwarder. :meth:`drop` closes every
    forwarded connection from the browser's side while the browser keeps running.
    """

    def __init__(self) -> None:
        self.upstream: int | None = None
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self._server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        except OSError:
            writer.close()
            return
        self._writers += [writer, up_writer]

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (OSError, asyncio.CancelledError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def drop(self) -> None:
        """Cut every forwarded connection (as if the browser closed its end of the websocket)."""
        writers, self._writers = self._writers, []
        for writer in writers:
            transport = writer.transport
            if transport is not None:
                transport.abort()

    async def close(self) -> None:
        self.drop()
        if self._server is not None:
            self._server.close()


class InsideProbe:
    """Two test-server routes a page script calls around its work: counts how many calls overlap.

    ``/faults/enter`` and ``/faults/leave`` move a counter; ``max_inside`` is the most calls
    that were between their enter and leave at once. Serialised tool calls keep it at 1.
    """

    def __init__(self, http_server: Any) -> None:
        from httpserver import Reply

        self._lock = threading.Lock()
        self.inside = 0
        self.max_inside = 0
        self.entered = 0

        def enter(_req: Any) -> Reply:
            with self._lock:
                self.inside += 1
                self.entered += 1
                self.max_inside = max(self.max_inside, self.inside)
            return Reply(200, "{}", "application/json")

        def leave(_req: Any) -> Reply:
            with self._lock:
                self.inside -= 1
            return Reply(200, "{}", "application/json")

        http_server.route("/faults/enter", enter)
        http_server.route("/faults/leave", leave)

    #: evaluate_js expression: enter, hold the page a moment, leave; returns the document title.
    EXPRESSION = (
        "await fetch('/faults/enter'); await new Promise((r) => setTimeout(r, 15)); "
        "await fetch('/faults/leave'); document.title"
    )
