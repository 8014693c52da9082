"""Open and close the benchmark's tabs through Chromium's HTTP endpoints (127.0.0.1 only).

Each server starts on the same fresh set of tabs, opened before it connects, so no
server inherits another one's history. Proxies from the environment are ignored.
"""

from __future__ import annotations

import json
import time
import urllib.request

__all__ = ["open_tab", "page_targets", "reset_tabs"]

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _http(url: str, method: str = "GET") -> str:
    with _OPENER.open(urllib.request.Request(url, method=method), timeout=10) as resp:
        return resp.read().decode()


def open_tab(http_url: str, url: str) -> str:
    """Open ``url`` in a new tab (not waiting for it to load); its target id."""
    return json.loads(_http(f"{http_url}/json/new?{url}", method="PUT"))["id"]


def page_targets(http_url: str) -> list[dict]:
    return [t for t in json.loads(_http(http_url + "/json/list")) if t.get("type") == "page"]


def reset_tabs(http_url: str, urls: list[str], timeout: float = 20.0) -> list[str]:
    """Open ``urls`` in new tabs, close every other page, wait until they loaded; returns target ids."""
    old = [t["id"] for t in page_targets(http_url)]
    new_ids = [json.loads(_http(f"{http_url}/json/new?{u}", method="PUT"))["id"] for u in urls]
    for target_id in old:
        _http(f"{http_url}/json/close/{target_id}")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        by_id = {t["id"]: t for t in page_targets(http_url)}
        if all(by_id.get(i, {}).get("url") in urls and by_id[i].get("title") not in ("", None) for i in new_ids):
            if not set(old) & set(by_id):
                return new_ids
        time.sleep(0.05)
    raise TimeoutError(f"tabs {urls} did not load within {timeout} s")
