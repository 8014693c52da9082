"""Helpers shared by the page actions: page scripts, input and Playwright errors, JavaScript dialogs, frames.

Page reads go through our own CDP session; a frame chosen by select_frame goes through
Playwright's frame (which knows each frame's execution context). A JavaScript dialog
freezes the page, so every helper that runs script or input checks for one first.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from cdp_core.errors import CDPError, CDPException, CDPTimeout
from mcp_server.server.context import ToolContext
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from targets import PageHandle

#: ``takes=`` of the actions that wait for actionability checks (docs/tools.md)

__all__ = [
    "exception_text",
    "flatten_frames",
    "frame_urls",
    "frames_of",
    "navigated_during",
    "playwright_call",
    "run_js",
    "selected_frame",
    "runaway_failure",
    "truncate",
]


async def run_js(ctx: ToolContext, page: PageHandle, fn: str, arg: Any = None, *, timeout: float = 15.0) -> Any:
    """Call the JS function source ``fn`` with ``arg`` in the selected frame and return its JSON value.

    The main frame goes through our CDP session; a frame chosen by select_frame goes through
    Playwright's frame, which already knows each frame's execution context.
    """
    if page.active_frame:
        return await _run_in_frame(page, fn, arg, timeout=timeout)
    started = asyncio.get_running_loop().time()
    try:
        result = await page.session.send(
            "Runtime.evaluate",
            {
                "expression": f"({fn})({json.dumps(arg)})",
                "returnByValue": True,
                "awaitPromise": True,
                "timeout": int(timeout * 1000),
            },
            timeout=timeout + 2,
        )
    except (CDPTimeout, CDPError) as exc:
        elapsed = asyncio.get_running_loop().time() - started
        raise await runaway_failure(page.session, exc, timeout_ms=int(timeout * 1000), elapsed_s=elapsed) from None
    if "exceptionDetails" in result:
        raise ToolFailure(ErrorCode.EVALUATION_FAILED, exception_text(result["exceptionDetails"]))
    return result.get("result", {}).get("value")


async def selected_frame(page: PageHandle) -> Any:
    """The FrameRef of the frame chosen by select_frame (FRAME_NOT_FOUND once it is gone)."""
    from mcp_server.input.frames import find_frame

    ref = await find_frame(page, page.active_frame)
    if ref is None:
        raise ToolFailure(
            ErrorCode.FRAME_NOT_FOUND,
            f"the selected frame {page.active_frame} is gone",
            hint="call list_frames and select_frame again (frame_index 0 = main frame)",
        )
    return ref


async def _run_in_frame(page: PageHandle, fn: str, arg: Any, *, timeout: float) -> Any:
    """Call ``fn(arg)`` in the selected frame's main world through our CDP session (no Playwright)."""
    from mcp_server.input.frames import frame_document

    ref = await selected_frame(page)
    try:
        document = await frame_document(ref)
    except CDPException as exc:
        raise ToolFailure(
            ErrorCode.FRAME_NOT_FOUND, f"the selected frame has no document: {exc}", hint="call list_frames"
        ) from None
    try:
        result = await ref.session.send(
            "Runtime.callFunctionOn",
            {
                "objectId": document,
                "functionDeclaration": fn,
                "arguments": [{"value": arg}],
                "returnByValue": True,
                "awaitPromise": True,
            },
            timeout=timeout + 2,
        )
    finally:
        try:
            await ref.session.send("Runtime.releaseObject", {"objectId": document}, timeout=5)
        except CDPException:
            pass
    if "exceptionDetails" in result:
        raise ToolFailure(ErrorCode.EVALUATION_FAILED, exception_text(result["exceptionDetails"]))
    return result.get("result", {}).get("value")


#: What Chrome answers when the document an evaluation ran in was replaced under it
_NAVIGATED = ("Cannot find context", "Execution context was destroyed", "Inspected target navigated")


def navigated_during(exc: BaseException) -> bool:
    """Whether ``exc`` says the page replaced its document during the call (read the new one)."""
    return isinstance(exc, CDPError) and any(marker in exc.message for marker in _NAVIGATED)


async def runaway_failure(
    session: Any, exc: BaseException, *, timeout_ms: int | None, elapsed_s: float, what: str = "the page script"
) -> BaseException:
    """What to raise when a ``Runtime.evaluate`` ran out of time (else ``exc`` itself).

    A page stuck in a loop would make every later call on it hang too. Chrome stops a
    synchronous loop at the ``timeout`` parameter (and answers with a bare "Internal error");
    a loop after an ``await`` escapes that, so once our own wait ends we stop the script with
    ``Runtime.terminateExecution``. Either way the answer is TIMEOUT and the page answers again.
    """
    if isinstance(exc, CDPTimeout):
        try:
            await session.send("Runtime.terminateExecution", timeout=5)
        except CDPException:
            pass
        return ToolFailure(
            ErrorCode.TIMEOUT,
            f"{what}: no result after {elapsed_s:.1f} s; the script was stopped so the page answers again",
            hint="raise timeout_ms if the script really needs longer, or check it for an endless loop",
        )
    if isinstance(exc, CDPError) and timeout_ms and exc.code == -32603 and elapsed_s >= timeout_ms / 1000 * 0.9:
        return ToolFailure(
            ErrorCode.TIMEOUT,
            f"{what}: still running after {timeout_ms} ms; Chrome stopped it",
            hint="raise timeout_ms if the script really needs longer, or check it for an endless loop",
        )
    return exc


def exception_text(details: dict[str, Any]) -> str:
    exc = details.get("exception") or {}
    text = exc.get("description") or details.get("text") or "script threw"
    return str(text).split("\n")[0][:500]


def truncate(text: str, limit: int) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[:limit], True)


async def playwright_call(call: Any, *, what: str) -> Any:
    """Await a Playwright call, mapping its errors to stable codes."""
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    try:
        return await call
    except PlaywrightTimeout as exc:
        first = str(exc).split("\n")[0]
        raise ToolFailure(
            ErrorCode.ELEMENT_NOT_INTERACTABLE,
            f"{what}: {first}",
            hint="the element may be hidden, disabled or covered; check with snapshot or get_dom, or raise timeout_ms",
        ) from None
    except PlaywrightError as exc:
        message = str(exc).split("\n")[0]
        lowered = message.lower()
        if "selector" in lowered and ("valid" in lowered or "pars" in lowered):
            raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{what}: {message}", hint="fix the CSS selector") from None
        if "closed" in lowered:
            raise ToolFailure(ErrorCode.PAGE_CLOSED, f"{what}: {message}", hint="call list_pages") from None
        raise ToolFailure(ErrorCode.ELEMENT_NOT_INTERACTABLE, f"{what}: {message}") from None


def flatten_frames(tree: dict[str, Any], parent: str | None = None) -> list[dict[str, Any]]:
    frame = tree.get("frame", {})
    out = [{"frame_id": frame.get("id"), "parent_id": parent, "name": frame.get("name") or "", "url": frame.get("url")}]
    for child in tree.get("childFrames") or []:
        out.extend(flatten_frames(child, frame.get("id")))
    return out


async def frames_of(page: PageHandle) -> list[dict[str, Any]]:
    """Every frame of the page (out-of-process iframes included), index 0 = the main frame."""
    from mcp_server.input.frames import all_frames

    frames = await all_frames(page)
    for index, frame in enumerate(frames):
        frame["frame_index"] = index
        frame["selected"] = frame["frame_id"] == page.active_frame or (index == 0 and not page.active_frame)
        if not frame["outOfProcess"]:
            del frame["outOfProcess"]
    return frames


async def frame_urls(page: PageHandle) -> list[str]:
    try:
        tree = (await page.session.send("Page.getFrameTree")).get("frameTree", {})
    except Exception:  # noqa: BLE001 - frame URLs only widen the cookie query
        return []
    return [f["url"] for f in flatten_frames(tree)]
