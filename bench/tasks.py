"""Whole-task rows: each server driven through its fixed sequence (bench/task_sequences.py).

An agent pays for a task, not for one answer. For every task and server the harness opens
fresh tabs (the task's page among others), starts the server as an agent's client would, sends
the sequence's calls in order, clicks Save itself where the person would (its own CDP
connection to the tab, like ``bench/tabs.py``), and keeps every answer. Counted: calls, o200k
tokens of all answers under the text rule and under the JSON(structuredContent) else text
rule, and which facts one of the answers states under each rule.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from cdp_core.browser import connect_target

from . import pma_person, task_pages
from .pages import BenchPages
from .phpmyadmin import PhpMyAdmin
from .procmem import TreeMemorySampler
from .runner import _describe, _server_env
from .servers import Adapter, result_json, result_text
from .tabs import page_targets, reset_tabs
from .task_sequences import CLICK, SEQUENCES, TASKS, Step, Task, facts_reached
from .tokens import approx_tokens, bpe_tokens

__all__ = ["run_tasks", "install_pages"]

#: Seconds between a click and the next call: the page's handlers ran, their events reached the server.
SETTLE = 0.5
#: Seconds from the agent's request to the person's click (a person takes longer): no server is
#: measured on a click that lands while it is still setting up its capture after the last answer.
PERSON_DELAY = 1.0


def install_pages(pages: BenchPages) -> None:
    task_pages.install(pages.server)


async def run_tasks(
    adapter: Adapter,
    cfg: Any,
    pages: BenchPages,
    cdp_url: str,
    chrome_pid: int,
    tasks: dict[str, Task] = TASKS,
    pma: PhpMyAdmin | None = None,
) -> dict[str, Any]:
    """Every task of ``tasks`` with ``adapter``'s server; {task: result}. Never raises.

    ``pma``: the running phpMyAdmin for the tasks with ``app="phpmyadmin"`` (None: those fail with a reason).
    """
    out: dict[str, Any] = {}
    missing = adapter.missing(cfg.peers_dir)
    for key, task in tasks.items():
        steps = SEQUENCES.get(adapter.key, {}).get(key)
        why = missing or ("phpMyAdmin is not running" if task.app == "phpmyadmin" and pma is None else None)
        if why or not steps:
            out[key] = {"error": why or "no sequence"}
            continue
        try:
            out[key] = await _run_task(adapter, cfg, pages, cdp_url, chrome_pid, task, steps, pma)
        except Exception as exc:  # one broken task must not end the run
            out[key] = {"error": _describe(exc)[:500]}
    await anyio.to_thread.run_sync(_count_tokens, out, cfg.peers_dir)
    return out


async def _run_task(
    adapter: Adapter,
    cfg: Any,
    pages: BenchPages,
    cdp_url: str,
    chrome_pid: int,
    task: Task,
    steps: tuple[Step, ...],
    pma: PhpMyAdmin | None = None,
) -> dict[str, Any]:
    # The task's tab between two others, so picking it is part of the task.
    around = [pages.url("/bench/form.html"), pages.url("/bench/blank.html")]
    if task.app == "phpmyadmin":
        assert pma is not None
        task_url = await pma_person.open_logged_in(cdp_url, pma, around, task.path)
    else:
        task_url = pages.url(task.path)
        await anyio.to_thread.run_sync(reset_tabs, cdp_url, [around[0], task_url, around[1]])
    base = cfg.work_dir / f"{adapter.key}-task-{task.key}"
    (base / "cwd").mkdir(parents=True, exist_ok=True)
    cmd, args = adapter.command(cfg.peers_dir, cdp_url)
    env = {**_server_env(base / "home", base / "artifacts"), **adapter.extra_env}
    params = StdioServerParameters(command=cmd, args=args, env=env, cwd=base / "cwd")
    cfg.log_dir.mkdir(parents=True, exist_ok=True)
    found: dict[str, Any] = {"cdp_url": cdp_url}
    calls: list[dict[str, Any]] = []
    result: dict[str, Any] = {"calls": calls}
    sampler = TreeMemorySampler(exclude={chrome_pid}).start()
    try:
        with open(cfg.log_dir / f"{adapter.key}-task-{task.key}.stderr.log", "w") as errlog:  # noqa: ASYNC230
            timeout = cfg.call_timeout + 5
            client = Client(stdio_client(params, errlog=errlog), mode="legacy", read_timeout_seconds=timeout)
            async with client:
                with anyio.fail_after(cfg.start_timeout):
                    listed = await client.list_tools()
                adapter.configure({t.name: t.input_schema for t in listed.tools})
                for step in steps:
                    if step.tool == CLICK:
                        await _person_acts(task, cdp_url, task_url, pma)
                        continue
                    entry = await _call(client, cfg, step, found)
                    calls.append(entry)
                    try:
                        if entry.get("error"):
                            raise RuntimeError(entry["error"])
                        _find(adapter, step, entry, found, task_url)
                    except (LookupError, RuntimeError) as exc:  # the rest of the sequence cannot run
                        result["error"] = f"{step.tool}: {exc}"[:500]
                        break
                    if "click" in step.tool or "click" in str(step.args.get("action", "")):
                        await anyio.sleep(SETTLE)
    finally:
        sampler.stop()
        for pid in sampler.live_pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    _save(cfg.log_dir, adapter.key, task.key, calls)
    texts = [c.get("text", "") for c in calls]
    structured = [c.get("json") or c.get("text", "") for c in calls]
    result["facts"] = {"text": facts_reached(task, texts), "structured": facts_reached(task, structured)}
    return result


async def _call(client: Client, cfg: Any, step: Step, found: dict[str, Any]) -> dict[str, Any]:
    args = {k: _fill(v, found) for k, v in step.args.items()}
    entry: dict[str, Any] = {"tool": step.tool, "args": args}
    try:
        with anyio.fail_after(cfg.call_timeout):
            res = await client.call_tool(step.tool, args)
    except Exception as exc:
        entry["error"] = _describe(exc)
        return entry
    entry["text"], entry["json"] = result_text(res), result_json(res)
    if res.is_error:
        entry["error"] = "isError: " + entry["text"][:300]
    return entry


def _fill(value: Any, found: dict[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith("$"):
        name = value[1:]
        if name not in found:
            raise LookupError(f"no {name} found in the earlier answers")
        return found[name]
    return value


def _find(adapter: Adapter, step: Step, entry: dict[str, Any], found: dict[str, Any], task_url: str) -> None:
    """Take what later steps need from this answer (the tab's id, a request's number, a button's uid)."""
    import re

    from mcp_types import CallToolResult

    for name, how in step.find.items():
        if how == "page":
            result = CallToolResult(
                content=[{"type": "text", "text": entry["text"]}],
                structured_content=json.loads(entry["json"]) if entry["json"] else None,
            )
            found[name] = adapter.find_page(adapter.parse_pages(result), task_url)
            continue
        m = re.search(how, entry["text"])
        if not m:
            raise LookupError(f"{name}: /{how}/ not in the {step.tool} answer: {entry['text'][:300]!r}")
        found[name] = int(m.group(1)) if m.group(1).isdigit() else m.group(1)


async def _person_acts(task: Task, cdp_url: str, task_url: str, pma: PhpMyAdmin | None) -> None:
    """The person's part at the task's CLICK step, a second after the agent asked for it."""
    if task.person == "save":
        await _person_clicks(cdp_url, task_url)
        return
    assert pma is not None
    await anyio.sleep(PERSON_DELAY)
    acts = {
        "pma_insert_duplicate": pma_person.insert_duplicate,
        "pma_stop_db_then_browse": pma_person.stop_db_then_browse,
    }
    await acts[task.person](cdp_url, task_url, pma)
    await anyio.sleep(SETTLE)


async def _person_clicks(cdp_url: str, task_url: str) -> None:
    """Click Save in the task's tab over the harness's own CDP socket, and wait until the page handled it."""
    await anyio.sleep(PERSON_DELAY)
    targets = await anyio.to_thread.run_sync(page_targets, cdp_url)
    target = next(t for t in targets if t.get("url") == task_url)
    conn = await connect_target(target["webSocketDebuggerUrl"])
    try:
        expr = (
            "new Promise(done => { window.__benchTaskDone = false; document.getElementById('salva').click();"
            " const t0 = Date.now(); (function wait() { if (window.__benchTaskDone || Date.now() - t0 > 10000)"
            " done(!!window.__benchTaskDone); else setTimeout(wait, 20); })(); })"
        )
        reply = await conn.send("Runtime.evaluate", {"expression": expr, "awaitPromise": True, "userGesture": True})
        if not reply.get("result", {}).get("value"):
            raise RuntimeError(f"the page did not handle the click: {reply}")
    finally:
        await conn.close()
    await anyio.sleep(SETTLE)


def _save(log_dir: Path, key: str, task: str, calls: list[dict[str, Any]]) -> None:
    """Every answer of the task, next to the logs: what the facts and tokens were measured on."""
    parts = []
    for i, c in enumerate(calls, 1):
        parts.append(f"=== {i}. {c['tool']} {json.dumps(c['args'], ensure_ascii=False)}")
        parts.append(c.get("text", "") or c.get("error", ""))
        if c.get("json"):
            parts.append("--- structuredContent ---\n" + c["json"])
    (log_dir / f"task-{key}-{task}.txt").write_text("\n".join(parts) + "\n")


def _count_tokens(out: dict[str, Any], peers_dir: Path) -> None:
    """Sum o200k tokens of every answer, per rule, in place; drop the answers' texts from the result."""
    for res in out.values():
        calls = res.get("calls")
        if not calls:
            continue
        texts = [c.get("text", "") for c in calls]
        structured = [c.get("json") or c.get("text", "") for c in calls]
        counts = bpe_tokens(texts + structured, peers_dir)
        if counts is None:
            counts = [approx_tokens(t) for t in texts + structured]
            res["approx"] = True
        n = len(calls)
        res["n_calls"] = n
        res["tokens_text"] = sum(counts[:n])
        res["tokens_structured"] = sum(counts[n:])
        for c, text, js, t, s in zip(calls, texts, structured, counts[:n], counts[n:], strict=True):
            c["tokens_text"], c["tokens_structured"] = t, s
            c["chars_text"], c["chars_structured"] = len(text), len(js)
            c.pop("text", None)
            c.pop("json", None)
