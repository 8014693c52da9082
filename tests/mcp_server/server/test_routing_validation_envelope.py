"""The MCP framework on its own: routing, validation, envelope, error mapping, schemas, toolsets.

These run through the SDK's real in-memory client against a server built from a small action
table of this module's own (pure routing logic needs no browser); the browser-backed actions
are tested in tests/mcp_server/server/test_actions_match_output_schemas.py.
"""

from __future__ import annotations

import asyncio
import json
from typing import Literal

import jsonschema
import pytest
from mcp.client import Client
from pydantic import Field

from cdp_core.errors import CDPError, CDPTimeout, ConnectionClosed
from mcp_server.server.app import build_server
from mcp_server.server.registry import ActionArgs, ActionResult, ActionSpec
from mcp_server.server.schema import args_schema, condensed_schema
from mcp_server.server.settings import Settings
from targets.errors import ErrorCode, ToolFailure


class EchoArgs(ActionArgs):
    text: str = Field(description="What to echo")
    times: int = Field(1, ge=1, le=5, description="Repeat count")
    mode: Literal["plain", "loud"] | None = Field(None, description="Style")


class BoomArgs(ActionArgs):
    kind: Literal["tool", "cdp", "closed", "timeout", "bug"] = Field(description="What to raise")


class FakeManager:
    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.state = {"selected": "p1"}
        self.active = 0
        self.max_active = 0
        self.active_target = None  # no browser: the answers' last pass has no relaunch to tell
        self.last_relaunch = None


async def echo(ctx, args: EchoArgs) -> ActionResult:
    text = args.text * args.times
    if args.mode == "loud":
        text = text.upper()
    ctx.manager.active += 1
    ctx.manager.max_active = max(ctx.manager.max_active, ctx.manager.active)
    await asyncio.sleep(0.01)
    ctx.manager.active -= 1
    return ActionResult(text=f"echo {text}", data={"echo": text, "status": "shadowed"})


async def boom(ctx, args: BoomArgs) -> ActionResult:
    if args.kind == "tool":
        raise ToolFailure(ErrorCode.AMBIGUOUS_MATCH, "2 pages match", hint="be precise", candidates=[{"page_id": 0}])
    if args.kind == "cdp":
        raise CDPError("DOM.getDocument", -32000, "nope")
    if args.kind == "closed":
        raise ConnectionClosed("socket gone")
    if args.kind == "timeout":
        raise CDPTimeout("Runtime.evaluate", 1)
    raise ZeroDivisionError("bug")


SPECS = [
    ActionSpec("browser_session", "echo", EchoArgs, echo, "Echo text", legacy="browser_echo", read_only=True),
    ActionSpec("browser_session", "boom", BoomArgs, boom, "Raise", legacy=None),
    ActionSpec("browser_interact", "poke", EchoArgs, echo, "Poke", legacy="browser_poke"),
]


def make(toolset: str = "all", tmp_path=None):
    settings = Settings(artifact_dir=tmp_path or ".mcp-browser-artifacts")
    manager = FakeManager()
    return build_server(settings, manager, specs=SPECS, toolset=toolset), manager


def validate(tool, result) -> None:
    assert result.structured_content is not None
    jsonschema.validate(result.structured_content, tool.output_schema)


async def test_tools_list_per_toolset():
    expected = {
        "condensed": {"browser_session", "browser_interact"},
        "legacy": {"browser_echo", "browser_poke"},
        "all": {"browser_session", "browser_interact", "browser_echo", "browser_poke"},
    }
    for toolset, names in expected.items():
        server, _ = make(toolset)
        async with Client(server) as client:
            tools = (await client.list_tools()).tools
        assert {t.name for t in tools} == names
        for tool in tools:
            assert tool.output_schema is not None
            jsonschema.Draft202012Validator.check_schema(tool.input_schema)
            jsonschema.Draft202012Validator.check_schema(tool.output_schema)


async def test_condensed_schema_is_union_with_action_enum():
    schema = condensed_schema(SPECS[:2])
    assert schema["required"] == ["action"]
    assert schema["properties"]["action"]["enum"] == ["echo", "boom"]
    assert set(schema["properties"]) == {"action", "text", "times", "mode", "kind", "session"}  # session: whose view
    # Optional noise collapsed: no anyOf-with-null, no titles, enums kept.
    mode = schema["properties"]["mode"]
    assert mode["enum"] == ["plain", "loud"] and "anyOf" not in mode
    assert "title" not in json.dumps(schema)
    assert "required by echo" in schema["properties"]["text"]["description"]
    legacy = args_schema(EchoArgs)
    assert legacy["required"] == ["text"] and legacy["additionalProperties"] is False


async def test_envelope_condensed_and_legacy(tmp_path):
    server, _ = make(tmp_path=tmp_path)
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        condensed = await client.call_tool("browser_session", {"action": "echo", "text": "ab", "times": 2})
        legacy = await client.call_tool("browser_echo", {"text": "ab", "times": 2})
    for name, result in (("browser_session", condensed), ("browser_echo", legacy)):
        assert not result.is_error
        validate(tools[name], result)
        assert result.content[0].text == "echo abab"
    sc = condensed.structured_content
    assert sc["status"] == "ok" and sc["schemaVersion"] and sc["message"] == "echo abab"
    assert sc["echo"] == "abab"
    assert sc["data_status"] == "shadowed"  # an action key that collides with the envelope is kept aside
    assert sc["adapter"] == {"entryTool": "browser_session", "action": "echo", "legacyTool": "browser_echo"}
    assert "adapter" not in legacy.structured_content
    assert {k: v for k, v in sc.items() if k != "adapter"} == legacy.structured_content


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("browser_session", {"action": "nope"}, ErrorCode.UNKNOWN_ACTION),
        ("browser_session", {"action": ["echo"]}, ErrorCode.UNKNOWN_ACTION),  # found by test_fuzz_random_arguments
        ("browser_session", {"action": "poke", "text": "x"}, ErrorCode.UNKNOWN_ACTION),
        ("browser_session", {"text": "x"}, ErrorCode.INVALID_ARGUMENT),
        ("browser_session", {"action": "echo"}, ErrorCode.INVALID_ARGUMENT),
        ("browser_session", {"action": "echo", "text": "x", "bogus": 1}, ErrorCode.INVALID_ARGUMENT),
        ("browser_session", {"action": "echo", "text": "x", "times": 9}, ErrorCode.INVALID_ARGUMENT),
        ("browser_session", {"action": "echo", "text": "x", "kind": "tool"}, ErrorCode.INVALID_ARGUMENT),
        ("browser_echo", {"text": "x", "action": "echo"}, ErrorCode.INVALID_ARGUMENT),
        ("browser_session", {"action": "boom", "kind": "tool"}, ErrorCode.AMBIGUOUS_MATCH),
        ("browser_session", {"action": "boom", "kind": "cdp"}, ErrorCode.CDP_ERROR),
        ("browser_session", {"action": "boom", "kind": "closed"}, ErrorCode.BROWSER_DISCONNECTED),
        ("browser_session", {"action": "boom", "kind": "timeout"}, ErrorCode.TIMEOUT),
        ("browser_session", {"action": "boom", "kind": "bug"}, ErrorCode.INTERNAL_ERROR),
    ],
)
async def test_errors_are_structured(tool, args, code, tmp_path):
    server, manager = make(tmp_path=tmp_path)
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool(tool, args)
        # the server is still fine after any error
        after = await client.call_tool("browser_session", {"action": "echo", "text": "ok"})
    assert result.is_error
    sc = result.structured_content
    assert sc["status"] == "error" and sc["code"] == code and sc["message"]
    assert result.content[0].text.startswith(f"Error {code}:")
    if tool in tools:
        validate(tools[tool], result)
    if code == ErrorCode.AMBIGUOUS_MATCH:
        assert sc["candidates"] == [{"page_id": 0}] and sc["hint"] == "be precise"
        assert "Candidates:" in result.content[0].text
    if code == ErrorCode.INVALID_ARGUMENT and "action" in args:
        assert sc["errors"] and all(e["field"] for e in sc["errors"])
    assert not after.is_error
    assert manager.state == {"selected": "p1"}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_unknown_tool_is_a_protocol_error(mode, tmp_path):
    """The spec: calling a tool that does not exist is JSON-RPC -32602, not a result the model reads."""
    from mcp.shared.exceptions import MCPError

    server, manager = make(tmp_path=tmp_path)
    async with Client(server, mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("browser_missing", {})
        after = await client.call_tool("browser_session", {"action": "echo", "text": "ok"})
    assert caught.value.error.code == -32602 and "browser_missing" in caught.value.error.message
    assert not after.is_error and manager.state == {"selected": "p1"}


async def test_no_deprecated_logging_capability_yet_older_clients_may_still_set_a_level(tmp_path):
    """SEP-2577 deprecates logging: not declared, no notifications/message; a setLevel still answers."""
    import logging
    import warnings

    received: list = []

    async def on_log(params) -> None:
        received.append(params)

    server, _ = make(tmp_path=tmp_path)
    async with Client(server, mode="legacy", logging_callback=on_log) as client:
        capabilities = client.server_capabilities
        assert capabilities.logging is None and capabilities.tools is not None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the client side of a deprecated request warns too
            await client.set_logging_level("warning")  # an older client's request: answered, not an error
        logging.getLogger("mcp_server.test").warning("body fetch of #%d failed", 7)
        after = await client.call_tool("browser_session", {"action": "echo", "text": "ok"})
        await asyncio.sleep(0.2)
    assert not after.is_error
    assert received == []  # the server's diagnostics are on stderr, never sent as log messages


async def test_unknown_field_names_the_field(tmp_path):
    server, _ = make(tmp_path=tmp_path)
    async with Client(server) as client:
        result = await client.call_tool("browser_session", {"action": "echo", "text": "x", "bogus": 1})
    assert result.structured_content["errors"] == [{"field": "bogus", "problem": "unknown field"}]


async def test_calls_are_serialised_by_the_manager_lock(tmp_path):
    server, manager = make(tmp_path=tmp_path)
    async with Client(server) as client:
        results = await asyncio.gather(
            *(client.call_tool("browser_session", {"action": "echo", "text": str(i)}) for i in range(10))
        )
    assert all(not r.is_error for r in results)
    assert manager.max_active == 1


async def test_legacy_mode_framing(tmp_path):
    # mode="legacy" goes through real JSON-RPC message framing (initialize handshake).
    server, _ = make(tmp_path=tmp_path)
    async with Client(server, mode="legacy") as client:
        result = await client.call_tool("browser_interact", {"action": "poke", "text": "z"})
    assert result.structured_content["adapter"]["legacyTool"] == "browser_poke"


async def test_invalid_argument_hint_lists_the_fields(tmp_path):
    server, _ = make(tmp_path=tmp_path)
    async with Client(server) as client:
        result = await client.call_tool("browser_session", {"action": "echo", "txt": "x"})
    assert result.structured_content["hint"] == "fields of echo (? = optional): text, times?, mode?"
    assert {e["field"] for e in result.structured_content["errors"]} == {"txt", "text"}


def test_a_cdp_reply_without_a_field_it_must_carry_is_said_as_a_malformed_reply():
    """Third attack review: a fake CDP server's reply without ``objectId`` ended in INTERNAL_ERROR KeyError."""
    from mcp_server.server.envelope import failure_from_exception

    failure = failure_from_exception(KeyError("objectId"), tool="browser_interact", action="click")
    assert failure.code == "CDP_ERROR" and "malformed CDP reply" in failure.message, failure.message
    assert "'objectId'" in failure.message and "KeyError" not in failure.message
    # a KeyError on a name of ours is still a bug, and said as one
    bug = failure_from_exception(KeyError("appErrorCount"), tool="browser_session", action="debug_bundle")
    assert bug.code == "INTERNAL_ERROR"
