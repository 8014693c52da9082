"""Helpers shared by the legacy-routed actions: page scripts, Playwright errors, JavaScript dialogs, frames.

Page reads go through our own CDP session; a frame chosen by select_frame goes through
Playwright's frame (which knows each frame's execution context). A JavaScript dialog
freezes the page, so every helper that runs script or input checks for one first.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from cdp_core.errors import CDPError, CDPException, CDPTimeout
from mcp_server.core.context import ToolContext
from mcp_server.core.registry import ActionResult
from targets.errors import ErrorCode, ToolFailure

#: ``takes=`` of the actions that wait for actionability checks (docs/tools.md)
ACTIONABILITY_TAKES = (
    "up to timeout_ms waiting for actionability (visible, stable, enabled), at most the call bound; "
    "progress: which element and what it waits for"
)

#: Seconds a capture of a background tab may wait for a frame, in all, before we say why it gets none.
HIDDEN_CAPTURE_TIMEOUT = 3.0
#: Seconds of one attempt: measured on Chromium 156, a capture of a hidden tab either answers in
#: about 30 ms or waits for a frame that never comes, and the next request is answered at once.
HIDDEN_CAPTURE_ATTEMPT = 0.5

__all__ = [
    "ACTIONABILITY_TAKES",
    "act",
    "capture_png",
    "exception_text",
    "flatten_frames",
    "input_call",
    "frame_urls",
    "frames_of",
    "no_dialog",
    "playwright_call",
    "race_dialog",
    "run_js",
    "selected_frame",
    "runaway_failure",
    "truncate",
    "unless_dialog",
    "with_dialog",
]


async def run_js(ctx: ToolContext, page: Any, fn: str, arg: Any = None, *, timeout: float = 15.0) -> Any:
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


async def selected_frame(page: Any) -> Any:
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


async def _run_in_frame(page: Any, fn: str, arg: Any, *, timeout: float) -> Any:
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


async def input_call(call: Any, *, what: str) -> Any:
    """Await an input coroutine of :mod:`mcp_server.input`, mapping CDP failures to stable codes."""
    from cdp_core.errors import ConnectionClosed, SessionClosed

    try:
        return await call
    except (SessionClosed, ConnectionClosed) as exc:
        raise ToolFailure(
            ErrorCode.PAGE_CLOSED, f"{what}: the page or frame went away ({exc})", hint="call list_pages"
        ) from None
    except CDPTimeout as exc:
        raise ToolFailure(
            ErrorCode.TIMEOUT, f"{what}: the page did not answer ({exc})", hint="take a snapshot; retry"
        ) from None
    except CDPError as exc:
        raise ToolFailure(ErrorCode.ELEMENT_NOT_INTERACTABLE, f"{what}: {exc.message}") from None


async def no_dialog(ctx: ToolContext, page: Any, what: str) -> Any | None:
    """The page's dialog watch (from the snapshot module, when present), refusing if a dialog blocks the page.

    An open ``alert()`` freezes the page: any script or input would hang until the timeout.
    Saying DIALOG_OPEN at once (hint: handle_dialog) is the useful answer.
    """
    try:
        from .snapshot import dialog_watch, require_no_dialog
    except ImportError:
        return None
    watch = await dialog_watch(ctx, page)
    require_no_dialog(watch, what)
    return watch


async def unless_dialog(watch: Any | None, call: Any, what: str) -> Any:
    """Await ``call`` (a script on the page), but answer DIALOG_OPEN as soon as a dialog opens meanwhile.

    A script that calls ``alert()`` does not return until someone answers the dialog, so the
    call would wait for its whole timeout. The evaluation is abandoned; the dialog stays open
    for handle_dialog.
    """
    if watch is None:
        return await call
    task = asyncio.ensure_future(call)
    opened = asyncio.ensure_future(watch.opened.wait())
    try:
        await asyncio.wait({task, opened}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:  # the call was cancelled: stop its work too, now
        task.cancel()
        raise
    finally:
        opened.cancel()
    if not task.done():
        # The answer may already be on its way (the dialog came from a timer after the script ended).
        await asyncio.wait({task}, timeout=0.2)
    if not task.done() and watch.open is not None:
        task.cancel()
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        watch.mark_agents()  # the agent's script opened it
        from .snapshot import require_no_dialog

        require_no_dialog(watch, what)
    return await task


async def act(ctx: ToolContext, page: Any, what: str, call: Any) -> dict[str, Any] | None:
    """Run an input coroutine; return the dialog it opened and left open (None otherwise).

    A dialog opened by the input (an ``alert()`` in a click handler) blocks the page's answer
    to the last input event until someone handles it, so the call answers as soon as the
    dialog opens; the dialog stays open for handle_dialog (nobody else answers it).
    """
    try:
        watch = await no_dialog(ctx, page, what)
    except BaseException:
        call.close()  # never started: close the coroutine instead of leaking it
        raise
    return await race_dialog(call, watch, what)


async def race_dialog(call: Any, watch: Any | None, what: str) -> dict[str, Any] | None:
    """Await ``call``; if a JavaScript dialog opens first, return it (the call goes on once it is handled)."""
    task = asyncio.ensure_future(input_call(call, what=what))
    if watch is None:
        await task
        return None
    opened = asyncio.ensure_future(watch.opened.wait())
    try:
        await asyncio.wait({task, opened}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:  # the call was cancelled: stop its work too, now
        task.cancel()
        raise
    finally:
        opened.cancel()
    if not task.done():
        # The input may complete right after the dialog (a timer's alert): give it a moment.
        await asyncio.wait({task}, timeout=0.2)
    if not task.done() and watch.open is not None:
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        watch.mark_agents()  # the agent's input opened it
        return {k: watch.open[k] for k in ("type", "message", "url") if k in watch.open}
    await task
    return None


def with_dialog(result: ActionResult, dialog: dict[str, Any] | None) -> ActionResult:
    if dialog:
        result.text += f"; a JavaScript {dialog.get('type')} is open: {str(dialog.get('message'))[:200]!r}"
        result.text += " (answer it with handle_dialog)"
        result.data["dialog"] = dialog
    return result


def flatten_frames(tree: dict[str, Any], parent: str | None = None) -> list[dict[str, Any]]:
    frame = tree.get("frame", {})
    out = [{"frame_id": frame.get("id"), "parent_id": parent, "name": frame.get("name") or "", "url": frame.get("url")}]
    for child in tree.get("childFrames") or []:
        out.extend(flatten_frames(child, frame.get("id")))
    return out


async def frames_of(page: Any) -> list[dict[str, Any]]:
    """Every frame of the page (out-of-process iframes included), index 0 = the main frame."""
    from mcp_server.input.frames import all_frames

    frames = await all_frames(page)
    for index, frame in enumerate(frames):
        frame["frame_index"] = index
        frame["selected"] = frame["frame_id"] == page.active_frame or (index == 0 and not page.active_frame)
        if not frame["outOfProcess"]:
            del frame["outOfProcess"]
    return frames


async def frame_urls(page: Any) -> list[str]:
    try:
        tree = (await page.session.send("Page.getFrameTree")).get("frameTree", {})
    except Exception:  # noqa: BLE001 - frame URLs only widen the cookie query
        return []
    return [f["url"] for f in flatten_frames(tree)]


async def capture_png(page: Any, params: dict[str, Any], *, timeout: float) -> dict[str, Any]:
    """``Page.captureScreenshot`` that does not sit for the whole timeout on a background tab.

    Chrome paints no new compositor frame for a hidden tab (one the user is not looking at),
    and a capture waits for one: measured, every second call hung 60 s, then TIMEOUT. In the
    user's Chrome we must not bring their tab to front ourselves, so a hidden tab is captured
    from the view (``fromSurface: false``) in short attempts (a request that waits for a frame is
    followed by one that is answered at once), at most 3 s in all, and a capture that still gets
    no frame says why and what to do.
    """
    if not await page.is_hidden():
        return await _capture_unless_navigating(page, params, timeout)
    if params.get("captureBeyondViewport"):
        return await _capture_hidden_full_page(page, params, timeout)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + min(timeout, HIDDEN_CAPTURE_TIMEOUT)
    while (left := deadline - loop.time()) > 0:
        try:
            return await page.session.send(
                "Page.captureScreenshot",
                {**params, "fromSurface": False},
                timeout=max(0.05, min(HIDDEN_CAPTURE_ATTEMPT, left)),
            )
        except CDPTimeout:
            continue  # the next request is usually answered at once (the late reply is dropped)
    raise ToolFailure(
        ErrorCode.TIMEOUT,
        "the tab is in the background (document.visibilityState is hidden) and Chrome painted no frame for it",
        hint="ask the user to show that tab, or call select_page with bring_to_front=true (switches the tab "
        "they see), then take the screenshot again",
        stable_page_id=getattr(page, "stable_page_id", None),
    )


#: How long a full-page capture of a hidden tab may take (measured about 2 s on a loaded machine).
HIDDEN_FULL_PAGE_TIMEOUT = 8.0


async def _capture_hidden_full_page(page: Any, params: dict[str, Any], timeout: float) -> dict[str, Any]:
    """A full page of a hidden tab: with focus emulation on for the capture, then off again.

    Captured from the view (``fromSurface: false``) a hidden tab gives the viewport only, and a
    clip beyond it hung (measured, headful Chromium 156). With focus emulation on, Chrome draws
    the page as if it were shown and the normal capture (beyond the viewport) returns the whole
    page in about 2 s; the page sees ``visibilitychange`` to visible and back, the tab the user
    looks at does not change. The caller still checks the image's height against the page's.
    """
    session = page.session
    try:
        await session.send("Emulation.setFocusEmulationEnabled", {"enabled": True}, timeout=10)
        return await _capture_unless_navigating(page, params, min(timeout, HIDDEN_FULL_PAGE_TIMEOUT))
    except CDPTimeout:
        raise ToolFailure(
            ErrorCode.TIMEOUT,
            "the tab is in the background (document.visibilityState is hidden) and Chrome drew no full page for it",
            hint="take the viewport (full_page=false), or call select_page with bring_to_front=true (switches the "
            "tab the user sees), then take the screenshot again",
            stable_page_id=getattr(page, "stable_page_id", None),
        ) from None
    finally:
        try:
            await session.send("Emulation.setFocusEmulationEnabled", {"enabled": False}, timeout=10)
        except CDPException:
            pass


#: Captures tried on a page that keeps navigating before answering BUSY.
CAPTURE_ATTEMPTS = 3


async def _capture_unless_navigating(page: Any, params: dict[str, Any], timeout: float) -> dict[str, Any]:
    """``Page.captureScreenshot``, abandoned as soon as the main frame navigates under it.

    Measured: on a page that reloads every 50 ms a full-page capture got no reply for its whole
    60 s, holding the page. A navigation replaces the document the capture waits to paint, so
    we stop waiting at the navigation, try again on the new document, and after
    :data:`CAPTURE_ATTEMPTS` interrupted captures answer BUSY at once.
    """
    session = page.session
    main_frame = getattr(page, "target_id", None)
    for attempt in range(CAPTURE_ATTEMPTS):
        navigated = asyncio.Event()

        def on_navigation(event: Any, navigated: asyncio.Event = navigated) -> None:
            params_ = event.params
            frame = params_.get("frame") or {}
            frame_id = params_.get("frameId") or frame.get("id")
            if frame_id == main_frame or (frame and not frame.get("parentId")):
                navigated.set()

        subscription = session.on(("Page.frameStartedLoading", "Page.frameNavigated"), on_navigation)
        capture = asyncio.ensure_future(session.send("Page.captureScreenshot", params, timeout=timeout))
        moved = asyncio.ensure_future(navigated.wait())
        try:
            await asyncio.wait({capture, moved}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            subscription.cancel()
            moved.cancel()
        if capture.done():
            error = capture.exception()
            if error is None:
                return capture.result()
            if not (isinstance(error, CDPError) and _between_documents(error)):
                raise error
            continue  # the capture met the page between two documents: try the new one
        capture.cancel()  # Chrome may still answer it later; the reply is dropped
        capture.add_done_callback(lambda t: t.cancelled() or t.exception())
        await asyncio.sleep(0.1 * (attempt + 1))
    raise ToolFailure(
        ErrorCode.BUSY,
        f"screenshot: the page navigated during each of {CAPTURE_ATTEMPTS} captures",
        hint="the page keeps loading new documents; wait_for network_idle or a text, then take the screenshot",
    )


def _between_documents(error: CDPError) -> bool:
    return any(marker in error.message for marker in ("Not attached to an active page", "Unable to capture"))
