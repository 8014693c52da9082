"""The action table: every action of every tool, declared once, next to its code.

An action module declares its handlers with :func:`action`::

    class NetworkListArgs(ActionArgs):
        url_contains: str | None = Field(None, description="Substring of the URL")

    @action("browser_session", "network_list", NetworkListArgs, read_only=True, lock="read")
    async def network_list(ctx: ToolContext, args: NetworkListArgs) -> ActionResult:
        ...
        return ActionResult(text="3 requests", data={"entries": [...]})

From this table the server builds the condensed tools (``browser_session`` and
``browser_interact``: ``action`` plus the union of the actions' fields), the flat legacy
tools (``legacy="browser_navigate"``: same handler, same code path) and the reverse map
legacy tool -> (tool, action) used for deprecation hints. Handlers raise
:class:`targets.errors.ToolFailure` for anything an agent can act on.

``lock`` says what the action needs while it runs (see :mod:`mcp_server.server.locking`): ``read``
(takes nothing: reads of the capture stores, status, saved files), ``page`` (the selected
page to itself: scripts, input, navigation), ``poll`` (long waits that take the page per
step) or ``state`` (changes the active browser or page; the default, the safe choice).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from mcp_server.server.locking import LOCK_MODES, LockMode

if TYPE_CHECKING:
    from mcp_server.server.context import ToolContext

__all__ = [
    "Answer",
    "NoArgs",
    "ActionArgs",
    "ActionResult",
    "ActionSpec",
    "action",
    "ACTIONS",
    "actions_for",
    "legacy_map",
]

CONDENSED_TOOLS = ("browser_session", "browser_interact")


class ActionArgs(BaseModel):
    """Base of every action's arguments: unknown fields are refused, not ignored.

    ``defer_build``: each model's validator is built at its first call, not when the action
    modules load (the start would build about a hundred that a session mostly never uses).
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)


@dataclass
class ActionResult:
    """What a handler returns: short text for ``content``, reusable data for ``structuredContent``.

    ``data`` holds the action's own keys (``pages``, ``entries``, ...); the envelope
    (``schemaVersion``, ``status``, ``message``, ``adapter``) is added by the server.
    ``images`` are optional (base64 PNG, mime) pairs, sent only when the call asked.
    ``status`` is ``ok``, or ``waiting`` for a long wait cut at the call bound: not an error,
    not final either; the data says how to continue (``wait_for``: call it again).
    ``message``: the envelope's short summary when the handler has a better one than the text's
    first line cut short (the data carries the facts; the message only names what happened).
    ``plain``: the handler vouches that ``data`` holds only JSON types (str, int, float, bool,
    None, dicts and lists of them), so the envelope does not convert it again (a long list
    answer would spend its time there copying rows of strings).
    """

    text: str
    data: dict[str, Any] = field(default_factory=dict)
    images: list[tuple[str, str]] = field(default_factory=list)
    status: Literal["ok", "waiting"] = "ok"
    plain: bool = False
    message: str | None = None


class Answer(BaseModel):
    """Base of answer models: extra keys allowed (the envelope adds its own).

    ``defer_build``: their schemas are built at the first ``tools/list`` (outputSchemas), not
    when the action modules load.
    """

    model_config = ConfigDict(extra="allow", defer_build=True)


class NoArgs(ActionArgs):
    """The arguments of an action that takes none (beyond ``action``)."""


Handler = Callable[["ToolContext", Any], Awaitable[ActionResult]]


@dataclass(frozen=True)
class ActionSpec:
    tool: str
    name: str
    args: type[ActionArgs]
    handler: Handler
    description: str
    legacy: str | None = None
    read_only: bool = False
    destructive: bool = False
    experimental: bool = False
    #: optional model of the action's ``data`` (its answer without the envelope): the flat legacy
    #: tool then declares it in its outputSchema. The condensed tools keep the plain envelope.
    result: type[BaseModel] | None = None
    #: what the call holds while it runs: read | page | poll | state (mcp_server/server/locking.py)
    lock: LockMode = "state"
    #: for an action that can take more than a second: how long, and what its progress messages say
    #: (docs/tools.md shows it; every call gets progress heartbeats, ctx.status sets their text)
    takes: str = ""


#: (tool, action) -> spec, filled by the action modules at import time.
ACTIONS: dict[tuple[str, str], ActionSpec] = {}


def action(
    tool: str,
    name: str,
    args: type[ActionArgs] = ActionArgs,
    *,
    description: str = "",
    legacy: str | None = None,
    read_only: bool = False,
    destructive: bool = False,
    experimental: bool = False,
    result: type[BaseModel] | None = None,
    lock: LockMode = "state",
    takes: str = "",
) -> Callable[[Handler], Handler]:
    """Register ``handler`` as ``tool``'s ``action`` (and as the flat tool ``legacy``)."""
    if tool not in CONDENSED_TOOLS:
        raise ValueError(f"unknown tool {tool!r}")
    if lock not in LOCK_MODES:
        raise ValueError(f"lock must be one of {', '.join(LOCK_MODES)}, not {lock!r}")

    def register(handler: Handler) -> Handler:
        key = (tool, name)
        if key in ACTIONS:
            raise ValueError(f"action {tool}.{name} registered twice")
        doc = description or (handler.__doc__ or "").strip().split("\n")[0]
        ACTIONS[key] = ActionSpec(
            tool, name, args, handler, doc, legacy, read_only, destructive, experimental, result, lock, takes
        )
        return handler

    return register


def actions_for(tool: str) -> list[ActionSpec]:
    """The actions of one condensed tool, in registration order."""
    return [spec for (t, _), spec in ACTIONS.items() if t == tool]


def legacy_map() -> dict[str, tuple[str, str]]:
    """Legacy tool name -> (condensed tool, action): the one table for deprecation hints."""
    return {spec.legacy: (spec.tool, spec.name) for spec in ACTIONS.values() if spec.legacy}
