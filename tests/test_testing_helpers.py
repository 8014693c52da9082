"""The helpers test authors import from ``mcp_server.testing``: ``rows`` and ``navigate``."""

from __future__ import annotations

import socket
from types import SimpleNamespace

import pytest

import cdp_core
import mcp_server.testing as testing
from cdp_core import CDPSession


def test_the_stable_import_path_names_every_helper() -> None:
    for name in ("rows", "navigate", "NavigationError", "ConsoleErrors", "LoopModeError", "AttachedChrome"):
        assert name in testing.__all__ and getattr(testing, name) is not None
    assert testing.navigate is cdp_core.navigate


def test_rows_reads_columns_trailing_objects_and_shared_values() -> None:
    answer = {
        "columns": ["id", "type", "text"],
        "shared": {"page": "/app", "type": "log"},
        "entries": [[1, "error", "boom", {"at": "/app.js:3"}], [2, None, "hi"], [3], {"id": 4, "text": "as a dict"}],
    }
    assert testing.rows(answer, "entries") == [
        {"page": "/app", "type": "error", "id": 1, "text": "boom", "at": "/app.js:3"},
        {"page": "/app", "type": "log", "id": 2, "text": "hi"},
        {"page": "/app", "type": "log", "id": 3},
        {"page": "/app", "type": "log", "id": 4, "text": "as a dict"},
    ]
    result = SimpleNamespace(structured_content=answer)  # what mcp's CallToolResult carries
    assert testing.rows(result, "entries")[0]["text"] == "boom"
    assert testing.rows(answer, "requests") == []
    with pytest.raises(TypeError):
        testing.rows("not an answer", "entries")


async def test_navigate_waits_for_load_or_idle_and_names_a_refused_url(cdp_page: CDPSession, http_server) -> None:
    result = await testing.navigate(cdp_page, http_server.url("/a.html"), wait="idle")
    assert result["frameId"]
    state = await cdp_page.send("Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True})
    assert state["result"]["value"] == "complete"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]  # nobody listens there once the socket is closed
    with pytest.raises(testing.NavigationError, match="ERR_CONNECTION_REFUSED"):
        await testing.navigate(cdp_page, f"http://127.0.0.1:{closed}/", wait="load")
    with pytest.raises(ValueError):
        await testing.navigate(cdp_page, "about:blank", wait="networkidle")  # type: ignore[arg-type]
