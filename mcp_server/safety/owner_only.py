"""Make a folder readable by its owner alone: ``chmod 0700`` on POSIX, a protected ACL on Windows.

Why Windows needs its own way: ``chmod`` there only toggles the read-only flag, so bodies,
HAR files, exported cookies (``state/``) and the audit log inherited the parent folder's ACL,
often readable by every user of the machine (``C:\\Users\\Public``, a shared project folder).
On Windows the artifacts folder gets a DACL with one entry, full control for the current user,
inherited by every file and folder created under it, and protected from the parent's entries.
The ``mcp`` SDK installs pywin32 on Windows; without it, ``icacls`` does the same.

The Windows branch cannot run here (Linux): :func:`windows_owner_dacl` takes the pywin32
modules as arguments so tests check the calls with recording stand-ins, and docs/platforms.md
lists the steps to check the real ACL by hand.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["restrict_to_owner", "windows_owner_dacl", "icacls_command"]

log = logging.getLogger("mcp_server.safety.owner_only")


def restrict_to_owner(path: Path, platform: str | None = None) -> str:
    """Restrict ``path`` (a folder) to this user; returns how: ``chmod``, ``acl``, ``icacls`` or ``unchanged``."""
    platform = platform or sys.platform
    if platform == "win32":
        return _restrict_windows(path)
    try:
        if path.stat().st_mode & 0o077:
            path.chmod(0o700)
            return "chmod"
    except OSError:
        pass  # not ours to change (another owner): the files in it are still created 0600
    return "unchanged"


def _restrict_windows(path: Path) -> str:
    if sys.platform != "win32":
        return "unchanged"  # an injected platform (tests): no Windows API here
    try:
        import ntsecuritycon
        import win32api
        import win32con
        import win32security
    except ImportError:
        return _icacls(path)
    try:
        windows_owner_dacl(str(path), win32api, win32con, win32security, ntsecuritycon)
        return "acl"
    except Exception as exc:  # noqa: BLE001 - pywin32 raises pywintypes.error; the folder stays as it was
        log.warning("could not restrict %s to the current user: %s", path, exc)
        return _icacls(path)


def windows_owner_dacl(path: str, win32api: Any, win32con: Any, win32security: Any, ntsecuritycon: Any) -> None:
    """Give ``path`` a protected DACL: full control for the process's user, inherited by its contents."""
    token = win32security.OpenProcessToken(win32api.GetCurrentProcess(), win32con.TOKEN_QUERY)
    user_sid = win32security.GetTokenInformation(token, win32security.TokenUser)[0]
    dacl = win32security.ACL()
    inherit = ntsecuritycon.OBJECT_INHERIT_ACE | ntsecuritycon.CONTAINER_INHERIT_ACE
    dacl.AddAccessAllowedAceEx(win32security.ACL_REVISION, inherit, ntsecuritycon.FILE_ALL_ACCESS, user_sid)
    # PROTECTED: the parent's entries (Users, Everyone...) no longer flow in. SetNamedSecurityInfo
    # also hands the new entry down to what the folder already holds.
    info = win32security.DACL_SECURITY_INFORMATION | win32security.PROTECTED_DACL_SECURITY_INFORMATION
    win32security.SetNamedSecurityInfo(path, win32security.SE_FILE_OBJECT, info, None, None, dacl, None)


def icacls_command(path: str, env: dict[str, str] | None = None) -> list[str]:
    """``icacls`` removing inherited entries and granting the current user full control, inherited."""
    env = dict(os.environ) if env is None else env
    user = env.get("USERNAME", "")
    domain = env.get("USERDOMAIN", "")
    account = f"{domain}\\{user}" if domain else user
    return ["icacls", path, "/inheritance:r", "/grant:r", f"{account}:(OI)(CI)F", "/Q"]


def _icacls(path: Path) -> str:
    try:
        done = subprocess.run(icacls_command(str(path)), capture_output=True, check=False, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("could not restrict %s to the current user (no pywin32, icacls failed: %s)", path, exc)
        return "unchanged"
    if done.returncode != 0:
        log.warning("icacls could not restrict %s: %s", path, done.stderr.decode(errors="replace").strip())
        return "unchanged"
    return "icacls"
