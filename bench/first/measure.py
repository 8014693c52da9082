"""Start to the first answered call: the wait a person has before an agent can act, and where it goes.

"First answered call" is the first ``tools/call`` whose answer gives the agent pages to act
on: ours ``browser_session action=attach_cdp`` (its answer names the tab it selected and how
many others there are; if it ever names none, ``list_pages`` is called too and that is
noted), a peer its page list (peers connect to the browser lazily inside it). Each start is
timed from spawning the server, through ``initialize`` and ``tools/list``, to that answer, by three clients:

- the Python SDK client (``mcp.client.Client``, as the rest of the bench), with the time it
  spends on outputSchemas (``check_schema`` against the meta-schema and the validator build,
  once per session at a tool's first call, and the validation) measured inside it;
- the TypeScript SDK client (``bench/first/ts_client.mjs``), which compiles every outputSchema with
  ajv inside ``listTools``;
- a bare JSON-RPC client (``bench/first/wire.py``) that does nothing but write and read
  lines: the server's own timeline, including when it read its first line.

Cold and warm: ours records its handshake answers in ``$XDG_CACHE_HOME/mcp-browser-debug``
the first time it runs and replays them on later starts. The bench gives every server a
throwaway home; the *cold* start runs on an empty one (the first start after install), the
*warm* starts on the server's run home once its first session has ended normally (every start
after that). The run home is the one the rest of the bench uses, so its start-up rows are warm.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import jsonschema  # noqa: F401 - see below
import referencing  # noqa: F401
from mcp.client import Client
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from ..procmem import children_of, tree_of
from ..servers import Adapter, Call
from .wire import wire_first_answer

# The Python SDK imports jsonschema at the first validated call, once per client process. Imported here,
# so every sample (whichever server runs first) times the per-session work, not that one-time import.

__all__ = ["measure_first", "merge_first", "run_first_only", "median_of"]

HERE = Path(__file__).resolve().parent
#: How long the cold session stays open for ours to write its handshake recording (it records after 1 s).
RECORD_WAIT_S = 20.0

EnvFor = Callable[[Path, Path], dict[str, str]]


@contextlib.contextmanager
def _schema_clock() -> Any:
    """Time the Python SDK's outputSchema work: validator build (meta-schema check + compile) and validation."""
    acc = {"build": 0.0, "validate": 0.0, "built": 0}
    build, validate = ClientSession._output_schema_validator, ClientSession.validate_tool_result

    def timed_build(self: ClientSession, name: str, schema: dict[str, Any]) -> Any:
        cached = name in self._tool_output_validators
        started = time.perf_counter()
        try:
            return build(self, name, schema)
        finally:
            acc["build"] += time.perf_counter() - started
            acc["built"] += 0 if cached else 1

    async def timed_validate(self: ClientSession, name: str, result: Any) -> None:
        started = time.perf_counter()
        try:
            await validate(self, name, result)
        finally:
            acc["validate"] += time.perf_counter() - started

    ClientSession._output_schema_validator = timed_build  # type: ignore[method-assign]
    ClientSession.validate_tool_result = timed_validate  # type: ignore[method-assign]
    try:
        yield acc
    finally:
        ClientSession._output_schema_validator = build  # type: ignore[method-assign]
        ClientSession.validate_tool_result = validate  # type: ignore[method-assign]


def _kill_new_children(before: set[int]) -> int:
    """Stop what a start left running (processes this benchmark spawned and their children)."""
    left = tree_of(children_of(os.getpid()) - before)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return len(left)


def _recorded(env: dict[str, str]) -> bool:
    """Ours wrote its handshake recording into this home's cache folder."""
    return any((Path(env["XDG_CACHE_HOME"]) / "mcp-browser-debug").glob("handshake-*.json"))


async def sdk_first_answer(
    adapter: Adapter, params: StdioServerParameters, calls: list[Call], log: Path, timeout: float, *, linger: bool
) -> dict[str, Any]:
    """One start through the Python SDK client: ms from spawn to each step, and its outputSchema work."""
    before = children_of(os.getpid())
    out: dict[str, Any] = {}
    try:
        with open(log, "w") as errlog, _schema_clock() as acc:  # noqa: ASYNC230 - the child's stderr
            t0 = time.perf_counter()
            client = Client(stdio_client(params, errlog=errlog), mode="legacy", read_timeout_seconds=timeout)
            async with client:
                t_init = time.perf_counter()
                info = client.server_info
                out["server"] = f"{info.name} {info.version}" if info else "?"
                with anyio.fail_after(timeout):
                    await client.list_tools()
                t_list = time.perf_counter()
                result = None
                for call in calls:
                    with anyio.fail_after(timeout):
                        result = await client.call_tool(call.tool, call.args)
                t_call = time.perf_counter()
                out.update(
                    initialize=(t_init - t0) * 1000,
                    tools_list=(t_list - t_init) * 1000,
                    first_call=(t_call - t_list) * 1000,
                    total=(t_call - t0) * 1000,
                    schema_build=acc["build"] * 1000,
                    schemas_built=acc["built"],
                    validation=(acc["validate"] - acc["build"]) * 1000,
                    pages=len(adapter.parse_pages(result)) if result is not None and not result.is_error else 0,
                    is_error=bool(result is not None and result.is_error),
                )
                if linger and params.env:
                    # Let the session run on as a user's would, until ours has recorded its handshake.
                    deadline = time.monotonic() + RECORD_WAIT_S
                    while not _recorded(params.env) and time.monotonic() < deadline:
                        await anyio.sleep(0.1)
                    out["recorded"] = _recorded(params.env)
    except Exception as exc:  # noqa: BLE001 - a failed start is a note, the run goes on
        out["error"] = f"{type(exc).__name__}: {exc}"[:300]
    out["leftovers"] = _kill_new_children(before)
    return {k: round(v, 1) if isinstance(v, float) else v for k, v in out.items()}


def ts_first_answer(
    peers_dir: Path, params: StdioServerParameters, calls: list[Call], starts: int, log: Path, timeout: float
) -> dict[str, Any]:
    """``starts`` starts through the TypeScript SDK client (one node process, as one host); blocking."""
    if shutil.which("node") is None:
        return {"error": "node not found"}
    if not (peers_dir / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        return {"error": "@modelcontextprotocol/sdk not installed in " + str(peers_dir)}
    cfg = {
        "peersDir": str(peers_dir),
        "command": params.command,
        "args": list(params.args),
        "env": params.env,
        "cwd": str(params.cwd),
        "calls": [[c.tool, c.args] for c in calls],
        "starts": starts,
        "stderrLog": str(log),
        "timeoutMs": int(timeout * 1000),
    }
    proc = subprocess.Popen(
        ["node", str(HERE / "ts_client.mjs"), json.dumps(cfg)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its group holds the servers it spawned, stopped below
    )
    try:
        stdout, stderr = proc.communicate(timeout=starts * (timeout + 10))
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    try:
        return json.loads(stdout.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": f"node exit {proc.returncode}: {stderr.decode()[-400:]}"}


def first_calls(adapter: Adapter, cdp_url: str) -> list[Call]:
    """Ours: attach (its answer names the selected tab). Peers: their page list (they connect inside it)."""
    prep = adapter.prepare(cdp_url)
    return [prep] if prep is not None else [adapter.list_pages()]


async def measure_first(
    adapter: Adapter, cfg: Any, cdp_url: str, base: Path, env_for: EnvFor, *, starts: int | None = None
) -> dict[str, Any]:
    """:func:`_measure_first`, never raising: a failure is a note and the rest of the bench goes on."""
    try:
        return await _measure_first(adapter, cfg, cdp_url, base, env_for, starts=starts)
    except Exception as exc:  # noqa: BLE001
        empty: dict[str, Any] = {k: [] for k in ("sdk_cold", "sdk_warm", "wire_cold", "wire_warm", "ts")}
        return {**empty, "notes": [f"first answer: {type(exc).__name__}: {exc}"[:300]]}


async def _measure_first(
    adapter: Adapter, cfg: Any, cdp_url: str, base: Path, env_for: EnvFor, *, starts: int | None = None
) -> dict[str, Any]:
    """One round of first-answer starts: a cold one and ``starts`` warm ones per client (the bare one cold too).

    ``base/home`` is the server's run home: without files in the first round, so the cold start
    runs there and leaves ours' recording for everything after it; later rounds run their
    cold start on a fresh home.
    """
    starts = starts or cfg.starts
    cmd, args = adapter.command(cfg.peers_dir, cdp_url)
    cwd = base / "cwd"
    cwd.mkdir(parents=True, exist_ok=True)
    log = cfg.log_dir / "first"
    log.mkdir(parents=True, exist_ok=True)
    home = base / "home"
    fresh = not any(p.is_file() for p in home.rglob("*")) if home.exists() else True
    cold_home = home if fresh else Path(tempfile.mkdtemp(prefix="home-cold-", dir=base))

    def params(h: Path) -> StdioServerParameters:
        env = {**env_for(h, base / "artifacts"), **adapter.extra_env}
        return StdioServerParameters(command=cmd, args=args, env=env, cwd=cwd)

    res: dict[str, Any] = {"sdk_cold": [], "sdk_warm": [], "wire_cold": [], "wire_warm": [], "ts": [], "notes": []}
    calls = first_calls(adapter, cdp_url)
    key, timeout = adapter.key, cfg.start_timeout

    # Cold: the first start after install. Its session stays open until ours has recorded its handshake.
    linger = cold_home == home  # later rounds' run home already has what a first session leaves
    cold = await sdk_first_answer(adapter, params(cold_home), calls, log / f"{key}.cold.log", timeout, linger=linger)
    res["sdk_cold"].append(cold)
    if adapter.is_ours and not cold.get("pages") and "error" not in cold:
        calls = [*calls, adapter.list_pages()]
        res["notes"].append("attach_cdp's answer held no pages: the first answer is attach + list_pages")
    if cold_home != home:
        shutil.rmtree(cold_home, ignore_errors=True)
    if adapter.is_ours and not _recorded(params(home).env or {}):
        res["notes"].append("no handshake recording after the cold start: warm starts are cold too")
    res["calls"] = [[c.tool, c.args] for c in calls]

    for i in range(starts):
        res["sdk_warm"].append(
            await sdk_first_answer(adapter, params(home), calls, log / f"{key}.warm{i}.log", timeout, linger=False)
        )
    wire_calls = [(c.tool, c.args) for c in calls]
    wire_homes = [("wire_warm", home)] * starts
    wire_homes.append(("wire_cold", Path(tempfile.mkdtemp(prefix="home-wire-", dir=base))))
    for i, (kind, h) in enumerate(wire_homes):
        p = params(h)
        try:
            res[kind].append(
                await anyio.to_thread.run_sync(
                    wire_first_answer, [cmd, *args], p.env, cwd, wire_calls, log / f"{key}.{kind}{i}.log", timeout
                )
            )
        except Exception as exc:  # noqa: BLE001
            res["notes"].append(f"{kind}: {type(exc).__name__}: {exc}"[:300])
        if h != home:
            shutil.rmtree(h, ignore_errors=True)
    ts = await anyio.to_thread.run_sync(
        ts_first_answer, cfg.peers_dir, params(home), calls, starts, log / f"{key}.ts.log", timeout
    )
    if ts.get("error"):
        res["notes"].append(f"TS client: {ts['error']}"[:300])
    res["ts"] = [s for s in ts.get("starts", []) if "error" not in s]
    res["notes"] += [f"TS client start failed: {s['error']}"[:300] for s in ts.get("starts", []) if "error" in s]
    res["ts_sdk"] = ts.get("sdkVersion")
    for kind in ("sdk_cold", "sdk_warm"):
        res["notes"] += [f"{kind}: {r['error']}" for r in res[kind] if "error" in r]
    return res


def merge_first(rounds: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    """The rounds' samples pooled (the rows take medians over them)."""
    present = [r for r in rounds if r]
    if not present:
        return None
    merged: dict[str, Any] = {k: v for k, v in present[-1].items() if not isinstance(v, list)}
    for key in ("sdk_cold", "sdk_warm", "wire_cold", "wire_warm", "ts", "notes"):
        merged[key] = [x for r in present for x in r.get(key, [])]
    merged["notes"] = list(dict.fromkeys(merged["notes"]))
    merged["calls"] = present[-1].get("calls")
    return merged


def median_of(result: dict[str, Any], kind: str, field: str) -> float | None:
    """Median of one step over a server's good samples of one kind (None when it has none)."""
    first = result.get("first") or {}
    values = [s[field] for s in first.get(kind, []) if "error" not in s and s.get(field) is not None]
    return round(statistics.median(values), 1) if values else None


async def run_first_only(adapter: Adapter, cfg: Any, pages: Any, cdp_url: str) -> dict[str, Any]:
    """``--first-only``: the first-answer rows alone, on the same fresh tabs as a full run."""
    from ..runner import _server_env  # the runner imports this module
    from ..tabs import reset_tabs

    out: dict[str, Any] = {"key": adapter.key, "label": adapter.label, "ok": False, "notes": []}
    missing = adapter.missing(cfg.peers_dir)
    if missing:
        out["error"] = missing
        return out
    urls = [pages.url("/bench/form.html"), pages.url("/bench/big.html"), pages.url("/bench/blank.html")]
    await anyio.to_thread.run_sync(reset_tabs, cdp_url, urls)
    out["first"] = await measure_first(adapter, cfg, cdp_url, cfg.work_dir / adapter.key, _server_env)
    out["server"] = next((s["server"] for s in out["first"]["sdk_warm"] if s.get("server")), "?")
    out["notes"] += out["first"]["notes"]
    out["ok"] = bool(out["first"]["sdk_warm"]) and not any("error" in s for s in out["first"]["sdk_warm"])
    return out
