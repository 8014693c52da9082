"""Screenshots of a tab, in front or in the background, without holding the page.

Apart from :mod:`.pagejs` (scripts, dialogs, frames) because a capture has its own facts: a
hidden tab gets no compositor frame (so it is captured from the view, in short attempts), a
full page of a hidden tab needs focus emulation for the capture, and a page that keeps
navigating must not hold a capture for its whole timeout. Used by the ``screenshot`` action and
by ``debug_bundle``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from cdp_core.errors import CDPError, CDPTimeout
from mcp_server.input.wake import focus_emulated
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    from targets import PageHandle

__all__ = ["capture_png"]

#: Seconds a capture of a background tab may wait for a frame, in all, before we say why it gets none.
HIDDEN_CAPTURE_TIMEOUT = 3.0
#: Seconds of one attempt: a capture of a hidden tab either answers almost at once or waits for a
#: frame that never comes, and the next request is answered at once.
HIDDEN_CAPTURE_ATTEMPT = 0.5


async def capture_png(page: PageHandle, params: dict[str, Any], *, timeout: float) -> dict[str, Any]:
    """``Page.captureScreenshot`` that does not sit for the whole timeout on a background tab.

    Chrome paints no new compositor frame for a hidden tab (one the user is not looking at),
    and a capture waits for one: every second call hung for its whole timeout. In the
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
        stable_page_id=page.stable_page_id,
    )


#: How long a full-page capture of a hidden tab may take (room for a slow, loaded machine).
HIDDEN_FULL_PAGE_TIMEOUT = 8.0


async def _capture_hidden_full_page(page: PageHandle, params: dict[str, Any], timeout: float) -> dict[str, Any]:
    """A full page of a hidden tab: with focus emulation on for the capture, then off again.

    Captured from the view (``fromSurface: false``) a hidden tab gives the viewport only, and a
    clip beyond it hung (headful Chromium). With focus emulation on, Chrome draws the page as if
    it were shown and the normal capture (beyond the viewport) returns the whole page; the page
    sees ``visibilitychange`` to visible and back, the tab the user looks at does not change.
    The caller still checks the image's height against the page's.
    """
    try:
        async with focus_emulated(page.session):
            return await _capture_unless_navigating(page, params, min(timeout, HIDDEN_FULL_PAGE_TIMEOUT))
    except CDPTimeout:
        raise ToolFailure(
            ErrorCode.TIMEOUT,
            "the tab is in the background (document.visibilityState is hidden) and Chrome drew no full page for it",
            hint="take the viewport (full_page=false), or call select_page with bring_to_front=true (switches the "
            "tab the user sees), then take the screenshot again",
            stable_page_id=page.stable_page_id,
        ) from None


#: Captures tried on a page that keeps navigating before answering BUSY.
CAPTURE_ATTEMPTS = 3


async def _capture_unless_navigating(page: PageHandle, params: dict[str, Any], timeout: float) -> dict[str, Any]:
    """``Page.captureScreenshot``, abandoned as soon as the main frame navigates under it.

    On a page that keeps reloading, a full-page capture got no reply for its whole timeout,
    holding the page. A navigation replaces the document the capture waits to paint, so
    we stop waiting at the navigation, try again on the new document, and after
    :data:`CAPTURE_ATTEMPTS` interrupted captures answer BUSY at once.
    """
    session = page.session
    main_frame = page.target_id
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
