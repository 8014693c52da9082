"""What the real-app scenarios share: the bench's runners, a site or its skip, the agent's server
over stdio, the secrets check, and the whole-session recorder of the app-error detector.

The scenarios play the person over raw CDP (``bench/cdp_person.py``) and the agent through a real
MCP client session; each answer is kept under both renderings (the text other clients show, the
JSON of ``structuredContent`` Claude Code and Codex show), so a test asserts on both.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import importlib
import importlib.util
import json
import os
import sys
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from paths import ROOT

from cdp_core.connection import Connection
from cdp_core.events import CDPEvent
from mcp_server.evidence.app_errors import app_error_in

SERVER_BIN = ROOT / ".venv" / "bin" / "mcp-browser"
CALL_TIMEOUT = 90.0
#: The resource types whose answers the detector reads (as the server does)
_READ = {"Document": "document", "XHR": "xhr", "Fetch": "fetch"}


def bench(name: str) -> ModuleType:
    """``bench/<name>.py`` of the repository (``tests/bench`` shadows the name ``bench``)."""
    if "repo_bench" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "repo_bench", ROOT / "bench" / "__init__.py", submodule_search_locations=[str(ROOT / "bench")]
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["repo_bench"] = module
        spec.loader.exec_module(module)
    return importlib.import_module(f"repo_bench.{name}")


def missing_or_fail(app: str, reason: str | None) -> None:
    """Skip with ``reason`` (a package not installed); under ``CI_REAL_APPS=1``, which installs them, fail."""
    if reason:
        if os.environ.get("CI_REAL_APPS") == "1":
            pytest.fail(f"CI installs the real apps, yet {app} cannot run: {reason}")
        pytest.skip(f"{app}: {reason}")


def running_site(app: str, module: ModuleType, cls: str) -> Iterator[Any]:
    """The body of a module-scoped fixture: ``module.<cls>`` started, or the skip of :func:`missing_or_fail`."""
    missing_or_fail(app, module.missing())
    with getattr(module, cls)() as site:
        yield site


def server_env(artifacts: Path) -> dict[str, str]:
    drop = {"BROWSER_DEFAULT_TARGET", "PLAYWRIGHT_CDP_URL", "MCP_AUDIT_LOG"}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.lower().endswith("_proxy")}
    env.update(MCP_ARTIFACT_DIR=str(artifacts), NO_PROXY="127.0.0.1,localhost,::1")
    return env


@dataclass
class Agent:
    """The agent's MCP client; every answer kept as (text, JSON of structuredContent)."""

    client: Client
    artifacts: Path
    answers: list[tuple[str, str]] = field(default_factory=list)

    async def session(self, action: str, **args: Any) -> tuple[dict[str, Any], str]:
        res = await self.client.call_tool(
            "browser_session", {"action": action, **args}, read_timeout_seconds=CALL_TIMEOUT
        )
        text = "".join(getattr(c, "text", "") for c in res.content)
        data = res.structured_content or {}
        self.answers.append((text, json.dumps(data, ensure_ascii=False)))
        assert not res.is_error, text
        return data, text

    def assert_never_said(self, secrets: Iterable[str]) -> None:
        """No secret in any answer (both renderings) nor in any file the server wrote."""
        secrets = [s for s in secrets if s]
        for text, js in self.answers:
            for secret in secrets:
                assert secret not in text and secret not in js, f"a secret ({len(secret)} chars) in {text[:300]}"
        for path in self.artifacts.rglob("*"):
            if path.is_file():
                content = path.read_bytes()
                for secret in secrets:
                    assert secret.encode() not in content, path


@contextlib.asynccontextmanager
async def agent(tmp_path: Path) -> AsyncIterator[Agent]:
    """The server over stdio (its own artifacts dir under ``tmp_path``), as a real client starts it."""
    artifacts = tmp_path / "artifacts"
    params = StdioServerParameters(command=str(SERVER_BIN), args=[], env=server_env(artifacts), cwd=str(tmp_path))
    with open(tmp_path / "server-stderr.log", "w") as errlog:  # noqa: ASYNC230
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
            yield Agent(client, artifacts)


@dataclass
class Answer:
    """One document/XHR/fetch answer of a whole session, and what the detector says of it."""

    method: str
    url: str
    status: int
    mime: str
    kind: str
    body: bytes = b""
    app_error: str | None = None


class WholeSession:
    """Every document, XHR and fetch answer of one tab, read by :func:`app_error_in` as it arrives.

    Why: the detector's precision is measured on everything a real session sends (logins, menus,
    autosaves, heartbeats), not only on the failing call a scenario is about. It listens on the
    harness's own connection to the tab (the person's side), from before the login on.
    """

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.answers: dict[str, Answer] = {}
        self._methods: dict[str, str] = {}
        self._reads: set[asyncio.Task[None]] = set()
        #: documents, XHRs and fetches sent and not finished yet
        self._open: set[str] = set()

    async def start(self) -> WholeSession:
        self.conn.root.on(
            [
                "Network.requestWillBeSent",
                "Network.responseReceived",
                "Network.loadingFinished",
                "Network.loadingFailed",
            ],
            self._on,
        )
        with contextlib.suppress(Exception):  # bodies kept past the next navigation (this client's own)
            await self.conn.send(
                "Network.configureDurableMessages",
                {"maxTotalBufferSize": 64 * 1024 * 1024, "maxResourceBufferSize": 8 * 1024 * 1024},
            )
        await self.conn.send("Network.enable", {"maxTotalBufferSize": 64 * 1024 * 1024})
        return self

    def _on(self, event: CDPEvent) -> None:
        p = event.params
        if event.method == "Network.requestWillBeSent":
            self._methods[p["requestId"]] = p["request"]["method"]
            if p.get("type") in _READ:
                self._open.add(p["requestId"])
        elif event.method == "Network.loadingFailed":
            self._open.discard(p["requestId"])
        elif event.method == "Network.responseReceived" and p.get("type") in _READ:
            r = p["response"]
            self.answers[p["requestId"]] = Answer(
                self._methods.get(p["requestId"], "GET"), r["url"], r["status"], r.get("mimeType", ""), _READ[p["type"]]
            )
        elif event.method == "Network.loadingFinished":
            self._open.discard(p["requestId"])
            if p["requestId"] not in self.answers:
                return
            task = asyncio.get_running_loop().create_task(self._read(p["requestId"]))
            self._reads.add(task)
            task.add_done_callback(self._reads.discard)

    async def _read(self, request_id: str) -> None:
        answer = self.answers[request_id]
        with contextlib.suppress(Exception):  # a body lost to a navigation: nothing to read
            reply = await self.conn.send("Network.getResponseBody", {"requestId": request_id})
            body = reply.get("body", "")
            answer.body = base64.b64decode(body) if reply.get("base64Encoded") else body.encode()
            answer.app_error = app_error_in(
                answer.body, answer.mime, status=answer.status, url=answer.url, resource_type=answer.kind
            )

    async def quiet(self) -> None:
        """Wait until every answer sent so far has finished and its body was read: what the person
        does next (a navigation) may otherwise drop a body before it is read. A request that never
        finishes (a long poll) holds this 30 s at most."""
        for _ in range(600):
            if not self._open and not self._reads:
                return
            await asyncio.sleep(0.05)

    async def settled(self) -> list[Answer]:
        """The answers once every body read finished."""
        while self._reads:
            await asyncio.gather(*list(self._reads))
        return list(self.answers.values())

    async def flagged(self) -> list[tuple[str, str, str]]:
        """(method, URL, app error) of every answer the detector calls an application error.

        With ``REALAPPS_SESSION_DIR`` set, the session's bodies and an index are written there
        too (raw, secrets included: for building the corpus by hand, never committed as is)."""
        answers = await self.settled()
        out = os.environ.get("REALAPPS_SESSION_DIR")
        if out:
            self._dump(Path(out), answers)
        return [(a.method, a.url, a.app_error) for a in answers if a.app_error]

    @staticmethod
    def _dump(out: Path, answers: list[Answer]) -> None:
        out.mkdir(parents=True, exist_ok=True)
        start = len(list(out.glob("*.body")))
        index = []
        for n, a in enumerate(answers, start):
            name = f"{n:03d}.body"
            (out / name).write_bytes(a.body)
            index.append({"file": name, **{k: v for k, v in vars(a).items() if k != "body"}})
        with open(out / "index.jsonl", "a") as f:
            f.writelines(json.dumps(row) + "\n" for row in index)
