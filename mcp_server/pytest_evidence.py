"""What a failed browser test leaves behind, and the console check of the ``console_errors`` fixture.

:class:`PageWatch` listens to a fixture tab from its first moment: console calls, uncaught
exceptions and browser log entries (failed resource loads). When the test fails,
:func:`collect_evidence` and :func:`write_evidence` write a screenshot (``--cdp-screenshot``), the DOM and that console
record into the test's artifacts directory and answers the paths, which the plugin prints in
the test's report section. :class:`ConsoleErrors` turns the same record into a teardown
check: a test fails when its page logged an error it did not expect.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cdp_core import CDPEvent, CDPSession, Subscription
    from cdp_core.recorders.tracing import Tracer

__all__ = ["ConsoleErrors", "ConsoleMessage", "PageWatch", "collect_evidence", "write_evidence"]

_LIMIT = 2000  # messages kept per tab; a test that logs more keeps the first ones


@dataclass
class ConsoleMessage:
    """One console line: ``level`` (log, warning, error...), its ``text`` and where it came from."""

    level: str
    text: str
    source: str  # "console", "exception" or "browser" (Log.entryAdded: network errors, violations)
    url: str = ""

    def __str__(self) -> str:
        where = f" ({self.url})" if self.url else ""
        return f"[{self.source} {self.level}] {self.text}{where}"


def _arg_text(arg: dict[str, Any]) -> str:
    if "value" in arg:
        value = arg["value"]
        return value if isinstance(value, str) else json.dumps(value)
    return str(arg.get("description") or arg.get("unserializableValue") or arg.get("type", ""))


@dataclass
class PageWatch:
    """Console, exceptions and log entries of one tab, kept from ``start`` on."""

    messages: list[ConsoleMessage] = field(default_factory=list)
    #: A performance trace running since the tab opened (``--cdp-tracing retain-on-failure``).
    tracer: Tracer | None = None
    _subscription: Subscription | None = None

    async def start(self, page: CDPSession, *, trace: bool = False) -> None:
        methods = ("Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded")
        self._subscription = page.on(methods, self._on_event)
        await page.send("Runtime.enable")
        await page.send("Log.enable")
        if trace:
            from cdp_core.recorders.tracing import TraceError, Tracer

            tracer = Tracer(page)
            try:
                await tracer.start()
                self.tracer = tracer
            except TraceError:
                pass  # Chrome traces one tab at a time: a test's second tab goes without

    async def save_trace(self, dest: Path) -> Path | None:
        """Stop the running trace into ``dest`` (a test failed); None when there was none."""
        tracer, self.tracer = self.tracer, None
        if tracer is None or not tracer.running:
            return None
        await tracer.stop(dest)
        return dest

    async def stop(self) -> None:
        if self._subscription is not None:
            self._subscription.cancel()
        tracer, self.tracer = self.tracer, None
        if tracer is not None:
            await tracer.abort()  # the test passed: the trace is thrown away

    def _on_event(self, event: CDPEvent) -> None:
        if len(self.messages) >= _LIMIT:
            return
        params = event.params
        if event.method == "Runtime.consoleAPICalled":
            kind = params.get("type", "log")
            level = "error" if kind in ("error", "assert") else kind
            frames = (params.get("stackTrace") or {}).get("callFrames") or [{}]
            text = " ".join(_arg_text(arg) for arg in params.get("args", []))
            self.messages.append(ConsoleMessage(level, text, "console", frames[0].get("url", "")))
        elif event.method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = (details.get("exception") or {}).get("description") or details.get("text", "exception")
            self.messages.append(ConsoleMessage("error", text, "exception", details.get("url", "")))
        else:
            entry = params.get("entry", {})
            level, text = entry.get("level", "info"), entry.get("text", "")
            self.messages.append(ConsoleMessage(level, text, "browser", entry.get("url", "")))

    def errors(self) -> list[ConsoleMessage]:
        return [m for m in self.messages if m.level == "error"]


class ConsoleErrors:
    """The ``console_errors`` fixture: errors the page logged; unexpected ones fail the test at teardown.

    ``console_errors.allow(r"favicon")`` accepts errors whose text or URL matches;
    ``console_errors.expect(r"orders failed")`` also fails the test if no such error came;
    ``console_errors.errors`` are the errors so far, ``console_errors.unexpected`` those not allowed.
    The browser's own request for ``/favicon.ico`` is allowed from the start: a missing icon is
    not the page's error.
    """

    def __init__(self, watch: PageWatch) -> None:
        self._watch = watch
        self._allowed: list[re.Pattern[str]] = [re.compile(r"/favicon\.ico(\?|$)")]
        self._expected: list[re.Pattern[str]] = []

    def allow(self, pattern: str) -> None:
        self._allowed.append(re.compile(pattern))

    def expect(self, pattern: str) -> None:
        self.allow(pattern)
        self._expected.append(re.compile(pattern))

    @property
    def errors(self) -> list[ConsoleMessage]:
        return self._watch.errors()

    @property
    def unexpected(self) -> list[ConsoleMessage]:
        return [m for m in self.errors if not any(p.search(m.text) or p.search(m.url) for p in self._allowed)]

    def problems(self) -> list[str]:
        """What makes the test fail: each unexpected error, each expected one that never came."""
        said = [f"unexpected console error: {m}" for m in self.unexpected]
        for pattern in self._expected:
            if not any(pattern.search(m.text) or pattern.search(m.url) for m in self.errors):
                said.append(f"expected a console error matching {pattern.pattern!r}; none came")
        return said


async def collect_evidence(page: CDPSession, watch: PageWatch | None, *, screenshot: bool) -> dict[str, bytes]:
    """The tab's screenshot (if asked), DOM and console record, by file name (what the tab still gives)."""
    from cdp_core import CDPException

    files: dict[str, bytes] = {}
    if screenshot:
        try:
            shot = await page.send("Page.captureScreenshot", {"format": "png"}, timeout=10)
            files["screenshot.png"] = base64.b64decode(shot["data"])
        except (CDPException, TimeoutError, KeyError):
            pass
    try:
        expression = "document.documentElement ? document.documentElement.outerHTML : ''"
        dom = await page.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, timeout=10)
        files["dom.html"] = str(dom.get("result", {}).get("value", "")).encode()
    except (CDPException, TimeoutError):
        pass
    if watch is not None:
        files["console.txt"] = ("".join(f"{m}\n" for m in watch.messages) or "(no console output)\n").encode()
    return files


def write_evidence(folder: Path, files: dict[str, bytes], prefix: str = "") -> list[Path]:
    """Write ``files`` under ``folder`` (names prefixed, one set per tab); answer the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    saved = []
    for name, data in files.items():
        path = folder / f"{prefix}{name}"
        path.write_bytes(data)
        saved.append(path)
    return saved
