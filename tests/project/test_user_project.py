"""A test author's project outside the checkout, with only the built wheel: every runner, evidence, kill -9.

One fresh virtualenv for the module (the wheel, pytest, pytest-asyncio and pytest-xdist from
PyPI, never this checkout) and a project folder holding docs/testing.md's ``test_orders.py``.
Each command of that section runs as written (``pytest`` is the venv's, port 9222 becomes a
free one), so the docs and what passes cannot drift apart:

- the same file passes under anyio, pytest-asyncio strict and auto, and with ``-n 2``; each
  mode's tests make real CDP round trips (``navigate``, ``Runtime.evaluate``) and an MCP call;
- a failing test leaves a screenshot, its DOM, its console and a trace, named in the report;
- ``mcp-browser chromium --port N`` stays up, serves every docs/cdp_core.md example and the
  suite through ``--cdp-url``, and stops cleanly;
- a set-up that cannot share the test's loop fails at once with the fix in its message, and an
  unexpected console error fails its test at teardown (``console_errors``);
- ``kill -9`` of pytest leaves no Chromium and no profile behind.

The module adds about 2 minutes (venv ~10 s once, then ~10-20 s per pytest run).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from paths import ROOT
from test_packaging import _env, _run, _tool

TESTING = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
SECTION = TESTING.split("## One file for every runner", 1)[1].split("\n## ", 1)[0]
ORDERS = re.findall(r"```python\n(.*?)```", SECTION, re.S)[0]
COMMANDS = [
    line.split("  #", 1)[0].strip()
    for line in re.findall(r"```bash\n(.*?)```", SECTION, re.S)[0].splitlines()
    if line.strip() and not line.startswith("pip install")
]
CDP_EXAMPLES = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "cdp_core.md").read_text(encoding="utf-8"), re.S)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel with pytest, pytest-asyncio and pytest-xdist in a fresh virtualenv (built once)."""
    out = tmp_path_factory.mktemp("dist")
    _run([_tool("uv"), "build", "--wheel", "--out-dir", str(out), str(ROOT)], env=_env())
    (wheel,) = out.glob("mcp_browser_debug-*.whl")
    venv = tmp_path_factory.mktemp("user") / "venv"
    uv = _tool("uv")
    _run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)], env=_env())
    packages = [str(wheel), "pytest", "pytest-asyncio", "pytest-xdist"]
    _run([uv, "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), *packages], env=_env())
    return venv


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "test_orders.py").write_text(ORDERS, encoding="utf-8")
    return tmp_path


def _user_env(venv: Path, **extra: str) -> dict[str, str]:
    env = _env(**extra)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    env.pop("MCP_BROWSER_CDP_URL", None)
    return env


def _shell(command: str, venv: Path, cwd: Path, port: int = 9222) -> subprocess.CompletedProcess[str]:
    """One documented command line, as a user types it (with a free port for 9222)."""
    line = command.replace("9222", str(port))
    return subprocess.run(
        ["bash", "-c", line], cwd=cwd, env=_user_env(venv), capture_output=True, text=True, timeout=600
    )


def _command(*needles: str) -> str:
    (line,) = [c for c in COMMANDS if all(n in c for n in needles) and "mcp-browser chromium" not in c]
    return line


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_docs_show_every_command() -> None:
    assert len(COMMANDS) == 7, COMMANDS
    assert "mcp-browser chromium --port 9222 &" in COMMANDS


@pytest.mark.parametrize(
    "needles",
    [("MARK=anyio pytest test_orders.py",), ("asyncio_mode=strict",), ("asyncio_mode=auto",), ("-n 2",)],
    ids=["anyio", "pytest-asyncio-strict", "pytest-asyncio-auto", "xdist-n2"],
)
def test_the_same_file_passes_under_each_runner(needles: tuple[str, ...], venv: Path, project: Path) -> None:
    done = _shell(_command(*needles), venv, project)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert re.search(r"\b4 passed, 1 skipped\b", done.stdout), done.stdout[-3000:]
    if "-n 2" in needles[0]:
        assert "2 workers" in done.stdout or "created: 2/2 workers" in done.stdout, done.stdout[-2000:]


def test_a_failing_test_leaves_a_screenshot_and_its_console_named_in_the_report(venv: Path, project: Path) -> None:
    done = _shell(_command("SHOW_A_FAILURE=1"), venv, project)
    assert done.returncode == 1 and re.search(r"\b1 failed, 4 passed\b", done.stdout), done.stdout[-4000:]
    section = done.stdout.split("mcp-browser evidence", 1)[1].split("short test summary", 1)[0]
    named = {
        Path(line.strip()).name: Path(line.strip()) for line in section.splitlines() if line.strip().startswith("/")
    }
    assert set(named) == {"screenshot.png", "dom.html", "console.txt", "trace.json"}, section
    assert all(path.parent.name.endswith("test_a_failure_leaves_evidence") for path in named.values())
    assert named["screenshot.png"].read_bytes().startswith(b"\x89PNG")
    assert "orders failed 500" in named["console.txt"].read_text(encoding="utf-8")
    assert "<title>Broken</title>" in named["dom.html"].read_text(encoding="utf-8")
    assert '"traceEvents"' in named["trace.json"].read_text(encoding="utf-8")[:200]


def test_the_fixed_port_command_stays_up_serves_the_examples_and_the_suite(venv: Path, project: Path) -> None:
    port = _free_port()
    start = next(c for c in COMMANDS if c.startswith("mcp-browser chromium")).rstrip("&").strip()
    args = start.replace("9222", str(port)).split()
    chrome = subprocess.Popen(
        [str(venv / "bin" / args[0]), *args[1:]], cwd=project, env=_user_env(venv), stdout=subprocess.PIPE, text=True
    )
    try:
        assert chrome.stdout is not None
        first = chrome.stdout.readline()
        assert first.strip() == f"Chromium listening on http://127.0.0.1:{port}", first
        for number, code in enumerate(CDP_EXAMPLES, 1):
            script = project / f"example_{number}.py"
            script.write_text(code, encoding="utf-8")
            env = _user_env(venv, CDP_URL=f"http://127.0.0.1:{port}")
            ran = subprocess.run(
                [str(venv / "bin" / "python"), str(script)], cwd=project, env=env, capture_output=True, text=True
            )
            assert ran.returncode == 0, f"docs/cdp_core.md example {number}:\n{ran.stdout}\n{ran.stderr}"
        suite = _shell(_command("--cdp-url"), venv, project, port)
        assert suite.returncode == 0, suite.stdout[-4000:]
        assert f"browser: <AttachedChrome http://127.0.0.1:{port}>" in suite.stdout
        assert re.search(r"\b4 passed, 1 skipped\b", suite.stdout), suite.stdout[-2000:]
        assert chrome.poll() is None, "the command exited while serving"
    finally:
        chrome.send_signal(signal.SIGTERM)
        code = chrome.wait(30)
    assert code == 0


MODE_ERRORS = """
import pytest


@pytest.mark.asyncio
async def test_module_client_on_a_loop_per_test(mcp_client_module):
    pass


def test_sync_test_with_an_async_fixture(cdp_page):
    pass


@pytest.mark.asyncio
async def test_an_unexpected_console_error_fails_at_teardown(cdp_page, console_errors, artifacts):
    assert artifacts.is_dir() and artifacts.name.endswith("test_an_unexpected_console_error_fails_at_teardown")
    await cdp_page.send("Runtime.evaluate", {"expression": "console.error('checkout exploded')"})
"""


def test_a_loop_the_fixture_cannot_share_is_named_with_its_fix(venv: Path, tmp_path: Path) -> None:
    (tmp_path / "test_modes.py").write_text(MODE_ERRORS, encoding="utf-8")
    done = _shell("pytest -o asyncio_mode=strict test_modes.py", venv, tmp_path)
    assert re.search(r"\b1 passed, 3 errors\b", done.stdout), done.stdout[-3000:]
    assert "unexpected console error: [console error] checkout exploded" in done.stdout, done.stdout[-3000:]
    assert "@pytest.mark.asyncio(loop_scope='module')" in done.stdout, done.stdout[-3000:]
    assert "make test_sync_test_with_an_async_fixture an `async def` test" in done.stdout, done.stdout[-3000:]


HANGS = """
import os
import time
from pathlib import Path


def test_hangs(chromium):
    Path(os.environ["REPORT"]).write_text(f"{chromium.pid} {chromium.profile_dir}")
    time.sleep(300)
"""


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state == "Z"  # exited, waiting for init to reap it


@pytest.fixture
def killed_run(venv: Path, tmp_path: Path) -> Iterator[tuple[int, Path]]:
    (tmp_path / "test_hangs.py").write_text(HANGS, encoding="utf-8")
    report = tmp_path / "started.txt"
    env = _user_env(venv, REPORT=str(report))
    runner = subprocess.Popen([str(venv / "bin" / "pytest"), "-q", "test_hangs.py"], cwd=tmp_path, env=env)
    try:
        deadline = time.monotonic() + 120
        while not report.exists() or not report.read_text().strip():
            assert runner.poll() is None and time.monotonic() < deadline, "pytest never reached the test"
            time.sleep(0.1)
        pid, profile = report.read_text().split()
        runner.send_signal(signal.SIGKILL)
        runner.wait(10)
        yield int(pid), Path(profile)
    finally:
        if runner.poll() is None:
            runner.kill()
        if not _gone(int(pid)):
            os.killpg(int(pid), signal.SIGKILL)


def test_kill_9_of_pytest_leaves_no_chromium_behind(killed_run: tuple[int, Path]) -> None:
    pid, profile = killed_run
    deadline = time.monotonic() + 30  # the watchdog terminates, then kills after 3 s
    while not (_gone(pid) and not profile.exists()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _gone(pid), f"Chromium {pid} outlived the pytest that started it"
    assert not profile.exists(), f"{profile} was left behind"
