"""One table from the three servers' results: values, ratios ours / peer, and who is ahead.

Every row says which direction is better, so a ratio below 1 is not always good news
(completeness rows want more). The same rows go to the terminal, to JSON and to Markdown.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .first.rows import first_rows

__all__ = ["Row", "behind_rows", "build_rows", "render_markdown", "render_text", "write_results"]

OPS = (
    ("list_pages", "list pages"),
    ("select_page", "select page"),
    ("snapshot_form", "snapshot, form page"),
    ("snapshot_big", "snapshot, 5000-element page"),
    ("snapshot_big_full", "snapshot, 5000-element page, caps lifted"),
    ("console_list", "console list (2000 messages)"),
    ("network_list", "network list (500 requests)"),
)


#: Within this relative difference a row is a tie (``~``): run-to-run noise is larger than that.
TIE = 0.05


@dataclass
class Row:
    label: str
    unit: str
    better: str | None  # "lower" | "higher" | None (information only)
    values: dict[str, float | int | None]

    def ratio(self, ours: str, peer: str) -> float | None:
        a, b = self.values.get(ours), self.values.get(peer)
        if a is None or b is None or b == 0:
            return None
        return a / b

    def verdict(self, ours: str, peer: str) -> str:
        a, b = self.values.get(ours), self.values.get(peer)
        if self.better is None or a is None or b is None:
            return ""
        if a == b:
            return "="
        if b and abs(a / b - 1) < TIE:
            return "~"
        ahead = a < b if self.better == "lower" else a > b
        return "ahead" if ahead else "BEHIND"


def _get(result: dict, *path: str) -> Any:
    cur: Any = result
    for key in path:
        if not isinstance(cur, dict) or key not in cur:
            return None
        cur = cur[key]
    return cur


def build_rows(results: list[dict]) -> list[Row]:
    def row(label: str, unit: str, better: str | None, fn: Callable[[dict], Any]) -> Row:
        return Row(label, unit, better, {r["key"]: fn(r) for r in results})

    rows = [
        row("start-up to first tools/list", "ms", "lower", lambda r: _get(r, "startup_ms")),
        row("browser connect + first page list", "ms", "lower", lambda r: _get(r, "connect_first_ms")),
        row("tools/list size", "chars", "lower", lambda r: _get(r, "tools_chars")),
        row("tools listed", "tools", None, lambda r: _get(r, "tools_count")),
        row("tools/list size, ours with --toolset condensed", "chars", "lower", _condensed),
    ]
    rows[2:2] = first_rows(row)  # start to the first answered call, and where it goes (bench/first/measure.py)
    for op, label in OPS:
        rows.append(row(f"{label}: median", "ms", "lower", lambda r, op=op: _op(r, op, "median_ms")))
        rows.append(row(f"{label}: p95", "ms", "lower", lambda r, op=op: _op(r, op, "p95_ms")))
    pages = (("form", "form page"), ("big", "5000-element page"), ("big_full", "5000-element page, caps lifted"))
    for page, label in pages:
        for what, unit, name in (
            ("chars", "chars", "text"),
            ("approx", "tokens", "tokens ~chars/4"),
            ("bpe", "tokens", "tokens o200k"),
        ):
            rows.append(row(f"snapshot, {label}: {name}", unit, "lower", lambda r, p=page, w=what: _snap(r, p, w)))
        if page != "form":
            rows.append(
                row(
                    f"snapshot, {label}: labels present (of 4000)",
                    "labels",
                    "higher",
                    lambda r, p=page: _snap(r, p, "items_found"),
                )
            )
            rows.append(
                row(f"snapshot, {label}: structuredContent", "chars", None, lambda r, p=page: _snap(r, p, "json_chars"))
            )
    rows += [
        row("snapshot, 5000-element page: text chars per label present", "chars", "lower", _chars_per_item),
        row("console messages reported (of 2000)", "msgs", "higher", lambda r: _get(r, *_CONSOLE)),
        row("network requests reported (of 500)", "reqs", "higher", lambda r: _get(r, *_NETWORK)),
        row("console list answer: text", "chars", None, lambda r: _get(r, "ops", "console_list", "text_chars")),
        row("console list answer: structuredContent", "chars", None, lambda r: _structured(r, "console_list")),
        row("network list answer: text", "chars", None, lambda r: _get(r, "ops", "network_list", "text_chars")),
        row("network list answer: structuredContent", "chars", None, lambda r: _structured(r, "network_list")),
        row("peak RSS of the server process tree", "MB", "lower", lambda r: _get(r, "peak_rss_mb") or None),
        row("tools/list, what the model reads", "chars", "lower", lambda r: _get(r, "tools_model_chars")),
        row("tools/list, what the model reads, ours condensed", "chars", "lower", _condensed_visible),
    ]
    for op, label, found in READS:
        for rule, name in (("text", "text-only client"), ("structured", "JSON(structuredContent) else text")):
            rows.append(
                row(f"model reads, {name}: {label}", "tokens", "lower", lambda r, o=op, w=rule: _reads(r, o, w))
            )
            if found:
                rows.append(
                    row(
                        f"model reads, {name}: {label}, per entry reported",
                        "tokens",
                        "lower",
                        lambda r, o=op, w=rule, f=found: _per_entry(r, o, w, f),
                    )
                )
    from .task_report import task_rows  # imports Row from here

    return rows + task_rows(results)


#: (job, label, where its completeness is) of the "what the model reads" rows.
READS = (
    ("snapshot_form", "form snapshot", None),
    ("snapshot_big", "5000-element snapshot, defaults", ("snapshots", "big", "items_found")),
    ("snapshot_big_full", "5000-element snapshot, caps lifted", ("snapshots", "big_full", "items_found")),
    ("console_list", "console list of 2000 messages", ("completeness", "console_found")),
    ("network_list", "network list of 500 requests", ("completeness", "network_found")),
)


def _read_op(result: dict, op: str) -> str:
    """A server whose default snapshot is uncapped answers 'caps lifted' with it."""
    if op == "snapshot_big_full" and result.get("snapshot_default_uncapped"):
        return "snapshot_big"
    return op


def _reads(result: dict, op: str, rule: str) -> Any:
    return _get(result, "model_reads", _read_op(result, op), f"{rule}_tokens")


def _per_entry(result: dict, op: str, rule: str, found: tuple[str, ...]) -> Any:
    tokens = _reads(result, op, rule)
    path = found
    if op == "snapshot_big_full" and result.get("snapshot_default_uncapped"):
        path = ("snapshots", "big", "items_found")
    n = _get(result, *path)
    return round(tokens / n, 2) if tokens and n else None


def _condensed_visible(result: dict) -> Any:
    if "condensed" in result:
        return _get(result, "condensed", "tools_model_chars")
    return None if result.get("key") == "ours" else _get(result, "tools_model_chars")


def _condensed(result: dict) -> Any:
    """Ours: the condensed toolset's size; a peer: its only toolset, for the ratio."""
    if "condensed" in result:
        return _get(result, "condensed", "tools_chars")
    return None if result.get("key") == "ours" else _get(result, "tools_chars")


def _structured(result: dict, op: str) -> Any:
    return _get(result, "ops", op, "json_chars") or None


_CONSOLE = ("completeness", "console_found")
_NETWORK = ("completeness", "network_found")


def _op(result: dict, op: str, what: str) -> Any:
    """A job's number; a server whose default snapshot is uncapped answers 'caps lifted' with it."""
    if op == "snapshot_big_full" and result.get("snapshot_default_uncapped"):
        op = "snapshot_big"
    return _get(result, "ops", op, what)


def _snap(result: dict, page: str, what: str) -> Any:
    if page == "big_full" and result.get("snapshot_default_uncapped"):
        page = "big"
    snap = _get(result, "snapshots", page)
    if not snap or not snap.get("chars"):  # no successful snapshot (the text itself is saved to a file)
        return None
    return {"chars": snap.get("chars"), "approx": snap.get("approx_tokens"), "bpe": snap.get("bpe_tokens")}.get(
        what, snap.get(what)
    )


def _chars_per_item(result: dict) -> float | None:
    """Text per label at the most complete snapshot the server gave (caps lifted where it has caps)."""
    chars, found = _snap(result, "big_full", "chars"), _snap(result, "big_full", "items_found")
    if not found:
        chars, found = _snap(result, "big", "chars"), _snap(result, "big", "items_found")
    return round(chars / found, 1) if chars and found else None


def _fmt(v: float | int | None) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:,.1f}" if abs(v) >= 10 else f"{v:.2f}"
    return f"{v:,}"


def _table(rows: list[Row], keys: list[str], ours: str | None) -> tuple[list[str], list[list[str]]]:
    peers = [k for k in keys if k != ours]
    head = ["metric", "unit", *keys]
    if ours:
        head += [f"ours/{p}" for p in peers]
    body = []
    for r in rows:
        line = [r.label, r.unit, *(_fmt(r.values.get(k)) for k in keys)]
        if ours:
            for p in peers:
                ratio = r.ratio(ours, p)
                verdict = r.verdict(ours, p)
                line.append("—" if ratio is None else f"{ratio:.2f}" + (f" {verdict}" if verdict else ""))
        body.append(line)
    return head, body


def behind_rows(rows: list[Row], keys: list[str], ours: str | None) -> list[str]:
    """One line per (row, peer) where ours is worse, with both numbers."""
    if not ours:
        return []
    out = []
    for r in rows:
        for p in keys:
            if p != ours and r.verdict(ours, p) == "BEHIND":
                out.append(
                    f"{r.label}: ours {_fmt(r.values.get(ours))} vs {p} {_fmt(r.values.get(p))} {r.unit}"
                    f" (ratio {r.ratio(ours, p):.2f}, {r.better} is better)"
                )
    return out


def render_text(rows: list[Row], keys: list[str], ours: str | None) -> str:
    head, body = _table(rows, keys, ours)
    widths = [max(len(x) for x in col) for col in zip(head, *body, strict=True)]

    def fmt(cells: list[str]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in pairs)

    return "\n".join([fmt(head), fmt(["-" * w for w in widths]), *(fmt(b) for b in body)])


def render_markdown(rows: list[Row], keys: list[str], ours: str | None, meta: dict, results: list[dict]) -> str:
    head, body = _table(rows, keys, ours)
    lines = [f"# Peer benchmark, {meta['date']}", ""]
    lines += [f"- {k}: {v}" for k, v in meta.items() if k != "date"]
    lines += ["", "| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(b) + " |" for b in body]
    behind = behind_rows(rows, keys, ours)
    if behind:
        lines += ["", "## Where ours is behind", ""]
        lines += [f"- {b}" for b in behind]
    from .task_report import task_markdown

    lines += task_markdown(results)
    lines += ["", "## Per server", ""]
    for r in results:
        lines.append(
            f"- **{r['key']}** ({r.get('server', '?')}): {'ok' if r.get('ok') else 'FAILED'}"
            + (f"; error: `{r['error']}`" if r.get("error") else "")
        )
        for note in r.get("notes", []):
            lines.append(f"  - note: {note}")
        for op, st in (r.get("ops") or {}).items():
            if st.get("errors"):
                lines.append(f"  - `{op}` ({st['tool']}): {st['errors']} failed call(s): `{st.get('first_error', '')}`")
    return "\n".join(lines) + "\n"


def write_results(out_dir: Path, stamp: str, payload: dict, markdown: str) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    js, md = out_dir / f"peers-{stamp}.json", out_dir / f"peers-{stamp}.md"
    js.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    md.write_text(markdown)
    (out_dir / "peers-latest.json").write_text(js.read_text())
    (out_dir / "peers-latest.md").write_text(markdown)
    return js, md
