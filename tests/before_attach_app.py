"""The person's app that failed before the agent attached (tests of network_list and debug_bundle).

Its page, loaded in the person's Chrome before attach, POSTs a save that answers 500 (and reads
the answer, as apps do), then lists with an XHR that answers 200, among three images; its title
ends in " ready" when done. Chrome asks for no favicon (the page names a data: icon), so the
page's own record holds the same requests on every run.
"""

from __future__ import annotations

import time
from typing import Any

import anyio
from faults_util import UserTabs
from httpserver import Reply, Request

import cdp_core

__all__ = ["APP_PATH", "open_app_before_attach", "until_ready"]

APP_PATH = "/ba/app.html"

APP = """<!doctype html><title>{title}</title><link rel="icon" href="data:,"><h1>Ordini</h1>
<img src="/ba/logo-1.png"><img src="/ba/logo-2.png"><img src="/ba/logo-3.png">
<script>
(async () => {{
  const saved = await fetch("/ba/api/save", {{method: "POST", body: "codice=CLI-00042"}});
  await saved.json();
  const x = new XMLHttpRequest();
  x.open("GET", "/ba/api/list");
  x.onload = () => {{ document.title = "{title} ready" }};
  x.send();
}})();
</script>"""

PNG = (
    b"\\x89PNG\\r\\n\\x1a\\n\\x00\\x00\\x00\\rIHDR\\x00\\x00\\x00\\x01\\x00\\x00\\x00\\x01\\x08\\x06\\x00\\x00\\x00\\x1f\\x15\\xc4\\x89"
    b"\\x00\\x00\\x00\\rIDATx\\x9cc\\xf8\\xff\\xff?\\x00\\x05\\xfe\\x02\\xfe\\xa7\\x35\\x81\\x84\\x00\\x00\\x00\\x00IEND\\xaeB`\\x82"
)


async def until_ready(http_url: str, title: str) -> None:
    """Until the person's tab has done its work (its title says so)."""
    with anyio.fail_after(30):
        while not any(t.title == f"{title} ready" for t in await cdp_core.list_targets(http_url)):
            await anyio.sleep(0.05)


async def open_app_before_attach(chrome: Any, http_server: Any, title: str = "Ordini") -> list[float]:
    """Open the app in the person's Chrome and wait until it is done; returns the times (epoch s)
    the server answered the save."""
    saved_at: list[float] = []

    def save(_req: Request) -> Reply:
        saved_at.append(time.time())
        return Reply(500, '{"error":"Duplicate entry"}', "application/json")

    http_server.route(APP_PATH, Reply(200, APP.format(title=title)))
    http_server.route("/ba/api/save", save)
    http_server.route("/ba/api/list", Reply(200, "[]", "application/json"))
    for n in (1, 2, 3):
        http_server.route(f"/ba/logo-{n}.png", Reply(200, PNG, "image/png"))
    user = UserTabs(chrome.http_url)
    await user.close_all_but({await user.open(http_server.url(APP_PATH))})  # one tab: p1 on every run
    await until_ready(chrome.http_url, title)
    return saved_at
