"""Finding the user's Chrome without a URL: live ``DevToolsActivePort`` files, and a Chrome on 9222.

Chrome's remote-debugging toggle (chrome://inspect/#remote-debugging) listens on a port it
writes into ``DevToolsActivePort`` in the browser's user data dir, answers 404 on every
``/json/*`` endpoint, and asks the person to Allow each websocket. So a candidate is found
without any websocket (each would be a dialog): a file is live when its port accepts a TCP
connection, and ``GET /json/version`` tells the flag flow (answers) from the toggle (404). A
Chrome started with ``--remote-debugging-port=9222`` and a dedicated profile writes no file
in a standard dir: the fixed ports are asked ``/json/version`` directly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from cdp_core import DiscoveryError
from cdp_core.discovery import get_version, port_accepts, read_devtools_active_port
from cdp_core.private_file import UnsafeFile
from targets.errors import ErrorCode, ToolFailure

from .listener_owner import check_listener
from .profile_dirs import ProfileDir

__all__ = ["FoundChrome", "find_chromes", "found_in", "found_by_port", "FIXED_PORTS"]

#: Ports asked ``/json/version`` besides the files: the flag flow's documented port.
FIXED_PORTS: tuple[int, ...] = (9222,)


@dataclass(frozen=True, slots=True)
class FoundChrome:
    """A Chrome that listens for a debugger: which browser, its profile dir, port, and how it was found.

    ``how`` is ``toggle`` (Chrome's own setting: every new connection asks the user to Allow)
    or ``flag`` (``--remote-debugging-port``: no dialog).
    """

    browser: str
    profile_dir: str | None
    port: int
    ws_url: str
    how: Literal["toggle", "flag"]
    #: how the listener was told to be this user's (:mod:`.listener_owner`): "socket owner", or why not
    owner_check: str = ""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"browser": self.browser, "port": self.port, "how": self.how}
        if self.profile_dir:
            data["profileDir"] = self.profile_dir
        if self.owner_check:
            data["ownerCheck"] = self.owner_check
        return data


async def _answers_version(port: int) -> str | None:
    """The ``Browser`` of ``/json/version`` on 127.0.0.1:port, None when it does not answer (toggle: 404)."""
    try:
        version = await get_version(f"http://127.0.0.1:{port}")
    except DiscoveryError:
        return None
    return version.browser or "Chrome"


def unsafe_port_file(profile: ProfileDir) -> str | None:
    """Why ``profile``'s ``DevToolsActivePort`` was not read (a link, a FIFO, someone else's…), else None."""
    try:
        read_devtools_active_port(profile.path)
    except DiscoveryError as exc:
        return str(exc) if isinstance(exc.__cause__, UnsafeFile) else None
    except ValueError:
        return None
    return None


async def found_in(profile: ProfileDir, *, named: bool = False) -> FoundChrome | None:
    """The Chrome whose live ``DevToolsActivePort`` is in ``profile.path`` (None: no file, or stale).

    A port another account listens on is passed over; ``named`` (the caller named this profile)
    raises BLOCKED_BY_POLICY instead, with the owner it found.
    """
    try:
        port, path = read_devtools_active_port(profile.path)
    except (DiscoveryError, ValueError):  # ValueError: a path no system accepts (a NUL byte)
        return None
    if not 0 < port < 65536 or not path.startswith("/devtools/browser/") or not await port_accepts(port):
        return None
    owner = check_listener(port)
    if owner.someone_elses:
        if named:
            raise ToolFailure(
                ErrorCode.BLOCKED_BY_POLICY,
                f"The port {port} named in {str(profile.path)[:300]}/DevToolsActivePort is held by another"
                f" account's process (uid {owner.uid}), not by a Chrome of this user: the file is stale.",
                hint="start Chrome with remote debugging again, then attach_cdp",
            )
        return None
    how: Literal["toggle", "flag"] = "flag" if await _answers_version(port) else "toggle"
    return FoundChrome(profile.browser, str(profile.path), port, f"ws://127.0.0.1:{port}{path}", how, owner.how)


async def _on_fixed_port(port: int) -> FoundChrome | None:
    if not await port_accepts(port):
        return None
    owner = check_listener(port)
    if owner.someone_elses:
        return None
    try:
        version = await get_version(f"http://127.0.0.1:{port}")
    except DiscoveryError:
        return None
    ws_url = version.web_socket_debugger_url
    if not ws_url.startswith("ws://"):
        return None
    return FoundChrome(version.browser or "Chrome", None, port, ws_url, "flag", owner.how)


async def find_chromes(dirs: Sequence[ProfileDir], fixed_ports: Sequence[int] = FIXED_PORTS) -> list[FoundChrome]:
    """Every live candidate: the files in ``dirs``, then Chromes answering on ``fixed_ports`` (one per port)."""
    in_files = await asyncio.gather(*(found_in(d) for d in dirs))
    found = [f for f in in_files if f is not None]
    ports = {f.port for f in found}
    on_ports = await asyncio.gather(*(_on_fixed_port(p) for p in fixed_ports if p not in ports))
    return found + [f for f in on_ports if f is not None]


async def found_by_port(port: int, dirs: Sequence[ProfileDir]) -> FoundChrome | None:
    """The live candidate whose ``DevToolsActivePort`` names ``port`` (the address chrome://inspect shows)."""
    for candidate in await asyncio.gather(*(found_in(d) for d in dirs)):
        if candidate is not None and candidate.port == port:
            return candidate
    return None


def profile_of(user_data_dir: str) -> ProfileDir:
    """A user data dir named by the caller (``attach_cdp user_data_dir``), with ``~`` expanded."""
    path = Path(user_data_dir).expanduser()
    return ProfileDir("Chrome", path)
