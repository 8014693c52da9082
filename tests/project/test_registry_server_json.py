"""The MCP registry entry (``server.json``) is valid and says what the package really is.

The registry's own schema (vendored in tests/project/schemas/, see its README) checks the form;
what a schema cannot know is checked against the code: the version is pyproject's, the PyPI
package and its ``mcp-browser-debug`` command exist, every environment variable listed is one
the server reads (``ENV_NAMES`` in mcp_server/server/settings.py) with the default and choices the
settings have, a secret setting is marked ``isSecret``, and the README carries the ``mcp-name``
line by which the registry verifies that the PyPI package belongs to this server.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
import typing
from typing import Any

import pytest
from jsonschema import Draft7Validator
from paths import ROOT

from mcp_server.server.settings import ENV_NAMES, Settings

SCHEMA = json.loads((ROOT / "tests" / "project" / "schemas" / "server.schema.json").read_text(encoding="utf-8"))
SERVER = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
ATTRIBUTE = {name: attr for attr, name in ENV_NAMES.items()}


def _errors(document: dict[str, Any]) -> list[str]:
    validator = Draft7Validator(SCHEMA, format_checker=Draft7Validator.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


def _package() -> dict[str, Any]:
    (package,) = SERVER["packages"]
    return typing.cast(dict[str, Any], package)


def test_server_json_matches_the_registry_schema() -> None:
    assert SERVER["$schema"] == SCHEMA["$id"], "server.json names another schema revision than the vendored one"
    assert _errors(SERVER) == []


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("name",), "mcp-browser-debug"),  # no namespace
        (("description",), "x" * 101),  # over the registry's 100 characters
        (("packages", 0, "version"), "latest"),
        (("packages", 0, "transport", "type"), "websocket"),
    ],
)
def test_the_schema_check_rejects_a_broken_entry(path: tuple[str | int, ...], value: str) -> None:
    broken = copy.deepcopy(SERVER)
    holder: Any = broken
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
    assert _errors(broken), f"{path} = {value!r} passed the schema"


def test_the_entry_is_the_pypi_package_of_this_version_on_stdio() -> None:
    package = _package()
    assert SERVER["version"] == package["version"] == PROJECT["version"]
    assert SERVER["description"] == PROJECT["description"]
    assert (package["registryType"], package["identifier"]) == ("pypi", PROJECT["name"])
    assert package["transport"] == {"type": "stdio"}
    # uvx runs the command named like the package: it must be one of the package's commands.
    assert package["runtimeHint"] == "uvx" and package["identifier"] in PROJECT["scripts"]


def test_the_name_and_repository_have_one_owner_and_the_readme_proves_it() -> None:
    match = re.fullmatch(r"io\.github\.([\w-]+)/([\w.-]+)", SERVER["name"])
    assert match, f"{SERVER['name']} is not io.github.<owner>/<name>: the registry ties that namespace to GitHub"
    owner, server_name = match.groups()
    assert server_name == PROJECT["name"]
    assert SERVER["repository"] == {"url": f"https://github.com/{owner}/{PROJECT['name']}", "source": "github"}
    # PyPI serves the README as the package's description; the registry looks for this line there.
    assert PROJECT["readme"] == "README.md"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"<!-- mcp-name: {SERVER['name']} -->" in readme


def _default_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else f"{value:g}" if isinstance(value, float) else str(value)


def test_every_variable_is_a_setting_with_its_default_and_choices() -> None:
    variables = _package()["environmentVariables"]
    names = [variable["name"] for variable in variables]
    assert len(names) == len(set(names))
    unknown = sorted(set(names) - set(ATTRIBUTE))
    assert not unknown, f"server.json lists variables the server does not read: {unknown}"
    assert {"MCP_ARTIFACT_DIR", "PLAYWRIGHT_CDP_URL", "BROWSER_HEADLESS", "CHROME_PATH", "ALLOWED_URLS"} <= set(names)
    for variable in variables:
        field = Settings.model_fields[ATTRIBUTE[variable["name"]]]
        assert variable["description"].strip(), variable["name"]
        if "default" in variable:
            assert variable["default"] == _default_text(field.default), variable["name"]
        if "choices" in variable:
            assert tuple(variable["choices"]) == typing.get_args(field.annotation), variable["name"]
        if field.annotation is bool:
            assert variable.get("format") == "boolean", variable["name"]
        # A setting kept out of the settings' repr is a secret (MCP_HTTP_TOKEN): clients must hide it.
        assert variable.get("isSecret", False) == (not field.repr), variable["name"]
