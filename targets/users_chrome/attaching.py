"""Attaching to the user's Chrome: which one (URL, profile dir, discovery) and its one handshake.

Split from :mod:`targets.manager` along the data's path: :meth:`AttachActions.prepare_attach`
chooses the Chrome and starts (or joins) the handshake without holding anything;
:meth:`AttachActions.finish_attach` attaches over the socket it opened. Between the two the
person may take their time with Chrome's "Allow remote debugging?" dialog.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from targets.errors import ErrorCode, ToolFailure
from targets.settings import DEFAULT_CDP_URL

from .cdp import CdpTarget, check_cdp_url, chrome_command_hint, handshake_failure, resolve_ws_url
from .finding import FoundChrome, find_chromes, found_in, profile_of
from .handshake import HANDSHAKE_TIMEOUT, Handshake
from .profile_dirs import ProfileDir, standard_profile_dirs

if TYPE_CHECKING:
    from targets.hub import Listeners
    from targets.internal.launch import LaunchTarget
    from targets.settings import TargetSettings

__all__ = ["AttachActions", "AttachPlan"]


@dataclass
class AttachPlan:
    """What an ``attach_cdp`` will do: go on with the attachment there is, or finish ``handshake``."""

    url: str
    reused: bool = False
    handshake: Handshake | None = None
    #: how the URL was chosen: cdp_url, configured, user_data_dir, discovery
    via: str = "cdp_url"


class AttachActions:
    """attach_cdp's steps (mixed into BrowserManager)."""

    if TYPE_CHECKING:  # provided by BrowserManager
        settings: TargetSettings
        cdp: CdpTarget
        launch: LaunchTarget
        listeners: Listeners
        active_target: Any
        pending: Handshake | None
        detached: dict[str, Any] | None

        def _new_stable_id(self) -> str: ...
        async def list_pages(self) -> list[dict[str, Any]]: ...

    def profile_dirs(self) -> list[ProfileDir]:
        """Where attach_cdp looks for ``DevToolsActivePort`` (settings, else this system's standard dirs)."""
        dirs = self.settings.profile_dirs
        return list(dirs) if dirs is not None else standard_profile_dirs()

    async def attach_cdp(
        self,
        cdp_url: str | None = None,
        *,
        close_inactive: bool = False,
        user_data_dir: str | None = None,
        wait_s: float = HANDSHAKE_TIMEOUT,
    ) -> dict[str, Any]:
        """Attach to the user's Chrome (no navigation, no new tab) and make it the active target.

        Waits up to ``wait_s`` for the handshake (a person's Allow); past it the request stays
        open and NOT_ATTACHED says so. The MCP action uses :meth:`prepare_attach` /
        :meth:`finish_attach` instead, to answer ``waiting`` without holding any lock meanwhile.
        """
        plan = await self.prepare_attach(cdp_url, user_data_dir=user_data_dir)
        if plan.handshake is not None and not await plan.handshake.wait(wait_s):
            raise ToolFailure(
                ErrorCode.NOT_ATTACHED,
                f'Chrome is still asking the user "Allow remote debugging?" for {plan.url} '
                f"(since {plan.handshake.started_at}).",
                hint="Ask the user to click Allow in their Chrome, then call attach_cdp: it joins this request.",
                cdpUrl=plan.url,
            )
        return await self.finish_attach(plan, close_inactive=close_inactive)

    async def prepare_attach(self, cdp_url: str | None = None, *, user_data_dir: str | None = None) -> AttachPlan:
        """Choose the Chrome and start (or join) the one handshake to it; nothing is attached yet.

        Priority: ``cdp_url``, the configured URL, ``user_data_dir``, then discovery (live
        ``DevToolsActivePort`` files in the standard dirs, a Chrome on 127.0.0.1:9222). A call
        without any of them while attached goes on with the attachment; while a handshake waits
        for the person it joins that handshake: Chrome never asks twice for one attach.
        """
        allow = self.settings.allow_remote_cdp
        cdp, pending = self.cdp, self.pending
        named = cdp_url or self.settings.cdp_url
        if pending is not None and pending.done() and pending.task.cancelled():
            self.pending = pending = None
        if not named and not user_data_dir:
            if pending is not None:
                return AttachPlan(pending.url, handshake=pending, via=pending.via)
            if cdp.attached and cdp.connected and cdp.cdp_url:
                return AttachPlan(cdp.cdp_url, reused=True)
        found: FoundChrome | None = None
        if named:
            url = check_cdp_url(named, allow_remote=allow)
            via = "cdp_url" if cdp_url else "configured"
        elif user_data_dir:
            profile = profile_of(user_data_dir)
            found = await found_in(profile)
            if found is None:
                shown = str(profile.path)[:300]
                raise ToolFailure(
                    ErrorCode.CDP_UNREACHABLE,
                    f"No live DevToolsActivePort in {shown!r}: that Chrome is not running with remote debugging on.",
                    hint=chrome_command_hint(DEFAULT_CDP_URL),
                    userDataDir=shown,
                )
            url, via = found.ws_url, "user_data_dir"
        else:
            found = await self._discover()
            url, via = found.ws_url, "discovery"
        if found is None:
            ws_url, found = await resolve_ws_url(url, allow_remote=allow, dirs=self.profile_dirs())
        else:
            ws_url = check_cdp_url(found.ws_url, allow_remote=allow)
        if cdp.attached and cdp.connected and ws_url in (cdp.ws_url, cdp.cdp_url):
            return AttachPlan(cdp.cdp_url or url, reused=True)
        if pending is not None:
            if pending.ws_url == ws_url:
                return AttachPlan(pending.url, handshake=pending, via=pending.via)
            await pending.cancel()  # another Chrome asked for: the old request is withdrawn
            self.pending = None
        self.pending = Handshake(url, ws_url, found, via)
        return AttachPlan(url, handshake=self.pending, via=via)

    async def _discover(self) -> FoundChrome:
        """The one Chrome with remote debugging on; CDP_UNREACHABLE for none, AMBIGUOUS_MATCH for several."""
        dirs = self.profile_dirs()
        found = await find_chromes(dirs, self.settings.probe_ports)
        if len(found) == 1:
            return found[0]
        if not found:
            ports = ", ".join(f"127.0.0.1:{p}" for p in self.settings.probe_ports)
            where = f"no live DevToolsActivePort in the {len(dirs)} profile dirs of Chrome, Chromium, Edge and Brave"
            raise ToolFailure(
                ErrorCode.CDP_UNREACHABLE,
                f"No Chrome with remote debugging on was found ({where}{', nothing on ' + ports if ports else ''}).",
                hint=chrome_command_hint(DEFAULT_CDP_URL),
            )
        raise ToolFailure(
            ErrorCode.AMBIGUOUS_MATCH,
            f"{len(found)} Chromes have remote debugging on: "
            + "; ".join(f"{f.browser} ({f.profile_dir or 'no profile file'}, port {f.port}, {f.how})" for f in found),
            hint="Call attach_cdp with user_data_dir=<profileDir> (or cdp_url=http://127.0.0.1:<port>) of the one "
            "the user means.",
            candidates=[f.to_dict() for f in found],
        )

    async def finish_attach(self, plan: AttachPlan, *, close_inactive: bool = False) -> dict[str, Any]:
        """Attach over the websocket ``plan``'s handshake opened (or go on with the attachment there is)."""
        cdp = self.cdp
        reused = plan.reused
        hs = plan.handshake
        if hs is not None:
            if not hs.done():
                raise ToolFailure(ErrorCode.INTERNAL_ERROR, "The handshake to Chrome has not finished yet.")
            if self.pending is hs:
                self.pending = None
            if hs.task.cancelled():
                raise ToolFailure(
                    ErrorCode.NOT_ATTACHED,
                    f"The request to attach to {hs.url} was withdrawn (detach_cdp, or attach_cdp to another Chrome) "
                    "before Chrome opened it.",
                    hint="Call attach_cdp again if the user's Chrome is still wanted.",
                )
            exc = hs.task.exception()
            if exc is not None:
                raise handshake_failure(hs.url, exc)
            browser = hs.task.result()
            if hs.adopted and cdp.browser is not browser:
                raise ToolFailure(
                    ErrorCode.NOT_ATTACHED,
                    f"The attachment to {hs.url} this call joined has ended since (detach_cdp).",
                    hint="Call attach_cdp again if the user's Chrome is still wanted.",
                )
            if hs.adopted:
                reused = True  # another call joined the same handshake and attached already
            else:
                found = {**(hs.found.to_dict() if hs.found else {}), "via": plan.via}
                if cdp.attached:
                    # The new Chrome answered before we let go of the old attachment.
                    fresh = CdpTarget(self.listeners, self._new_stable_id)
                    await fresh.adopt(browser, hs.url, hs.ws_url, allow_remote=self.settings.allow_remote_cdp)
                    await cdp.detach()
                    self.cdp = cdp = fresh
                else:
                    await cdp.adopt(browser, hs.url, hs.ws_url, allow_remote=self.settings.allow_remote_cdp)
                cdp.found = found
                hs.adopted = True
        self.active_target = "cdp"
        self.detached = None
        if close_inactive and self.launch.context is not None:
            await self.launch.close()
        result = {
            "target": "cdp",
            "cdpUrl": cdp.cdp_url or plan.url,
            "attachedAt": cdp.attached_at,
            "capturedSince": cdp.attached_at,
            "alreadyAttached": reused,
            "launchClosed": bool(close_inactive),
            "found": cdp.found,
            "pages": await self.list_pages(),
        }
        return result
