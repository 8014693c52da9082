"""docs/configuration.md lists every setting and flag the code has, with the code's defaults."""

from __future__ import annotations

import contextlib
import io
import re
from typing import Any

import paths
import pytest

from mcp_server.cli import main as cli
from mcp_server.server.settings import ENV_NAMES, Settings

DOC = paths.ROOT / "docs" / "configuration.md"


def _rows() -> list[str]:
    return [line for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| ")]


def _row_for(token: str) -> str:
    matches = [row for row in _rows() if f"`{token}`" in row.split("|")[1] or f"`{token}`" in row.split("|")[2]]
    assert len(matches) == 1, f"expected one table row for {token}, found {len(matches)}"
    return matches[0]


def _default_cell(value: Any) -> str:
    """How the page writes a default: `true`, `300`, `a,b`, `empty`, `unset`."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, list):
        return f"`{','.join(value)}`" if value else "empty"
    return f"`{value}`"


def _flags() -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli.parse_args(["--help"])
    return sorted(set(re.findall(r"(?<![\w-])--(?!no-)[a-z][a-z-]+", out.getvalue())) - {"--help"})


@pytest.mark.parametrize("attr", sorted(ENV_NAMES))
def test_every_environment_variable_is_documented_with_its_default(attr: str) -> None:
    row = _row_for(ENV_NAMES[attr])
    default_column = row.split("|")[3]
    expected = _default_cell(Settings.model_fields[attr].get_default(call_default_factory=True))
    assert expected in default_column, f"{ENV_NAMES[attr]}: the page says {default_column.strip()!r}, code {expected}"


def test_every_flag_is_documented() -> None:
    flags = _flags()
    assert "--http" in flags and "--port" in flags
    documented = " ".join(row.split("|")[2] for row in _rows())
    missing = [flag for flag in flags if f"`{flag}`" not in documented and f"`{flag} /" not in documented]
    assert not missing, f"flags missing from docs/configuration.md: {missing}"


def test_flag_defaults_match_the_parser() -> None:
    ns = cli.parse_args([])
    assert f"`{ns.port}`" in _row_for("--port").split("|")[3]
    assert f"`{ns.host}`" in _row_for("--host").split("|")[3]
    assert f"`{ns.log_level}`" in _row_for("--log-level").split("|")[3]


def test_no_documented_variable_the_code_does_not_know() -> None:
    documented = set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)`", DOC.read_text(encoding="utf-8"), re.M))
    assert documented == set(ENV_NAMES.values())
