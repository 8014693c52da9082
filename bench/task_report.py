"""The task rows of the report, and the Markdown section that lists the facts each server reached.

Kept apart from bench/report.py, which only calls :func:`task_rows` and :func:`task_markdown`.
"""

from __future__ import annotations

from typing import Any

from .report import Row
from .task_sequences import ALL_TASKS, Task

__all__ = ["task_rows", "task_markdown", "RULES"]

#: (key in the results, how the report names the client rule)
RULES = (("text", "text-only client"), ("structured", "JSON(structuredContent) else text"))


def _task(result: dict, task: str) -> dict[str, Any] | None:
    res = (result.get("tasks") or {}).get(task)
    return res if res and "n_calls" in res else None


def _facts(result: dict, task: str, rule: str) -> int | None:
    res = _task(result, task)
    if res is None or res.get("error"):  # a sequence that broke off reached what it reached, but is no row
        return None
    return sum(res["facts"][rule].values())


def _value(result: dict, task: str, what: str) -> int | None:
    res = _task(result, task)
    return None if res is None or res.get("error") else res.get(what)


def _ran(results: list[dict[str, Any]]) -> dict[str, Task]:
    """The tasks this run had (a run with ``--only tasks`` has no phpMyAdmin rows), in the report's order."""
    return {k: t for k, t in ALL_TASKS.items() if any(k in (r.get("tasks") or {}) for r in results)}


def task_rows(results: list[dict]) -> list[Row]:
    """Per task: calls, tokens under each rule (fewer is better), facts reached under each rule (more is better)."""
    if not any(r.get("tasks") for r in results):
        return []
    rows = []
    for key, task in _ran(results).items():
        name = f"task {task.label}"
        rows.append(Row(f"{name}: calls", "calls", "lower", {r["key"]: _value(r, key, "n_calls") for r in results}))
        for rule, label in RULES:
            rows.append(
                Row(
                    f"{name}: tokens read, {label}",
                    "tokens",
                    "lower",
                    {r["key"]: _value(r, key, f"tokens_{rule}") for r in results},
                )
            )
        for rule, label in RULES:
            rows.append(
                Row(
                    f"{name}: facts reached (of {len(task.facts)}), {label}",
                    "facts",
                    "higher",
                    {r["key"]: _facts(r, key, rule) for r in results},
                )
            )
    return rows


def task_markdown(results: list[dict]) -> list[str]:
    """Per task: which facts each server's answers stated under each rule, and its calls with their tokens."""
    if not any(r.get("tasks") for r in results):
        return []
    lines = ["", "## Tasks: facts reached and calls", ""]
    for key, task in _ran(results).items():
        lines += [f"### {task.label}", ""]
        head = ["server", "rule", *(f.label for f in task.facts)]
        lines += ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        for r in results:
            res = (r.get("tasks") or {}).get(key) or {}
            for rule, label in RULES:
                marks = [("yes" if res.get("facts", {}).get(rule, {}).get(f.key) else "**no**") for f in task.facts]
                if not res.get("facts"):
                    marks = ["—"] * len(task.facts)
                lines.append("| " + " | ".join([r["key"], label, *marks]) + " |")
        lines.append("")
        for r in results:
            res = (r.get("tasks") or {}).get(key) or {}
            calls = res.get("calls") or []
            summary = ", ".join(
                f"`{_call_name(c)}` {c.get('tokens_text', '?')}/{c.get('tokens_structured', '?')}" for c in calls
            )
            lines.append(f"- **{r['key']}** ({len(calls)} calls, tokens text/JSON rule per call): {summary or '—'}")
            if res.get("error"):
                lines.append(f"  - error: `{res['error']}`")
        lines.append("")
    return lines


def _call_name(call: dict) -> str:
    args = dict(call.get("args") or {})
    action = args.pop("action", None)
    return f"{call['tool']} {action}" if action else call["tool"]
