"""How each of the three MCP servers is started and which of its tools does each measured job.

One adapter per server maps the benchmark's jobs (list pages, select page, snapshot,
console list, network list, navigate) to that server's real tool and arguments, as read
from its ``tools/list`` (chrome-devtools-mcp 1.11, playwright-mcp 0.0.83, ours), and
parses its page list so the harness can find the tabs it opened. Each asks for *all*
console messages and requests its tool can give in one call, so completeness compares
what the servers can report, not their default page sizes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_types import CallToolResult

__all__ = ["Call", "Adapter", "Ours", "ChromeDevtoolsMcp", "PlaywrightMcp", "ADAPTERS", "result_text", "result_json"]

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Call:
    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    #: Arguments set to "as much as allowed" whose real bound the schema may not show: the
    #: runner lowers them to the bound a refusal names (see ``runner.fit_call``).
    maxed: tuple[str, ...] = ()


def result_text(result: CallToolResult) -> str:
    """All text blocks of an answer: what a client shows the model."""
    return "\n".join(getattr(block, "text", "") for block in result.content)


def result_json(result: CallToolResult) -> str:
    """The structured content as compact JSON ("" when the server sent none)."""
    if result.structured_content is None:
        return ""
    return json.dumps(result.structured_content, separators=(",", ":"), ensure_ascii=False)


def _schema_max(schema: dict[str, Any]) -> int | None:
    """The ``maximum`` of an integer property, looking inside ``anyOf``/``oneOf``."""
    if "maximum" in schema:
        return int(schema["maximum"])
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, []):
            found = _schema_max(sub)
            if found is not None:
                return found
    return None


class Adapter:
    """Base: the jobs every server must do. ``page_id`` is whatever the server's list gives."""

    key = ""
    label = ""
    #: The ratio columns compare ``ours`` with each peer.
    is_ours = False

    def __init__(self, extra_env: dict[str, str] | None = None) -> None:
        self.tools: dict[str, dict[str, Any]] = {}
        #: Environment for this server on top of the harness's throwaway home (e.g. buffer sizes).
        self.extra_env = dict(extra_env or {})

    def command(self, peers_dir: Path, cdp_url: str) -> tuple[str, list[str]]:
        raise NotImplementedError

    def missing(self, peers_dir: Path) -> str | None:
        """Why this server cannot start here (not installed), or None."""
        cmd, _ = self.command(peers_dir, "http://127.0.0.1:1")
        return None if Path(cmd).exists() else f"{cmd} not found"

    def configure(self, tools: dict[str, dict[str, Any]]) -> None:
        """Remember the input schemas from ``tools/list`` (some arguments depend on them)."""
        self.tools = tools

    def prepare(self, cdp_url: str) -> Call | None:
        """A call that connects the server to the browser before the first job, if it needs one."""
        return None

    def list_pages(self) -> Call:
        raise NotImplementedError

    def parse_pages(self, result: CallToolResult) -> list[tuple[Any, str]]:
        """(page_id, line or url) for every page in a list_pages answer."""
        raise NotImplementedError

    def select(self, page_id: Any) -> Call:
        raise NotImplementedError

    def snapshot(self, page_id: Any) -> Call:
        raise NotImplementedError

    def snapshot_full(self, page_id: Any) -> Call | None:
        """A snapshot call with the server's size caps lifted, or None when its default is uncapped."""
        return None

    def console(self, page_id: Any) -> Call:
        raise NotImplementedError

    def network(self, page_id: Any) -> Call:
        raise NotImplementedError

    def navigate(self, page_id: Any, url: str) -> Call:
        raise NotImplementedError

    def find_page(self, pages: list[tuple[Any, str]], needle: str) -> Any:
        for page_id, text in pages:
            if needle in text:
                return page_id
        raise LookupError(f"no page matching {needle!r} in {self.label}'s list: {pages!r}")


class Ours(Adapter):
    key = "ours"
    label = "ours (mcp-browser)"
    is_ours = True

    def command(self, peers_dir: Path, cdp_url: str) -> tuple[str, list[str]]:
        return str(ROOT / ".venv" / "bin" / "mcp-browser"), []

    def _session_props(self) -> dict[str, Any]:
        return self.tools.get("browser_session", {}).get("properties", {})

    def _maxed(self, *names: str) -> dict[str, Any]:
        """Each named argument at the largest value the schema allows (absent ones left out)."""
        out = {}
        for name in names:
            prop = self._session_props().get(name)
            if prop is not None:
                out[name] = min(_schema_max(prop) or 1_000_000, 1_000_000)
        return out

    def _all(self) -> dict[str, Any]:
        """The largest ``limit`` the schema allows, so one call returns everything kept."""
        return self._maxed("limit")

    def prepare(self, cdp_url: str) -> Call | None:
        return Call("browser_session", {"action": "attach_cdp", "cdp_url": cdp_url})

    def list_pages(self) -> Call:
        return Call("browser_session", {"action": "list_pages"})

    def parse_pages(self, result: CallToolResult) -> list[tuple[Any, str]]:
        data = result.structured_content or {}
        pages = data.get("pages")
        if isinstance(pages, list):
            return [(p.get("page_id"), f"{p.get('url', '')} {p.get('title', '')}") for p in pages]
        chosen = data.get("selected")
        if isinstance(chosen, dict):  # attach_cdp: the tab it selected (and a count of the others)
            return [(chosen.get("page_id"), f"{chosen.get('url', '')} {chosen.get('title', '')}")]
        found = []
        for line in result_text(result).splitlines():
            m = re.match(r"\s*[-*]?\s*\[?(\d+)\]?[:.)]?\s+(.*)", line)
            if m:
                found.append((int(m.group(1)), m.group(2)))
        return found

    def select(self, page_id: Any) -> Call:
        return Call("browser_session", {"action": "select_page", "page_id": page_id})

    def snapshot(self, page_id: Any) -> Call:
        return Call("browser_session", {"action": "snapshot"})

    def snapshot_full(self, page_id: Any) -> Call | None:
        caps = self._maxed("max_lines", "max_chars")
        return Call("browser_session", {"action": "snapshot", **caps}, tuple(caps)) if caps else None

    def console(self, page_id: Any) -> Call:
        return Call("browser_session", {"action": "console_list", **self._all()}, ("limit",))

    def network(self, page_id: Any) -> Call:
        return Call("browser_session", {"action": "network_list", **self._all()}, ("limit",))

    def navigate(self, page_id: Any, url: str) -> Call:
        return Call("browser_session", {"action": "navigate", "url": url})


class ChromeDevtoolsMcp(Adapter):
    key = "chrome-devtools-mcp"
    label = "chrome-devtools-mcp"

    def command(self, peers_dir: Path, cdp_url: str) -> tuple[str, list[str]]:
        exe = peers_dir / "node_modules" / ".bin" / "chrome-devtools-mcp"
        return str(exe), ["--browserUrl", cdp_url, "--no-usage-statistics", "--no-performance-crux"]

    def list_pages(self) -> Call:
        return Call("list_pages")

    def parse_pages(self, result: CallToolResult) -> list[tuple[Any, str]]:
        # "2: Form (http://127.0.0.1:PORT/form) [selected]"
        found = []
        for line in result_text(result).splitlines():
            m = re.match(r"(\d+): (.*)", line)
            if m:
                found.append((int(m.group(1)), m.group(2)))
        return found

    def select(self, page_id: Any) -> Call:
        return Call("select_page", {"pageId": page_id})

    def snapshot(self, page_id: Any) -> Call:
        return Call("take_snapshot", {"pageId": page_id})

    def console(self, page_id: Any) -> Call:
        # pageSize omitted: "returns all messages" (of the current navigation).
        return Call("list_console_messages", {"pageId": page_id})

    def network(self, page_id: Any) -> Call:
        return Call("list_network_requests", {"pageId": page_id})

    def navigate(self, page_id: Any, url: str) -> Call:
        return Call("navigate_page", {"pageId": page_id, "type": "url", "url": url})


class PlaywrightMcp(Adapter):
    key = "playwright-mcp"
    label = "playwright-mcp"

    def command(self, peers_dir: Path, cdp_url: str) -> tuple[str, list[str]]:
        exe = peers_dir / "node_modules" / ".bin" / "playwright-mcp"
        return str(exe), ["--cdp-endpoint", cdp_url]

    def list_pages(self) -> Call:
        return Call("browser_tabs", {"action": "list"})

    def parse_pages(self, result: CallToolResult) -> list[tuple[Any, str]]:
        # "- 1: (current) [Form](http://127.0.0.1:PORT/form)"
        found = []
        for line in result_text(result).splitlines():
            m = re.match(r"- (\d+): (.*)", line)
            if m:
                found.append((int(m.group(1)), m.group(2)))
        return found

    def select(self, page_id: Any) -> Call:
        return Call("browser_tabs", {"action": "select", "index": page_id})

    def snapshot(self, page_id: Any) -> Call:
        return Call("browser_snapshot")

    def console(self, page_id: Any) -> Call:
        # "info" includes console.log; the tool has no paging: one answer holds all it kept.
        return Call("browser_console_messages", {"level": "info"})

    def network(self, page_id: Any) -> Call:
        return Call("browser_network_requests", {"static": False})

    def navigate(self, page_id: Any, url: str) -> Call:
        return Call("browser_navigate", {"url": url})


ADAPTERS: dict[str, type[Adapter]] = {a.key: a for a in (Ours, ChromeDevtoolsMcp, PlaywrightMcp)}
