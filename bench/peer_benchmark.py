"""Benchmark our MCP server against chrome-devtools-mcp and playwright-mcp, side by side.

    .venv/bin/python -m bench.peer_benchmark              # all three servers
    .venv/bin/python -m bench.peer_benchmark --servers ours --repeat 5

One headless Chromium and one page server on 127.0.0.1 are shared by the three servers,
which run one after the other on fresh tabs, driven by the same Python MCP client over
stdio. Results: a table on stdout, JSON and Markdown under ``bench/results/``. See
``bench/README.md`` for what each number means.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

import anyio

from cdp_core import ChromiumProcess

from .first.measure import run_first_only
from .install import ensure_peers, installed_versions
from .pages import BenchPages
from .phpmyadmin import PhpMyAdmin
from .phpmyadmin import missing as pma_missing
from .report import build_rows, render_markdown, render_text, write_results
from .runner import RunConfig, merge_rounds, run_server, tools_list_only
from .servers import ADAPTERS
from .tabs import page_targets
from .task_sequences import REALAPP_TASKS, TASKS
from .tasks import install_pages, run_tasks
from .tokens import TOKENIZER_NAME, approx_tokens, bpe_tokens

HERE = Path(__file__).resolve().parent


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.peer_benchmark", description=__doc__.split("\n\n")[0])
    p.add_argument("--servers", default=",".join(ADAPTERS), help=f"comma list of {', '.join(ADAPTERS)}")
    p.add_argument("--rounds", type=int, default=3, help="rounds; each runs every server once, in turn")
    p.add_argument("--repeat", type=int, default=10, help="calls per light job and round (list/select/form snapshot)")
    p.add_argument("--repeat-heavy", type=int, default=5, help="calls per heavy job and round (big snapshot, lists)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds allowed for one tool call")
    p.add_argument("--starts", type=int, default=2, help="start-ups per server and round (median reported)")
    p.add_argument("--peers-dir", type=Path, default=HERE / "peers", help="where npm installs the peers")
    p.add_argument("--results-dir", type=Path, default=HERE / "results")
    p.add_argument(
        "--ours-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="environment for our server, e.g. CONSOLE_MAX_ENTRIES=5000 (repeatable; default: its defaults)",
    )
    p.add_argument(
        "--only",
        choices=("jobs", "tasks", "realapps", "first"),
        help="only the per-call jobs, only the whole-task rows on the bench's pages (bench/tasks.py; under a "
        "minute), only the task rows on a real phpMyAdmin (bench/phpmyadmin.py; Debian packages), or only the "
        "start-to-first-answer rows (bench/first/measure.py)",
    )
    p.add_argument("--first-only", action="store_true", help="the same as --only first")
    p.add_argument("--no-install", action="store_true", help="never run npm; missing peers get a failed row")
    p.add_argument("--update-peers", action="store_true", help="npm install the latest peers even if present")
    return p.parse_args(argv)


async def _run(ns: argparse.Namespace) -> int:
    keys = [k.strip() for k in ns.servers.split(",") if k.strip()]
    unknown = [k for k in keys if k not in ADAPTERS]
    if unknown:
        print(f"unknown server(s) {unknown}; choose from {list(ADAPTERS)}", file=sys.stderr)
        return 2
    notes: list[str] = []
    try:
        ours_env = dict(item.split("=", 1) for item in ns.ours_env)
    except ValueError:
        print("--ours-env takes NAME=VALUE", file=sys.stderr)
        return 2
    if not ns.no_install:
        try:
            installed = ensure_peers(ns.peers_dir, update=ns.update_peers)
            if installed:
                notes.append(f"npm installed {', '.join(installed)}")
        except Exception as exc:  # the peers then get failed rows; ours still runs
            notes.append(f"npm install failed: {exc}")
            print(f"warning: npm install failed: {exc}", file=sys.stderr)

    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    work = Path(tempfile.mkdtemp(prefix="peer-bench-"))
    log_dir = ns.results_dir / f"logs-{stamp}"
    if ns.first_only:
        ns.only = "first"
    cfg = RunConfig(
        ns.peers_dir.resolve(), work, log_dir, ns.repeat, ns.repeat_heavy, ns.timeout, starts=max(1, ns.starts)
    )
    load_before = os.getloadavg()
    pages = BenchPages().start()
    install_pages(pages)
    pma = None
    tasks = {None: dict(TASKS), "tasks": TASKS, "realapps": REALAPP_TASKS}.get(ns.only, {})
    if ns.only in (None, "realapps"):
        why = pma_missing()
        if why is None:
            pma = PhpMyAdmin().start()
            tasks = {**tasks, **REALAPP_TASKS}
        else:  # the full run goes on without them; --only realapps gets failed rows
            notes.append(f"phpMyAdmin task rows left out: {why}")
            print(f"warning: phpMyAdmin: {why}", file=sys.stderr)
    chrome = ChromiumProcess.start()
    results: list[dict] = []
    chrome_version = "?"
    try:
        import json
        import urllib.request

        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(chrome.http_url + "/json/version", timeout=10) as resp:
            chrome_version = json.loads(resp.read()).get("Browser", "?")
        per_server: dict[str, list[dict]] = {k: [] for k in keys}
        for round_no in range(1, max(1, ns.rounds) + 1):
            for key in keys:
                print(f"== round {round_no}: {key}", file=sys.stderr, flush=True)
                cfg.log_dir = log_dir / f"round{round_no}"
                adapter = ADAPTERS[key](ours_env if key == "ours" else None)
                if ns.only == "first":
                    res = await run_first_only(adapter, cfg, pages, chrome.http_url)
                elif ns.only in ("tasks", "realapps"):
                    res = {"key": key, "label": adapter.label, "ok": True, "notes": []}
                else:
                    res = await run_server(adapter, cfg, pages, chrome.http_url, chrome.proc.pid)
                if ns.only in (None, "tasks", "realapps"):
                    res["tasks"] = await run_tasks(adapter, cfg, pages, chrome.http_url, chrome.proc.pid, tasks, pma)
                per_server[key].append(res)
                failed = sum(len(raw["errors"]) for raw in (res.get("raw_ops") or {}).values())
                state = "FAILED: " + str(res.get("error")) if not res.get("ok") else "ok"
                state += f", {failed} failed call(s)" if failed else ""
                print(f"   {state}", file=sys.stderr, flush=True)
                if not chrome.alive or not _reachable(chrome.http_url):
                    res["notes"].append("the shared Chromium was gone after this server; restarted it")
                    chrome.stop()
                    chrome = ChromiumProcess.start()
        results = [merge_rounds(per_server[k]) for k in keys]
        for res in results:
            if res["key"] == "ours" and ns.only in (None, "jobs"):
                cfg.log_dir = log_dir
                res["condensed"] = await tools_list_only(ADAPTERS["ours"](ours_env), cfg, ["--toolset", "condensed"])
    finally:
        chrome.stop()
        pages.stop()
        if pma is not None:
            pma.stop()
        shutil.rmtree(work, ignore_errors=True)

    _tokens(results, ns.peers_dir)
    ours = "ours" if "ours" in keys else None
    rows = build_rows(results)
    if ns.only in ("tasks", "realapps"):
        rows = [r for r in rows if r.label.startswith("task ")]
    elif ns.only == "first":
        rows = [r for r in rows if any(v is not None for v in r.values.values())]
    meta = {
        "date": stamp,
        "browser": chrome_version,
        "peers (npm)": ", ".join(f"{k} {v}" for k, v in installed_versions(ns.peers_dir).items()),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "repeats": f"{ns.rounds} rounds x ({ns.repeat} light / {ns.repeat_heavy} heavy calls per job), "
        f"{ns.rounds * ns.starts} start-ups per server",
        "tokenizer": TOKENIZER_NAME,
        "load average (1 min) before / after": f"{load_before[0]:.2f} / {os.getloadavg()[0]:.2f}",
        "command": "python -m bench.peer_benchmark " + " ".join(sys.argv[1:]),
    }
    if ns.only in ("tasks", "realapps"):
        meta["repeats"] = f"{ns.rounds} rounds, task rows only (each task once per round; sizes from the last)"
    if ours_env:
        meta["ours env"] = " ".join(f"{k}={v}" for k, v in ours_env.items())
    if notes:
        meta["notes"] = "; ".join(notes)
    for r in results:
        _save_snapshots(r, log_dir)
    payload = {
        "meta": meta,
        "servers": results,
        "rows": [{"metric": r.label, "unit": r.unit, "better": r.better, "values": r.values} for r in rows],
    }
    markdown = render_markdown(rows, keys, ours, meta, results)
    js, md = write_results(ns.results_dir, stamp, payload, markdown)
    print(render_text(rows, keys, ours))
    for r in results:
        for note in r.get("notes", []):
            print(f"note [{r['key']}]: {note}")
        for op, st in (r.get("ops") or {}).items():
            if st.get("errors"):
                print(f"errors [{r['key']}] {op} ({st['tool']}): {st['errors']}x {st.get('first_error', '')[:160]}")
        if r.get("error"):
            print(f"FAILED [{r['key']}]: {r['error']}")
        for task, t in (r.get("tasks") or {}).items():
            if t.get("error"):
                print(f"task failed [{r['key']}] {task}: {t['error'][:200]}")
    print(f"\nwrote {js} and {md}")
    tasks_ok = all(not t.get("error") for r in results for t in (r.get("tasks") or {}).values())
    return 0 if tasks_ok and all(r.get("ok") and not r.get("failed_calls") for r in results) else 1


def _reachable(http_url: str) -> bool:
    try:
        page_targets(http_url)
        return True
    except OSError:
        return False


def _tokens(results: list[dict], peers_dir: Path) -> None:
    """Fill chars and token counts of every snapshot text (one node call for all of them)."""
    snaps = [s for r in results for s in (r.get("snapshots") or {}).values() if s.get("text")]
    counts = bpe_tokens([s["text"] for s in snaps], peers_dir) or [None] * len(snaps)
    for snap, count in zip(snaps, counts, strict=True):
        snap["chars"] = len(snap["text"])
        snap["approx_tokens"] = approx_tokens(snap["text"])
        snap["bpe_tokens"] = count


def _save_snapshots(result: dict, log_dir: Path) -> None:
    """Move the snapshot texts out of the JSON into files next to the logs, for a look by eye."""
    for page, snap in (result.get("snapshots") or {}).items():
        text = snap.pop("text", "")
        if text:
            log_dir.mkdir(parents=True, exist_ok=True)
            path = log_dir / f"snapshot-{result['key']}-{page}.txt"
            path.write_text(text)
            snap["file"] = str(path)


def main(argv: list[str] | None = None) -> int:
    ns = _args(argv)
    return anyio.run(_run, ns)


if __name__ == "__main__":
    sys.exit(main())
