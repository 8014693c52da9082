"""The one error type that crosses from the browser layers into the MCP answers.

A :class:`ToolFailure` carries a stable ``code`` (the MCP layer turns it into
``structuredContent {status: "error", code, message, ...}`` with ``isError: true``), a
message saying what went wrong, a ``hint`` saying what to do next, and ``details`` that
an agent can use (for example ``candidates`` for ``AMBIGUOUS_MATCH``). Raising it must
leave all state as it was: check first, change after.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ToolFailure", "ErrorCode"]


class ErrorCode:
    """The stable error codes; agents may branch on them, so never rename one."""

    UNKNOWN_ACTION = "UNKNOWN_ACTION"
    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    NO_ACTIVE_PAGE = "NO_ACTIVE_PAGE"
    PAGE_CLOSED = "PAGE_CLOSED"
    PAGE_NOT_FOUND = "PAGE_NOT_FOUND"
    AMBIGUOUS_MATCH = "AMBIGUOUS_MATCH"
    CDP_UNREACHABLE = "CDP_UNREACHABLE"
    #: the person clicked Cancel in Chrome's "Allow remote debugging?" dialog (HTTP 403 to our handshake)
    CDP_PERMISSION_DENIED = "CDP_PERMISSION_DENIED"
    BROWSER_DISCONNECTED = "BROWSER_DISCONNECTED"
    BROWSER_NOT_FOUND = "BROWSER_NOT_FOUND"
    NOT_ATTACHED = "NOT_ATTACHED"
    BLOCKED_BY_POLICY = "BLOCKED_BY_POLICY"
    NOT_ALLOWED = "NOT_ALLOWED"
    BODY_UNAVAILABLE = "BODY_UNAVAILABLE"
    ENTRY_NOT_FOUND = "ENTRY_NOT_FOUND"
    STALE_UID = "STALE_UID"
    ELEMENT_NOT_INTERACTABLE = "ELEMENT_NOT_INTERACTABLE"
    #: Chrome accepted the input but the page did not receive it (or not at the element)
    INPUT_NOT_DELIVERED = "INPUT_NOT_DELIVERED"
    TIMEOUT = "TIMEOUT"
    EVALUATION_FAILED = "EVALUATION_FAILED"
    EVALUATE_DISABLED = "EVALUATE_DISABLED"
    NO_TRACE_RUNNING = "NO_TRACE_RUNNING"
    TRACE_ALREADY_RUNNING = "TRACE_ALREADY_RUNNING"
    NO_TRACE = "NO_TRACE"
    NO_DIALOG = "NO_DIALOG"
    DIALOG_OPEN = "DIALOG_OPEN"
    FRAME_NOT_FOUND = "FRAME_NOT_FOUND"
    FILE_NOT_FOUND = "FILE_NOT_FOUND"
    PATH_OUTSIDE_ARTIFACTS = "PATH_OUTSIDE_ARTIFACTS"
    CDP_ERROR = "CDP_ERROR"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    NAVIGATION_FAILED = "NAVIGATION_FAILED"
    LAUNCH_FAILED = "LAUNCH_FAILED"
    BUSY = "BUSY"
    #: the call would change something the person should agree to first (replaying a POST): repeat with confirm=true
    CONFIRM_REQUIRED = "CONFIRM_REQUIRED"


class ToolFailure(Exception):
    """A failure an agent can act on: stable code, message, next step, details."""

    def __init__(self, code: str, message: str, *, hint: str | None = None, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.hint:
            data["hint"] = self.hint
        data.update(self.details)
        return data
