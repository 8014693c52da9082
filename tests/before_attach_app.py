"""The person's app that failed before the agent attached (tests of network_list and debug_bundle).

Its page, loaded in the person's Chrome before attach, POSTs a save that answers 500 (and reads
the answer, as apps do), then lists with an XHR that answers 200, among three images; its title
ends in " ready" when done. Chrome asks for no favicon (the page names a data: icon), so the
page's own record holds the same requests on every run.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from faults_util import UserTabs, serving
from golden import Golden
from httpserver import Reply, Request

import cdp_core

__all__ = ["APP_PATH", "CLOCK", "golden_after_attach", "open_app_before_attach", "until_ready"]

APP_PATH = "/ba/app.html"
#: the time of day a request from before attach was made, as golden answers keep it
CLOCK = (r"\b\d\d:\d\d:\d\d\.\d{3} UTC\b", "<CLOCK> UTC")

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


@asynccontextmanager
async def golden_after_attach(
    chrome: Any, http_server: Any, artifacts: Path, golden_dir: Path
) -> AsyncIterator[Golden]:
    """The app done in the person's Chrome, then an agent attached to it with the app's tab selected:
    the golden answers of what the page recorded before attach (network_list, debug_bundle)."""
    await open_app_before_attach(chrome, http_server)
    async with serving(artifacts) as agent:
        await agent.s("attach_cdp", cdp_url=chrome.http_url)
        await agent.s("select_page", url_contains=APP_PATH)
        yield await Golden.open(agent.client, golden_dir, http_server=http_server)
