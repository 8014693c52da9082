"""Privacy where names and permissions work differently: case-insensitive disks, hard links, Windows ACLs.

Linux disks are case-sensitive, so the case-insensitive disk of macOS and Windows is stood in
for by what it does to names (``AUDIT.jsonl`` names the audit log there): the guard must refuse
any spelling of a protected name, and any name of the same file (a hard link, checked by file
identity, which is real here). The Windows ACL is set through pywin32, which is checked with
recording stand-ins for its modules; the real ACL only a Windows run shows (docs/platforms.md).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from mcp_server.safety.artifacts import Artifacts
from mcp_server.safety.owner_only import icacls_command, restrict_to_owner, windows_owner_dacl
from mcp_server.safety.uploads import resolve_upload
from targets.errors import ErrorCode, ToolFailure
from targets.policies.file_identity import is_within, same_path


@pytest.fixture
def artifacts(tmp_path: Path) -> Artifacts:
    store = Artifacts(tmp_path / "project" / ".mcp-browser-artifacts")
    store.ensure_root()
    (store.root / "audit.jsonl").write_text('{"tool": "x"}\n')
    return store


@pytest.mark.parametrize("name", ["AUDIT.jsonl", "Audit.JSONL", "audit.jsonl.1", "AUDIT.JSONL.part"])
def test_every_spelling_of_the_audit_log_is_refused(artifacts: Artifacts, name: str):
    with pytest.raises(ToolFailure) as refused:
        artifacts.resolve_inside(name)
    assert refused.value.code == ErrorCode.PATH_OUTSIDE_ARTIFACTS and "audit log" in refused.value.message


def test_a_hard_link_to_the_audit_log_is_refused(artifacts: Artifacts):
    link = artifacts.dir("downloads") / "innocent.txt"
    os.link(artifacts.root / "audit.jsonl", link)
    with pytest.raises(ToolFailure, match="audit log"):
        artifacts.resolve_inside("innocent.txt", kind="downloads")
    assert artifacts.resolve_inside("other.txt", kind="downloads").name == "other.txt"  # others still fine


@pytest.mark.parametrize("name", ["STATE/cookies.json", "State/cookies.json", "traces/../STATE/cookies.json"])
def test_every_spelling_of_the_state_folder_is_refused(artifacts: Artifacts, name: str):
    """On a case-insensitive disk ``STATE/`` is ``state/``, where exported cookie values live."""
    with pytest.raises(ToolFailure) as refused:
        artifacts.resolve_inside(name)  # no kind: any folder of the root but state/
    assert refused.value.code == ErrorCode.PATH_OUTSIDE_ARTIFACTS and "state/" in refused.value.message


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need a privilege on Windows")
def test_identity_helpers(tmp_path: Path):
    (tmp_path / "a").mkdir()
    os.symlink(tmp_path / "a", tmp_path / "b")
    assert same_path(tmp_path / "a", tmp_path / "b")  # the same folder under two names
    assert same_path(tmp_path / "Missing", tmp_path / "missing")  # not there: by folded spelling
    assert is_within(tmp_path / "a" / "x" / "y", tmp_path / "b")
    assert is_within(tmp_path / "A" / "STATE" / "c.json", tmp_path / "a")
    assert not is_within(tmp_path / "c", tmp_path / "a")


def test_a_project_upload_root_does_not_open_the_servers_files(artifacts: Artifacts, tmp_path: Path):
    project = tmp_path / "project"
    state = artifacts.dir("state") / "login.json"
    state.write_text('{"cookies": [{"value": "secret"}]}')
    (artifacts.dir("uploads") / "cv.pdf").write_text("%PDF")
    (project / "fixture.csv").write_text("a,b")
    roots = [str(project)]
    assert resolve_upload(artifacts, roots, str(project / "fixture.csv")).name == "fixture.csv"
    assert resolve_upload(artifacts, roots, "cv.pdf").name == "cv.pdf"
    # The case-insensitive spelling on macOS/Windows; here the real one, then a mixed-case one.
    for raw in (str(state), str(project / ".MCP-Browser-Artifacts" / "STATE" / "login.json")):
        with pytest.raises(ToolFailure) as refused:
            resolve_upload(artifacts, roots, raw)
        assert refused.value.code in (ErrorCode.PATH_OUTSIDE_ARTIFACTS, ErrorCode.FILE_NOT_FOUND)
        assert "secret" not in refused.value.message
    # A folder of the root named on purpose opens that folder, never state/.
    download = artifacts.dir("downloads") / "invoice.pdf"
    download.write_text("%PDF")
    assert resolve_upload(artifacts, [str(artifacts.root / "downloads")], str(download)) == download.resolve()
    with pytest.raises(ToolFailure):
        resolve_upload(artifacts, [str(artifacts.root)], str(state))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes; the Windows ACL is checked below")
def test_posix_root_is_owner_only(tmp_path: Path):
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    assert restrict_to_owner(folder, "linux") == "chmod"
    assert folder.stat().st_mode & 0o777 == 0o700
    assert restrict_to_owner(folder, "linux") == "unchanged"


#: pywin32 constants the code combines (their real values).
_CONSTANTS = {
    "OBJECT_INHERIT_ACE": 1,
    "CONTAINER_INHERIT_ACE": 2,
    "FILE_ALL_ACCESS": 0x1F01FF,
    "ACL_REVISION": 2,
    "TOKEN_QUERY": 8,
    "TokenUser": 1,
    "SE_FILE_OBJECT": 1,
    "DACL_SECURITY_INFORMATION": 4,
    "PROTECTED_DACL_SECURITY_INFORMATION": 0x80000000,
}


class _Recorder:
    """A stand-in for a pywin32 module: its constants, and every call recorded."""

    def __init__(self, name: str, calls: list[tuple[str, tuple[Any, ...]]]) -> None:
        self._name, self._calls = name, calls

    def __getattr__(self, attr: str) -> Any:
        if attr in _CONSTANTS:
            return _CONSTANTS[attr]

        def call(*args: Any) -> Any:
            self._calls.append((attr, args))
            if attr == "GetTokenInformation":
                return ("SID-of-ana", 0)
            if attr == "ACL":
                return SimpleNamespace(
                    AddAccessAllowedAceEx=lambda *a: self._calls.append(("AddAccessAllowedAceEx", a))
                )
            return f"{attr}()"

        return call


def test_windows_dacl_is_protected_inherited_and_names_only_the_current_user():
    calls: list[tuple[str, tuple[Any, ...]]] = []
    mods = [_Recorder(n, calls) for n in ("win32api", "win32con", "win32security", "ntsecuritycon")]
    windows_owner_dacl(r"C:\proj\.mcp-browser-artifacts", *mods)
    aces = [args for name, args in calls if name == "AddAccessAllowedAceEx"]
    assert len(aces) == 1  # one entry: nobody else
    _revision, inherit, mask, sid = aces[0]
    assert sid == "SID-of-ana" and mask == _CONSTANTS["FILE_ALL_ACCESS"]
    assert inherit == 3  # files and folders created under it inherit the entry
    path, kind, info, owner, group, dacl, sacl = next(a for n, a in calls if n == "SetNamedSecurityInfo")
    assert path == r"C:\proj\.mcp-browser-artifacts" and kind == _CONSTANTS["SE_FILE_OBJECT"]
    assert info == 4 | 0x80000000  # the DACL, protected: the parent's entries no longer flow in
    assert owner is None and group is None and sacl is None and dacl is not None


def test_icacls_fallback_grants_the_user_alone():
    cmd = icacls_command(r"C:\p\.mcp-browser-artifacts", {"USERNAME": "ana", "USERDOMAIN": "OFFICE"})
    assert cmd == [
        "icacls",
        r"C:\p\.mcp-browser-artifacts",
        "/inheritance:r",
        "/grant:r",
        r"OFFICE\ana:(OI)(CI)F",
        "/Q",
    ]


def test_file_urls_use_the_same_identity_rules(tmp_path: Path):
    """targets.policies.policy (file: URLs) had its own case rule: a hard link or another spelling of the
    audit log passed it on Linux; an allowed root must still not grant a differently cased folder."""
    from targets.policies.policy import UrlPolicy

    artifacts = tmp_path / "project" / ".mcp-browser-artifacts"
    artifacts.mkdir(parents=True)
    audit = artifacts / "audit.jsonl"
    audit.write_text("{}\n")
    site = tmp_path / "site"
    site.mkdir()
    os.link(audit, site / "notes.txt")  # the audit log under an innocent name inside the root
    (site / "page.html").write_text("<p>ok</p>")
    policy = UrlPolicy(allow_file_urls=True, allowed_file_roots=[str(site)], private_paths=[str(artifacts), str(audit)])
    assert policy.check_url((site / "page.html").as_uri()).allowed
    assert not policy.check_url((site / "notes.txt").as_uri()).allowed
    open_policy = UrlPolicy(allow_file_urls=True, private_paths=[str(artifacts), str(audit)])
    assert not open_policy.check_url((tmp_path / "project" / ".MCP-Browser-Artifacts" / "x.html").as_uri()).allowed
    assert not open_policy.check_url((artifacts / "AUDIT.jsonl.1").as_uri()).allowed
    if sys.platform not in ("win32", "darwin"):  # a case-sensitive disk: SITE is another folder
        (tmp_path / "SITE").mkdir()
        (tmp_path / "SITE" / "page.html").write_text("<p>other</p>")
        assert not policy.check_url((tmp_path / "SITE" / "page.html").as_uri()).allowed
