"""The MCP server: tools/call run on the SDK's lowlevel Server (tools/list: :mod:`.tool_catalog`).

The lowlevel :class:`mcp.server.Server` is used (not ``MCPServer``) because the condensed tools
need hand-made input schemas (``action`` plus a union of fields) while each call is validated
against the chosen action's own model, and every tool declares the same envelope outputSchema.

Routing: ``browser_session`` / ``browser_interact`` pick the action from ``action``; each flat
legacy tool (``browser_navigate``, ...) is bound to one action. Both paths run the same handler
under the same locks, so a legacy tool and its condensed twin give the same answer (the
condensed one adds ``adapter``).

Concurrency: calls run at once; each takes what its action declares (``lock``: read, page,
poll, state; see :mod:`mcp_server.server.locking`), so reads never wait behind a long call, the
scripts of two calls never interleave on a page, and state changes run alone. Every call is
bounded (``max_call_seconds``): waiting for a lock past it answers BUSY. Every call sends
progress heartbeats while it runs (:mod:`mcp_server.server.progress`).

Legacy tools keep their text answers, and also carry ``structuredContent``: every tool declares
an outputSchema, and the SDK's clients refuse a successful answer without structured content
from a tool that declares one. Clients that only read ``content`` see exactly the legacy text.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import ValidationError

from mcp_server.safety.artifacts import Artifacts, recording_use
from mcp_server.server import registry
from mcp_server.server.answer_cap import final_pass
from mcp_server.server.context import ToolContext
from mcp_server.server.envelope import error_result, failure_from_exception, ok_result, validation_failure
from mcp_server.server.locking import Busy, CallHold, CallLocks, locks_for, overrun_grace
from mcp_server.server.mcp_features import ask_person, sessions
from mcp_server.server.mcp_features.icons import SERVER_ICON, icons_of
from mcp_server.server.mcp_features.resource_links import ArtifactLinks
from mcp_server.server.progress import Progress
from mcp_server.server.registry import ActionResult, ActionSpec
from mcp_server.server.routes import CallRoute, call_routes
from mcp_server.server.settings import Settings
from mcp_server.server.tool_answer import TextBlock, ToolAnswer
from mcp_server.server.version import SERVER_NAME, server_version
from targets.callers import PerCaller, acting_as, current_caller
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    import mcp_types as types
    from mcp.server import Server

    from mcp_server.server.catalog import Route
    from targets import BrowserManager

__all__ = ["BrowserMCP", "build_server", "CallRecord"]

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "Start with browser_session action=get_capabilities. Attach to the user's Chrome with attach_cdp "
    "(finds the Chrome whose remote debugging is on; Chrome asks the user to Allow; never navigates); "
    "otherwise navigate launches an internal browser. Answers omit null, false and empty values; "
    "lists are rows under `columns`, a row's trailing object holds its other fields."
)


@dataclass
class CallRecord:
    """One finished tool call, for observers such as the audit log (arguments as sent, unredacted)."""

    tool: str
    action: str | None
    arguments: dict[str, Any]
    status: str
    code: str | None
    duration_ms: float
    started_at: float


@dataclass
class RunningCall:
    """A call in progress (``BrowserMCP.running``): what it is and since when."""

    tool: str
    action: str
    lock: str
    started: float = field(default_factory=time.monotonic)


class BrowserMCP:
    """The tools of one server process: schemas, routing, envelope, locking."""

    def __init__(
        self,
        settings: Settings,
        manager: BrowserManager,
        *,
        specs: list[ActionSpec] | None = None,
        toolset: str | None = None,
    ) -> None:
        self.settings = settings
        self.manager = manager
        self.artifacts = Artifacts(settings.artifact_dir)
        #: the files answers wrote, as resource links, and resources/read of them
        self.links = ArtifactLinks(self.artifacts)
        #: what features keep between calls (``ToolContext.state``: marks), each MCP session its own
        self._states: PerCaller[dict[str, Any]] = PerCaller({}, inherit=False)
        self.toolset = toolset or settings.toolset
        self._specs = specs  # None: every action module is imported at the first need (``specs``)
        self.observers: list[Callable[[CallRecord], None]] = []
        #: shared by every server built on this manager (one per HTTP session), see locking.py
        self.locks: CallLocks = locks_for(manager)
        #: the calls in progress, by a per-call id
        self.running: dict[int, RunningCall] = {}
        self._call_ids = itertools.count(1)

    @property
    def specs(self) -> list[ActionSpec]:
        """Every action, its module imported at the first need: building the app imports no action module."""
        if self._specs is None:
            from mcp_server.features import load_actions

            load_actions()
            self._specs = list(registry.ACTIONS.values())
        return self._specs

    @functools.cached_property
    def calls(self) -> dict[str, CallRoute]:
        """How a call finds its action, without the listed schemas (see :func:`call_routes`)."""
        return call_routes(self.specs, self.toolset)

    @functools.cached_property
    def routes(self) -> dict[str, Route]:
        """The listed tools with their schemas, built at the first ``tools/list``, not at start-up.

        Why: generating the input and output schemas of every action (pydantic's JSON schema
        generation) is a large share of the start, and a call needs none of it (the SDK does not
        validate answers against the outputSchema).
        """
        from mcp_server.server.catalog import build_routes

        return build_routes(self.specs, self.toolset)

    def list_tools(self) -> list[types.Tool]:
        return [route.tool for route in self.routes.values()]

    # -- tools/call ---------------------------------------------------------------------------

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None, *, progress: Any = None
    ) -> types.CallToolResult:
        """Run one tool call, answered as the SDK's ``CallToolResult``; never raises (except cancellation).

        For code that holds this object and wants the SDK's type; the SDK's handler takes :meth:`answer`.
        """
        return (await self.answer(name, arguments, progress=progress)).to_sdk()

    async def answer(self, name: str, arguments: dict[str, Any] | None, *, progress: Any = None) -> ToolAnswer:
        """Run one tool call, answered in the light form (tool_answer.py); never raises (except cancellation)."""
        started = time.time()
        since_ns = time.time_ns()
        arrived = asyncio.get_running_loop().time()
        args = dict(arguments or {})
        action_name: str | None = None
        adapter: dict[str, Any] | None = None
        used: list[Any] = []
        try:
            route = self.calls.get(name)
            if route is None:
                raise ToolFailure(
                    ErrorCode.UNKNOWN_ACTION,
                    f"no tool named {name!r}",
                    hint="call tools/list for the available tools",
                    tools=sorted(self.calls),
                )
            if route.spec is not None:
                spec = route.spec
                action_name = spec.name
            else:
                requested = args.get("action")
                action_name = requested if isinstance(requested, str) else None
                spec, action_name = self._pick_action(name, route, args)
                adapter = {"entryTool": name, "action": spec.name, "legacyTool": spec.legacy}
            try:
                parsed = spec.args.model_validate(args)
            except ValidationError as exc:
                raise validation_failure(exc, tool=name, action=action_name, model=spec.args) from None
            with recording_use() as used:
                result = await self._run(name, spec, parsed, progress, arrived)
            if not isinstance(result, ActionResult):
                raise TypeError(f"handler of {spec.tool}.{spec.name} returned {type(result).__name__}")
            answer = ok_result(result, adapter)
        except Exception as exc:  # noqa: BLE001 - the server answers every call, whatever broke
            failure = failure_from_exception(exc, tool=name, action=action_name)
            answer = error_result(failure, adapter)
        except BaseException:
            # Cancelled (client cancel, shutdown): it may have acted in the browser, so it is recorded too.
            self._notify(name, action_name, args, None, started)
            raise
        answer = final_pass(answer, self.manager, limit=self.settings.max_answer_bytes)
        if used:  # the call asked for artifact paths: link the files it wrote
            answer.content += self.links.blocks(self.links.written(used, since_ns))
        self._notify(name, action_name, args, answer, started)
        return answer

    async def _run(self, tool: str, spec: ActionSpec, args: Any, progress: Any, arrived: float) -> Any:
        """The handler under the locks its action declares, with progress heartbeats, bounded in time."""
        label = spec.name
        reporter = Progress(progress, label)
        hold = CallHold(
            self.locks,
            spec.lock,
            label,
            deadline=arrived + self.settings.max_call_seconds,
            on_wait=reporter.waiting_for,
            grace=overrun_grace(self.settings.max_call_seconds),
        )
        # attach_cdp takes the state lock itself for its short steps, never while Chrome waits for the user.
        if spec.lock != "state" and spec.name != "attach_cdp" and _target_lost(self.manager):
            # The active browser went away: this call may relaunch it or report the loss (state).
            hold.mode = "state"
        ctx = ToolContext(
            manager=self.manager,
            settings=self.settings,
            artifacts=self.artifacts,
            tool=tool,
            action=spec.name,
            progress=progress,
            hold=hold,
            reporter=reporter,
            deadline=arrived + self.settings.max_call_seconds,
            state=self._states.own(dict),
        )
        call_id = next(self._call_ids)
        self.running[call_id] = RunningCall(tool, spec.name, hold.mode)
        try:
            async with reporter.running():
                try:
                    try:
                        async with asyncio.timeout(None) as limit:  # armed by the hold once it takes a lock
                            hold.limit = limit
                            await hold.enter()
                            return await spec.handler(ctx, args)
                    except TimeoutError:
                        if not hold.overran:
                            raise
                        raise _overran(spec.name, self.settings.max_call_seconds) from None
                except ToolFailure as exc:
                    left = ctx.remaining()
                    ran_out = ctx.cut and left is not None and left < 2.0  # it failed at the bound
                    if ran_out and exc.code in _WAIT_FAILURES and "call bound" not in exc.message:
                        bound = self.settings.max_call_seconds
                        exc.message += f" (stopped at the {bound:g} s call bound, before the call's timeout_ms)"
                        exc.hint = (
                            f"every call answers within {bound:g} s (MCP_MAX_CALL_SECONDS): call again to keep "
                            "waiting, or check with snapshot what the page shows"
                        )
                        exc.details["callBoundS"] = bound
                    raise
                except Busy as exc:
                    raise ToolFailure(
                        ErrorCode.BUSY,
                        f"{spec.name} waited {self.settings.max_call_seconds:g} s (the call bound) for the browser, "
                        f"busy with {exc.holders}",
                        hint="call again when that call has answered; reads (console_list, network_list, "
                        "list_pages, get_browser_status) answer meanwhile",
                        busyWith=exc.holders,
                    ) from None
                finally:
                    hold.release_all()
        finally:
            self.running.pop(call_id, None)

    def _pick_action(self, tool: str, route: CallRoute, args: dict[str, Any]) -> tuple[ActionSpec, str]:
        names = list(route.actions)
        action = args.pop("action", None)
        if action is None:
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                f"{tool} needs an `action`",
                hint=f"set action to one of: {', '.join(names)}",  # the list once: in the hint, both renderings
            )
        if not isinstance(action, str) or action not in route.actions:
            other = None
            if isinstance(action, str):  # a list or dict is no action name (and is unhashable)
                others = (t for t, r in self.calls.items() if r.spec is None and t != tool and action in r.actions)
                other = next(others, None)
            hint = f"use tool {other} for {action!r}" if other else f"use one of: {', '.join(names)}"
            raise ToolFailure(ErrorCode.UNKNOWN_ACTION, f"{tool} has no action {action!r}", hint=hint, action=action)
        return route.actions[action], action

    def _notify(
        self, tool: str, action: str | None, args: dict[str, Any], answer: ToolAnswer | None, t0: float
    ) -> None:
        """Tell the observers (audit log) how a call ended; ``answer`` None means it was cancelled."""
        if not self.observers:
            return
        structured = (answer.structured_content if answer is not None else None) or {}
        code: str | None
        if answer is None:
            status, code = "cancelled", "CANCELLED"
        else:
            status, code = ("error", structured.get("code")) if answer.is_error else ("ok", None)
        record = CallRecord(
            tool=tool,
            action=action,
            arguments=args,
            status=status,
            code=code,
            duration_ms=round((time.time() - t0) * 1000, 1),
            started_at=t0,
        )
        for observer in self.observers:
            try:
                observer(record)
            except Exception:  # noqa: BLE001 - an observer must never fail a call
                log.exception("call observer failed")

    # -- sessions ---------------------------------------------------------------------------------

    async def forget_session(self, caller: str) -> None:
        """An MCP session ended: it leaves the browsers like a detach, then what it chose is forgotten.

        Runs under the state lock, as a detach does: after the calls in progress, never under them.
        """
        hold = CallHold(self.locks, "state", f"session {caller[:8]} left")
        try:
            await hold.enter()
            await self.manager.forget_caller(caller)
        finally:
            hold.release_all()

    # -- asking the person ---------------------------------------------------------------------

    async def _ask_person(
        self, ctx: Any, params: Any, answer: ToolAnswer, progress: Any
    ) -> ToolAnswer | types.InputRequiredResult:
        """An ambiguous answer the person can settle, settled by them when the client can ask (ask_person.py).

        Returns the answer to give: the chosen call's, the ambiguous one with what happened, or (on a
        2026-07-28 connection, first round) the input-required result that asks.
        """
        import mcp_types as types
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        sc = answer.structured_content
        action = ((sc or {}).get("adapter") or {}).get("action")
        choice = ask_person.choice_of(action, sc) if answer.is_error else None
        session = getattr(ctx, "session", None)
        capabilities = getattr(session, "client_capabilities", None)
        if choice is None or sc is None or session is None or getattr(capabilities, "elicitation", None) is None:
            return answer
        form = types.ElicitRequestFormParams(
            mode="form", message=choice.message, requested_schema=ask_person.form_schema(choice)
        )
        if getattr(ctx, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS:
            responses = getattr(params, "input_responses", None) or {}
            response = responses.get(ask_person.FIELD)
            if not isinstance(response, types.ElicitResult):
                return types.InputRequiredResult(
                    input_requests={ask_person.FIELD: types.ElicitRequest(params=form)},
                    request_state="ask-person",
                )
        else:
            bound = min(ASK_PERSON_SECONDS, self.settings.max_call_seconds)
            try:
                with anyio.fail_after(bound):
                    response = await session.elicit_form(
                        form.message, form.requested_schema, related_request_id=getattr(ctx, "request_id", None)
                    )
            except TimeoutError:
                return self._asked(answer, f"no answer in {bound:g} s")
            except Exception as exc:  # noqa: BLE001 - a client that cannot ask: today's answer
                return self._asked(answer, f"the client could not ask ({type(exc).__name__})")
        outcome = ask_person.chosen(choice, response.action, response.content)
        if isinstance(outcome, str):
            return self._asked(answer, outcome)
        label, arguments = outcome
        again = await self.answer("browser_session", arguments, progress=progress)
        data, text = ask_person.with_lead(again.structured_content, _text_of(again), label)
        return _retexted(again, data, text)

    @staticmethod
    def _asked(answer: ToolAnswer, said: str) -> ToolAnswer:
        data, text = ask_person.with_hint(answer.structured_content or {}, _text_of(answer), said)
        return _retexted(answer, data, text)

    # -- the SDK server -------------------------------------------------------------------------

    def build(self) -> Server:
        """The SDK server around these tools.

        The SDK's server side is imported here, not with this module: a call needs none of it.
        """
        import mcp_types as types
        from mcp.server import Server
        from mcp.shared.exceptions import MCPError
        from mcp_types import INVALID_PARAMS

        class QuietServer(Server):
            """The SDK's server without the ``logging`` capability (deprecated by SEP-2577, 2026-07-28).

            The SDK declares the capability when a ``logging/setLevel`` handler exists; older
            clients still send that request whatever we declare, so it is answered (and ignored)
            without being declared. What the agent must know is in the answers; the server's own
            diagnostics go to stderr.
            """

            def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
                return super().get_capabilities(*args, **kwargs).model_copy(update={"logging": None})

        async def on_list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
            return types.ListToolsResult(tools=self.list_tools())

        async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> dict[str, Any]:
            sessions.on_session_end(ctx, self.forget_session)
            arguments = dict(params.arguments or {})
            try:
                # no session id and no name: the caller the call arrives as (the default one, but for in-process hosts)
                caller = sessions.named_caller(arguments) or sessions.caller_of(ctx) or current_caller()
            except ValueError as exc:
                failure = ToolFailure(
                    ErrorCode.INVALID_ARGUMENT, str(exc), hint="give the same short name on every call"
                )
                return error_result(failure, None).wire_form()
            params = params.model_copy(update={"arguments": arguments})
            with acting_as(caller):  # what this call chooses is its session's own
                return await call_in_session(ctx, params)

        async def call_in_session(ctx: Any, params: types.CallToolRequestParams) -> dict[str, Any]:
            session = getattr(ctx, "session", None)
            progress = session.report_progress if session is not None else None
            answer = await self.answer(params.name, params.arguments, progress=progress)
            asked = await self._ask_person(ctx, params, answer, progress)
            if isinstance(asked, types.InputRequiredResult):
                wire: dict[str, Any] = asked.model_dump(by_alias=True, mode="json", exclude_none=True)
                return wire
            answer = asked
            if params.name not in self.calls:
                # The spec: an unknown tool is a protocol error (-32602), not a tool result the model
                # should read; answer() above still recorded it for the audit log.
                raise MCPError(
                    INVALID_PARAMS,
                    f"Unknown tool: {params.name[:100]!r}",
                    data={"tools": sorted(self.calls), "hint": "call tools/list for the available tools"},
                )
            return answer.wire_form()

        async def on_list_resources(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
            listed = [
                types.Resource(uri=link.uri, name=link.name, mime_type=link.mime_type, size=link.size)
                for link in self.links.listed()
            ]
            return types.ListResourcesResult(resources=listed)

        async def on_read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
            uri = str(params.uri)
            try:
                mime, text, blob = await asyncio.to_thread(self.links.read, uri)
            except (LookupError, OSError) as exc:
                raise MCPError(INVALID_PARAMS, f"cannot read {uri[:300]}: {exc}") from None
            contents: list[types.TextResourceContents | types.BlobResourceContents] = [
                types.TextResourceContents(uri=uri, mime_type=mime, text=text)
                if text is not None
                else types.BlobResourceContents(uri=uri, mime_type=mime, blob=blob or "")
            ]
            return types.ReadResourceResult(contents=contents)

        async def on_set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
            return types.EmptyResult()  # accepted from older clients; nothing is sent as a log message

        server: Server = QuietServer(
            SERVER_NAME,
            version=server_version(),
            instructions=INSTRUCTIONS,
            on_list_tools=on_list_tools,
            # The SDK's runner takes a handler's dict as the result's wire form (wire_form: why we
            # give one); its annotation names only the result models.
            on_call_tool=on_call_tool,  # type: ignore[arg-type]
            on_list_resources=on_list_resources,
            on_read_resource=on_read_resource,
            icons=icons_of(SERVER_ICON),
        )
        server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, on_set_level)
        server.browser_mcp = self  # type: ignore[attr-defined]  # reachable from tests and the CLI
        return server


#: how long the person has to choose in a 2025 elicitation (the call bound cuts it shorter)
ASK_PERSON_SECONDS = 120.0


def _text_of(answer: ToolAnswer) -> str:
    return next((b.text for b in answer.content if isinstance(b, TextBlock)), "")


def _retexted(answer: ToolAnswer, data: dict[str, Any] | None, text: str) -> ToolAnswer:
    """``answer`` with its first text block and its structured content replaced."""
    content: list[Any] = list(answer.content)
    at = next((i for i, b in enumerate(content) if isinstance(b, TextBlock)), None)
    if at is None:
        content.insert(0, TextBlock(text))
    else:
        content[at] = TextBlock(text)
    return answer.replace(content=content, structured_content=data)


#: the failures of a wait that ran out of time: when the call bound cut the wait, the hint says so
_WAIT_FAILURES = (ErrorCode.TIMEOUT, ErrorCode.ELEMENT_NOT_INTERACTABLE)


def _target_lost(manager: BrowserManager | None) -> bool:
    """An active browser target that is no longer connected (the next page call relaunches or reports it)."""
    if manager is None or manager.active_target is None:  # None: a server with no browser (tests, listings)
        return False
    target = manager.launch if manager.active_target == "launch" else manager.cdp
    return not target.connected  # a lost target is not connected


def build_server(
    settings: Settings, manager: BrowserManager, *, specs: list[ActionSpec] | None = None, toolset: str | None = None
) -> Server:
    """A ready SDK server (serve it with stdio or streamable HTTP); ``server.browser_mcp`` is the app."""
    return BrowserMCP(settings, manager, specs=specs, toolset=toolset).build()


def _overran(action: str, bound: float) -> ToolFailure:
    """The answer of a call stopped at its bound while holding the browser (see CallHold's limit)."""
    return ToolFailure(
        ErrorCode.TIMEOUT,
        f"{action} was stopped at the {bound:g} s call bound (+{overrun_grace(bound):g} s): the browser or the page"
        " did not answer in time (a hung renderer, a busy script, a slow CDP endpoint); its locks are released",
        hint="get_browser_status and list_pages answer meanwhile; a page whose renderer is hung needs a reload"
        " (or closing the tab); call again to retry",
        callBoundS=bound,
    )
