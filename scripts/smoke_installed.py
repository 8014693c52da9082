"""Smoke test of the installed ``mcp-browser`` command, on Linux, Windows and macOS (CI runs it).

What a user's first minute does, through the command the client config names:

1. ``mcp-browser chromium --port 0 --json``: a Chrome found where this system's installers put
   it, with a debugging port on 127.0.0.1 (stands in for the user's own Chrome);
2. ``mcp-browser`` on stdio: ``initialize``, ``attach_cdp`` to that Chrome, a capture call
   (``console_list``), a page in the internal browser (``navigate`` on the launch target);
3. the client closes stdin, the shutdown a client sends: the server must exit 0; then the
   Chrome of step 1 gets Ctrl-C (POSIX) or Ctrl-Break (Windows); no browser profile may be
   left in the temp folder (the internal browser's nor that Chrome's).

No ``select`` on pipes (Windows has none for pipes): a thread reads the server's stdout.

    python scripts/smoke_installed.py [path/to/mcp-browser]     # exit 0 and "smoke: ok"
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, BinaryIO

TIMEOUT = 120.0


def _command(argv: list[str]) -> list[str]:
    if len(argv) > 1:
        return [argv[1]]
    found = shutil.which("mcp-browser")
    if found:
        return [found]
    here = Path(sys.executable).parent
    for name in ("mcp-browser.exe", "mcp-browser"):
        if (here / name).exists():
            return [str(here / name)]
    raise SystemExit("smoke: no mcp-browser command installed (pip install . first)")


class Lines:
    """JSON lines of a pipe, read by a thread into a queue."""

    def __init__(self, pipe: BinaryIO) -> None:
        self.queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, args=(pipe,), daemon=True).start()

    def _read(self, pipe: BinaryIO) -> None:
        for raw in iter(pipe.readline, b""):
            try:
                self.queue.put(json.loads(raw))
            except ValueError:
                continue
        self.queue.put(None)

    def answer(self, rid: int) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            try:
                message = self.queue.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                break
            if message is None:
                raise SystemExit(f"smoke: the server ended before answering request {rid}")
            if message.get("id") == rid:
                return message
        raise SystemExit(f"smoke: no answer to request {rid} within {TIMEOUT:g} s")


def _leftovers(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith(("mcp-browser-launch-", "cdp-chromium-")))


def main(argv: list[str]) -> int:
    command = _command(argv)
    # Short on POSIX: Chrome's SingletonSocket lives under TMPDIR, and socket paths stop at 104 bytes.
    tmp = Path(tempfile.mkdtemp(prefix="smoke-", dir=None if os.name == "nt" else "/tmp"))
    env = {**os.environ, "TMPDIR": str(tmp), "TEMP": str(tmp), "TMP": str(tmp)}
    env["MCP_ARTIFACT_DIR"] = str(tmp / "artifacts")
    # Windows: a process group of its own, so Ctrl-Break (CTRL_BREAK_EVENT) reaches it alone.
    group = {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP} if os.name == "nt" else {}
    chrome = subprocess.Popen(
        [*command, "chromium", "--port", "0", "--json"],
        stdout=subprocess.PIPE,
        env=env,
        stdin=subprocess.DEVNULL,
        **group,  # type: ignore[arg-type]
    )
    assert chrome.stdout is not None
    info = json.loads(chrome.stdout.readline() or b"null")
    if not info:
        raise SystemExit(f"smoke: `mcp-browser chromium` did not start (exit {chrome.wait(30)})")
    print(f"smoke: Chrome at {info['cdp_url']}")
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert server.stdin is not None and server.stdout is not None
    lines = Lines(server.stdout)
    rid = 0

    def request(method: str, params: dict[str, Any]) -> dict[str, Any]:
        nonlocal rid
        rid += 1
        assert server.stdin is not None
        message = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
        server.stdin.write(json.dumps(message).encode() + b"\n")
        server.stdin.flush()
        return lines.answer(rid)

    def call(action: str, **args: Any) -> dict[str, Any]:
        result = request("tools/call", {"name": "browser_session", "arguments": {"action": action, **args}})["result"]
        text = result["content"][0]["text"] if result.get("content") else ""
        if result.get("isError"):
            raise SystemExit(f"smoke: {action} failed: {text}")
        print(f"smoke: {action}: {text.splitlines()[0][:120] if text else 'ok'}")
        return result

    try:
        hello = request(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "smoke", "version": "1"}},
        )
        print(f"smoke: initialize: {hello['result']['serverInfo']['name']}")
        server.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        server.stdin.flush()
        call("attach_cdp", cdp_url=info["cdp_url"])
        call("console_list")
        call("detach_cdp")
        call("navigate", url="data:text/html,<title>smoke</title><p>hello</p>")  # the internal browser
        server.stdin.close()  # the shutdown a client sends
        code = server.wait(60)
        if code != 0:
            raise SystemExit(f"smoke: the server exited {code} after stdin closed")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        if chrome.poll() is None:
            # What a person does in the terminal: Ctrl-C (POSIX), Ctrl-Break (Windows, SIGBREAK).
            chrome.send_signal(signal.CTRL_BREAK_EVENT if os.name == "nt" else signal.SIGINT)  # type: ignore[attr-defined,unused-ignore]
            try:
                print(f"smoke: mcp-browser chromium stopped (exit {chrome.wait(60)})")
            except subprocess.TimeoutExpired:
                chrome.kill()
                print("smoke: mcp-browser chromium did not stop on the console signal", file=sys.stderr)
    deadline = time.monotonic() + 15
    while _leftovers(tmp) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = _leftovers(tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    if left:
        raise SystemExit(f"smoke: browser profile left behind: {left}")
    print("smoke: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
