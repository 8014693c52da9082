"""screenshot: the page, the full page or one element as a PNG file under the artifacts root; inline only when asked."""

from __future__ import annotations

import base64
from typing import Any

from pydantic import Field

from mcp_server.evidence.dialogs import no_dialog
from mcp_server.page.screenshots import capture_png
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action

S = "browser_session"


class ScreenshotResult(Answer):
    path: str
    bytes: int
    fullPage: bool = False


class ScreenshotArgs(ActionArgs):
    full_page: bool = Field(False, description="Whole page, not the viewport")
    inline: bool = Field(False, description="Also inline the image (large)")


@action(
    S,
    "screenshot",
    ScreenshotArgs,
    legacy="browser_screenshot",
    read_only=True,
    result=ScreenshotResult,
    lock="page",
    takes="a second or more for a full page (a background tab: at most 8 s); progress: capturing",
)
async def screenshot(ctx: ToolContext, args: ScreenshotArgs) -> ActionResult:
    """Save a PNG of the selected page under artifacts/screenshots and return its path."""
    page = await ctx.page()
    await no_dialog(ctx, page, "screenshot")
    params: dict[str, Any] = {"format": "png"}
    if args.full_page:
        metrics = await page.session.send("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics.get("contentSize") or {}
        width, height = max(1, int(size.get("width", 1))), max(1, int(size.get("height", 1)))
        params.update(captureBeyondViewport=True, clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})
    ctx.status("capturing the screenshot")
    shot = await capture_png(page, params, timeout=ctx.bound(60)[0])
    data = base64.b64decode(shot["data"])
    path = ctx.artifacts.new_path("screenshots", page.stable_page_id, ".png")
    path.write_bytes(data)
    images = [(shot["data"], "image/png")] if args.inline else []
    kind = ""
    full = args.full_page
    if full:
        # Say "full page" only when the image is as tall as the page (a hidden tab may give the viewport)
        got = _png_height(data)
        full = got >= height
        kind = ", full page" if full else f", NOT the full page: {got} of {height} px tall"
    return ActionResult(
        text=f"Screenshot saved: {path} ({len(data)} bytes{kind})",
        data={"path": str(path), "bytes": len(data), "fullPage": full},
        images=images,
    )


def _png_height(data: bytes) -> int:
    """The height in the PNG's header (IHDR), 0 when it is not a PNG."""
    return int.from_bytes(data[20:24], "big") if data[12:16] == b"IHDR" else 0
