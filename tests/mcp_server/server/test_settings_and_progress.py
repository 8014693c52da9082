"""Settings from env and flags, the artifacts root, and progress from handlers (pure logic, no browser)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.client import Client
from pydantic import Field

from mcp_server.cli.main import parse_args, settings_from
from mcp_server.safety.artifacts import Artifacts
from mcp_server.server.app import build_server
from mcp_server.server.registry import ActionArgs, ActionResult, ActionSpec
from mcp_server.server.settings import Settings, SettingsError
from targets.errors import ErrorCode, ToolFailure


def test_defaults_match_the_contract():
    s = Settings.load(env={})
    assert s.toolset == "all" and s.headless is True and s.default_target == "launch"
    assert s.cdp_url is None and s.evaluate_enabled is True and s.artifact_dir == Path(".mcp-browser-artifacts")
    # the stores are bounded by bytes (every entry of a burst kept); the entry caps are opt-in
    assert s.network_max_entries is None and s.console_max_entries is None and s.network_preview_bytes == 2048
    assert s.network_buffer_bytes == 32 * 1024 * 1024 and s.console_buffer_bytes == 16 * 1024 * 1024
    assert {"authorization", "cookie", "set-cookie", "*token*", "*csrf*", "*key*"} <= set(s.network_redact_headers)
    assert s.network_body_max_bytes == 5 * 1024 * 1024
    assert s.network_eager_body_max_bytes == 1024 * 1024 and s.network_eager_body_budget == 64 * 1024 * 1024


def test_env_is_parsed_and_flags_win():
    env = {
        "BROWSER_TOOLSET": "condensed",
        "BROWSER_HEADLESS": "false",
        "BROWSER_DEFAULT_TARGET": "cdp",
        "PLAYWRIGHT_CDP_URL": "http://127.0.0.1:9333",
        "ALLOWED_URLS": "http://127.0.0.1:*, http://localhost:*",
        "NETWORK_REDACT_HEADERS": "Authorization,X-Token",
        "NETWORK_MAX_ENTRIES": "50",
        "BROWSER_EVALUATE_ENABLED": "0",
        "MCP_ARTIFACT_DIR": "/tmp/arts",
    }
    s = Settings.load(env=env, toolset="legacy", headless=None)
    assert s.toolset == "legacy"  # the flag wins
    assert s.headless is False  # an absent flag (None) leaves the env value
    assert s.default_target == "cdp" and s.cdp_url == "http://127.0.0.1:9333"
    assert s.allowed_urls == ["http://127.0.0.1:*", "http://localhost:*"]
    assert s.network_redact_headers == ["authorization", "x-token"]
    assert s.network_max_entries == 50 and s.evaluate_enabled is False and s.artifact_dir == Path("/tmp/arts")
    ts = s.target_settings()
    assert ts.headless is False and ts.default_target == "cdp" and ts.cdp_url == "http://127.0.0.1:9333"
    assert ts.allowed_urls == ["http://127.0.0.1:*", "http://localhost:*"]
    assert ts.downloads_dir == str(Path("/tmp/arts") / "downloads")


def test_blank_values_mean_unset():
    s = Settings.load(env={"NETWORK_REDACT_HEADERS": "", "BROWSER_HEADLESS": " ", "PLAYWRIGHT_CDP_URL": ""})
    assert {"authorization", "cookie", "set-cookie", "*token*", "*csrf*", "*key*"} <= set(s.network_redact_headers)
    assert s.headless is True and s.cdp_url is None


@pytest.mark.parametrize(
    ("env", "names"),
    [
        ({"BROWSER_HEADLESS": "maybe"}, ["BROWSER_HEADLESS"]),
        ({"BROWSER_TOOLSET": "everything"}, ["BROWSER_TOOLSET"]),
        ({"BROWSER_DEFAULT_TARGET": "firefox"}, ["BROWSER_DEFAULT_TARGET"]),
        ({"NETWORK_MAX_ENTRIES": "lots"}, ["NETWORK_MAX_ENTRIES"]),
        ({"CONSOLE_MAX_ENTRIES": "0"}, ["CONSOLE_MAX_ENTRIES"]),
    ],
)
def test_bad_values_name_the_variable(env, names):
    with pytest.raises(SettingsError) as info:
        Settings.load(env=env)
    for name in names:
        assert name in str(info.value)


def test_cli_flags_build_settings():
    ns = parse_args(["--toolset", "condensed", "--no-headless", "--cdp-url", "http://127.0.0.1:9444", "--http"])
    s = settings_from(ns)
    assert ns.http and s.toolset == "condensed" and s.headless is False and s.cdp_url == "http://127.0.0.1:9444"
    with pytest.raises(SystemExit):
        parse_args(["--host", "0.0.0.0", "--http"])  # loopback only


def test_artifacts_paths(tmp_path: Path):
    arts = Artifacts(tmp_path / "root")
    shot = arts.new_path("screenshots", "p1 page/../x", ".png")
    other = arts.new_path("screenshots", "p1 page/../x", ".png")
    assert shot != other and shot.parent == arts.root / "screenshots" and shot.suffix == ".png"
    assert ".." not in shot.name and "/" not in shot.name
    assert (arts.root / ".gitignore").read_text().strip().endswith("*")
    assert arts.resolve_inside("screenshots/a.png") == arts.root / "screenshots" / "a.png"
    assert arts.resolve_inside("a.csv", kind="downloads") == arts.root / "downloads" / "a.csv"
    assert arts.relative(shot) == f"screenshots/{shot.name}"
    (tmp_path / "outside").write_text("x")
    (arts.root / "escape").symlink_to(tmp_path / "outside")
    for bad in ("../outside", "/etc/passwd", "escape", "downloads/../../../outside"):
        with pytest.raises(ToolFailure) as info:
            arts.resolve_inside(bad, kind="downloads" if bad.startswith("downloads") else None)
        assert info.value.code == ErrorCode.PATH_OUTSIDE_ARTIFACTS


class StepsArgs(ActionArgs):
    steps: int = Field(3, description="How many progress steps")


async def _steps(ctx, args: StepsArgs) -> ActionResult:
    for i in range(args.steps):
        await ctx.report_progress(i + 1, args.steps, f"step {i + 1}")
    return ActionResult(text="done", data={"steps": args.steps})


async def test_handlers_report_progress(tmp_path: Path):
    spec = ActionSpec("browser_session", "steps", StepsArgs, _steps, "Progress", legacy="browser_steps")
    server = build_server(Settings(artifact_dir=tmp_path), manager=None, specs=[spec])
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with Client(server) as client:
        result = await client.call_tool("browser_session", {"action": "steps"}, progress_callback=on_progress)
        quiet = await client.call_tool("browser_steps", {"steps": 2})  # no token: progress is a no-op
    assert not result.is_error and not quiet.is_error
    # the handler's steps are in the messages (prefixed by the action); the value is the call's
    # elapsed seconds, growing with every notification as the spec wants
    assert [m for _, _, m in seen] == ["steps: step 1", "steps: step 2", "steps: step 3"]
    values = [v for v, _, _ in seen]
    assert values == sorted(set(values)) and values[0] > 0
