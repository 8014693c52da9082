"""Emulation of one tab: network conditions, CPU, viewport, user agent, colour scheme, geolocation, headers.

Why per tab and through our own session: Chrome ties every override to the DevTools session
that set it. It survives the tab's navigations (same session, even across processes), and it
disappears when that session goes, so the user's Chrome gets its own values back on detach.
We do not rely on that alone: :func:`undo` clears each override explicitly before detach (and
``none`` clears one setting), and the answer of ``get_browser_status`` shows what is set.

Frame-wide settings (network, CPU, colour scheme, user agent, headers) are also applied to
each out-of-process iframe's session, existing and new (:func:`on_session`), since each such
frame runs in its own renderer with its own overrides. The viewport, touch and geolocation
belong to the tab.

The state lives in ``page.data["emulation"]``; header values are kept apart and never shown.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from cdp_core import CDPError, CDPException, CDPSession
from targets.errors import ErrorCode, ToolFailure

from .page import PageHandle

__all__ = ["NETWORK_PRESETS", "EmulationState", "Viewport", "parse_viewport", "apply", "undo", "on_session", "state_of"]

log = logging.getLogger("targets.pages.emulation")

#: DevTools' throttling presets (bytes/s, ms): the same numbers its Network panel and Lighthouse use.
NETWORK_PRESETS: dict[str, dict[str, Any]] = {
    name: {"latency": latency, "downloadThroughput": down, "uploadThroughput": up, "connectionType": kind}
    for name, latency, down, up, kind in (
        ("slow_3g", 2000, 50_000, 50_000, "cellular3g"),
        ("fast_3g", 562.5, 180_000, 84_375, "cellular3g"),
        ("slow_4g", 562.5, 180_000, 84_375, "cellular4g"),
        ("fast_4g", 165, 1_012_500, 168_750, "cellular4g"),
    )
}
NETWORK_CHOICES = ("offline", *NETWORK_PRESETS, "none")
_NO_THROTTLE = {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
_VIEWPORT = re.compile(r"^(\d{1,5})x(\d{1,5})(?:x(\d{1,2}(?:\.\d{1,3})?))?((?:,(?:mobile|touch))*)$")
#: Seconds for undoing everything on one tab (detach must not hang on a frozen tab).
UNDO_TIMEOUT = 3.0


@dataclass(frozen=True)
class Viewport:
    width: int
    height: int
    scale: float = 0.0  # 0: the device's own pixel ratio
    mobile: bool = False
    touch: bool = False

    def __str__(self) -> str:
        text = f"{self.width}x{self.height}" + (f"x{self.scale:g}" if self.scale else "")
        return text + (",mobile" if self.mobile else "") + (",touch" if self.touch else "")


def parse_viewport(text: str) -> Viewport:
    """``"WxH[xDPR][,mobile][,touch]"`` -> :class:`Viewport`; INVALID_ARGUMENT otherwise."""
    compact = re.sub(r"\s+", "", text.lower())
    match = _VIEWPORT.match(compact)
    if match is None:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"viewport {text!r} is not WxH[xDPR][,mobile][,touch]",
            hint='e.g. "390x844x3,mobile,touch", "1280x800", or "none" to clear',
        )
    width, height = int(match[1]), int(match[2])
    scale = float(match[3]) if match[3] else 0.0
    flags = set(filter(None, match[4].split(",")))
    if not (1 <= width <= 10000 and 1 <= height <= 10000) or (match[3] and not 0.1 <= scale <= 10):
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"viewport {text!r} is out of range (1-10000 CSS pixels, pixel ratio 0.1-10)",
            hint='e.g. "390x844x3,mobile"',
        )
    return Viewport(width, height, scale, "mobile" in flags, "touch" in flags)


@dataclass
class EmulationState:
    """What we set on one tab (None: not set)."""

    network: str | None = None
    cpu_throttling: float | None = None
    viewport: Viewport | None = None
    user_agent: str | None = None
    color_scheme: str | None = None
    geolocation: tuple[float, float] | None = None
    #: the origin we granted geolocation to, so it is taken back with the override
    geolocation_origin: str | None = None
    extra_headers: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def active(self) -> bool:
        return bool(self.summary())

    def summary(self) -> dict[str, Any]:
        """What is set, for answers and status (header names only: their values may be credentials)."""
        out: dict[str, Any] = {}
        if self.network:
            out["network"] = self.network
        if self.cpu_throttling:
            rate = self.cpu_throttling
            out["cpuThrottling"] = int(rate) if float(rate).is_integer() else rate
        if self.viewport:
            out["viewport"] = str(self.viewport)
        if self.user_agent:
            out["userAgent"] = self.user_agent
        if self.color_scheme:
            out["colorScheme"] = self.color_scheme
        if self.geolocation:
            out["geolocation"] = {"latitude": self.geolocation[0], "longitude": self.geolocation[1]}
        if self.extra_headers:
            out["extraHeaders"] = sorted(self.extra_headers)
        return out

    def describe(self) -> str:
        parts = []
        if self.network:
            parts.append("offline" if self.network == "offline" else f"network {self.network}")
        if self.cpu_throttling:
            parts.append(f"CPU {self.cpu_throttling:g}x slower")
        if self.viewport:
            parts.append(f"viewport {self.viewport}")
        if self.user_agent:
            parts.append(f"user agent {self.user_agent[:60]!r}")
        if self.color_scheme:
            parts.append(f"{self.color_scheme} colour scheme")
        if self.geolocation:
            parts.append(f"geolocation {self.geolocation[0]:g},{self.geolocation[1]:g}")
        if self.extra_headers:
            parts.append("extra headers " + ", ".join(sorted(self.extra_headers)))
        return "; ".join(parts)


def state_of(page: PageHandle) -> EmulationState:
    state = page.data.get("emulation")
    if not isinstance(state, EmulationState):
        state = EmulationState()
        page.data["emulation"] = state
    return state


# -- commands per setting -------------------------------------------------------------------


def _conditions(preset: str | None) -> dict[str, Any]:
    if preset is None:
        return dict(_NO_THROTTLE)
    if preset == "offline":
        return {**_NO_THROTTLE, "offline": True}
    return {"offline": False, **NETWORK_PRESETS[preset]}


async def _network(session: CDPSession, preset: str | None) -> None:
    try:
        await session.send("Network.emulateNetworkConditions", _conditions(preset))
    except CDPError as exc:
        if exc.code != -32601:  # deprecated but present in Chrome 156; a Chrome without it has the rule API
            raise
        await network_by_rule(session, preset)


async def network_by_rule(session: CDPSession, preset: str | None) -> None:
    """The same conditions through the newer API: one rule for every URL, plus ``navigator.onLine``."""
    conditions = _conditions(preset)
    rules = [] if preset is None else [{"urlPattern": "", **conditions}]
    await session.send("Network.emulateNetworkConditionsByRule", {"matchedNetworkConditions": rules})
    state = {k: v for k, v in conditions.items() if k != "connectionType"} if preset is None else conditions
    await session.send("Network.overrideNetworkState", state)


async def _cpu(session: CDPSession, rate: float | None) -> None:
    await session.send("Emulation.setCPUThrottlingRate", {"rate": rate or 1})


async def _color_scheme(session: CDPSession, scheme: str | None) -> None:
    features = [{"name": "prefers-color-scheme", "value": scheme}] if scheme else []
    await session.send("Emulation.setEmulatedMedia", {"features": features})


async def _user_agent(session: CDPSession, agent: str | None) -> None:
    # An empty string lifts the override (the browser's own user agent comes back).
    await session.send("Emulation.setUserAgentOverride", {"userAgent": agent or ""})


async def _headers(session: CDPSession, headers: dict[str, str]) -> None:
    await session.send("Network.setExtraHTTPHeaders", {"headers": headers})


async def _viewport(session: CDPSession, viewport: Viewport | None, own: Viewport | None = None) -> None:
    """Set ``viewport``; None gives back the tab's own (``own``: the one its browser was started with)."""
    if viewport is None and own is not None:
        viewport = own  # clearing ours would not bring back Playwright's: the last override wins
    if viewport is None:
        await session.send("Emulation.clearDeviceMetricsOverride")
        await session.send("Emulation.setTouchEmulationEnabled", {"enabled": False})
        return
    await session.send(
        "Emulation.setDeviceMetricsOverride",
        {
            "width": viewport.width,
            "height": viewport.height,
            "deviceScaleFactor": viewport.scale,
            "mobile": viewport.mobile,
        },
    )
    touch = {"enabled": True, "maxTouchPoints": 5} if viewport.touch else {"enabled": False}
    await session.send("Emulation.setTouchEmulationEnabled", touch)


def _origin(url: str) -> str | None:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}"


async def _geolocation(page: PageHandle, state: EmulationState, point: tuple[float, float] | None) -> None:
    browser = page.session.connection.root
    if point is None:
        await page.session.send("Emulation.clearGeolocationOverride")
        if state.geolocation_origin:
            try:
                await browser.send("Browser.resetPermissions")
            except CDPException as exc:
                log.debug("resetPermissions: %s", exc)
            state.geolocation_origin = None
        return
    await page.session.send(
        "Emulation.setGeolocationOverride", {"latitude": point[0], "longitude": point[1], "accuracy": 10}
    )
    origin = _origin(page.url)
    if origin and origin != state.geolocation_origin:
        # Without the permission the page's getCurrentPosition is refused (headless denies every prompt).
        # The grant is a DevTools override of this connection: it is taken back with the override.
        await browser.send(
            "Browser.setPermission",
            {"permission": {"name": "geolocation"}, "setting": "granted", "origin": origin},
        )
        state.geolocation_origin = origin


def _frame_sessions(page: PageHandle) -> list[CDPSession]:
    """The tab's own session first, then its out-of-process iframes (frame-wide settings go to all)."""
    return [page.session, *(r.session for r in page.sessions if r.kind == "iframe" and not r.session.closed)]


# -- the public operations -------------------------------------------------------------------


class _Unset(enum.Enum):
    """An argument :func:`apply` was not given (``None`` means: clear that setting)."""

    UNSET = enum.auto()


_UNSET: Final = _Unset.UNSET


async def apply(
    page: PageHandle,
    *,
    network: str | None | _Unset = _UNSET,
    cpu_throttling: float | None | _Unset = _UNSET,
    viewport: Viewport | None | _Unset = _UNSET,
    user_agent: str | None | _Unset = _UNSET,
    color_scheme: str | None | _Unset = _UNSET,
    geolocation: tuple[float, float] | None | _Unset = _UNSET,
    extra_headers: Mapping[str, str] | None | _Unset = _UNSET,
    own_viewport: Viewport | None = None,
) -> EmulationState:
    """Change the given settings (``None`` clears one); the state records only what the browser took.

    Arguments are checked by the caller (and :func:`parse_viewport`) before this runs, so a bad
    value changes nothing; a browser refusal midway leaves the earlier settings applied and recorded.
    ``own_viewport`` is what ``viewport=None`` returns to when the browser had one set at launch.
    """
    page._check_open()
    state = state_of(page)
    frames = _frame_sessions(page)
    if network is not _UNSET:
        for session in frames:
            await _network(session, network)
        state.network = network
    if cpu_throttling is not _UNSET:
        rate = cpu_throttling if cpu_throttling and cpu_throttling > 1 else None
        for session in frames:
            await _cpu(session, rate)
        state.cpu_throttling = rate
    if viewport is not _UNSET:
        await _viewport(page.session, viewport, own_viewport)
        state.viewport = viewport
    if user_agent is not _UNSET:
        for session in frames:
            await _user_agent(session, user_agent)
        state.user_agent = user_agent
    if color_scheme is not _UNSET:
        for session in frames:
            await _color_scheme(session, color_scheme)
        state.color_scheme = color_scheme
    if geolocation is not _UNSET:
        await _geolocation(page, state, geolocation)
        state.geolocation = geolocation
    if extra_headers is not _UNSET:
        headers = dict(extra_headers or {})
        for session in frames:
            await _headers(session, headers)
        state.extra_headers = headers
    return state


async def undo(page: PageHandle) -> bool:
    """Clear every override we set on ``page`` (bounded in time; a gone tab needs nothing). True if any was set."""
    state = page.data.get("emulation")
    if not isinstance(state, EmulationState) or not (state.active or state.geolocation_origin):
        return False
    if page.closed:
        return True
    try:
        async with asyncio.timeout(UNDO_TIMEOUT):
            await apply(
                page,
                network=None if state.network else _UNSET,
                cpu_throttling=None if state.cpu_throttling else _UNSET,
                viewport=None if state.viewport else _UNSET,
                user_agent=None if state.user_agent else _UNSET,
                color_scheme=None if state.color_scheme else _UNSET,
                geolocation=None if state.geolocation or state.geolocation_origin else _UNSET,
                extra_headers={} if state.extra_headers else _UNSET,
            )
    except (CDPException, TimeoutError, ToolFailure) as exc:
        # The session is about to go anyway, and Chrome drops a gone session's overrides itself.
        log.info("undoing emulation on %s: %r", page.stable_page_id, exc)
    return True


async def on_session(page: PageHandle, session: CDPSession, kind: str) -> None:
    """Session listener: a new out-of-process iframe of an emulating tab gets the frame-wide settings."""
    if kind != "iframe":
        return
    state = page.data.get("emulation")
    if not isinstance(state, EmulationState) or not state.active:
        return
    try:
        if state.network:
            await _network(session, state.network)
        if state.cpu_throttling:
            await _cpu(session, state.cpu_throttling)
        if state.user_agent:
            await _user_agent(session, state.user_agent)
        if state.color_scheme:
            await _color_scheme(session, state.color_scheme)
        if state.extra_headers:
            await _headers(session, state.extra_headers)
    except CDPException as exc:
        log.debug("emulation on a new iframe of %s: %s", page.stable_page_id, exc)
