"""The pytest plugin's own rules: one folder per test whatever its id's length; ``--cdp-url`` loopback only.

Why: folder names were node ids cut at 150 characters, so two long parametrised ids shared a
folder and one test's set-up (which clears stale evidence) deleted the other test's screenshot.
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from mcp_server.pytest_plugin import AttachedChrome, _artifacts_dir


def _item(nodeid: str, root: Path) -> SimpleNamespace:
    config = SimpleNamespace(getoption=lambda name, default=None: str(root), rootpath=root)
    return SimpleNamespace(nodeid=nodeid, config=config)


def test_two_long_ids_with_the_same_head_get_two_folders(tmp_path: Path) -> None:
    head = "tests/test_checkout.py::test_the_order_total[" + "x" * 200
    first, second = _artifacts_dir(_item(head + "-a]", tmp_path)), _artifacts_dir(_item(head + "-b]", tmp_path))
    assert first != second
    assert all(len(path.name.encode()) <= 200 for path in (first, second))  # still a legal file name


def test_a_short_id_keeps_its_readable_name(tmp_path: Path) -> None:
    assert _artifacts_dir(_item("tests/test_a.py::test_b", tmp_path)) == tmp_path / "tests-test_a.py-test_b"


# -- --cdp-url: the server's loopback rule --------------------------------------------------


@pytest.fixture
def version_server() -> Iterator[int]:
    """A loopback HTTP server on 127.0.0.2 answering ``/json/version`` as Chrome does (the field read)."""

    class Version(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = json.dumps({"webSocketDebuggerUrl": f"ws://{self.headers['Host']}/devtools/browser/x"}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.2", 0), Version)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_any_loopback_literal_is_accepted(version_server: int) -> None:
    chrome = AttachedChrome(f"http://127.0.0.2:{version_server}")
    assert chrome.port == version_server and chrome.ws_url.startswith(f"ws://127.0.0.2:{version_server}/")


def test_localhost_is_127_0_0_1_without_a_name_lookup(monkeypatch: pytest.MonkeyPatch) -> None:
    looked_up: list[str] = []
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        looked_up.append(str(host))
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    chrome = AttachedChrome("ws://localhost:9/devtools/browser/x")  # ws: nothing is fetched
    assert chrome.ws_url == "ws://127.0.0.1:9/devtools/browser/x" and chrome.cdp_url == "http://127.0.0.1:9"
    assert "localhost" not in looked_up


@pytest.mark.parametrize(
    "url", ["http://localhost.:9", "http://127.0.0.1.nip.io:9", "http://user@127.0.0.1:9", "ftp://127.0.0.1:9"]
)
def test_names_that_only_look_local_are_refused(url: str) -> None:
    with pytest.raises(pytest.UsageError, match="loopback"):
        AttachedChrome(url)
