"""The package as users get it: the built wheel in a fresh virtualenv, and the README's one-liners.

Everything here starts from the built artifacts, never from this checkout's ``.venv``:

- a fresh virtualenv with only the wheel and pytest runs docs/testing.md's smoke test (the
  four fixtures come from the wheel's ``pytest11`` entry point, no conftest of ours);
- the wheel carries ``py.typed``, the agent skill and both console scripts; importing
  ``cdp_core`` there loads neither the MCP SDK nor Playwright nor pydantic, and pytest's
  import of the plugin loads nothing but the plugin; the install has no dev tools and stays
  under the size the README gives;
- ``mypy --strict`` finds cdp_core's types through the installed ``py.typed``: a user script
  written right passes, one with a wrong parameter type fails;
- the README's install lines run as pasted: the checkout block in a copy of this checkout
  (``uvx --from .``, ``pipx install .``, ``uv build``, then the built wheel through uvx and pip),
  the PyPI block with the PyPI name resolved from the locally built wheel
  (``UV_FIND_LINKS``/``PIP_FIND_LINKS`` stand in for the index until it is published); the
  wheel's description carries the ``mcp-name`` line the MCP registry verifies it by.

uv and pipx come from the dev extras (``.venv/bin``). uv's cache lives in ``.venv/.uv-cache``
so deleting the virtualenv deletes it too; after the first run the module takes ~20 s.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from paths import ROOT

BIN = Path(sys.executable).parent
README = ROOT / "README.md"
SMOKE = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "testing.md").read_text(encoding="utf-8"), re.S)[0]

pytestmark = pytest.mark.slow


def _tool(name: str) -> str:
    path = shutil.which(name, path=str(BIN))
    if path is None:
        pytest.fail(f"{name} is missing from {BIN}: it is a dev dependency (make setup)")
    return path


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    for name in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV"):
        env.pop(name, None)
    env["NO_PROXY"] = "127.0.0.1,localhost,::1"
    env["UV_CACHE_DIR"] = str(ROOT / ".venv" / ".uv-cache")
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def _run(args: list[str] | str, *, timeout: float = 600, **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kwargs)  # type: ignore[call-overload]
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    _run([_tool("uv"), "build", "--wheel", "--out-dir", str(out), str(ROOT)], env=_env())
    (built,) = out.glob("mcp_browser_debug-*.whl")
    return built


@pytest.fixture(scope="module")
def fresh_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    uv = _tool("uv")
    _run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)], env=_env())
    _run([uv, "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), str(wheel), "pytest"], env=_env())
    yield venv


def test_the_wheel_carries_types_skill_plugin_and_both_commands(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        entries = zf.read(entry_points).decode()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        description = zf.read(metadata).decode()
        classifiers = re.findall(r"^Classifier: (.+)$", description, re.M)
    assert {"Typing :: Typed", "Framework :: Pytest"} <= set(classifiers), classifiers
    assert "cdp_core/py.typed" in names
    assert "mcp_server/skills/mcp-browser-automation/SKILL.md" in names
    assert "mcp_server/skills/mcp-browser-automation/references/test-patterns.md" in names
    assert not any(n.startswith(("tests/", "bench/", "scripts/")) for n in names)
    assert "mcp-browser = mcp_server.cli.entry:main" in entries
    assert "mcp-browser-debug = mcp_server.cli.entry:main" in entries
    assert re.search(r"\[pytest11\]\s+mcp_browser = mcp_server.pytest_plugin", entries)
    # The MCP registry finds this line in the description PyPI shows (the README) to verify ownership.
    registry_name = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))["name"]
    assert f"mcp-name: {registry_name}" in description


def test_the_docs_smoke_test_passes_in_a_fresh_venv_with_only_the_wheel(fresh_venv: Path, tmp_path: Path) -> None:
    python = str(fresh_venv / "bin" / "python")
    where = _run([python, "-c", "import mcp_server; print(mcp_server.__file__)"], cwd=tmp_path, env=_env()).stdout
    assert str(fresh_venv) in where, f"mcp_server came from {where.strip()}, not the fresh venv"
    (tmp_path / "test_smoke.py").write_text(SMOKE, encoding="utf-8")
    done = _run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_smoke.py"], cwd=tmp_path, env=_env())
    assert re.search(r"\b4 passed\b", done.stdout), done.stdout[-2000:]
    assert not list(tmp_path.glob("conftest.py"))


#: The server's own packages and what only it needs: a cdp_core user must import none of it.
SERVER_ONLY = {"mcp_server", "targets", "mcp", "playwright", "pydantic", "pydantic_core", "starlette", "uvicorn"}


def _loaded_after(python: Path, imports: str, cwd: Path) -> list[str]:
    code = f"import sys, json; {imports}; print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    loaded = json.loads(_run([str(python), "-c", code], cwd=cwd, env=_env()).stdout)
    return [name for name in loaded if name in SERVER_ONLY]


def test_cdp_core_loads_no_server_dependency_in_the_wheel(fresh_venv: Path, tmp_path: Path) -> None:
    python = fresh_venv / "bin" / "python"
    everything = (
        "import cdp_core, cdp_core.chromium, cdp_core.protocol.network, cdp_core.sourcemap, cdp_core.heap_snapshot;"
        "import cdp_core.recorders.network, cdp_core.recorders.console, cdp_core.recorders.tracing;"
        "import cdp_core.recorders.accessibility, cdp_core.recorders.network.har, cdp_core.recorders.source_maps"
    )
    assert _loaded_after(python, everything, tmp_path) == []
    # The one opt-in: cdp_core.models are pydantic models (docs/cdp_core.md says so).
    assert _loaded_after(python, "import cdp_core.models", tmp_path) == ["pydantic", "pydantic_core"]
    # pytest imports the plugin in every run of a venv it is installed in: it must stay light.
    assert _loaded_after(python, "import mcp_server.pytest_plugin", tmp_path) == ["mcp_server"]  # itself only


def test_mypy_strict_types_a_user_script_from_the_installed_wheel(fresh_venv: Path, tmp_path: Path) -> None:
    """The wheel's ``py.typed`` in use: mypy resolves cdp_core from the fresh venv's site-packages.

    Without the marker mypy would see ``cdp_core`` as untyped (an error under ``--strict``) and
    could catch nothing; the scripts are tests/project/test_typing.py's (one right, one with mistakes).
    """
    from test_typing import RIGHT, WRONG

    for name, code in (("user_right.py", RIGHT), ("user_wrong.py", WRONG)):
        (tmp_path / name).write_text(code, encoding="utf-8")
    python = str(fresh_venv / "bin" / "python")
    command = [sys.executable, "-m", "mypy", "--strict", "--python-executable", python, "--no-error-summary"]
    command += ["--cache-dir", str(tmp_path / ".mypy-cache")]
    right = subprocess.run([*command, "user_right.py"], cwd=tmp_path, env=_env(), capture_output=True, text=True)
    assert right.returncode == 0 and not right.stdout.strip(), right.stdout + right.stderr
    wrong = subprocess.run([*command, "user_wrong.py"], cwd=tmp_path, env=_env(), capture_output=True, text=True)
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    assert 'Argument "expression" to "evaluate" of "RuntimeDomain" has incompatible type "int"' in wrong.stdout
    assert 'Unexpected keyword argument "ur" for "navigate" of "PageDomain"' in wrong.stdout


#: The README's size of a user install (wheel + pytest: ~210 MB, 160 MB of it Playwright's driver), with room.
USER_INSTALL_MB = 260


def test_the_wheel_has_no_dev_tools_and_finds_its_skill(fresh_venv: Path, tmp_path: Path) -> None:
    listed = _run([_tool("uv"), "pip", "list", "--python", str(fresh_venv / "bin" / "python")], env=_env()).stdout
    installed = {line.split()[0].lower() for line in listed.splitlines()[2:] if line.strip()}
    assert {"mcp-browser-debug", "playwright", "mcp", "websockets", "httpx", "pytest"} <= installed
    assert not installed & {"ruff", "mypy", "hypothesis", "uv", "pipx"}
    files = [os.path.join(folder, name) for folder, _, names in os.walk(fresh_venv) for name in names]
    megabytes = sum(os.lstat(path).st_size for path in files) / 1e6
    assert megabytes < USER_INSTALL_MB, f"a user's install takes {megabytes:.0f} MB (README says ~210 MB)"
    path = _run([str(fresh_venv / "bin" / "mcp-browser"), "skill", "path"], cwd=tmp_path, env=_env()).stdout.strip()
    assert path.startswith(str(fresh_venv)) and (Path(path) / "SKILL.md").is_file()
    home = tmp_path / "home"
    _run([str(fresh_venv / "bin" / "mcp-browser"), "skill", "install", "--client", "codex"], env=_env(HOME=str(home)))
    installed_skill = home / ".agents" / "skills" / "mcp-browser-automation" / "SKILL.md"
    assert installed_skill.read_bytes() == (Path(path) / "SKILL.md").read_bytes()


def _install_blocks() -> tuple[list[str], list[str]]:
    """The README's two install blocks, as a user pastes them: in a checkout, and from PyPI."""
    section = README.read_text(encoding="utf-8").split("## Install", 1)[1].split("\n## ", 1)[0]
    blocks = [block.splitlines() for block in re.findall(r"```bash\n(.*?)```", section, re.S)]
    checkout = [block for block in blocks if "uvx --from . mcp-browser --version" in block[0]]
    pypi = [block for block in blocks if block[0].startswith("uvx mcp-browser-debug")]
    assert len(checkout) == len(pypi) == 1, blocks
    return checkout[0], pypi[0]


def _command(line: str) -> str:
    return line.split("  #", 1)[0].strip()


def test_the_readme_install_lines_need_no_editing() -> None:
    checkout, pypi = _install_blocks()
    commands = [_command(line) for line in checkout + pypi]
    assert not [line for line in commands if "OWNER" in line or "git+" in line], "a placeholder to edit before pasting"
    assert commands == [
        "uvx --from . mcp-browser --version",
        "pipx install .",
        "uv build",
        "uvx --from dist/mcp_browser_debug-*.whl mcp-browser --version",
        "python -m pip install dist/mcp_browser_debug-*.whl",
        "uvx mcp-browser-debug --version",
        "uvx --from mcp-browser-debug mcp-browser --version",
        "pipx install mcp-browser-debug",
    ]
    assert not any(re.search(r"(uvx|pipx install) mcp-browser(\s|$)", line) for line in commands), "someone else's"


def _pipx_env(home: Path, **extra: str) -> dict[str, str]:
    return _env(PIPX_HOME=str(home / "home"), PIPX_BIN_DIR=str(home / "bin"), PIPX_MAN_DIR=str(home / "man"), **extra)


def _assert_pipx_installed_both_commands(home: Path, env: dict[str, str], cwd: Path) -> None:
    for name in ("mcp-browser", "mcp-browser-debug"):
        version = _run([str(home / "bin" / name), "--version"], cwd=cwd, env=env).stdout
        assert version.startswith("mcp-browser "), version


def _checkout_copy(into: Path) -> Path:
    """The files of this checkout as git sees them (committed or not, never what .gitignore keeps out)."""
    listed = _run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT).stdout
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, into / name)
    return into


def test_the_checkout_block_runs_as_pasted(tmp_path: Path) -> None:
    """Pasted in a checkout's folder: the server runs from the source, from pipx and from the built wheel."""
    checkout_lines, _ = _install_blocks()
    checkout = _checkout_copy(tmp_path / "mcp-browser-debug")
    # "The active virtualenv" of the last line: a fresh one with pip, first on PATH (never the checkout's .venv).
    venv = tmp_path / "active"
    _run([_tool("uv"), "venv", "--quiet", "--seed", "--python", sys.executable, str(venv)], env=_env())
    home = tmp_path / "pipx"
    env = _pipx_env(home)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    done = _run(["bash", "-euo", "pipefail", "-c", "\n".join(checkout_lines)], cwd=checkout, env=env)
    versions = re.findall(r"^mcp-browser (\S+)$", done.stdout, re.M)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert versions == [project["version"]] * 2, done.stdout[-2000:]
    assert len(list((checkout / "dist").glob("mcp_browser_debug-*.whl"))) == 1
    assert len(list((checkout / "dist").glob("mcp_browser_debug-*.tar.gz"))) == 1
    _assert_pipx_installed_both_commands(home, env, tmp_path)
    installed = _run([str(venv / "bin" / "mcp-browser"), "--version"], cwd=tmp_path, env=env).stdout
    assert installed.strip() == f"mcp-browser {project['version']}"


@pytest.mark.parametrize("line", _install_blocks()[1])
def test_the_pypi_lines_run_with_the_wheel_standing_in_for_pypi(line: str, wheel: Path, tmp_path: Path) -> None:
    home = tmp_path / "pipx"
    # What PyPI will serve once the package is published: the wheel built from this tree.
    env = _pipx_env(home, UV_FIND_LINKS=str(wheel.parent), PIP_FIND_LINKS=str(wheel.parent))
    done = _run(["bash", "-c", _command(line)], cwd=tmp_path, env=env)
    if line.startswith("pipx"):
        _assert_pipx_installed_both_commands(home, env, tmp_path)
    else:
        assert re.match(r"mcp-browser \d+\.\d+", done.stdout), done.stdout
