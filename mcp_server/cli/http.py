"""``mcp-browser --http``: the streamable HTTP transport, its bearer secret and a uvicorn that shuts down cleanly.

Split from :mod:`mcp_server.cli` (which parses the command line and serves stdio); ``main``
imports this module only when ``--http`` is given, so stdio starts never import uvicorn.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from targets import BrowserManager

__all__ = ["http_secret", "serve_http"]


async def serve_http(server: Any, manager: BrowserManager, host: str, port: int, secret: Any) -> None:
    """Serve the SDK's streamable HTTP app on ``host:port`` behind the bearer secret; close the browsers after."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    from mcp_server.cli.gc_tuning import tune_gc
    from mcp_server.cli.shutdown import close_browsers
    from mcp_server.safety.http_auth import BearerAuth

    tune_gc()

    # DNS rebinding: only loopback Host and Origin values are accepted.
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )
    # Local programs and other local users: every request needs the bearer secret (http_auth.py).
    app = BearerAuth(server.streamable_http_app(host=host, transport_security=security), secret.value)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    web = _graceful_server(config)
    try:
        print(f"mcp-browser: streamable HTTP on http://{host}:{port}/mcp", file=sys.stderr, flush=True)
        print(f"mcp-browser: {_secret_line(secret)}", file=sys.stderr, flush=True)
        await web.serve()
    finally:
        await close_browsers(manager)


def _secret_line(secret: Any) -> str:
    """Where the client finds the bearer secret (never the secret itself: stderr may be logged)."""
    if secret.path is None:
        return "clients must send Authorization: Bearer $MCP_HTTP_TOKEN"
    kept = "new for this start" if secret.origin == "generated" and secret.path.name == "http-token" else secret.origin
    return f"clients must send Authorization: Bearer <the secret in {secret.path.resolve()}> ({kept})"


def http_secret(server: Any) -> Any:
    """The HTTP transport's secret (http_auth.resolve_secret), or the exit code after saying why not."""
    from mcp_server.safety.http_auth import SecretError, resolve_secret

    app = server.browser_mcp
    settings = app.settings
    try:
        secret = resolve_secret(settings.http_token, settings.http_token_file, app.artifacts.root)
    except (SecretError, OSError) as exc:
        print(f"mcp-browser: the HTTP secret cannot be used: {exc}", file=sys.stderr)
        return 2
    if secret.path is not None:
        app.artifacts.protect(secret.path)  # no agent path (screenshot, download...) may read or overwrite it
    return secret


def _graceful_server_class() -> Any:
    import uvicorn

    class GracefulServer(uvicorn.Server):
        """uvicorn's server, minus the re-raise of the signal that stopped it.

        uvicorn stops on SIGTERM/SIGINT and then raises the same signal again, which killed the
        process before our ``finally`` closed the internal browser: its profile (cookies,
        localStorage) stayed in /tmp and Chromium ran on. Here the signal only stops serving;
        shutdown then closes the browsers and removes every temporary profile.
        """

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            from mcp_server.cli.stop_signals import stop_signals

            stops = stop_signals()  # SIGHUP on POSIX, SIGBREAK (Ctrl-Break) on Windows
            previous = {sig: signal.signal(sig, self.handle_exit) for sig in stops}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    return GracefulServer


def _graceful_server(config: Any) -> Any:
    return _graceful_server_class()(config)
