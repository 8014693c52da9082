"""What the browser layer needs to know from the server's configuration.

``mcp_server.server.settings`` builds a :class:`TargetSettings` from the environment and the
command line; the targets package never reads the environment itself, so tests and
embedders can configure it directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from targets.users_chrome.finding import FIXED_PORTS

if TYPE_CHECKING:
    from targets.users_chrome.profile_dirs import ProfileDir

__all__ = ["TargetSettings", "DEFAULT_CDP_URL"]

#: Where a user's Chrome started with ``--remote-debugging-port=9222`` listens.
DEFAULT_CDP_URL = "http://127.0.0.1:9222"


@dataclass
class TargetSettings:
    """Options of the two browser targets; policies apply to the internal (launch) browser only."""

    headless: bool = True
    default_target: Literal["launch", "cdp"] = "launch"
    #: A configured CDP URL is only a default for ``attach_cdp``: it never attaches by itself.
    cdp_url: str | None = None
    allow_remote_cdp: bool = False
    allowed_urls: list[str] = field(default_factory=list)
    allow_file_urls: bool = False
    allowed_file_roots: list[str] = field(default_factory=list)
    block_media: bool = False
    max_launch_tabs: int = 3
    chrome_path: str | None = None
    downloads_dir: str | None = None
    #: Downloads larger than this are deleted, not saved under downloads/ (0: no cap).
    download_max_bytes: int = 100 * 1024 * 1024
    #: The server's own files (artifacts root, audit log): never opened as ``file:`` URLs, whatever
    #: ``ALLOW_FILE_URLS`` / ``ALLOWED_FILE_ROOTS`` say, so the agent cannot read the log or an
    #: exported state file through the browser.
    private_paths: list[str] = field(default_factory=list)
    #: Where ``attach_cdp`` without a URL looks for ``DevToolsActivePort``: None means the standard
    #: user data dirs of this system (targets.users_chrome.profile_dirs); tests point it at fake dirs.
    profile_dirs: list[ProfileDir] | None = None
    #: Ports asked ``/json/version`` besides the files (finding.FIXED_PORTS: the flag flow's 9222); tests use none.
    probe_ports: tuple[int, ...] = FIXED_PORTS
