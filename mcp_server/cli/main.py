"""``mcp-browser``: serve the tools on stdio (default) or streamable HTTP on loopback; ``hook`` subcommands.

Settings come from the environment with flags on top and are validated before anything
starts: a bad value exits with status 2 and a message naming the variable. Shutdown closes
the internal browser and detaches from the user's Chrome (never closes it).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import textwrap
import time
from typing import TYPE_CHECKING, Any

from mcp_server.cli.shutdown import close_browsers

if TYPE_CHECKING:
    from mcp.server import Server

    from mcp_server.server.app import BrowserMCP
    from mcp_server.server.settings import Settings
    from targets import BrowserManager

__all__ = ["main", "build_app", "parse_args"]

log = logging.getLogger("mcp_server")

LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


def _bool_flag(parser: argparse.ArgumentParser, name: str, help_text: str) -> None:
    # --x / --no-x, None when absent so the environment value stands.
    parser.add_argument(f"--{name}", dest=name.replace("-", "_"), action=argparse.BooleanOptionalAction, help=help_text)


EPILOG = """\
MCP clients start this command themselves over stdio (JSON-RPC on stdin/stdout, logs on stderr).
The environment variable in a flag's help sets the same thing (docs/configuration.md). Agents attach
to the user's Chrome with browser_session action=attach_cdp (README: "Attach to the Chrome you
already have open").

subcommands:
  mcp-browser chromium [--port 9222]          a headless Chromium with a debugging port on 127.0.0.1, for
                                              tests and for trying attach_cdp (temporary profile)
  mcp-browser skill path                      where the agent skill shipped with this package is
  mcp-browser skill install --client claude   copy the skill where Claude Code (or codex: Codex) finds it
  mcp-browser hook user-prompt                prompt hook for Claude Code / Codex (reads the prompt JSON on stdin)
"""


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Argparse's help, without splitting ``./.mcp-browser-artifacts`` or env names at their hyphens."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def package_version() -> str:
    """The installed distribution's version (``mcp-browser-debug``), as the server reports it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp-browser-debug")
    except PackageNotFoundError:
        return "0.0.0 (not installed)"


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked: the metadata scan is not free, and a start needs none of it."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(f"{parser.prog} {package_version()}")  # stdout, as argparse's own version action
        parser.exit()


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="mcp-browser",
        description="MCP server for debugging web apps in a real Chrome: its own internal browser, or the "
        "user's Chrome over CDP.",
        epilog=EPILOG,
        formatter_class=_HelpFormatter,
    )
    p.add_argument("--version", action=_VersionAction, nargs=0, help="show program's version number and exit")
    p.add_argument("--toolset", choices=["condensed", "legacy", "all"], help="tools to list (BROWSER_TOOLSET)")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    p.add_argument("--host", default="127.0.0.1", choices=LOOPBACK_HOSTS, help="loopback address for --http")
    p.add_argument("--port", type=int, default=8765, help="port for --http (default 8765)")
    _bool_flag(p, "headless", "run the internal browser headless (BROWSER_HEADLESS)")
    p.add_argument("--default-target", choices=["launch", "cdp"], help="implicit first target (BROWSER_DEFAULT_TARGET)")
    p.add_argument("--cdp-url", help="default URL for attach_cdp (PLAYWRIGHT_CDP_URL); never attaches by itself")
    _bool_flag(p, "allow-remote-cdp", "allow non-loopback CDP URLs (ALLOW_REMOTE_CDP)")
    p.add_argument("--allowed-urls", help="comma-separated URL patterns for the internal browser (ALLOWED_URLS)")
    _bool_flag(p, "allow-file-urls", "allow file:// in the internal browser (ALLOW_FILE_URLS)")
    p.add_argument("--allowed-file-roots", help="comma-separated roots for file:// (ALLOWED_FILE_ROOTS)")
    _bool_flag(p, "block-media", "block images/media/fonts in the internal browser (BLOCK_MEDIA)")
    p.add_argument(
        "--upload-roots",
        help="comma-separated folders upload_file may read besides <artifacts>/uploads (MCP_UPLOAD_ROOTS)",
    )
    p.add_argument("--artifact-dir", help="artifacts root (MCP_ARTIFACT_DIR, default ./.mcp-browser-artifacts)")
    _bool_flag(p, "evaluate-enabled", "allow evaluate_js and JS predicates (BROWSER_EVALUATE_ENABLED)")
    p.add_argument("--audit-log", help="audit log file (MCP_AUDIT_LOG, default <artifacts>/audit.jsonl)")
    p.add_argument("--chrome-path", help="Chrome/Chromium binary (CHROME_PATH)")
    p.add_argument(
        "--max-call-seconds",
        type=float,
        help="every call answers within this many seconds; long waits then say how to continue "
        "(MCP_MAX_CALL_SECONDS, default 50)",
    )
    p.add_argument(
        "--log-level",
        default="WARNING",
        type=str.upper,
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="server log level on stderr (default WARNING)",
    )
    return p.parse_args(argv)


def settings_from(ns: argparse.Namespace) -> Settings:
    from mcp_server.server.settings import Settings

    def split(value: str | None) -> list[str] | None:
        return None if value is None else [v.strip() for v in value.split(",") if v.strip()]

    return Settings.load(
        toolset=ns.toolset,
        headless=ns.headless,
        default_target=ns.default_target,
        cdp_url=ns.cdp_url,
        allow_remote_cdp=ns.allow_remote_cdp,
        allowed_urls=split(ns.allowed_urls),
        allow_file_urls=ns.allow_file_urls,
        allowed_file_roots=split(ns.allowed_file_roots),
        block_media=ns.block_media,
        upload_roots=split(ns.upload_roots),
        artifact_dir=ns.artifact_dir,
        evaluate_enabled=ns.evaluate_enabled,
        audit_log=ns.audit_log,
        chrome_path=ns.chrome_path,
        max_call_seconds=ns.max_call_seconds,
    )


def build_app(settings: Settings) -> tuple[BrowserManager, Server]:
    """The browser manager and the SDK server, wired: capture installed, audit log attached."""
    manager, app = build_tools(settings)
    return manager, app.build()


def build_tools(settings: Settings) -> tuple[BrowserManager, BrowserMCP]:
    """The browser manager and the tools (``BrowserMCP``) without the SDK server (``app.build()`` makes it).

    Everything the server process (and the browser driver it starts) creates from here on is
    owner-only: files ``0600``, folders ``0700`` (bodies, HAR files, screenshots, traces,
    downloads and the audit log hold what the user's pages showed and sent).
    """
    os.umask(0o077)
    from mcp_server.server.app import BrowserMCP
    from targets import BrowserManager

    manager = BrowserManager(settings.target_settings())
    from mcp_server.evidence import capture
    from mcp_server.safety.audit import AuditLog

    capture.install(manager, settings)
    app = BrowserMCP(settings, manager)
    audit = AuditLog(settings.audit_log or app.artifacts.root / "audit.jsonl")
    app.artifacts.ensure_root()
    app.artifacts.protect(audit.path)  # no agent path may read, overwrite or delete the log

    def record(call: Any) -> None:
        audit.record(
            tool=call.tool,
            action=call.action,
            arguments=call.arguments,
            status=call.status,
            error_code=call.code,
            duration_ms=call.duration_ms,
        )

    app.observers.append(record)
    return manager, app


async def _serve_stdio(server: Any, manager: BrowserManager) -> None:
    """Serve the SDK on stdio until the client leaves or a stop signal comes; then close the browsers."""
    import anyio
    from mcp.server.stdio import stdio_server

    from mcp_server.cli.gc_tuning import tune_gc
    from mcp_server.cli.stdio_guard import open_guarded_stdin
    from mcp_server.cli.stop_signals import StopSignals

    tune_gc()

    async def watch_signals() -> None:
        # The stdin reader sits in a worker thread that cancellation cannot interrupt, so a
        # signal would wait for the next input line: close the browsers, then leave at once.
        # StopSignals: the stop signals this system has, through the loop or signal.signal
        # (Windows loops refuse signal handlers; Windows has no SIGHUP but a SIGBREAK).
        async with StopSignals() as stops:
            signum = await stops.wait()
            log.info("signal %s: shutting down", signum)
            await close_browsers(manager)
            sys.stderr.flush()
            os._exit(0)

    guard, release = open_guarded_stdin(_refusal_recorder(server))
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(watch_signals)
            tg.start_soon(_preload_first_call)
            # Lines the SDK would drop unanswered (too deep, huge integers, not JSON) get an error.
            # The SDK annotates stdin as anyio.AsyncFile[str] but only iterates it (async for line in stdin).
            async with stdio_server(guard) as (read, write):  # type: ignore[arg-type]
                guard.write = write
                await server.run(read, write, server.create_initialization_options())
            tg.cancel_scope.cancel()
    finally:
        if release is not None:
            release()
        await close_browsers(manager)


async def _preload_first_call() -> None:
    """Imports the first attach would make, done in a worker thread while the client reads tools/list."""
    import anyio.to_thread

    from cdp_core.discovery import preload

    try:
        await anyio.to_thread.run_sync(preload)
    except Exception:  # noqa: BLE001 - a speed-up only (an import race may raise importlib's
        # _DeadlockError, a RuntimeError): the first attach then imports (and reports) it itself
        log.debug("preloading the first attach's imports failed", exc_info=True)


def _refusal_recorder(server: Any) -> Any:
    """Audit a message the transport refused, like a call refused by validation."""
    app = getattr(server, "browser_mcp", None)

    def record(tool: str | None, reason: str) -> None:
        if app is None:
            return
        from mcp_server.server.envelope import error_result
        from targets.errors import ErrorCode, ToolFailure

        answer = error_result(ToolFailure(ErrorCode.INVALID_ARGUMENT, reason), None)
        app._notify(str(tool or "(unparsed message)"), None, {}, answer, time.time())

    return record


def server_command_path(executable: str | None = None, platform: str | None = None) -> str:
    """The installed ``mcp-browser`` command next to this Python: ``mcp-browser.exe`` on Windows.

    pip and uv put console scripts beside ``python`` (``Scripts\\`` on Windows, ``bin/``
    elsewhere) and name them with ``.exe`` on Windows: that is the path a client's config needs.
    """
    executable = executable or sys.executable
    platform = platform or sys.platform
    if platform == "win32":
        import ntpath

        return ntpath.join(ntpath.dirname(executable), "mcp-browser.exe")
    return os.path.join(os.path.dirname(executable), "mcp-browser")


def _prepare(ns: argparse.Namespace) -> tuple[Any, Any] | int:
    """Settings validated, manager and server built; or the exit code after saying what is wrong."""
    prepared = _prepare_tools(ns)
    if isinstance(prepared, int):
        return prepared
    manager, app = prepared
    return manager, app.build()


def _prepare_tools(ns: argparse.Namespace) -> tuple[Any, Any] | int:
    """Settings validated, manager and tools built (no SDK server yet); or the exit code."""
    from mcp_server.server.settings import SettingsError

    try:
        settings = settings_from(ns)
    except SettingsError as exc:
        print(f"mcp-browser: {exc}", file=sys.stderr)
        return 2
    if not 0 < ns.port < 65536:
        print(f"mcp-browser: --port {ns.port} is not a valid port", file=sys.stderr)
        return 2
    try:
        manager, app = build_tools(settings)
    except OSError as exc:
        # Clients such as Claude Desktop start servers in a read-only directory ("/"): the default
        # ./.mcp-browser-artifacts cannot be created there. A traceback would only show "disconnected".
        print(
            f"mcp-browser: cannot write {exc.filename or settings.artifact_dir}: {exc.strerror or exc}. "
            "Set MCP_ARTIFACT_DIR (or --artifact-dir) to a writable absolute path.",
            file=sys.stderr,
        )
        return 2
    return manager, app


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "hook":
        from mcp_server.cli.hook import main as hook_main

        return hook_main(args[1:])
    return _serve(parse_args(args))


def _serve(ns: argparse.Namespace) -> int:
    logging.basicConfig(level=ns.log_level.upper(), stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    prepared = _prepare(ns)
    if isinstance(prepared, int):
        return prepared
    manager, server = prepared
    import anyio

    try:
        if ns.http:
            from mcp_server.cli.http import http_secret, serve_http

            secret = http_secret(server)
            if isinstance(secret, int):
                anyio.run(close_browsers, manager)
                return secret
            anyio.run(serve_http, server, manager, ns.host, ns.port, secret)
        else:
            if sys.stdin.isatty():
                # Someone ran it in a terminal (make serve): say that the silence is waiting, not hanging.
                print(
                    "mcp-browser: MCP server on stdio, waiting for a client's JSON-RPC on stdin "
                    f"({'Ctrl-Z Enter' if sys.platform == 'win32' else 'Ctrl-D'} or Ctrl-C quits).\n"
                    "MCP clients start this command themselves: point yours at "
                    f"{server_command_path()} (see README).",
                    file=sys.stderr,
                    flush=True,
                )
            anyio.run(_serve_stdio, server, manager)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
