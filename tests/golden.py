"""Golden answers: what the model reads for an action, stored beside its feature's tests.

A golden file ``tests/mcp_server/<feature>/golden/<action>[-<scenario>].txt`` holds both
renderings of one answer, as a model sees them:

* ``## text``: the text content (what a text-only client passes on);
* ``## json``: ``JSON(structuredContent)`` as Claude Code / Codex hand it to the model, the
  compact dump (``json.dumps(sc, separators=(",", ":"), ensure_ascii=False)``) broken into
  lines for review: removing each line break and the spaces that start the next line gives
  back exactly the compact string (:func:`unlayout`, checked on every compare).

Both are normalised first (:class:`Normaliser`): ports, times, durations, ids of
targets/frames, temporary paths, time-stamped artifact names, Chrome's version... become
``<PLACEHOLDERS>``; everything else is kept as the server said it.

``GOLDEN_UPDATE=1`` (``make golden``) rewrites the files; without it a missing or different
golden fails with a unified diff. Drive the server only through the MCP client.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import anyio

__all__ = [
    "UPDATE",
    "Golden",
    "Normaliser",
    "compact",
    "layout",
    "unlayout",
    "golden_files",
    "action_of",
]

#: rewrite the golden files instead of comparing (``make golden``)
UPDATE = os.environ.get("GOLDEN_UPDATE", "") not in ("", "0")

ROOT = Path(__file__).resolve().parent / "mcp_server"

#: JSON keys whose values are times or durations, replaced wherever they appear
VOLATILE_KEYS = {
    "t": "<T>",
    "durationMs": "<MS>",
    "waitedMs": "<MS>",
    "elapsedMs": "<MS>",
    "timing": "<TIMING>",
    "encodedBytes": "<BYTES>",
    "startedAt": "<TIME>",
    "capturedSince": "<TIME>",
    "attachedAt": "<TIME>",
    "version": "<VERSION>",
}

#: (pattern, replacement) applied to every string, text and JSON alike, in order
COMMON_SUBS: list[tuple[str, str]] = [
    (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?", "<TIME>"),
    (r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT", "<DATE>"),
    (r"\b\d{8}T\d{6,12}\b", "<STAMP>"),
    (r"\b\d{8}-\d{6}\b", "<STAMP>"),
    # the artifact counter is the process's: it depends on which tests ran before
    (r"<STAMP>-\d{4}-", "<STAMP>-<SEQ>-"),
    # a message cut at a fixed length cuts a temporary path where its length says
    (r"<ARTIFACTS>[^\s…]*…", "<ARTIFACTS>…"),
    (r"\bt=\+\d+ ?ms\b", "t=+<N> ms"),
    (r"\b(durationMs|encodedBytes) [\d.]+", r"\1 <N>"),
    (r"\btiming(?: \w+ [\d.]+ ms,?)+", "timing <TIMING>"),
    (r"\b(after|in|took) \d+(?:\.\d+)? ?ms\b", r"\1 <N> ms"),
    (r"(Headless)?Chrome/[\d.]+", r"\1Chrome/<VER>"),
    (r'"[^"]*";v="[\d.]+"', '"<BRAND>";v="<V>"'),
    (r"Python/[\d.]+", "Python/<VER>"),
    (r"BaseHTTP/[\d.]+", "BaseHTTP/<VER>"),
    (r"mcp-browser-debug \d+\.\d+\.\d+[\w.+-]*", "mcp-browser-debug <VERSION>"),
]

#: ids Chrome makes up (targets, frames, loaders): 32 upper-case hex digits
CHROME_ID = re.compile(r"\b[0-9A-F]{32}\b")

#: a snapshot uid in text (``[uid=12]``, ``from_uid=12``, ``"uid": 12`` of a call's arguments)
UID_TEXT = re.compile(r'(\b(?:from_|to_)?uids? ?=? ?|"uid": ?)(\d+)\b')
#: JSON keys holding one uid
UID_KEYS = {"uid", "from_uid", "to_uid"}


class Normaliser:
    """Replaces what changes from run to run; the same value gets the same placeholder in one answer."""

    def __init__(
        self,
        literals: dict[str, str],
        subs: Iterable[tuple[str, str]] = (),
        keys: dict[str, str | None] | None = None,
        numbers: bool = False,
        uids: dict[int, int] | None = None,
    ) -> None:
        #: exact strings first (longest first, so a path wins over its parent)
        self.literals = sorted(literals.items(), key=lambda kv: -len(kv[0]))
        #: a literal that is a number (a port) is hidden where the JSON has it as a number too
        self.numbers = {int(k): v for k, v in literals.items() if k.isdigit()}
        #: every number of the JSON hidden (answers made of measurements: traces, heap snapshots)
        self.all_numbers = numbers
        self.subs = [(re.compile(p), r) for p, r in [*COMMON_SUBS, *subs]]
        self.keys = {**VOLATILE_KEYS, **(keys or {})}
        self.ids: dict[str, str] = {}
        #: snapshot uids come from one counter of the process (cdp_core.recorders.uids): what
        #: ran before this test moves them, so they are renumbered from 1 in order of appearance
        self.uids = {} if uids is None else uids

    def uid(self, value: int) -> int:
        return self.uids.setdefault(value, len(self.uids) + 1)

    def text(self, value: str) -> str:
        for literal, placeholder in self.literals:
            value = value.replace(literal, placeholder)
        for pattern, repl in self.subs:
            value = pattern.sub(repl, value)
        value = UID_TEXT.sub(lambda m: m.group(1) + str(self.uid(int(m.group(2)))), value)
        return CHROME_ID.sub(self._id, value)

    def _id(self, match: re.Match[str]) -> str:
        return self.ids.setdefault(match.group(0), f"<ID{len(self.ids) + 1}>")

    def json(self, value: Any) -> Any:
        if isinstance(value, dict):
            value = self._uids_of(value)
            return {
                k: (self.keys[k] if k in self.keys else self.json(v))
                for k, v in value.items()
                if not (k in self.keys and self.keys[k] is None)
            }
        if isinstance(value, list):
            return [self.json(v) for v in value]
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if self.all_numbers:
                return "<N>"
            if value in self.numbers:
                return self.numbers[value]
        return value

    def _uids_of(self, value: dict[str, Any]) -> dict[str, Any]:
        """``value`` with its uids renumbered: under a uid key, or in the uid column of its rows."""
        out = {k: self.uid(v) if k in UID_KEYS and isinstance(v, int) else v for k, v in value.items()}
        columns = value.get("columns")
        if isinstance(columns, list) and "uid" in columns:
            at = columns.index("uid")
            for key, rows in out.items():
                if key != "columns" and isinstance(rows, list):
                    out[key] = [
                        [*row[:at], self.uid(row[at]), *row[at + 1 :]]
                        if isinstance(row, list) and len(row) > at and isinstance(row[at], int)
                        else row
                        for row in rows
                    ]
        return out


def compact(sc: Any) -> str:
    """``JSON(structuredContent)`` as Claude Code / Codex hand it to the model."""
    return json.dumps(sc, separators=(",", ":"), ensure_ascii=False)


def layout(sc: Any, width: int = 100, depth: int = 0) -> str:
    """The compact JSON of ``sc``, with members of a long object/array on lines of their own."""
    flat = compact(sc)
    if len(flat) + depth <= width or not isinstance(sc, (dict, list)) or not sc:
        return flat
    pad = " " * (depth + 1)
    if isinstance(sc, dict):
        items = [compact(k) + ":" + layout(v, width, depth + 1).lstrip() for k, v in sc.items()]
        open_, close = "{", "}"
    else:
        items = [layout(v, width, depth + 1).lstrip() for v in sc]
        open_, close = "[", "]"
    return open_ + "\n" + ",\n".join(pad + item for item in items) + "\n" + " " * depth + close


def unlayout(text: str) -> str:
    """Back to the compact string: each line break and the next line's leading spaces go."""
    return "".join(line.lstrip(" ") for line in text.split("\n"))


def _describe(tool: str, args: dict[str, Any], norm: Normaliser) -> str:
    parts = [tool]
    for key, value in args.items():
        shown = (
            value if isinstance(value, str) and value and " " not in value else json.dumps(value, ensure_ascii=False)
        )
        parts.append(f"{key}={shown}")
    return norm.text(" ".join(parts))


def render(tool: str, args: dict[str, Any], result: Any, norm: Normaliser) -> str:
    """The golden file's content for one answer."""
    blocks = []
    for block in result.content:
        kind = getattr(block, "type", "")
        if kind == "text":
            blocks.append(norm.text(block.text))
        elif kind == "resource_link":  # what a client can open: its name, type and whether it has bytes
            blocks.append(
                norm.text(f"[resource_link {block.name} {block.mime_type} {'empty' if not block.size else 'N bytes'}]")
            )
        else:
            blocks.append(f"[{kind} {getattr(block, 'mime_type', '') or getattr(block, 'mimeType', '')}]".strip())
    sc = result.structured_content
    json_text = "null" if sc is None else layout(norm.json(sc))
    if sc is not None:
        assert json.loads(unlayout(json_text)) == norm.json(sc), "layout lost something"
    return (
        f"# {_describe(tool, args, norm)}\n"
        f"# is_error: {str(bool(result.is_error)).lower()}\n"
        "## text\n" + "\n".join(blocks).rstrip("\n") + "\n## json\n" + json_text + "\n"
    )


def compare(path: Path, actual: str) -> None:
    """Write (``GOLDEN_UPDATE``) or compare ``actual`` with the golden ``path``; a difference fails with a diff."""
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != actual:
            path.write_text(actual, encoding="utf-8")
        return
    rel = path.relative_to(ROOT.parent) if path.is_relative_to(ROOT.parent) else path
    if not path.exists():
        raise AssertionError(f"golden {rel} is missing (make golden writes it); the answer:\n{actual}")
    expected = path.read_text(encoding="utf-8")
    if expected != actual:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"{rel} (golden)",
                tofile=f"{rel} (this run)",
            )
        )
        raise AssertionError(f"the answer differs from golden {rel} (make golden if it is meant):\n{diff}")


class Golden:
    """One server (an MCP client) and one feature's golden folder.

    ``await g.check("navigate", url=...)`` calls the action, and compares what the model reads
    with ``golden/navigate.txt`` (``scenario="x"``: ``navigate-x.txt``).
    """

    def __init__(self, client: Any, folder: Path, literals: dict[str, str], artifacts: Path) -> None:
        self.client = client
        self.folder = folder
        self.literals = literals
        #: the server's artifacts root (uploads/ is read from there)
        self.artifacts = artifacts
        #: uid renumbering, one per test (so a test's goldens do not depend on the tests before it)
        self._uids: dict[int, int] = {}
        self._test = ""

    @classmethod
    async def open(cls, client: Any, folder: Path, *, http_server: Any = None, **literals: str) -> Golden:
        """``literals``: exact strings to hide, as ``NAME=value`` (shown ``<NAME>``)."""
        caps = await client.call_tool("browser_session", {"action": "get_capabilities"})
        hide = {value: f"<{name.upper()}>" for name, value in literals.items() if value}
        artifacts = caps.structured_content["settings"]["artifactDir"]
        hide[artifacts] = "<ARTIFACTS>"
        if http_server is not None:
            hide[f"127.0.0.1:{http_server.port}"] = "127.0.0.1:<PORT>"
        return cls(client, folder, hide, Path(artifacts))

    async def call(self, action: str, tool: str = "browser_session", **args: Any) -> Any:
        """The action's answer, not compared (set-up steps)."""
        return await self.client.call_tool(tool, {"action": action, **args})

    async def until(
        self,
        action: str,
        ready: Callable[[dict[str, Any]], bool],
        *,
        tool: str = "browser_session",
        timeout: float = 15.0,
        **args: Any,
    ) -> dict[str, Any]:
        """Call ``action`` (not compared) until ``ready(structuredContent)``: wait for what arrives later."""
        with anyio.fail_after(timeout):
            while True:
                result = await self.call(action, tool, **args)
                sc = result.structured_content or {}
                if ready(sc):
                    return sc
                await anyio.sleep(0.05)

    async def check(
        self,
        action: str,
        *,
        tool: str = "browser_session",
        scenario: str = "",
        error: bool = False,
        subs: Iterable[tuple[str, str]] = (),
        keys: dict[str, str | None] | None = None,
        numbers: bool = False,
        **args: Any,
    ) -> dict[str, Any]:
        """Call ``action`` and compare its answer with its golden; returns the (raw) structuredContent.

        ``error``: the answer is meant to be an error. ``subs``: extra (regex, replacement) for
        this answer's volatile parts; ``keys``: JSON keys whose values are replaced (``None``:
        the key is left out, for a part that comes and goes); ``numbers``:
        every number of the JSON is replaced (answers made of measurements).
        """
        call_args = {"action": action, **args}
        result = await self.client.call_tool(tool, call_args)
        text = "\n".join(getattr(b, "text", "") for b in result.content)
        assert bool(result.is_error) == error, f"{action}: is_error={result.is_error}\n{text}"
        test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
        if test != self._test:
            self._test, self._uids = test, {}
        norm = Normaliser(self.literals, subs, keys, numbers, self._uids)
        name = f"{action}-{scenario}" if scenario else action
        compare(self.folder / f"{name}.txt", render(tool, call_args, result, norm))
        return result.structured_content or {}


def golden_files(root: Path = ROOT) -> list[Path]:
    """Every golden file of every feature."""
    return sorted(root.glob("*/golden/*.txt"))


def action_of(path: Path) -> str:
    """The action a golden file is of (``network_list-failed.txt``: ``network_list``)."""
    return path.stem.split("-", 1)[0]
