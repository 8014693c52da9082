"""``mcp-browser chromium``: a headless Chromium with a debugging port, started by hand.

For test authors (point a test run or a script at it) and for trying ``attach_cdp`` without
a real Chrome of your own. It listens on 127.0.0.1 only, uses a temporary profile, prints the
endpoint, and on Ctrl-C, Ctrl-Break, SIGTERM or SIGHUP stops the browser and removes the profile. Only
``cdp_core.chromium`` is imported: no MCP SDK, no Playwright.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cdp_core.chromium import ChromiumProcess

__all__ = ["main"]


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="mcp-browser chromium",
        description="Start a headless Chromium with a debugging port on 127.0.0.1 and a temporary profile; "
        "Ctrl-C (Ctrl-Break on Windows) stops it and removes the profile. The executable is $CHROME_PATH, "
        "else where installers put Chrome, Chromium or Edge, else google-chrome/chromium on PATH.",
    )
    p.add_argument(
        "--port", type=int, default=9222, help="debugging port on 127.0.0.1 (default 9222; 0 picks a free one)"
    )
    p.add_argument("--headed", action="store_true", help="show a window instead of running headless (needs a display)")
    p.add_argument("--json", action="store_true", help="print the endpoint as one JSON line (for scripts)")
    p.add_argument("url", nargs="*", help="pages to open (default about:blank)")
    return p.parse_args(argv)


def main(argv: list[str]) -> int:
    ns = parse_args(argv)
    if not 0 <= ns.port < 65536:
        print(f"mcp-browser chromium: --port {ns.port} is not a valid port", file=sys.stderr)
        return 2
    from cdp_core.chromium import ChromiumProcess, LaunchError

    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    # Handlers first: a signal that arrives while Chrome starts must still stop it cleanly.
    from mcp_server.cli.stop_signals import stop_signals

    previous = {signum: signal.signal(signum, request_stop) for signum in stop_signals()}
    try:
        try:
            chrome = ChromiumProcess.start(port=ns.port, headless=not ns.headed, urls=ns.url)
        except LaunchError as exc:
            print(f"mcp-browser chromium: {exc}", file=sys.stderr)
            return 1
        try:
            _announce(chrome, as_json=ns.json)
            while not stop.is_set() and chrome.alive:
                stop.wait(0.25)
            if not chrome.alive:
                print(f"mcp-browser chromium: the browser exited (code {chrome.proc.returncode})", file=sys.stderr)
                return 1
            return 0
        finally:
            chrome.stop()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _announce(chrome: ChromiumProcess, *, as_json: bool) -> None:
    if as_json:
        info = {
            "cdp_url": chrome.cdp_url,
            "port": chrome.port,
            "ws_url": chrome.ws_url,
            "pid": chrome.pid,
            "profile_dir": str(chrome.profile_dir),
        }
        print(json.dumps(info), flush=True)
        return
    print(
        f"Chromium listening on {chrome.cdp_url}\n"
        f"  browser websocket: {chrome.ws_url}\n"
        f"  pid {chrome.pid}, temporary profile {chrome.profile_dir} (removed on exit)\n"
        f"  cdp_core:  async with cdp_core.connect({chrome.cdp_url!r}) as browser: ...\n"
        f"  an agent:  browser_session action=attach_cdp cdp_url={chrome.cdp_url}\n"
        "Ctrl-C stops it.",
        flush=True,
    )
