"""``cookies`` and ``storage``: what the selected page keeps, without ever printing a secret.

Cookies are listed by name, domain, path, flags, size and expiry; their values never leave the
browser (``export_state`` writes them to an owner-only file when the user wants them). Storage
keys come with a short preview of their value, redacted by name (``auth_token``), by content
(``"password": ...`` in JSON) and by shape (JWTs, long opaque ids), so a token never reaches
the agent's context.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from cdp_core.recorders.redact import REDACTED, is_secret_field, redact_body, redact_tokens
from mcp_server.evidence.dialogs import no_dialog
from mcp_server.page.js import frame_urls, run_js
from mcp_server.server.context import ToolContext
from mcp_server.server.registry import ActionArgs, ActionResult, action
from targets.errors import ErrorCode, ToolFailure

S = "browser_session"

#: Keys listed per storage area, and characters of a value shown (after redaction).
MAX_KEYS = 100
PREVIEW_CHARS = 60
#: Characters of a value read from the page to redact (a secret must be seen whole to be masked).
READ_CHARS = 4096


class NoArgs(ActionArgs):
    pass


# -- cookies ----------------------------------------------------------------------------------


def _expiry(cookie: dict[str, Any]) -> str:
    expires = cookie.get("expires")
    if cookie.get("session") or not isinstance(expires, int | float) or expires <= 0:
        return "session"
    return datetime.fromtimestamp(expires, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _flags(cookie: dict[str, Any]) -> str:
    flags = [name for name, key in (("HttpOnly", "httpOnly"), ("Secure", "secure")) if cookie.get(key)]
    if cookie.get("sameSite"):
        flags.append(f"SameSite={cookie['sameSite']}")
    if cookie.get("partitionKey"):
        flags.append("Partitioned")
    return " ".join(flags)


def cookie_row(cookie: dict[str, Any]) -> dict[str, Any]:
    """One cookie without its value: name, domain, path (if not /), flags, size, expiry."""
    row: dict[str, Any] = {"name": cookie.get("name", ""), "domain": cookie.get("domain", "")}
    if cookie.get("path") not in (None, "", "/"):
        row["path"] = cookie["path"]
    flags = _flags(cookie)
    if flags:
        row["flags"] = flags
    row["size"] = int(cookie.get("size") or 0)
    row["expires"] = _expiry(cookie)
    return row


@action(S, "cookies", NoArgs, read_only=True, lock="page")
async def cookies(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """The selected page's cookies (all its frames): name, domain, path, flags, size, expiry; never values."""
    page = await ctx.page()
    urls = [u for u in {page.url, *(await frame_urls(page))} if u and u.startswith(("http://", "https://"))]
    if not urls:
        return ActionResult(text=f"No cookies: {page.url or 'the page'} is not an http(s) page", data={"count": 0})
    found = (await page.session.send("Network.getCookies", {"urls": sorted(urls)})).get("cookies", [])
    rows = sorted((cookie_row(c) for c in found), key=lambda r: (r["domain"].lstrip("."), r["name"]))
    lines = [
        f"  {r['name']}  {r['domain']}{r.get('path', '/')}  {r['size']} B"
        + (f"  {r['flags']}" if r.get("flags") else "")
        + f"  expires {r['expires']}"
        for r in rows
    ]
    text = f"{len(rows)} cookie(s) for {page.url} (values never shown)" + (":\n" + "\n".join(lines) if lines else "")
    data: dict[str, Any] = {"count": len(rows)}
    if rows:
        data["cookies"] = rows
    return ActionResult(text=text, data=data)


# -- storage ----------------------------------------------------------------------------------

_STORAGE_JS = """
(arg) => {
  const read = (name) => {
    let area;
    try { area = window[name]; } catch (e) { return {error: String(e.message || e)}; }
    if (!area) return {error: 'not available'};
    const items = [];
    for (let i = 0; i < area.length && items.length < arg.maxKeys; i++) {
      const key = area.key(i);
      const value = area.getItem(key) || '';
      items.push([key, value.slice(0, arg.readChars), value.length]);
    }
    return {count: area.length, items};
  };
  return {origin: location.origin, url: location.href, local: read('localStorage'), session: read('sessionStorage')};
}
"""


# A secret-named key whose string value runs to the end of the text (JSON cut by the read limit).
_OPEN_PAIR = re.compile(r"""(["'])([^"'\\]{1,64})\1\s*:\s*(["'])(?:\\.|(?!\3)[^\\])*$""", re.S)


def value_preview(key: str, value: str, length: int) -> str:
    """A short, redacted preview of a storage value (the whole read value is redacted before it is cut)."""
    if is_secret_field(key):
        return REDACTED
    # Parsed when it parses (JSON, a form): secret values go whole, whatever their type; cut JSON
    # (longer than we read) falls back to the text patterns.
    text = redact_tokens(redact_body(value))
    unterminated = _OPEN_PAIR.search(text)
    if unterminated is not None and is_secret_field(unterminated.group(2)):
        text = text[: unterminated.end(3)] + REDACTED  # its closing quote was beyond what we read
    if len(text) > PREVIEW_CHARS or length > len(value):
        text = text[:PREVIEW_CHARS] + "…"
    return text


def _area(raw: dict[str, Any]) -> dict[str, Any]:
    if raw.get("error"):
        return {"error": str(raw["error"])[:200]}
    items = [
        {"key": key, "preview": value_preview(key, value, length), "length": length}
        for key, value, length in raw.get("items") or []
    ]
    out: dict[str, Any] = {"count": int(raw.get("count") or 0)}
    if items:
        out["items"] = items
    return out


def _area_lines(name: str, area: dict[str, Any]) -> list[str]:
    if "error" in area:
        return [f"{name}: not readable ({area['error']})"]
    lines = [f"{name} ({area['count']} key(s))" + (":" if area.get("items") else "")]
    lines += [f"  {i['key']} = {i['preview']} ({i['length']} chars)" for i in area.get("items", [])]
    if area["count"] > len(area.get("items", [])):
        lines.append(f"  ... {area['count'] - len(area.get('items', []))} more key(s) not listed")
    return lines


@action(S, "storage", NoArgs, read_only=True, lock="page")
async def storage(ctx: ToolContext, args: NoArgs) -> ActionResult:
    """localStorage and sessionStorage keys of the selected page/frame, with redacted value previews."""
    page = await ctx.page()
    await no_dialog(ctx, page, "storage")
    raw = await run_js(ctx, page, _STORAGE_JS, {"maxKeys": MAX_KEYS, "readChars": READ_CHARS})
    if not isinstance(raw, dict):
        raise ToolFailure(ErrorCode.EVALUATION_FAILED, "the page did not answer the storage read")
    local, session = _area(raw.get("local") or {}), _area(raw.get("session") or {})
    origin = raw.get("origin") or ""
    where = origin if origin and origin != "null" else raw.get("url") or page.url
    text = "\n".join(
        [f"Storage of {where} (values previewed, secrets redacted):"]
        + _area_lines("localStorage", local)
        + _area_lines("sessionStorage", session)
    )
    return ActionResult(text=text, data={"origin": origin, "localStorage": local, "sessionStorage": session})
