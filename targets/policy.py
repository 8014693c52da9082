"""URL policies of the internal browser: ``ALLOWED_URLS``, ``ALLOW_FILE_URLS``, ``ALLOWED_FILE_ROOTS``, ``BLOCK_MEDIA``.

:class:`UrlPolicy` is pure logic (unit-tested without a browser). :class:`PolicyInterceptor`
enforces it on the launch browser with the ``Fetch`` domain on the *browser* session: one
interception point that sees every request of every tab, iframe and worker, including each
hop of a redirect chain, before the request leaves the browser. It is never installed on
the user's Chrome (the ``cdp`` target).
"""

from __future__ import annotations

import asyncio
import fnmatch
import logging
import urllib.parse
import urllib.request
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cdp_core import Browser, CDPEvent, CDPException

from .settings import TargetSettings

__all__ = ["UrlPolicy", "PolicyInterceptor", "Verdict"]

log = logging.getLogger("targets.policy")

#: Schemes that never reach the network or the file system.
_INTERNAL_SCHEMES = ("about", "data", "blob", "javascript", "chrome-error", "devtools")
#: Resource types blocked by BLOCK_MEDIA (Fetch/Network ``ResourceType`` names).
MEDIA_TYPES = frozenset({"Image", "Media"})


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    reason: str = ""


@dataclass
class UrlPolicy:
    """Decides whether the launch browser may load a URL.

    ``allowed_urls`` entries may be a glob over the whole URL (``https://*.example.com/*``),
    a URL prefix (``http://127.0.0.1:8000/app``) or a bare host (``example.com``, which also
    admits its subdomains, any scheme and port). An empty list admits every http(s) URL.
    """

    allowed_urls: list[str] = field(default_factory=list)
    allow_file_urls: bool = False
    allowed_file_roots: list[str] = field(default_factory=list)
    block_media: bool = False

    @classmethod
    def from_settings(cls, settings: TargetSettings) -> UrlPolicy:
        return cls(
            allowed_urls=[u.strip() for u in settings.allowed_urls if u and u.strip()],
            allow_file_urls=settings.allow_file_urls,
            allowed_file_roots=[r for r in settings.allowed_file_roots if r],
            block_media=settings.block_media,
        )

    @property
    def active(self) -> bool:
        """Whether requests need interception (else only navigations are checked, and nothing is installed).

        With file URLs simply disabled no interception is needed: http(s) pages cannot load
        ``file:`` resources, so the navigation check is enough.
        """
        return bool(self.allowed_urls) or self.block_media or (self.allow_file_urls and bool(self.allowed_file_roots))

    def check_url(self, url: str) -> Verdict:
        scheme = urllib.parse.urlsplit(url).scheme.lower()
        if scheme in _INTERNAL_SCHEMES or url == "about:blank":
            return Verdict(True)
        if scheme == "file":
            return self._check_file(url)
        if not self.allowed_urls:
            return Verdict(True)
        for pattern in self.allowed_urls:
            if _matches(pattern, url):
                return Verdict(True)
        return Verdict(False, f"{_short(url)} is not in ALLOWED_URLS ({', '.join(self.allowed_urls)})")

    def check_request(self, url: str, resource_type: str | None) -> Verdict:
        if self.block_media and resource_type in MEDIA_TYPES:
            return Verdict(False, f"{resource_type.lower()} blocked by BLOCK_MEDIA")
        return self.check_url(url)

    def _check_file(self, url: str) -> Verdict:
        if not self.allow_file_urls:
            return Verdict(False, "file: URLs are disabled (set ALLOW_FILE_URLS=true)")
        if not self.allowed_file_roots:
            return Verdict(True)
        parts = urllib.parse.urlsplit(url)
        path = Path(urllib.request.url2pathname(parts.path)).resolve()
        for root in self.allowed_file_roots:
            root_path = Path(root).expanduser().resolve()
            if path == root_path or root_path in path.parents:
                return Verdict(True)
        return Verdict(False, f"{path} is outside ALLOWED_FILE_ROOTS ({', '.join(self.allowed_file_roots)})")


def _matches(pattern: str, url: str) -> bool:
    if "*" in pattern or "?" in pattern:
        return fnmatch.fnmatchcase(url, pattern)
    if "://" in pattern:
        return url.startswith(pattern)
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    want = pattern.lower().rstrip("/")
    return host == want or host.endswith("." + want)


def _short(url: str, limit: int = 200) -> str:
    return url if len(url) <= limit else url[:limit] + "..."


class PolicyInterceptor:
    """Pauses every request of the launch browser (``Fetch`` on the browser session) and fails refused ones.

    The decision is made synchronously in the reader; only the continue/fail command is
    sent from a task, so the socket never waits on us. Refusals are remembered (bounded)
    so a failed navigation can be reported as ``BLOCKED_BY_POLICY`` with the reason.
    """

    def __init__(self, browser: Browser, policy: UrlPolicy) -> None:
        self.browser = browser
        self.policy = policy
        self.blocked: deque[dict[str, Any]] = deque(maxlen=100)
        self.blocked_total = 0
        self._tasks: set[asyncio.Task[Any]] = set()

    async def install(self) -> None:
        self.browser.session.on("Fetch.requestPaused", self._on_paused)
        await self.browser.send("Fetch.enable", {"patterns": [{"urlPattern": "*", "requestStage": "Request"}]})

    def _on_paused(self, event: CDPEvent) -> None:
        params = event.params
        request = params.get("request") or {}
        url = request.get("url", "")
        verdict = self.policy.check_request(url, params.get("resourceType"))
        if verdict.allowed:
            command = self.browser.send("Fetch.continueRequest", {"requestId": params["requestId"]})
        else:
            self.blocked.append({"url": url, "reason": verdict.reason, "resourceType": params.get("resourceType")})
            self.blocked_total += 1
            # A refused document is aborted rather than failed: the tab stays on the page it
            # showed instead of committing an error page (which would also interrupt the next goto).
            reason = "Aborted" if params.get("resourceType") == "Document" else "BlockedByClient"
            command = self.browser.send("Fetch.failRequest", {"requestId": params["requestId"], "errorReason": reason})
        task = asyncio.get_running_loop().create_task(self._quietly(command))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _quietly(command: Any) -> None:
        try:
            await command
        except CDPException as exc:  # the request may be gone already (tab closed)
            log.debug("policy decision not delivered: %s", exc)

    def reason_for(self, url: str) -> str | None:
        """Why ``url`` was refused; for a redirect, the latest refused document (the hop that was blocked)."""
        for entry in reversed(self.blocked):
            if entry["url"] == url:
                return entry["reason"]
        for entry in reversed(self.blocked):
            if entry["resourceType"] == "Document":
                return entry["reason"]
        return self.blocked[-1]["reason"] if self.blocked else None
