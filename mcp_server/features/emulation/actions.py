"""``emulate``: network conditions, CPU, viewport, user agent, colour scheme, geolocation, extra headers.

Each setting given is changed on the selected tab; ``"none"`` (``{}`` for extra_headers)
clears one; settings not given stay as they are. Everything is checked before anything is
sent, so a bad value changes nothing. The settings hold across the tab's navigations, show in
``get_browser_status`` and ``list_pages``, and are undone when we detach from the user's Chrome.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import Field

from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, action
from targets.errors import ErrorCode, ToolFailure
from targets.pages import emulation

S = "browser_session"


class EmulateArgs(ActionArgs):
    network: Literal["offline", "slow_3g", "fast_3g", "slow_4g", "fast_4g", "none"] | None = Field(
        None, description="Network preset"
    )
    cpu_throttling: float | None = Field(None, ge=1, le=20, description="CPU slowdown (1 = off)")
    viewport: str | None = Field(None, description='"WxH[xDPR][,mobile][,touch]" or "none"')
    user_agent: str | None = Field(None, description='User agent or "none"')
    color_scheme: Literal["light", "dark", "none"] | None = Field(None, description="prefers-color-scheme")
    geolocation: dict[str, float] | Literal["none"] | None = Field(None, description='{latitude, longitude} or "none"')
    extra_headers: dict[str, str] | None = Field(None, description="Sent with every request ({} clears)")


def _point(raw: dict[str, float]) -> tuple[float, float]:
    lat, lon = raw.get("latitude"), raw.get("longitude")
    if (
        set(raw) != {"latitude", "longitude"}
        or lat is None
        or lon is None
        or not (math.isfinite(lat) and math.isfinite(lon) and -90 <= lat <= 90 and -180 <= lon <= 180)
    ):
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"geolocation {raw!r} is not {{latitude: -90..90, longitude: -180..180}}",
            hint='e.g. {"latitude": 45.46, "longitude": 9.19}, or "none" to clear',
        )
    return float(lat), float(lon)


def _changes(args: EmulateArgs) -> dict[str, Any]:
    """The settings the call gives, as :func:`targets.pages.emulation.apply` takes them (None clears)."""
    changes: dict[str, Any] = {}
    if args.network is not None:
        changes["network"] = None if args.network == "none" else args.network
    if args.cpu_throttling is not None:
        if not math.isfinite(args.cpu_throttling):
            raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "cpu_throttling must be a number from 1 to 20")
        changes["cpu_throttling"] = args.cpu_throttling
    if args.viewport is not None:
        clear = args.viewport.strip().lower() == "none"
        changes["viewport"] = None if clear else emulation.parse_viewport(args.viewport)
    if args.user_agent is not None:
        agent = args.user_agent.strip()
        if not agent or "\n" in agent or "\r" in agent:
            raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "user_agent must be one line of text, or none to clear")
        changes["user_agent"] = None if agent.lower() == "none" else agent
    if args.color_scheme is not None:
        changes["color_scheme"] = None if args.color_scheme == "none" else args.color_scheme
    if args.geolocation is not None:
        changes["geolocation"] = None if args.geolocation == "none" else _point(args.geolocation)
    if args.extra_headers is not None:
        for name, value in args.extra_headers.items():
            if not name.strip() or any(c in name + value for c in "\r\n") or ":" in name:
                raise ToolFailure(
                    ErrorCode.INVALID_ARGUMENT,
                    f"extra header {name!r} is not a valid header line",
                    hint="give {name: value} pairs without newlines; {} clears them",
                )
        changes["extra_headers"] = dict(args.extra_headers)
    return changes


@action(S, "emulate", EmulateArgs, lock="page")
async def emulate(ctx: ToolContext, args: EmulateArgs) -> ActionResult:
    """Emulate network, CPU, viewport, UA, colour scheme, geolocation, headers on the selected tab."""
    changes = _changes(args)  # checked before anything is sent
    page = await ctx.page(launch_if_needed=False)  # the page to ourselves until the call ends
    info = await ctx.manager.emulate(**changes)
    page_id, current = info["stable_page_id"], info["emulation"]
    state = emulation.state_of(page)
    if current:
        text = f"Emulating on {page_id}: {state.describe()}"
        if info["target"] == "cdp":
            text += " (undone on detach_cdp)"
        if changes.get("geolocation") and await page.is_hidden():
            text += "; the tab is in the background: Chrome answers geolocation requests once it is shown"
    else:
        text = f"No emulation on {page_id}: the tab uses its own settings"
    if not changes:
        text += " (nothing changed: give a setting, or none to clear one)"
    data: dict[str, Any] = {"stable_page_id": page_id}
    if current:
        data["emulation"] = current
    return ActionResult(text=text, data=data)
