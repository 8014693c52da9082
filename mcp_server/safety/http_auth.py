"""The bearer secret of the HTTP transport (``--http``): who may drive the browser over the port.

A loopback port is open to every local user and every local process: without a secret,
another account on the machine drove ``navigate`` and ``evaluate_js`` in our browser (second
security review). The Host/Origin checks stop web pages (DNS rebinding), not local programs.

So every HTTP request (POST, GET, DELETE, any path) must carry ``Authorization: Bearer
<secret>``; anything else gets 401 before the MCP transport sees it. The secret is

- ``MCP_HTTP_TOKEN``: a fixed value, for a static client config;
- else ``MCP_HTTP_TOKEN_FILE``: read from that file (owner-only, or the start is refused), or,
  when the file does not exist yet, generated once and written there ``0600``; it then stays
  the same across restarts;
- else generated at each start and written ``0600`` to ``<artifacts>/http-token`` (the path is
  printed on stderr; the value never is).
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cdp_core.private_file import UnsafeFile, others_can_write, read_private_file
from mcp_server.safety.owner_only import restrict_to_owner

__all__ = ["HttpSecret", "BearerAuth", "resolve_secret", "DEFAULT_FILE_NAME", "MIN_SECRET_CHARS"]

DEFAULT_FILE_NAME = "http-token"
#: A secret shorter than this is a password someone typed, not a secret: refused at start.
MIN_SECRET_CHARS = 16
#: A secret is a line; a bigger file is not one of ours
SECRET_FILE_MAX_BYTES = 4096

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class SecretError(ValueError):
    """The configured secret cannot be used; the message says which setting and why."""


@dataclass(frozen=True)
class HttpSecret:
    value: str
    #: where the secret is stored (None when it came from MCP_HTTP_TOKEN)
    path: Path | None
    #: how it was obtained, for the start-up line: "MCP_HTTP_TOKEN", "read", "generated"
    origin: str


def resolve_secret(token: str | None, token_file: Path | None, artifact_dir: Path) -> HttpSecret:
    """The secret for this start, from the settings; generated and written 0600 when none is configured."""
    if token:
        if len(token.strip()) < MIN_SECRET_CHARS:
            raise SecretError(f"MCP_HTTP_TOKEN has {len(token.strip())} characters (at least {MIN_SECRET_CHARS})")
        return HttpSecret(token.strip(), None, "MCP_HTTP_TOKEN")
    if token_file is not None:
        path = Path(token_file).expanduser()
        if path.exists():
            return HttpSecret(_read_private(path), path, "read")
        return HttpSecret(_write_new(path), path, "generated")
    return HttpSecret(_write_new(Path(artifact_dir) / DEFAULT_FILE_NAME), Path(artifact_dir) / DEFAULT_FILE_NAME,
                      "generated")  # fmt: skip


def _read_private(path: Path) -> str:
    """The secret in ``path``, checked on the opened file (owner, mode, size) and its folder, never by path alone."""
    if others_can_write(path.parent.stat()):
        # another account could replace the file between our check and the next start
        raise SecretError(f"MCP_HTTP_TOKEN_FILE {path} lies in a folder other users can write; move it")
    try:
        raw = read_private_file(path, SECRET_FILE_MAX_BYTES, others_may_read=False)
    except UnsafeFile as exc:
        raise SecretError(f"MCP_HTTP_TOKEN_FILE {exc}") from exc
    value = raw.decode("utf-8", "replace").strip()
    if len(value) < MIN_SECRET_CHARS:
        raise SecretError(f"MCP_HTTP_TOKEN_FILE {path} holds {len(value)} characters (at least {MIN_SECRET_CHARS})")
    return value


def _write_new(path: Path) -> str:
    """A fresh secret written owner-only (the folder too when we create it); never world-readable, even briefly."""
    value = secrets.token_urlsafe(32)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, 0o600)  # an older file keeps its mode through O_CREAT: set it
        if sys.platform == "win32":
            # The mode bits do not reach Windows ACLs: the file would inherit its folder's entries
            # (Users can read a folder outside the artifacts root). Owner-only before the secret is in it.
            restrict_to_owner(path)
        os.write(fd, (value + "\n").encode())
    finally:
        os.close(fd)
    return value


class BearerAuth:
    """ASGI middleware: an HTTP request without ``Authorization: Bearer <secret>`` gets 401, whatever its method."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], secret: str) -> None:
        self.app = app
        self._expected = secret.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self._authorized(scope):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": None,
                "error": {
                    "code": -32001,
                    "message": "unauthorized: send the header Authorization: Bearer <secret> "
                    "(the server printed where the secret is at start; see docs/security.md)",
                },
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b'Bearer realm="mcp-browser"'),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _authorized(self, scope: Scope) -> bool:
        for name, value in scope.get("headers") or ():
            if name.lower() == b"authorization":
                scheme, _, given = value.strip().partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self._expected)
        return False
