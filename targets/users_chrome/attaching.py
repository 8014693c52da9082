"""The attachment to the user's Chrome: which Chrome (URL, profile dir, discovery), its one handshake.

:meth:`ChromeAttachment.prepare` chooses the Chrome and starts (or joins) the handshake without
holding anything; :meth:`ChromeAttachment.adopt` attaches over the socket it opened. Between the
two the person may take their time with Chrome's "Allow remote debugging?" dialog. Which target
is active afterwards is the manager's to decide.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from targets.errors import ErrorCode, ToolFailure
from targets.hub import Listeners
from targets.settings import DEFAULT_CDP_URL, TargetSettings

from .cdp import CdpTarget, check_cdp_url, chrome_command_hint, handshake_failure, resolve_ws_url
from .finding import FoundChrome, find_chromes, found_in, profile_of, unsafe_port_file
from .handshake import Handshake
from .profile_dirs import ProfileDir, standard_profile_dirs

__all__ = ["ChromeAttachment", "AttachPlan"]


@dataclass
class AttachPlan:
    """What an ``attach_cdp`` will do: go on with the attachment there is, or finish ``handshake``."""

    url: str
    reused: bool = False
    handshake: Handshake | None = None
    #: how the URL was chosen: cdp_url, configured, user_data_dir, discovery
    via: str = "cdp_url"


class ChromeAttachment:
    """The user's Chrome as we hold it: its :class:`CdpTarget` and the handshake waiting for the person."""

    def __init__(self, settings: TargetSettings, listeners: Listeners, new_stable_id: Callable[[], str]) -> None:
        self.settings = settings
        self._listeners = listeners
        self._new_stable_id = new_stable_id
        #: Replaced (never mutated into another Chrome) when attach_cdp moves to a different Chrome.
        self.target = CdpTarget(listeners, new_stable_id)
        #: The handshake to the user's Chrome still waiting for the person's Allow (joined, never doubled).
        self.pending: Handshake | None = None

    def profile_dirs(self) -> list[ProfileDir]:
        """Where attach_cdp looks for ``DevToolsActivePort`` (settings, else this system's standard dirs)."""
        dirs = self.settings.profile_dirs
        return list(dirs) if dirs is not None else standard_profile_dirs()

    async def prepare(self, cdp_url: str | None = None, *, user_data_dir: str | None = None) -> AttachPlan:
        """Choose the Chrome and start (or join) the one handshake to it; nothing is attached yet.

        Priority: ``cdp_url``, the configured URL, ``user_data_dir``, then discovery (live
        ``DevToolsActivePort`` files in the standard dirs, a Chrome on 127.0.0.1:9222). A call
        without any of them while attached goes on with the attachment; while a handshake waits
        for the person it joins that handshake: Chrome never asks twice for one attach.
        """
        allow = self.settings.allow_remote_cdp
        cdp, pending = self.target, self.pending
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
            refused = unsafe_port_file(profile)
            if refused:
                raise ToolFailure(
                    ErrorCode.BLOCKED_BY_POLICY,
                    f"{refused[:400]}: not a file Chrome wrote for this user, so it names no Chrome to attach to.",
                    hint="name the user data dir of a Chrome this user started, or pass cdp_url",
                    userDataDir=str(profile.path)[:300],
                )
            found = await found_in(profile, named=True)
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

    async def adopt(self, plan: AttachPlan) -> bool:
        """Attach over the websocket ``plan``'s handshake opened; True when an attachment went on instead.

        Raises what the handshake ended with (declined, withdrawn, timed out) as a ToolFailure.
        """
        cdp = self.target
        hs = plan.handshake
        if hs is None:
            return plan.reused
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
            return True  # another call joined the same handshake and attached already
        found = {**(hs.found.to_dict() if hs.found else {}), "via": plan.via}
        allow = self.settings.allow_remote_cdp
        if cdp.attached:
            # The new Chrome answered before we let go of the old attachment.
            fresh = CdpTarget(self._listeners, self._new_stable_id)
            await fresh.adopt(browser, hs.url, hs.ws_url, allow_remote=allow)
            await cdp.detach()
            self.target = cdp = fresh
        else:
            await cdp.adopt(browser, hs.url, hs.ws_url, allow_remote=allow)
        cdp.found = found
        hs.adopted = True
        return plan.reused

    async def withdraw(self) -> Handshake | None:
        """Cancel the handshake still waiting, if any (Chrome's dialog may stay up; a click then attaches nothing)."""
        pending, self.pending = self.pending, None
        if pending is not None:
            await pending.cancel()
        return pending

    def lost_failure(self) -> ToolFailure:
        """BROWSER_DISCONNECTED for an attachment whose socket ended without our asking."""
        cdp = self.target
        lost = cdp.lost or {}
        return ToolFailure(
            ErrorCode.BROWSER_DISCONNECTED,
            f"The connection to the Chrome at {cdp.cdp_url} was lost at {lost.get('at', '?')} "
            f"({lost.get('reason', 'closed')}); it was probably closed or restarted.",
            hint="Start Chrome again if needed, then call attach_cdp (or use_launch_browser); with Chrome's "
            "remote-debugging toggle, attaching again makes Chrome ask the user to click Allow again.",
            cdpUrl=cdp.cdp_url,
        )
