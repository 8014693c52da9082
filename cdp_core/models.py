"""Typed models for the CDP events and results this project relies on.

Field names are snake_case in Python and camelCase on the wire (``alias_generator``),
unknown fields are kept (``extra="allow"``) because Chrome adds fields between
releases, and experimental fields the protocol marks required are optional here since
builds differ. Event models carry their ``METHOD`` so ``session.events(Model)`` yields
parsed instances. Every other command stays reachable through the raw dict path.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

__all__ = [
    "CDPModel",
    "TargetInfo",
    "AttachedToTarget",
    "DetachedFromTarget",
    "TargetCreated",
    "TargetDestroyed",
    "TargetInfoChanged",
    "CallFrame",
    "StackTrace",
    "RemoteObject",
    "ExceptionDetails",
    "ConsoleAPICalled",
    "ExceptionThrown",
    "EvaluateResult",
    "LogEntry",
    "LogEntryAdded",
    "Initiator",
    "Request",
    "Response",
    "RequestWillBeSent",
    "RequestWillBeSentExtraInfo",
    "ResponseReceived",
    "ResponseReceivedExtraInfo",
    "LoadingFinished",
    "LoadingFailed",
    "Frame",
    "FrameNavigated",
    "LoadEventFired",
    "DomContentEventFired",
    "JavascriptDialogOpening",
    "EVENT_MODELS",
    "parse_event",
]


class CDPModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


# -- Target -----------------------------------------------------------------------------


class TargetInfo(CDPModel):
    target_id: str
    type: str
    title: str = ""
    url: str = ""
    attached: bool = False
    opener_id: str | None = None
    browser_context_id: str | None = None


class AttachedToTarget(CDPModel):
    METHOD: ClassVar[str] = "Target.attachedToTarget"
    session_id: str
    target_info: TargetInfo
    waiting_for_debugger: bool = False


class DetachedFromTarget(CDPModel):
    METHOD: ClassVar[str] = "Target.detachedFromTarget"
    session_id: str
    target_id: str | None = None


class TargetCreated(CDPModel):
    METHOD: ClassVar[str] = "Target.targetCreated"
    target_info: TargetInfo


class TargetDestroyed(CDPModel):
    METHOD: ClassVar[str] = "Target.targetDestroyed"
    target_id: str


class TargetInfoChanged(CDPModel):
    METHOD: ClassVar[str] = "Target.targetInfoChanged"
    target_info: TargetInfo


# -- Runtime ----------------------------------------------------------------------------


class CallFrame(CDPModel):
    function_name: str = ""
    script_id: str = ""
    url: str = ""
    line_number: int = 0
    column_number: int = 0


class StackTrace(CDPModel):
    description: str | None = None
    call_frames: list[CallFrame] = []
    parent: StackTrace | None = None


class RemoteObject(CDPModel):
    type: str
    subtype: str | None = None
    class_name: str | None = None
    value: Any = None
    unserializable_value: str | None = None
    description: str | None = None
    object_id: str | None = None
    preview: dict[str, Any] | None = None


class ExceptionDetails(CDPModel):
    exception_id: int = 0
    text: str = ""
    line_number: int = 0
    column_number: int = 0
    script_id: str | None = None
    url: str | None = None
    stack_trace: StackTrace | None = None
    exception: RemoteObject | None = None
    execution_context_id: int | None = None


class ConsoleAPICalled(CDPModel):
    METHOD: ClassVar[str] = "Runtime.consoleAPICalled"
    type: str
    args: list[RemoteObject] = []
    execution_context_id: int = 0
    timestamp: float = 0.0
    stack_trace: StackTrace | None = None
    context: str | None = None


class ExceptionThrown(CDPModel):
    METHOD: ClassVar[str] = "Runtime.exceptionThrown"
    timestamp: float
    exception_details: ExceptionDetails


class EvaluateResult(CDPModel):
    """Result of ``Runtime.evaluate`` / ``Runtime.callFunctionOn``."""

    result: RemoteObject
    exception_details: ExceptionDetails | None = None


# -- Log --------------------------------------------------------------------------------


class LogEntry(CDPModel):
    source: str
    level: str
    text: str
    timestamp: float = 0.0
    url: str | None = None
    line_number: int | None = None
    stack_trace: StackTrace | None = None
    network_request_id: str | None = None
    category: str | None = None


class LogEntryAdded(CDPModel):
    METHOD: ClassVar[str] = "Log.entryAdded"
    entry: LogEntry


# -- Network ----------------------------------------------------------------------------


class Initiator(CDPModel):
    type: str
    stack: StackTrace | None = None
    url: str | None = None
    line_number: float | None = None
    column_number: float | None = None
    request_id: str | None = None


class Request(CDPModel):
    url: str
    url_fragment: str | None = None
    method: str
    headers: dict[str, Any] = {}
    post_data: str | None = None
    has_post_data: bool | None = None
    post_data_entries: list[dict[str, Any]] | None = None
    initial_priority: str | None = None
    referrer_policy: str | None = None


class Response(CDPModel):
    url: str
    status: int
    status_text: str = ""
    headers: dict[str, Any] = {}
    mime_type: str = ""
    request_headers: dict[str, Any] | None = None
    remote_ip_address: str | None = None
    remote_port: int | None = None
    from_disk_cache: bool | None = None
    from_service_worker: bool | None = None
    from_prefetch_cache: bool | None = None
    encoded_data_length: float = 0
    protocol: str | None = None
    timing: dict[str, Any] | None = None


class RequestWillBeSent(CDPModel):
    METHOD: ClassVar[str] = "Network.requestWillBeSent"
    request_id: str
    loader_id: str = ""
    document_url: str = ""
    request: Request
    timestamp: float
    wall_time: float = 0.0
    initiator: Initiator
    redirect_has_extra_info: bool | None = None
    redirect_response: Response | None = None
    type: str | None = None
    frame_id: str | None = None
    has_user_gesture: bool | None = None


class RequestWillBeSentExtraInfo(CDPModel):
    METHOD: ClassVar[str] = "Network.requestWillBeSentExtraInfo"
    request_id: str
    headers: dict[str, Any] = {}
    associated_cookies: list[dict[str, Any]] = []


class ResponseReceived(CDPModel):
    METHOD: ClassVar[str] = "Network.responseReceived"
    request_id: str
    loader_id: str = ""
    timestamp: float
    type: str
    response: Response
    has_extra_info: bool | None = None
    frame_id: str | None = None


class ResponseReceivedExtraInfo(CDPModel):
    METHOD: ClassVar[str] = "Network.responseReceivedExtraInfo"
    request_id: str
    headers: dict[str, Any] = {}
    status_code: int | None = None
    headers_text: str | None = None
    blocked_cookies: list[dict[str, Any]] = []


class LoadingFinished(CDPModel):
    METHOD: ClassVar[str] = "Network.loadingFinished"
    request_id: str
    timestamp: float
    encoded_data_length: float = 0


class LoadingFailed(CDPModel):
    METHOD: ClassVar[str] = "Network.loadingFailed"
    request_id: str
    timestamp: float
    type: str | None = None
    error_text: str = ""
    canceled: bool | None = None
    blocked_reason: str | None = None
    cors_error_status: dict[str, Any] | None = None


# -- Page -------------------------------------------------------------------------------


class Frame(CDPModel):
    id: str
    parent_id: str | None = None
    loader_id: str = ""
    name: str | None = None
    url: str = ""
    security_origin: str | None = None
    mime_type: str | None = None


class FrameNavigated(CDPModel):
    METHOD: ClassVar[str] = "Page.frameNavigated"
    frame: Frame
    type: str | None = None


class LoadEventFired(CDPModel):
    METHOD: ClassVar[str] = "Page.loadEventFired"
    timestamp: float


class DomContentEventFired(CDPModel):
    METHOD: ClassVar[str] = "Page.domContentEventFired"
    timestamp: float


class JavascriptDialogOpening(CDPModel):
    METHOD: ClassVar[str] = "Page.javascriptDialogOpening"
    url: str = ""
    message: str = ""
    type: str
    has_browser_handler: bool | None = None
    default_prompt: str | None = None


EVENT_MODELS: dict[str, type[CDPModel]] = {
    cls.METHOD: cls  # type: ignore[attr-defined]
    for cls in CDPModel.__subclasses__()
    if "METHOD" in cls.__dict__ or hasattr(cls, "METHOD")
}


def parse_event(method: str, params: dict[str, Any]) -> CDPModel | dict[str, Any]:
    """The typed model of an event when we have one, else its raw params."""
    model = EVENT_MODELS.get(method)
    return model.model_validate(params) if model else params
