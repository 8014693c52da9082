"""``export_state`` / ``load_state``: cookies and localStorage to and from a file under the artifacts root.

The file holds secrets (cookie values), so it is written owner-only and answers carry only
counts and cookie names. localStorage is restored only on the origin it was saved from.
"""

from __future__ import annotations

import json
import os
import time

from pydantic import BaseModel, Field

from mcp_server.evidence.dialogs import no_dialog
from mcp_server.page.js import frame_urls, run_js
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, action
from targets.errors import ErrorCode, ToolFailure

S = "browser_session"


class ExportResult(BaseModel):
    path: str
    cookies: int
    cookieNames: list[str]
    localStorageKeys: int
    origin: str | None


class LoadResult(BaseModel):
    path: str
    cookies: int
    localStorageKeys: int
    skippedOrigins: list[str]


# -- export_state / load_state --------------------------------------------------------------

_STORAGE_READ_JS = """
() => { try { return {origin: location.origin, items: Object.fromEntries(Object.entries(localStorage))}; }
        catch (e) { return {origin: location.origin, items: null}; } }
"""
_STORAGE_WRITE_JS = """
(items) => { for (const [k, v] of Object.entries(items)) localStorage.setItem(k, v); return Object.keys(items).length; }
"""
_COOKIE_FIELDS = ("name", "value", "domain", "path", "secure", "httpOnly", "sameSite", "priority")


class StateFileArgs(ActionArgs):
    path: str | None = Field(None, description="Artifacts file (state/ or downloads/)")


@action(S, "export_state", StateFileArgs, legacy="browser_export_state", result=ExportResult, lock="page")
async def export_state(ctx: ToolContext, args: StateFileArgs) -> ActionResult:
    """Save the page's cookies and localStorage to a file under artifacts/state (values never inline)."""
    page = await ctx.page()
    await no_dialog(ctx, page, "export_state")
    if args.path:
        target = ctx.artifacts.resolve_inside(args.path, kind="state")
        if target.is_dir():
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                f"path {args.path!r} is a directory",
                hint="give a file name such as login.json (saved under state/)",
                path=args.path,
            )
    else:
        target = ctx.artifacts.new_path("state", page.stable_page_id, ".json")
    urls = [u for u in {page.url, *(await frame_urls(page))} if u and u.startswith(("http://", "https://"))]
    cookies = (await page.session.send("Network.getCookies", {"urls": urls} if urls else {})).get("cookies", [])
    storage = await run_js(ctx, page, _STORAGE_READ_JS) or {}
    items = storage.get("items") or {}
    doc = {
        "format": "mcp-browser-state",
        "version": 1,
        "savedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "url": page.url,
        "origin": storage.get("origin"),
        "cookies": cookies,
        "localStorage": {storage.get("origin") or "": items},
    }
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # holds secrets: owner-only
    except OSError as exc:  # a parent that is a file, a name the file system refuses...
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"cannot write the state file {args.path!r}: {exc.strerror}",
            hint="give a plain file name such as login.json (saved under state/)",
            path=args.path,
        ) from None
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)
    names = ", ".join(sorted({c.get("name", "") for c in cookies})) or "none"
    return ActionResult(
        text=f"Saved {len(cookies)} cookie(s) and {len(items)} localStorage key(s) of {storage.get('origin')} to "
        f"{target} (values only in the file; cookies: {names})",
        data={
            "path": str(target),
            "cookies": len(cookies),
            "cookieNames": sorted({c.get("name", "") for c in cookies}),
            "localStorageKeys": len(items),
            "origin": storage.get("origin"),
        },
    )


class LoadStateArgs(ActionArgs):
    path: str = Field(description="Artifacts file (state/ or downloads/)")


@action(S, "load_state", LoadStateArgs, legacy="browser_load_state", destructive=True, result=LoadResult, lock="page")
async def load_state(ctx: ToolContext, args: LoadStateArgs) -> ActionResult:
    """Restore cookies and localStorage saved by export_state (localStorage only on the same origin)."""
    page = await ctx.page()
    await no_dialog(ctx, page, "load_state")
    source = ctx.artifacts.resolve_inside(args.path, kind="state")
    if not source.is_file():
        raise ToolFailure(ErrorCode.FILE_NOT_FOUND, f"no state file {args.path!r}", hint="run export_state first")
    try:
        doc = json.loads(source.read_text(encoding="utf-8"))
        cookies = list(doc.get("cookies") or [])
        storage = dict(doc.get("localStorage") or {})
    except (ValueError, AttributeError, TypeError) as exc:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT, f"{args.path!r} is not a state file: {exc}", hint="use a file from export_state"
        ) from None
    params = []
    for cookie in cookies:
        param = {k: cookie[k] for k in _COOKIE_FIELDS if k in cookie}
        if not cookie.get("session") and isinstance(cookie.get("expires"), int | float) and cookie["expires"] > 0:
            param["expires"] = cookie["expires"]
        params.append(param)
    if params:
        await page.session.send("Network.setCookies", {"cookies": params})
    current = await run_js(ctx, page, _STORAGE_READ_JS) or {}
    origin = current.get("origin")
    restored = 0
    skipped = [o for o in storage if o and o != origin]
    if origin in storage and storage[origin]:
        restored = await run_js(ctx, page, _STORAGE_WRITE_JS, storage[origin]) or 0
    text = f"Restored {len(params)} cookie(s) and {restored} localStorage key(s)"
    if skipped:
        text += f"; localStorage of {', '.join(skipped)} skipped (navigate there and load again)"
    return ActionResult(
        text=text,
        data={"path": str(source), "cookies": len(params), "localStorageKeys": restored, "skippedOrigins": skipped},
    )
