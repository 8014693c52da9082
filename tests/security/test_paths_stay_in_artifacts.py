"""Every path an agent can pass stays inside the artifacts root, and never reaches the audit log.

Through the SDK's real client on the server the CLI builds (audit log attached): ``..``,
absolute paths elsewhere, symlinks pointing out of the root (or at the audit log), the
audit log itself and its rotated files, and paths into another action's folder (an
exported state file holds cookie values) are all refused with PATH_OUTSIDE_ARTIFACTS, and
nothing is written, read or deleted there. Actions without a path argument write only
under the root and refuse a smuggled ``save_path``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from httpserver import Reply
from lean_util import records
from mcp.client import Client

from mcp_server.cli.main import build_app
from mcp_server.server.settings import Settings

PAGE = """<!doctype html><title>paths</title><p id="p">paths</p>
<script>document.cookie = "sid=path-cookie-value; path=/"; localStorage.setItem("k", "v");</script>"""


class Agent:
    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, action: str, **args: Any) -> tuple[bool, dict[str, Any], str]:
        result = await self.client.call_tool("browser_session", {"action": action, **args})
        assert result.structured_content is not None
        return bool(result.is_error), result.structured_content, result.content[0].text

    async def ok(self, action: str, **args: Any) -> dict[str, Any]:
        is_error, sc, text = await self.call(action, **args)
        assert not is_error, text
        return sc

    async def refused(self, action: str, code: str = "PATH_OUTSIDE_ARTIFACTS", **args: Any) -> dict[str, Any]:
        is_error, sc, text = await self.call(action, **args)
        assert is_error and sc["code"] == code, (action, args, sc)
        return sc


@pytest.fixture
async def agent(tmp_path: Path, http_server) -> AsyncIterator[tuple[Agent, Path, Path]]:
    root = tmp_path / "artifacts"
    http_server.route("/sec-paths/page.html", Reply(200, PAGE))
    manager, server = build_app(Settings(artifact_dir=str(root)))
    try:
        async with Client(server) as client:
            a = Agent(client)
            await a.ok("navigate", url=http_server.url("/sec-paths/page.html"))
            yield a, root, tmp_path
    finally:
        await manager.close()


async def _saved_body(a: Agent, entry_id: int) -> dict[str, Any]:
    """network_save_body once the response has finished loading (its end event may trail the fetch)."""
    for _ in range(200):
        is_error, sc, text = await a.call("network_save_body", id=entry_id)
        if not is_error:
            return sc
        assert sc["code"] == "BODY_UNAVAILABLE" and "not finished" in sc["message"], text
        await anyio.sleep(0.02)
    raise AssertionError("the body never became available")


def _snapshot_outside(tmp_path: Path, root: Path) -> dict[str, bytes]:
    """Every file under tmp_path but outside the artifacts root, with its content."""
    return {
        str(p): p.read_bytes()
        for p in tmp_path.rglob("*")
        if p.is_file() and root not in p.parents and not p.is_symlink()
    }


async def test_paths_out_of_the_root_are_refused_and_touch_nothing(agent):
    a, root, tmp_path = agent
    outside = tmp_path / "outside"
    outside.mkdir()
    secret_file = outside / "secret.json"
    secret_file.write_text(json.dumps({"cookies": [{"name": "x", "value": "outside-secret"}]}))
    downloads, state, traces = (root / kind for kind in ("downloads", "state", "traces"))
    for folder in (downloads, state, traces):
        folder.mkdir(parents=True, exist_ok=True)
    for folder in (downloads, state, traces, root):
        (folder / "link-out").symlink_to(secret_file)
        (folder / "dir-out").symlink_to(outside, target_is_directory=True)
    exported = await a.ok("export_state", path="mine.json")  # the state file an agent could try to read back
    assert Path(exported["path"]) == state / "mine.json"
    before = _snapshot_outside(tmp_path, root)

    escapes = [
        "../../outside/secret.json",
        str(secret_file),
        "/etc/hostname",
        "link-out",
        "dir-out/secret.json",
        "dir-out/new.json",
        "~/x.json",
        f"{root}/../outside/new.json",
    ]
    for path in escapes:
        await a.refused("read_downloaded_file", path=path)
        await a.refused("load_state", path=path)
        await a.refused("export_state", path=path)
        await a.refused("performance_start_trace", save_path=path)
        sc = await a.refused("performance_summary", trace_path=path)
        assert "outside-secret" not in json.dumps(sc)
    # Another action's folder: read_downloaded_file must not hand out the exported cookies.
    for path in ("../state/mine.json", str(state / "mine.json")):
        sc = await a.refused("read_downloaded_file", path=path)
        assert "path-cookie-value" not in json.dumps(sc)
    await a.refused("load_state", path="../downloads/x.json")
    await a.refused("export_state", path="../traces/x.json")
    await a.refused("performance_start_trace", save_path="../state/mine.json")
    # stop: a bad save_path is refused before the trace is stopped, which can then be saved properly.
    await a.ok("performance_start_trace")
    for path in escapes[:4] + ["../state/mine.json"]:
        await a.refused("performance_stop_trace", save_path=path)
    stopped = await a.ok("performance_stop_trace")
    assert (root / stopped["tracePath"]).is_file()

    assert _snapshot_outside(tmp_path, root) == before
    assert json.loads((state / "mine.json").read_text())["cookies"][0]["value"] == "path-cookie-value"
    assert not list(outside.glob("new*")) and not (Path.home() / "x.json").exists()


async def test_malformed_paths_are_invalid_arguments_not_crashes(agent):
    a, _, _ = agent
    await a.ok("export_state", path="taken.json")
    is_error, sc, _ = await a.call("export_state", path="taken.json/inner.json")  # a parent that is a file
    assert is_error and sc["code"] == "INVALID_ARGUMENT", sc
    for path in ("a\x00b", "x" * 5000, "../" * 300 + "etc/passwd", ".", "./"):
        for action, field in (
            ("read_downloaded_file", "path"),
            ("load_state", "path"),
            ("export_state", "path"),
            ("performance_start_trace", "save_path"),
            ("performance_summary", "trace_path"),
        ):
            is_error, sc, text = await a.call(action, **{field: path})
            assert is_error and sc["code"] in ("INVALID_ARGUMENT", "PATH_OUTSIDE_ARTIFACTS", "FILE_NOT_FOUND"), (
                action,
                sc,
            )


async def test_the_audit_log_cannot_be_read_written_or_deleted(agent):
    a, root, _ = agent
    await a.ok("list_pages")
    log = root / "audit.jsonl"
    assert log.is_file()
    (root / "audit.jsonl.1").write_text('{"old": "rotated"}\n')  # as rotation leaves it
    for folder in ("downloads", "state", "traces"):
        (root / folder).mkdir(exist_ok=True)
        (root / folder / "to-audit").symlink_to(log)
    # Relative paths start in the action's folder (downloads/, state/, traces/), hence the "../".
    names = ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2", "./audit.jsonl", str(log), str(root / "audit.jsonl.1")]
    via = ["../" + n for n in names[:4]] + names[4:] + ["to-audit", "../state/../audit.jsonl"]
    lines_before = log.read_text().splitlines()
    for path in via:
        for action, field in (
            ("read_downloaded_file", "path"),
            ("load_state", "path"),
            ("export_state", "path"),
            ("performance_start_trace", "save_path"),
        ):
            sc = await a.refused(action, **{field: path})
            assert "rotated" not in json.dumps(sc)
    for path in names + ["traces/to-audit"]:
        await a.refused("performance_summary", trace_path=path)
    after = log.read_text().splitlines()
    # Still the same log, only ever appended to: every refused call above is in it.
    assert after[: len(lines_before)] == lines_before and len(after) > len(lines_before)
    assert all(json.loads(line)["tool"] == "browser_session" for line in after)
    assert (root / "audit.jsonl.1").read_text() == '{"old": "rotated"}\n'


async def test_a_configured_audit_log_inside_the_root_is_protected_too(tmp_path: Path, http_server):
    root = tmp_path / "artifacts"
    log = root / "logs" / "calls.jsonl"
    manager, server = build_app(Settings(artifact_dir=str(root), audit_log=str(log)))
    try:
        async with Client(server) as client:
            a = Agent(client)
            await a.ok("list_pages")
            assert log.is_file() and not (root / "audit.jsonl").exists()
            await a.ok("navigate", url=http_server.url("/a.html"))
            for path in ("../logs/calls.jsonl", str(log), "../logs/calls.jsonl.1"):
                await a.refused("export_state", path=path)
                await a.refused("read_downloaded_file", path=path)
                await a.refused("performance_start_trace", save_path=path)
            await a.refused("performance_summary", trace_path="logs/calls.jsonl")
            entries = [json.loads(line) for line in log.read_text().splitlines()]
            assert [e["action"] for e in entries[:2]] == ["list_pages", "navigate"]
    finally:
        await manager.close()


async def test_actions_without_a_path_write_only_under_the_root(agent):
    a, root, tmp_path = agent
    await a.ok("evaluate_js", expression="fetch('/a.html').then(r => r.text()).then(t => t.length)")
    entries = records(await a.ok("network_list"))
    fetched = next(e for e in entries if e["url"].endswith("/a.html"))
    before = _snapshot_outside(tmp_path, root)
    written: list[Path] = []
    saved = await _saved_body(a, fetched["id"])
    written.append(Path(saved["filePath"]))
    har = await a.ok("network_export_har")
    written.append(root / har["relativePath"])
    shot = await a.ok("screenshot")
    written.append(Path(shot["path"]))
    bundle = await a.ok("debug_bundle", save_artifacts=True)
    written += [root / bundle["files"]["bundleJson"], root / bundle["files"]["bundleMd"]]
    state = await a.ok("export_state")
    written.append(Path(state["path"]))
    for path in written:
        assert path.is_file() and root in path.resolve().parents, path
    for action in ("network_save_body", "network_export_har", "screenshot", "debug_bundle"):
        extra = {"id": fetched["id"]} if action == "network_save_body" else {}
        for field in ("save_path", "path", "file", "filename"):
            sc = await a.refused(action, code="INVALID_ARGUMENT", **extra, **{field: "../../evil"})
            assert any(e["field"] == field for e in sc["errors"])
    assert _snapshot_outside(tmp_path, root) == before


async def test_no_other_action_reads_the_state_folder(agent):
    """performance_summary once opened state/ files (exported cookies, HttpOnly values included)."""
    a, root, _ = agent
    await a.ok("export_state", path="mine.json")
    for path in ("state/mine.json", "traces/../state/mine.json", str(root / "state" / "mine.json")):
        sc = await a.refused("performance_summary", trace_path=path)
        assert sc["code"] == "PATH_OUTSIDE_ARTIFACTS" and "path-cookie-value" not in json.dumps(sc), sc
        assert "load_state" in sc["message"]
