"""Finding a browser: the HTTP endpoints and the ``DevToolsActivePort`` file.

Chrome's debugging port answers ``GET /json/version`` (browser name, protocol version,
the browser websocket URL) and ``GET /json/list`` (targets with their websocket URLs).
httpx runs with ``trust_env=False`` so a proxy variable never routes loopback traffic
elsewhere, and no ``Origin`` header is sent (Chrome refuses one it was not told about).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import sys
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _skip_httpx_cli() -> None:
    """Spare the first call httpx's command-line client (click and pygments), which it drops anyway.

    ``import httpx`` imports ``httpx._main`` for its ``httpx`` command; without ``rich``
    (``httpx[cli]``) that import fails after loading click and pygments, and httpx falls back to a
    stub ``main``. Marked absent beforehand, httpx takes the same fallback at once. Only then: with
    ``rich`` installed nothing changes.
    """
    if "httpx" not in sys.modules and importlib.util.find_spec("rich") is None:
        sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]  # None: "not importable"


_skip_httpx_cli()

import httpx  # noqa: E402 - after the marker above

from .errors import DiscoveryError  # noqa: E402
from .private_file import UnsafeFile, read_private_file  # noqa: E402

#: ``DevToolsActivePort`` is a port and a websocket path: a few dozen bytes
ACTIVE_PORT_MAX_BYTES = 4096

__all__ = [
    "preload",
    "BrowserVersion",
    "TargetDescription",
    "get_version",
    "list_targets",
    "new_tab",
    "read_devtools_active_port",
    "port_accepts",
    "http_base",
    "resolve_browser_ws_url",
]

DISCOVERY_TIMEOUT = 5.0
#: one discovery request, whole: Chrome answers /json/* in milliseconds
DISCOVERY_DEADLINE = 10.0
#: /json/list of a browser with hundreds of tabs stays far below this
DISCOVERY_MAX_BYTES = 8 * 1024 * 1024
#: headers about the body as sent; the body handed on is decoded and whole
_BODY_FRAMING = frozenset({"content-encoding", "content-length", "transfer-encoding"})


@dataclass(frozen=True, slots=True)
class BrowserVersion:
    """The answer of ``/json/version``."""

    browser: str
    protocol_version: str
    user_agent: str
    v8_version: str
    web_socket_debugger_url: str

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BrowserVersion:
        return cls(
            browser=data.get("Browser", ""),
            protocol_version=data.get("Protocol-Version", ""),
            user_agent=data.get("User-Agent", ""),
            v8_version=data.get("V8-Version", ""),
            web_socket_debugger_url=data.get("webSocketDebuggerUrl", ""),
        )


@dataclass(frozen=True, slots=True)
class TargetDescription:
    """One entry of ``/json/list``."""

    id: str
    type: str
    title: str
    url: str
    web_socket_debugger_url: str | None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TargetDescription:
        return cls(
            id=data.get("id", ""),
            type=data.get("type", ""),
            title=data.get("title", ""),
            url=data.get("url", ""),
            web_socket_debugger_url=data.get("webSocketDebuggerUrl"),
        )


def preload() -> None:
    """Import what the first discovery request would import (httpx loads httpcore and h11 then).

    A noticeable part of the first ``attach_cdp``; a server calls this in a worker thread once it
    serves, while the client reads the tool list, so the first attach does not pay it.
    """
    import httpcore  # noqa: F401


def http_base(endpoint: str) -> str:
    """``http://host:port`` for an ``http(s)://`` or ``ws(s)://`` endpoint, without path."""
    parts = urllib.parse.urlsplit(endpoint if "://" in endpoint else f"http://{endpoint}")
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    if scheme not in ("http", "https") or not parts.hostname:
        raise DiscoveryError(f"not a CDP endpoint: {endpoint!r}", endpoint=endpoint)
    return f"{scheme}://{parts.netloc}"


async def _get_json(endpoint: str, path: str, method: str = "GET") -> Any:
    url = http_base(endpoint) + path
    # A plain http:// endpoint has no TLS to verify: without verify=False httpx loads the CA
    # bundle into a new SSL context for every client, a cost paid on each discovery request.
    tls = url.startswith("https:")
    try:
        # httpx's timeout is per read: a server that drips a byte at a time would never reach it
        async with asyncio.timeout(DISCOVERY_DEADLINE):
            async with httpx.AsyncClient(
                trust_env=False, timeout=DISCOVERY_TIMEOUT, follow_redirects=False, verify=tls
            ) as client:
                response = await _bounded_request(client, method, url, endpoint)
    except TimeoutError as exc:
        raise DiscoveryError(
            f"{method} {url} did not answer in {DISCOVERY_DEADLINE:g} s (a browser answers at once)", endpoint=endpoint
        ) from exc
    except httpx.HTTPError as exc:
        raise DiscoveryError(f"no browser answers at {http_base(endpoint)}: {exc!r}", endpoint=endpoint) from exc
    if response.is_redirect:
        # Chrome's endpoints never redirect: following one would send us wherever it points.
        location = response.headers.get("location", "")[:200]
        raise DiscoveryError(
            f"{method} {url} redirected to {location!r}; redirects are not followed", endpoint=endpoint
        )
    if response.status_code != 200:
        raise DiscoveryError(
            f"{method} {url} answered {response.status_code}: {response.text[:200]}", endpoint=endpoint
        )
    try:
        return response.json()
    except ValueError as exc:
        raise DiscoveryError(f"{url} did not answer JSON", endpoint=endpoint) from exc


async def _bounded_request(client: httpx.AsyncClient, method: str, url: str, endpoint: str) -> httpx.Response:
    """The response with its body read up to DISCOVERY_MAX_BYTES (a listener may send without end)."""
    async with client.stream(method, url) as response:
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > DISCOVERY_MAX_BYTES:
                raise DiscoveryError(
                    f"{method} {url} answered more than {DISCOVERY_MAX_BYTES} bytes", endpoint=endpoint
                )
            chunks.append(chunk)
    kept = [(k, v) for k, v in response.headers.items() if k.lower() not in _BODY_FRAMING]
    return httpx.Response(response.status_code, headers=kept, content=b"".join(chunks))


async def get_version(endpoint: str) -> BrowserVersion:
    """``GET /json/version``."""
    data = await _get_json(endpoint, "/json/version")
    if not isinstance(data, dict):
        raise DiscoveryError("unexpected /json/version answer", endpoint=endpoint)
    return BrowserVersion.from_json(data)


async def list_targets(endpoint: str, *, types: tuple[str, ...] | None = ("page",)) -> list[TargetDescription]:
    """``GET /json/list``, by default only ``page`` targets (headless adds ``browser_ui``)."""
    data = await _get_json(endpoint, "/json/list")
    if not isinstance(data, list):
        raise DiscoveryError("unexpected /json/list answer", endpoint=endpoint)
    targets = [TargetDescription.from_json(t) for t in data if isinstance(t, dict)]
    return [t for t in targets if types is None or t.type in types]


async def new_tab(endpoint: str, url: str = "about:blank") -> TargetDescription:
    """``PUT /json/new?URL`` (GET is refused since Chrome 111)."""
    data = await _get_json(endpoint, "/json/new?" + urllib.parse.quote(url, safe=":/?&=%#"), method="PUT")
    return TargetDescription.from_json(data)


async def resolve_browser_ws_url(endpoint: str) -> str:
    """The browser websocket URL: ``ws://`` endpoints as given, else from ``/json/version``.

    The advertised URL must be a ``ws://``/``wss://`` URL: anything else (an ``http://`` URL
    of another endpoint) would start a second discovery that nobody checked.
    """
    if endpoint.startswith(("ws://", "wss://")):
        return endpoint
    version = await get_version(endpoint)
    advertised = version.web_socket_debugger_url
    if not advertised:
        raise DiscoveryError("/json/version has no webSocketDebuggerUrl", endpoint=endpoint)
    if not isinstance(advertised, str) or not advertised.startswith(("ws://", "wss://")):
        raise DiscoveryError(
            f"/json/version advertises {str(advertised)[:200]!r}, which is not a websocket URL", endpoint=endpoint
        )
    return advertised


def read_devtools_active_port(profile_dir: str | Path) -> tuple[int, str]:
    """``(port, browser websocket path)`` from a profile's ``DevToolsActivePort`` file.

    Chrome writes it when started with ``--remote-debugging-port`` (``0`` picks a free
    port), and when its remote-debugging toggle (chrome://inspect/#remote-debugging) is on; the
    file stays behind when Chrome crashes, so check the port with :func:`port_accepts`.
    Raises :class:`DiscoveryError` while the file is missing or incomplete, and for a file that is
    not what Chrome writes (a link, a FIFO, a device, someone else's, one others can rewrite, more
    than a few lines): the directory may be any the caller names (:mod:`.private_file`).
    """
    path = Path(profile_dir) / "DevToolsActivePort"
    try:
        lines = read_private_file(path, ACTIVE_PORT_MAX_BYTES).decode("utf-8", "replace").splitlines()
    except UnsafeFile as exc:
        raise DiscoveryError(f"{exc}: not read") from exc
    except OSError as exc:
        raise DiscoveryError(f"{path} is not readable: {exc}") from exc
    if len(lines) < 2 or not lines[0].strip().isdigit():
        raise DiscoveryError(f"{path} is incomplete")
    return int(lines[0]), lines[1].strip()


async def port_accepts(port: int, host: str = "127.0.0.1", timeout: float = 1.0) -> bool:
    """True when ``host:port`` accepts a TCP connection (closed again at once, nothing sent).

    How a ``DevToolsActivePort`` file is told live from stale without a websocket: with the
    remote-debugging toggle on, every websocket makes Chrome ask the person to Allow it.
    """
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()
    return True


def is_loopback_address(host: str) -> bool:
    """True for an IP literal in 127.0.0.0/8 or ``::1`` (IPv4-mapped too, brackets and zone allowed).

    Names are never looked up, ``localhost`` included: a caller that accepts the name maps it to
    ``127.0.0.1`` itself, so that DNS or a hosts file cannot point a "local" endpoint elsewhere.
    One rule for the server's ``--cdp-url`` check, the connected peer and the pytest plugin.
    """
    import ipaddress

    try:
        address = ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool(address.is_loopback or (mapped is not None and mapped.is_loopback))
