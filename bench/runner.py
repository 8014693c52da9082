"""Drive one MCP server through the benchmark's jobs and collect its numbers.

Every job goes through the same SDK client over stdio; every call is bounded by a
timeout, and a failing call is recorded with its message instead of ending the run, so a
server with a broken tool still gets its other rows.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from .first.measure import measure_first, merge_first
from .pages import BIG_KINDS, BIG_ROWS, TRAFFIC_MESSAGES, TRAFFIC_REQUESTS, BenchPages
from .procmem import TreeMemorySampler
from .servers import Adapter, Call, result_json, result_text
from .tabs import reset_tabs
from .tokens import approx_tokens, bpe_tokens

__all__ = ["RunConfig", "OpStats", "merge_rounds", "percentile", "run_server", "tools_list_only"]

BIG_MARK = re.compile(r"\b(" + "|".join(BIG_KINDS) + r") (\d{4})\b")
CONSOLE_MARK = re.compile(r"bench-msg-(\d+)")
NETWORK_MARK = re.compile(r"/bench/req\?i=(\d+)")


@dataclass
class RunConfig:
    peers_dir: Path
    work_dir: Path
    log_dir: Path
    repeat: int = 20
    repeat_heavy: int = 10
    call_timeout: float = 60.0
    start_timeout: float = 60.0
    traffic_timeout: float = 60.0
    settle: float = 1.0
    #: Start-up is the median of this many starts (the last one is the measured run).
    starts: int = 3


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile (p95 of 20 samples is the 19th smallest)."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-pct * len(ordered) // 100))))
    return ordered[rank - 1]


@dataclass
class OpStats:
    """Latencies and answer sizes of one job, repeated."""

    tool: str = ""
    seconds: list[float] = field(default_factory=list)
    text_chars: list[int] = field(default_factory=list)
    json_chars: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tool": self.tool, "n": len(self.seconds), "errors": len(self.errors)}
        if self.seconds:
            out["median_ms"] = round(statistics.median(self.seconds) * 1000, 2)
            out["p95_ms"] = round(percentile(self.seconds, 95) * 1000, 2)
            out["text_chars"] = int(statistics.median(self.text_chars))
            out["json_chars"] = int(statistics.median(self.json_chars))
        if self.errors:
            out["first_error"] = self.errors[0][:300]
        return out


class _Session:
    """One connected server: timed, bounded calls that never raise."""

    def __init__(self, client: Client, adapter: Adapter, cfg: RunConfig) -> None:
        self.client = client
        self.adapter = adapter
        self.cfg = cfg
        self.ops: dict[str, OpStats] = {}
        self.last: dict[str, str] = {}
        #: (text, JSON(structuredContent)) of each job's last good answer: what a model reads of it
        self.answers: dict[str, tuple[str, str]] = {}

    async def call(self, op: str | None, call: Call, *, timeout: float | None = None) -> tuple[Any, str, str]:
        """Run ``call``; record it under ``op`` (None: not measured). Returns (result|None, text, json)."""
        stats = self.ops.setdefault(op, OpStats(tool=call.tool)) if op else None
        started = time.perf_counter()
        try:
            with anyio.fail_after(timeout or self.cfg.call_timeout):
                result = await self.client.call_tool(call.tool, call.args)
        except TimeoutError:
            if stats:
                stats.errors.append(f"timeout after {timeout or self.cfg.call_timeout} s")
            return None, "", ""
        except Exception as exc:  # a broken server must not end the run
            if stats:
                stats.errors.append(_describe(exc))
            return None, "", ""
        elapsed = time.perf_counter() - started
        text, js = result_text(result), result_json(result)
        if op:
            self.last[op] = text + ("\n\n--- structuredContent ---\n" + js if js else "")
        if result.is_error:
            if stats:
                stats.errors.append(f"isError: {text[:300]}")
            return None, text, js
        if stats:
            stats.seconds.append(elapsed)
            stats.text_chars.append(len(text))
            stats.json_chars.append(len(js))
        if op:
            self.answers[op] = (text, js)
        return result, text, js


_BOUND = re.compile(r"(\w+): Input should be less than or equal to (\d+)")
_FITTED: dict[tuple[str, str, str], dict[str, Any]] = {}


async def fit_call(s: _Session, call: Call) -> Call:
    """Lower ``call.maxed`` arguments to the bounds the server names when it refuses them.

    A condensed schema may leave out ``maximum``; asking for "all" then means asking for
    a huge number once, reading the bound from the INVALID_ARGUMENT message, and using it.
    The probe calls are not timed. Bounds found are kept for later rounds.
    """
    if not call.maxed:
        return call
    key = (s.adapter.key, call.tool, str(call.args.get("action", "")))
    args = {**call.args, **_FITTED.get(key, {})}
    for _ in range(3):
        result, text, _ = await s.call(None, Call(call.tool, args))
        bounds = {k: int(v) for k, v in _BOUND.findall(text) if k in call.maxed} if result is None else {}
        if not bounds:
            break
        args.update(bounds)
        _FITTED[key] = {**_FITTED.get(key, {}), **bounds}
    return Call(call.tool, args)


def _describe(exc: BaseException) -> str:
    """The innermost error of an exception group, which is where the server's problem is."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


def _count(pattern: re.Pattern[str], *texts: str) -> int:
    return len({m.group(0) for t in texts for m in pattern.finditer(t)})


def _server_env(home: Path, artifacts: Path) -> dict[str, str]:
    """A throwaway home for the server, so nothing lands in the real home directory."""
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "MCP_ARTIFACT_DIR": str(artifacts),
        "NO_PROXY": "127.0.0.1,localhost,::1",
        "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
        "PUPPETEER_SKIP_DOWNLOAD": "1",
    }
    for d in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        Path(env[d]).mkdir(parents=True, exist_ok=True)
    return env


async def run_server(adapter: Adapter, cfg: RunConfig, pages: BenchPages, cdp_url: str, chrome_pid: int) -> dict:
    """Start ``adapter``'s server on fresh tabs of the shared Chromium and measure every job."""
    out: dict[str, Any] = {"key": adapter.key, "label": adapter.label, "ok": False, "notes": []}
    missing = adapter.missing(cfg.peers_dir)
    if missing:
        out["error"] = missing
        return out

    form_url, big_url = pages.url("/bench/form.html"), pages.url("/bench/big.html")
    blank_url, traffic_url = pages.url("/bench/blank.html"), pages.url("/bench/traffic.html")
    try:
        await anyio.to_thread.run_sync(reset_tabs, cdp_url, [form_url, big_url, blank_url])
    except Exception as exc:  # the browser is gone or stuck: this server's row fails, the run goes on
        out["error"] = f"tabs: {_describe(exc)}"[:500]
        return out

    base = cfg.work_dir / adapter.key
    cwd = base / "cwd"
    cwd.mkdir(parents=True, exist_ok=True)
    cmd, args = adapter.command(cfg.peers_dir, cdp_url)
    env = {**_server_env(base / "home", base / "artifacts"), **adapter.extra_env}
    params = StdioServerParameters(command=cmd, args=args, env=env, cwd=cwd)
    out["command"] = " ".join([cmd, *args])
    cfg.log_dir.mkdir(parents=True, exist_ok=True)
    # First, so the start-ups below find what a first session leaves (ours' handshake recording).
    out["first"] = await measure_first(adapter, cfg, cdp_url, base, _server_env)
    out["notes"] += out["first"]["notes"]
    startups: list[float] = []
    for i in range(max(0, cfg.starts - 1)):
        try:
            startups.append(await _start_only(params, cfg, cfg.log_dir / f"{adapter.key}.start{i}.stderr.log"))
        except Exception as exc:
            out["notes"].append(f"extra start {i} failed: {_describe(exc)}"[:300])
    sampler = TreeMemorySampler(exclude={chrome_pid}).start()
    stage = "start"
    try:
        # A real file: the server's stderr is handed to the child process as a descriptor.
        with open(cfg.log_dir / f"{adapter.key}.stderr.log", "w") as errlog:  # noqa: ASYNC230
            started = time.perf_counter()
            # read_timeout bounds the handshake and is a second bound behind each call's own timeout.
            client = Client(
                stdio_client(params, errlog=errlog),
                mode="legacy",
                read_timeout_seconds=max(cfg.start_timeout, cfg.call_timeout) + 5,
            )
            async with client:
                stage = "tools/list"
                with anyio.fail_after(cfg.start_timeout):
                    listed = await client.list_tools()
                ready = time.perf_counter()
                startups.append((ready - started) * 1000)
                out["startup_ms"] = round(statistics.median(startups), 1)
                out["startup_all_ms"] = [round(x, 1) for x in startups]
                info = client.server_info
                out["server"] = f"{info.name} {info.version}" if info else "?"
                out["tools_count"] = len(listed.tools)
                out["tools_chars"] = len(listed.model_dump_json(by_alias=True, exclude_none=True))
                out["tools_model_chars"] = len(model_visible(listed.tools))
                adapter.configure({t.name: t.input_schema for t in listed.tools})
                stage = "jobs"
                session = _Session(client, adapter, cfg)
                urls = (form_url, big_url, blank_url, traffic_url)
                await _measure(session, adapter, cfg, pages, out, ready, cdp_url, urls)
                stage = "stop"
        out["ok"] = True
    except Exception as exc:
        out["error"] = f"{stage}: {_describe(exc)}"[:500]
    finally:
        sampler.sample()
        sampler.stop()
        leftovers = sampler.live_pids()
        for pid in leftovers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if leftovers:
            out["notes"].append(f"killed {len(leftovers)} process(es) left after the client closed")
        if "tools_count" in out:  # a server that never answered has no memory worth comparing
            out["peak_rss_mb"] = round(sampler.peak / 2**20, 1)
        out["peak_processes"] = sampler.peak_processes
        out["peak_rss_by_process_mb"] = sampler.peak_breakdown
    return out


async def tools_list_only(adapter: Adapter, cfg: RunConfig, extra_args: list[str]) -> dict[str, Any]:
    """Start a server with extra flags just to size its ``tools/list`` (e.g. ours with a smaller toolset)."""
    cmd, args = adapter.command(cfg.peers_dir, "http://127.0.0.1:1")
    base = cfg.work_dir / f"{adapter.key}-tools"
    (base / "cwd").mkdir(parents=True, exist_ok=True)
    env = {**_server_env(base / "home", base / "artifacts"), **adapter.extra_env}
    params = StdioServerParameters(command=cmd, args=[*args, *extra_args], env=env, cwd=base / "cwd")
    cfg.log_dir.mkdir(parents=True, exist_ok=True)
    try:
        with open(cfg.log_dir / f"{adapter.key}-tools.stderr.log", "w") as errlog:  # noqa: ASYNC230
            client = Client(stdio_client(params, errlog=errlog), mode="legacy", read_timeout_seconds=cfg.start_timeout)
            async with client:
                with anyio.fail_after(cfg.start_timeout):
                    listed = await client.list_tools()
    except Exception as exc:
        return {"error": _describe(exc)}
    return {
        "args": extra_args,
        "tools_count": len(listed.tools),
        "tools_chars": len(listed.model_dump_json(by_alias=True, exclude_none=True)),
        "tools_model_chars": len(model_visible(listed.tools)),
    }


async def _start_only(params: StdioServerParameters, cfg: RunConfig, log: Path) -> float:
    """Start the server, list its tools, stop it: one more start-up sample (ms)."""
    with open(log, "w") as errlog:  # noqa: ASYNC230 - handed to the child as its stderr
        started = time.perf_counter()
        client = Client(stdio_client(params, errlog=errlog), mode="legacy", read_timeout_seconds=cfg.start_timeout)
        async with client:
            with anyio.fail_after(cfg.start_timeout):
                await client.list_tools()
            elapsed = (time.perf_counter() - started) * 1000
        return elapsed


async def _measure(
    s: _Session,
    a: Adapter,
    cfg: RunConfig,
    pages: BenchPages,
    out: dict,
    ready: float,
    cdp_url: str,
    urls: tuple[str, str, str, str],
) -> None:
    try:
        await _jobs(s, a, cfg, pages, out, ready, cdp_url, urls)
    finally:
        out["raw_ops"] = {name: asdict(st) for name, st in s.ops.items()}
        _save_answers(cfg.log_dir, a.key, s.last)
        out["model_reads"] = await anyio.to_thread.run_sync(model_reads, s.answers, cfg.peers_dir)


#: Jobs whose answers the benchmark sizes as the model reads them.
READ_OPS = ("snapshot_form", "snapshot_big", "snapshot_big_full", "console_list", "network_list")
#: What a model reads of ``tools/list`` (client-facts.md): outputSchema and annotations are for the client.
MODEL_VISIBLE = ("name", "title", "description", "inputSchema")


def model_visible(tools: list[Any]) -> str:
    """The part of ``tools/list`` a model reads, as JSON."""
    dumped = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]
    return json.dumps({"tools": [{k: v for k, v in d.items() if k in MODEL_VISIBLE} for d in dumped]})


def model_reads(answers: dict[str, tuple[str, str]], peers_dir: Path) -> dict[str, dict[str, Any]]:
    """Per job, what the model reads under each client rule, in chars and o200k tokens.

    ``text``: clients that pass only the text content (Open WebUI, several editors).
    ``structured``: Claude Code and Codex, which pass ``JSON(structuredContent)`` when the
    answer has one and the text otherwise (client-facts.md).
    """
    out: dict[str, dict[str, Any]] = {}
    texts: list[str] = []
    for op in READ_OPS:
        if op not in answers:
            continue
        text, js = answers[op]
        structured = js or text
        out[op] = {"text_chars": len(text), "structured_chars": len(structured)}
        texts += [text, structured]
    counts = bpe_tokens(texts, peers_dir) if texts else None
    for i, op in enumerate(o for o in READ_OPS if o in out):
        if counts:
            out[op]["text_tokens"], out[op]["structured_tokens"] = counts[2 * i], counts[2 * i + 1]
        else:
            out[op]["text_tokens"] = approx_tokens(texts[2 * i])
            out[op]["structured_tokens"] = approx_tokens(texts[2 * i + 1])
            out[op]["approx"] = True
    return out


def _save_answers(log_dir: Path, key: str, last: dict[str, str]) -> None:
    """The last answer of every job, next to the logs: what the numbers were measured on."""
    for op, text in last.items():
        (log_dir / f"answer-{key}-{op}.txt").write_text(text)


async def _jobs(
    s: _Session,
    a: Adapter,
    cfg: RunConfig,
    pages: BenchPages,
    out: dict,
    ready: float,
    cdp_url: str,
    urls: tuple[str, str, str, str],
) -> None:
    form_url, big_url, blank_url, traffic_url = urls
    prep = a.prepare(cdp_url)
    if prep is not None:
        result, text, _ = await s.call("connect", prep)
        if result is None:
            out["notes"].append(f"connect failed: {(s.ops['connect'].errors or [text])[0][:200]}")
    # Connecting to the browser and the first page list: from tools/list to the first answer an agent can act on.
    result, text, _ = await s.call("first_list_pages", a.list_pages())
    if result is not None:
        out["connect_first_ms"] = round((time.perf_counter() - ready) * 1000, 1)
    for _ in range(cfg.repeat):
        result, text, _ = await s.call("list_pages", a.list_pages())
    ids: dict[str, Any] = {}
    if result is not None:
        listed = a.parse_pages(result)
        for name, url in (("form", form_url), ("big", big_url), ("traffic", blank_url)):
            try:
                ids[name] = a.find_page(listed, url)
            except LookupError as exc:
                out["notes"].append(str(exc)[:300])
    out["page_ids"] = ids

    snaps: dict[str, Any] = {}
    for name, reps in (("form", cfg.repeat), ("big", cfg.repeat_heavy)):
        if name not in ids:
            continue
        await s.call(None, a.select(ids[name]))
        text = js = ""
        for _ in range(reps):
            result, t, j = await s.call(f"snapshot_{name}", a.snapshot(ids[name]))
            if result is not None:
                text, js = t, j
        snaps[name] = {"text": text, "json_chars": len(js)}
        if name == "big":
            snaps[name]["items_found"] = _count(BIG_MARK, text, js)
            snaps[name]["items_total"] = BIG_ROWS * len(BIG_KINDS)
            full = a.snapshot_full(ids[name])
            if full is None:
                out["snapshot_default_uncapped"] = True
                continue
            full = await fit_call(s, full)
            text = js = ""
            for _ in range(reps):
                result, t, j = await s.call("snapshot_big_full", full)
                if result is not None:
                    text, js = t, j
            snaps["big_full"] = {
                "text": text,
                "json_chars": len(js),
                "items_found": _count(BIG_MARK, text, js),
                "items_total": BIG_ROWS * len(BIG_KINDS),
                "args": full.args,
            }
    out["snapshots"] = snaps

    comp: dict[str, Any] = {"console_total": TRAFFIC_MESSAGES, "network_total": TRAFFIC_REQUESTS}
    if "traffic" in ids:
        await s.call(None, a.select(ids["traffic"]))
        before = pages.done_count()
        result, text, _ = await s.call("navigate", a.navigate(ids["traffic"], traffic_url))
        # The browser may load the page even when the tool reports an error; wait briefly then.
        wait = cfg.traffic_timeout if result is not None else min(10.0, cfg.traffic_timeout)
        if not await anyio.to_thread.run_sync(pages.wait_traffic_done, before, wait):
            out["notes"].append("traffic page did not report done in time")
        await anyio.sleep(cfg.settle)
        found: dict[str, int | None] = {"console_found": None, "network_found": None}
        for op, key, mark in (
            ("console_list", "console_found", CONSOLE_MARK),
            ("network_list", "network_found", NETWORK_MARK),
        ):
            call = await fit_call(s, a.console(ids["traffic"]) if op == "console_list" else a.network(ids["traffic"]))
            out.setdefault("list_args", {})[op] = call.args
            for _ in range(cfg.repeat_heavy):
                result, t, j = await s.call(op, call)
                if result is not None:
                    found[key] = max(found[key] or 0, _count(mark, t, j))
        comp.update(found)
    out["completeness"] = comp

    if "form" in ids and "traffic" in ids:
        for i in range(cfg.repeat):
            await s.call("select_page", a.select(ids["form"] if i % 2 else ids["traffic"]))


def merge_rounds(rounds: list[dict]) -> dict:
    """One server's rounds as one result: samples pooled, sizes and completeness from the last round.

    Rounds interleave the servers (A B C A B C ...), so a burst of load on the machine
    lands on all of them instead of on whichever ran at that moment.
    """
    merged = dict(rounds[-1])
    merged["rounds"] = len(rounds)
    merged["ok"] = all(r.get("ok") for r in rounds)
    errors = [r["error"] for r in rounds if r.get("error")]
    if errors:
        merged["error"] = errors[0]
    merged["notes"] = list(dict.fromkeys(n for r in rounds for n in r.get("notes", [])))
    startups = [x for r in rounds for x in r.get("startup_all_ms", [])]
    if startups:
        merged["startup_all_ms"] = startups
        merged["startup_ms"] = round(statistics.median(startups), 1)
    firsts = [r["connect_first_ms"] for r in rounds if "connect_first_ms" in r]
    if firsts:
        merged["connect_first_all_ms"] = firsts
        merged["connect_first_ms"] = round(statistics.median(firsts), 1)
    merged["first"] = merge_first([r.get("first") for r in rounds])
    peaks = [r["peak_rss_mb"] for r in rounds if r.get("peak_rss_mb")]
    if peaks:
        merged["peak_rss_mb"] = max(peaks)
    pooled: dict[str, OpStats] = {}
    for r in rounds:
        for op, raw in (r.get("raw_ops") or {}).items():
            st = pooled.setdefault(op, OpStats(tool=raw["tool"]))
            for attr in ("seconds", "text_chars", "json_chars", "errors"):
                getattr(st, attr).extend(raw[attr])
    merged.pop("raw_ops", None)
    merged["ops"] = {op: st.summary() for op, st in pooled.items()}
    merged["failed_calls"] = sum(len(st.errors) for st in pooled.values())
    return merged
