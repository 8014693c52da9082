"""Answer the stdio handshake (``initialize``, ``tools/list``) before the MCP SDK has loaded.

Why: importing the MCP SDK costs 0.45-0.7 s of CPU (its protocol models are pydantic classes
for two protocol eras; ``mcp_types`` alone is about 0.3 s), and a client waits for that before
its first ``tools/list``: most of our start-up. The two answers depend only on our code, the
installed packages and the toolset, so the SDK's own answers are recorded once (a cache file
in the user's cache folder, never in site-packages) and replayed while the SDK and the server load in a
background thread. The first ``tools/call`` requests are run for real once our tools are loaded,
before the SDK's server side is (early_calls.py). Everything else waits for the SDK: the lines
read so far go to it in order (``initialize`` included, its duplicate answer dropped), and from
then on the SDK serves the session alone (quick_front.py).

Nothing is guessed: the cache holds the exact bytes the SDK wrote for each handshake protocol
version (:func:`record`); a change of our source files, of an installed package or of the
toolset misses the cache, and that start takes the ordinary path and records a new one.
No request is answered from the recording but the handshake. ``MCP_QUICKSTART=0`` turns it off
(``MCP_EARLY_CALLS=0`` only the early calls).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = [
    "fingerprint",
    "load",
    "record",
    "record_later",
    "record_if_missing",
    "cache_to_record",
    "serve",
    "ENABLED_ENV",
]

log = logging.getLogger("mcp_server")

ENABLED_ENV = "MCP_QUICKSTART"
#: request id used while recording; replaced by the client's id when an answer is replayed
SENTINEL = 987654321987
_ROOT = Path(__file__).resolve().parents[2]  # the source tree: mcp_server/commands/ is two below it
_SOURCES = ("mcp_server", "targets", "cdp_core")


#: the words settings.py reads as false (it validates MCP_QUICKSTART; this module reads it before pydantic loads)
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def enabled() -> bool:
    return os.environ.get(ENABLED_ENV, "true").strip().lower() not in FALSE_WORDS


def fingerprint(toolset: str) -> str:
    """What the handshake answers depend on: our sources, the installed packages, Python; then the toolset.

    ``<code>-<toolset>``: the caches of several toolsets live side by side; a new code
    fingerprint replaces them all.
    """
    h = hashlib.sha256()
    h.update(f"{sys.version}\n".encode())
    for package in _SOURCES:
        for dirpath, dirnames, filenames in os.walk(_ROOT / package):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith((".py", ".js", ".json")) and not name.startswith("handshake-"):
                    st = os.stat(os.path.join(dirpath, name))
                    h.update(f"{dirpath}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    # Installed packages (the SDK, pydantic, ours) by their dist-info names, which carry versions.
    for entry in sys.path:
        if entry.endswith("site-packages") and os.path.isdir(entry):
            names = sorted(n for n in os.listdir(entry) if n.endswith(".dist-info"))
            h.update("\n".join(names).encode())
    return f"{h.hexdigest()[:20]}-{hashlib.sha256(toolset.encode()).hexdigest()[:8]}"


#: Recorded handshakes kept in the cache folder (several installs and toolsets share it).
_KEEP = 8


def _cache_dirs() -> list[Path]:
    """The user's cache folder, never the installed package (read-only installs, several users).

    ``$XDG_CACHE_HOME`` (else ``~/.cache``) on Linux, ``~/Library/Caches`` on macOS,
    ``%LOCALAPPDATA%`` on Windows; then ``mcp-browser-debug``.
    """
    if os.environ.get("XDG_CACHE_HOME"):
        base = Path(os.environ["XDG_CACHE_HOME"])
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    elif os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    else:
        base = Path.home() / ".cache"
    return [base / "mcp-browser-debug"]


def load(key: str) -> dict[str, Any] | None:
    """The recorded answers for ``key``, or None."""
    for folder in _cache_dirs():
        try:
            data = json.loads((folder / f"handshake-{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("key") == key:
            return data
    return None


def _store(key: str, data: dict[str, Any]) -> None:
    text = json.dumps({"key": key, **data})
    for folder in _cache_dirs():
        try:
            folder.mkdir(parents=True, exist_ok=True)
            # Other versions may share the folder: keep the newest few instead of deleting theirs.
            recorded = sorted(folder.glob("handshake-*.json"), key=lambda f: f.stat().st_mtime, reverse=True)
            for old in recorded[_KEEP - 1 :]:
                old.unlink(missing_ok=True)
            tmp = folder / f".handshake-{key}.{os.getpid()}.tmp"
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, folder / f"handshake-{key}.json")
            return
        except OSError:
            continue


# -- recording (runs in the server's event loop, after start-up) ------------------------------


def cache_to_record(toolset: str) -> str | None:
    """The cache key to record for this start, or None (quick start off, or already recorded)."""
    if sys.platform == "win32" or not enabled():
        return None
    key = fingerprint(toolset)
    return None if load(key) is not None else key


async def record_later(server: Any, key: str, delay: float = 1.0) -> None:
    """Record once the client had its first answers (the recording runs the SDK a few times)."""
    import anyio

    await anyio.sleep(delay)
    try:
        await record(server, key)
    except Exception:  # noqa: BLE001 - no cache only means the next start takes the ordinary path
        log.warning("could not record the handshake for a quick start", exc_info=True)


async def record_if_missing(server: Any, key: str, limit: float = 5.0) -> None:
    """Record at the end of a session if :func:`record_later` did not (the session was shorter).

    The client has closed the wire and waits for the process to leave: bounded by ``limit``
    so a slow machine never holds a client's shutdown long.
    """
    import anyio

    if load(key) is not None:
        return
    with anyio.move_on_after(limit):
        try:
            await record(server, key)
        except Exception:  # noqa: BLE001 - no cache only means the next start takes the ordinary path
            log.warning("could not record the handshake for a quick start", exc_info=True)


class _Script:
    """An SDK stdin that yields fixed lines, then ends once the expected answers were written."""

    def __init__(self, lines: list[str], done: Any) -> None:
        self.lines = deque(lines)
        self.done = done

    def __aiter__(self) -> _Script:
        return self

    async def __anext__(self) -> str:
        if self.lines:
            return self.lines.popleft()
        await self.done.wait()
        raise StopAsyncIteration


class _Capture:
    """An SDK stdout that keeps what the SDK wrote."""

    def __init__(self, expected: int, done: Any) -> None:
        self.messages: list[str] = []
        self.expected = expected
        self.done = done

    async def write(self, text: str) -> None:
        self.messages.append(text.rstrip("\n"))
        if len(self.messages) >= self.expected:
            self.done.set()

    async def flush(self) -> None:
        return None


async def record(server: Any, key: str) -> None:
    """Run the handshake through the SDK for each protocol version it negotiates; store its exact answers."""
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

    answers: dict[str, dict[str, str]] = {"initialize": {}, "tools/list": {}}
    for version in HANDSHAKE_PROTOCOL_VERSIONS:
        init = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "record", "version": "0"}}
        lines = [
            json.dumps({"jsonrpc": "2.0", "id": SENTINEL, "method": "initialize", "params": init}),
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json.dumps({"jsonrpc": "2.0", "id": SENTINEL + 1, "method": "tools/list"}),
        ]
        done = anyio.Event()
        out = _Capture(2, done)
        with anyio.fail_after(30):
            async with stdio_server(stdin=_Script(lines, done), stdout=out) as (read, write):  # type: ignore[arg-type]
                await server.run(read, write, server.create_initialization_options())
        by_id = {json.loads(m).get("id"): m for m in out.messages}
        init_answer, tools_answer = by_id.get(SENTINEL), by_id.get(SENTINEL + 1)
        if init_answer is None or tools_answer is None or '"result"' not in init_answer + tools_answer:
            return  # something unexpected: no cache, every start takes the ordinary path
        answers["initialize"][version] = init_answer
        answers["tools/list"][version] = tools_answer.replace(str(SENTINEL + 1), str(SENTINEL), 1)
    from mcp_server.surface.call_routes import action_modules

    modules = action_modules(server.browser_mcp.calls)
    data = {"versions": list(HANDSHAKE_PROTOCOL_VERSIONS), "latest": LATEST_HANDSHAKE_VERSION, **answers}
    _store(key, {**data, "actionModules": modules})


# -- the front: answers the handshake while the SDK loads (quick_front.py) --------------------


def _divert() -> tuple[int, int]:
    """Private copies of the wire; fd 0 reads the null device and fd 1 goes to stderr (children stay off the wire)."""
    wire_in = os.dup(0)
    wire_out = os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out


def serve(
    toolset: str,
    prepare: Callable[[], Any],
    serve_streams: Callable[[Any, Any, Any, Any], Any],
) -> int | None:
    """Serve stdio with the quick handshake; None when it cannot (no cache: the caller serves as usual).

    ``prepare()`` loads the tools in a background thread and returns ``(manager, app)`` (or
    an exit code); ``app.build()`` then makes the SDK server there too, while the front answers
    the handshake and the first calls (quick_front.py); ``serve_streams(manager, server, stdin,
    stdout)`` is the coroutine that runs the SDK on our streams, in the same loop.
    """
    if sys.platform == "win32" or not enabled() or sys.stdin is None or sys.stdin.isatty():
        return None
    cache = load(fingerprint(toolset))
    if cache is None:
        return None
    sys.stdout.flush()
    wire_in, wire_out = _divert()
    import asyncio

    from .quick_front import run

    try:
        return asyncio.run(run(cache, wire_in, wire_out, prepare, serve_streams))
    except KeyboardInterrupt:
        return 0
