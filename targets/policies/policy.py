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
import re
import urllib.parse
from collections import deque
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cdp_core import Browser, CDPEvent, CDPException
from targets.settings import TargetSettings

from .file_identity import is_within, is_within_granted, same_path
from .file_urls import FileUrlRefused, file_url_path

__all__ = ["UrlPolicy", "PolicyInterceptor", "Verdict"]

log = logging.getLogger("targets.policies.policy")

#: Schemes the internal browser may load without any policy: nothing local, nothing privileged.
_INERT_SCHEMES = ("data", "blob")
#: What Chrome itself shows for a failed load; it is never requested by a page or the agent.
_ERROR_SCHEMES = ("chrome-error",)
#: Resource types blocked by BLOCK_MEDIA (Fetch/Network ``ResourceType`` names).
MEDIA_TYPES = frozenset({"Image", "Media"})
#: Leading/trailing C0 controls and spaces that a browser strips before parsing a URL (WHATWG).
_C0_OR_SPACE = "".join(chr(c) for c in range(0x21))
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    reason: str = ""


def canonical_url(url: str) -> str:
    """``url`` as a browser reads it: outer C0 controls/spaces stripped, tabs and newlines removed anywhere.

    Checking the string the caller typed (``view-source`` with a tab inside) would let
    a URL through that the browser then opens as something else.
    """
    return re.sub(r"[\t\n\r]", "", url.strip(_C0_OR_SPACE))


def scheme_of(url: str) -> str:
    """The lower-cased scheme of a canonical URL, ``""`` when it has none."""
    m = _SCHEME.match(url)
    return m.group(1).lower() if m else ""


@dataclass
class UrlPolicy:
    """Decides whether the internal browser may load a URL (and the agent may navigate to it).

    Only ``http``/``https`` (through ``ALLOWED_URLS`` when set), ``about:blank``/``about:srcdoc``,
    ``data:`` and ``blob:`` load by default. ``file:`` needs ``ALLOW_FILE_URLS`` (and a path under
    ``ALLOWED_FILE_ROOTS`` when roots are given), never reaches the server's own files
    (``private_paths``: the artifacts root, the audit log). ``view-source:X`` is judged as ``X``.
    Browser-internal pages (``chrome:``, ``devtools:``, ``chrome-extension:``, ...) and
    ``javascript:`` URLs are refused: they open settings, extensions and the local file system,
    or run script past ``BROWSER_EVALUATE_ENABLED``.

    ``allowed_urls`` entries are parsed into scheme, host, port and path (see
    :class:`UrlPattern`) and compared with the parsed URL, never as substrings.
    """

    allowed_urls: list[str] = field(default_factory=list)
    allow_file_urls: bool = False
    allowed_file_roots: list[str] = field(default_factory=list)
    block_media: bool = False
    private_paths: list[str] = field(default_factory=list)
    patterns: list[UrlPattern] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.patterns = [UrlPattern.parse(raw) for raw in self.allowed_urls if raw.strip()]

    @classmethod
    def from_settings(cls, settings: TargetSettings) -> UrlPolicy:
        return cls(
            allowed_urls=[u.strip() for u in settings.allowed_urls if u and u.strip()],
            allow_file_urls=settings.allow_file_urls,
            allowed_file_roots=[r for r in settings.allowed_file_roots if r],
            block_media=settings.block_media,
            private_paths=[p for p in settings.private_paths if p],
        )

    @property
    def active(self) -> bool:
        """Whether requests need interception (else only navigations are checked, and nothing is installed).

        With file URLs disabled no interception is needed: http(s) pages cannot load ``file:``
        resources, so the navigation check is enough. With file URLs on, a file page may load
        other files (frames, images), so each of them is checked against the roots.
        """
        return bool(self.allowed_urls) or self.block_media or self.allow_file_urls

    def check_url(self, url: str) -> Verdict:
        """Whether the internal browser may load ``url`` (a navigation or a request)."""
        url = canonical_url(url)
        scheme = scheme_of(url)
        if scheme in ("http", "https", "ws", "wss"):
            return self._check_web(url)
        if scheme == "file":
            return self._check_file(url)
        if scheme == "view-source":
            return self._check_view_source(url)
        if scheme == "about":
            page = url[len("about:") :].split("#", 1)[0].split("?", 1)[0].lower()
            if page in ("blank", "srcdoc"):
                return Verdict(True)
            return Verdict(False, f"{_short(url)} is a browser-internal page; only about:blank is opened")
        if scheme in _INERT_SCHEMES or scheme in _ERROR_SCHEMES:
            return Verdict(True)
        if scheme == "javascript":
            return Verdict(
                False, "javascript: URLs are not opened (use evaluate_js, which BROWSER_EVALUATE_ENABLED governs)"
            )
        return Verdict(
            False,
            f"{scheme or 'scheme-less'}: URLs are not opened by this server (browser-internal pages, extensions "
            "and local resources stay closed to the agent)",
        )

    def check_local(self, url: str) -> Verdict:
        """The part of the policy that holds in the user's Chrome too: no local files, no internal pages.

        ``ALLOWED_URLS`` and ``BLOCK_MEDIA`` need request interception and stay on the internal
        browser; which schemes the *agent* may navigate to is a check of its own argument.
        """
        url = canonical_url(url)
        scheme = scheme_of(url)
        if scheme in ("http", "https"):
            return Verdict(True)
        if scheme == "view-source":
            inner = url[len("view-source:") :]
            return self.check_local(inner) if scheme_of(inner) != "view-source" else self.check_url(url)
        return self.check_url(url)

    def check_origin(self, host: str, port: int) -> Verdict:
        """Whether ``ALLOWED_URLS`` admits a connection to ``host:port`` whose path is unseen (a proxy tunnel:
        https, or a WebSocket): some entry must admit that host and port, for any web scheme."""
        if not self.patterns:
            return Verdict(True)
        host = host.lower().rstrip(".")
        for scheme in ("https", "wss", "http", "ws"):
            target = ParsedUrl(scheme, host, port, "/")
            if any(pattern.matches_origin(target) for pattern in self.patterns):
                return Verdict(True)
        return Verdict(False, f"{host}:{port} is not in ALLOWED_URLS ({', '.join(self.allowed_urls)})")

    def check_request(self, url: str, resource_type: str | None) -> Verdict:
        if self.block_media and resource_type in MEDIA_TYPES:
            return Verdict(False, f"{resource_type.lower()} blocked by BLOCK_MEDIA")
        return self.check_url(url)

    def _check_view_source(self, url: str) -> Verdict:
        inner = url[len("view-source:") :]
        if scheme_of(inner) not in ("http", "https", "file"):
            return Verdict(False, f"{_short(url)}: view-source: is opened only for http(s) and allowed file URLs")
        return self.check_url(inner)

    def _check_web(self, url: str) -> Verdict:
        if not self.patterns:
            return Verdict(True)
        try:
            target = ParsedUrl.parse(url)
        except ValueError as exc:
            return Verdict(False, f"{_short(url)} cannot be checked against ALLOWED_URLS: {exc}")
        for pattern in self.patterns:
            if pattern.matches(target):
                return Verdict(True)
        return Verdict(False, f"{_short(url)} is not in ALLOWED_URLS ({', '.join(self.allowed_urls)})")

    def _check_file(self, url: str) -> Verdict:
        if not self.allow_file_urls:
            return Verdict(False, "file: URLs are disabled (set ALLOW_FILE_URLS=true)")
        try:
            # the path Chrome opens (backslashes, dot segments, encodings, host), never urlsplit's reading
            path = Path(file_url_path(url)).resolve()
        except FileUrlRefused as exc:
            return Verdict(False, f"{_short(url)} is refused: {exc}")
        except (OSError, ValueError, RuntimeError) as exc:
            return Verdict(False, f"{_short(url)} is not a usable file path ({exc})")
        for private in self.private_paths:
            private_path = Path(private).expanduser().resolve()
            if is_within(path, private_path) or _is_rotation_of(path, private_path):
                return Verdict(False, f"{path} belongs to the server (artifacts, audit log) and is never opened")
        if not self.allowed_file_roots:
            return Verdict(True)
        for root in self.allowed_file_roots:
            if is_within_granted(path, Path(root).expanduser().resolve()):
                return Verdict(True)
        return Verdict(False, f"{path} is outside ALLOWED_FILE_ROOTS ({', '.join(self.allowed_file_roots)})")


def _is_rotation_of(path: Path, private: Path) -> bool:
    """``audit.jsonl.1`` and friends are as private as ``audit.jsonl``."""
    return same_path(path.parent, private.parent) and path.name.casefold().startswith(private.name.casefold() + ".")


_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
#: What may stand in a host name once a browser has parsed it (letters, digits, dots, dashes, IPv6).
_HOST_CHARS = re.compile(r"^[a-z0-9._\-]+$|^\[[0-9a-f:.]+\]$")


@dataclass(frozen=True, slots=True)
class ParsedUrl:
    """The parts of a web URL that an allow-list compares: scheme, host, effective port, path(+query)."""

    scheme: str
    host: str
    port: int
    path: str

    @classmethod
    def parse(cls, url: str) -> ParsedUrl:
        parts = urllib.parse.urlsplit(url)
        scheme = parts.scheme.lower()
        authority = parts.netloc
        if "@" in authority:
            raise ValueError("URLs with user:password@ are refused")
        if "\\" in authority:
            raise ValueError("a backslash in the authority is read differently by browsers")
        host = (parts.hostname or "").lower().rstrip(".")
        if not host or not _HOST_CHARS.match(host if ":" not in host else f"[{host}]"):
            raise ValueError(f"unusable host {parts.hostname!r}")
        port = parts.port  # ValueError on a bad port
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        return cls(scheme, host, port if port is not None else _DEFAULT_PORTS.get(scheme, 0), path)


_PATTERN = re.compile(r"^(?:(?P<scheme>[a-zA-Z*][a-zA-Z0-9+.*\-]*)://)?(?P<authority>[^/?#]*)(?P<path>[^#]*)$")


@dataclass(frozen=True, slots=True)
class UrlPattern:
    """One ``ALLOWED_URLS`` entry, parsed once.

    - ``https://*.example.com/*``: a glob per part (scheme, host, port, path), ``*`` in a host
      matches within the host only, never across ``/`` or ``?``;
    - ``http://127.0.0.1:8000/app``: that origin (default port when none is given) and paths
      under ``/app`` (``/app``, ``/app/...``, ``/app?...``; not ``/application``);
    - ``example.com`` (or ``example.com:8080``): that host and its subdomains, any scheme,
      any port (or that port).
    """

    raw: str
    scheme: str | None
    host: str
    port: str | None
    path: str
    subdomains: bool

    @classmethod
    def parse(cls, raw: str) -> UrlPattern:
        text = raw.strip()
        m = _PATTERN.match(text)
        if not m or not m.group("authority") or "@" in m.group("authority"):
            raise ValueError(f"ALLOWED_URLS entry {raw!r} is not a URL, URL prefix or host")
        authority = m.group("authority").lower()
        host, port = authority, None
        if authority.startswith("["):
            host, _, rest = authority[1:].partition("]")
            port = rest[1:] if rest.startswith(":") else None
        elif ":" in authority:
            host, _, port = authority.rpartition(":")
        scheme = m.group("scheme").lower() if m.group("scheme") else None
        bare = scheme is None
        return cls(text, scheme, host.rstrip("."), port or None, m.group("path") or "", bare and not m.group("path"))

    def matches(self, url: ParsedUrl) -> bool:
        return self.matches_origin(url) and self._path_matches(url.path)

    def matches_origin(self, url: ParsedUrl) -> bool:
        """Scheme, host and port only (a tunnel shows no path)."""
        if self.scheme is not None and not fnmatch.fnmatchcase(url.scheme, self.scheme):
            return False
        if not self._host_matches(url.host):
            return False
        if self.port is not None:
            if not fnmatch.fnmatchcase(str(url.port), self.port):
                return False
        elif self.scheme is not None and url.port != _DEFAULT_PORTS.get(url.scheme, 0):
            return False  # http://127.0.0.1 means port 80, not any port
        return True

    def _host_matches(self, host: str) -> bool:
        if self.subdomains:
            return host == self.host or host.endswith("." + self.host)
        if "*" in self.host or "?" in self.host:
            return fnmatch.fnmatchcase(host, self.host)
        return host == self.host

    def _path_matches(self, path: str) -> bool:
        want = self.path
        if not want or want == "/":
            return True
        if "*" in want or "?" in want.split("?", 1)[0]:
            return fnmatch.fnmatchcase(path, want)
        if path == want or want.endswith("/") and path.startswith(want):
            return True
        return path.startswith(want) and path[len(want)] in "/?"


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
    async def _quietly(command: Awaitable[dict[str, Any]]) -> None:
        try:
            await command
        except CDPException as exc:  # the request may be gone already (tab closed)
            log.debug("policy decision not delivered: %s", exc)

    def reason_for(self, url: str) -> str | None:
        """Why ``url`` was refused; for a redirect, the latest refused document (the hop that was blocked)."""
        for entry in reversed(self.blocked):
            if entry["url"] == url:
                return str(entry["reason"])
        for entry in reversed(self.blocked):
            if entry["resourceType"] == "Document":
                return str(entry["reason"])
        return str(self.blocked[-1]["reason"]) if self.blocked else None
