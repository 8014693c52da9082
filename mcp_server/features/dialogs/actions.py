"""``browser_session`` action ``handle_dialog``: accept or dismiss the page's JavaScript dialog.

An ``alert()`` freezes the page's main thread, so every call that runs script hangs until the
dialog is handled (see :mod:`mcp_server.evidence.dialogs`); this answers it, then follows what the page
did next (a navigation, requests), as a click does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from cdp_core import CDPError
from mcp_server.answers.page_text import page_says
from mcp_server.evidence.dialogs import dialog_watch, require_no_dialog
from mcp_server.evidence.dialogs import public_dialog as _public_dialog
from mcp_server.evidence.followup import Followed, Followup, frames_now
from mcp_server.evidence.followup_text import then_line
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, Answer, action
from targets.errors import ErrorCode, ToolFailure

if TYPE_CHECKING:
    pass

S = "browser_session"


class DialogAnswer(Answer):
    handled: str
    dialog: dict[str, Any] | None = None
    followed: Followed


class HandleDialogArgs(ActionArgs):
    dialog_action: Literal["accept", "dismiss"] = Field("accept", description="OK or Cancel")
    prompt_text: str | None = Field(None, description="Text for a prompt()")


@action(S, "handle_dialog", HandleDialogArgs, lock="page", result=DialogAnswer)
async def handle_dialog(ctx: ToolContext, args: HandleDialogArgs) -> ActionResult:
    """Accept or dismiss the open alert/confirm/prompt that blocks the page."""
    page = await ctx.page()
    watch = await dialog_watch(ctx, page)
    if watch.open is None and watch.blocked_since_attach:
        # A dialog from before attach: Chrome neither reported it to us nor lets us answer it.
        require_no_dialog(watch, "handle_dialog")
    handled = watch.open
    dialog = dict(watch.open) if watch.open else None
    follow = Followup(page, watch)
    params: dict[str, Any] = {"accept": args.dialog_action == "accept"}
    if args.prompt_text is not None:
        params["promptText"] = args.prompt_text
    try:
        await page.session.send("Page.handleJavaScriptDialog", params, timeout=10)
    except CDPError as exc:
        if "no dialog" in exc.message.lower():
            watch.open = None
            watch.opened.clear()
            raise ToolFailure(
                ErrorCode.NO_DIALOG, "no JavaScript dialog is open on this page", hint="nothing to handle"
            ) from None
        raise
    if watch.open is handled:
        # Only the dialog we answered: a next one (alert(); alert()) may have been reported before
        # Chrome's reply to ours, and must stay seen, or the next call would wait for a blocked page.
        watch.open = None
        watch.opened.clear()
    await watch.run_cleanups()
    follow.loader, follow.frames = await frames_now(page.session)
    await follow.settle()
    followed = await follow.report()
    what = f"{'accepted' if params['accept'] else 'dismissed'}"
    desc = f" {dialog['type']}, {page_says(dialog['message'])}" if dialog else " dialog"
    data: dict[str, Any] = {"handled": args.dialog_action, "followed": followed}
    if dialog:
        data["dialog"] = _public_dialog(dialog)
    return ActionResult(text=f"{what}{desc}{then_line(followed)}", data=data)
