"""Acting in a tab the user is not looking at: the helpers the input, interact, dialogs, tabs,
page, evidence, snapshot and session tests share (and tests/bench/debug_bench.py).

The user puts a tab in the background by activating another one (``/json/activate``); the agent
works there through the real MCP client (``faults_util.serving``).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
from faults_util import UserTabs, serving
from lean_util import records

import cdp_core

CALL = 20.0  # generous hang guard per call; the click used to fail after its own 5 s timeout


async def activate(http_url: str, target_id: str) -> None:
    """What the user does by clicking another tab."""
    async with httpx.AsyncClient(trust_env=False) as http:
        reply = await http.put(f"{http_url}/json/activate/{target_id}")
        assert reply.status_code == 200, reply.text


async def open_in_front(http_url: str) -> str:
    """What the user does by opening a new blank tab: it comes to front. Returns its target id."""
    async with httpx.AsyncClient(trust_env=False) as http:
        tab = (await http.put(f"{http_url}/json/new?about:blank")).json()
    await activate(http_url, tab["id"])
    return str(tab["id"])


async def visibility(http_url: str, target_id: str) -> str:
    """The tab's visibility as the user's browser sees it (our own short CDP look)."""
    async with cdp_core.connect(http_url) as browser:
        session = await browser.attach(target_id)
        reply = await session.send(
            "Runtime.evaluate", {"expression": "document.visibilityState", "returnByValue": True}
        )
        await session.detach()
        return str(reply["result"]["value"])


def uid_of(snapshot: dict[str, Any], role: str, name: str) -> int:
    lines = records(snapshot, "lines")
    for line in lines:
        if line.get("role") == role and line.get("name") == name:
            return int(line["uid"])
    raise AssertionError(f"no {role} {name!r} in {[(ln.get('role'), ln.get('name')) for ln in lines]}")


@contextlib.asynccontextmanager
async def agent_in_hidden_tab(
    users_chrome: Any, http_server: Any, tmp_path: Any, path: str, title: str
) -> AsyncIterator[Any]:
    """The agent attached to the user's Chrome, working in the tab of ``path`` behind the one the user looks at
    (its page loaded there, hidden: in a headful Chrome such a page never drew a frame)."""
    user = UserTabs(users_chrome.http_url)
    await activate(users_chrome.http_url, await user.open(http_server.url("/faults/tab.html?name=front")))
    await user.open(http_server.url(path), background=True)  # loads hidden, as a Ctrl+click opens it
    async with serving(tmp_path / "artifacts") as agent:
        await agent.s("attach_cdp", cdp_url=users_chrome.http_url)
        await agent.s("select_page_by_title", title_contains=title)
        assert await agent.js("document.visibilityState") == "hidden"
        yield agent


async def interact(agent: Any, action: str, **args: Any) -> dict[str, Any]:
    result = await agent.call("browser_interact", CALL, action=action, **args)
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def interact_err(agent: Any, action: str, code: str, **args: Any) -> dict[str, Any]:
    result = await agent.call("browser_interact", CALL, action=action, **args)
    assert result.is_error, result.content[0].text
    assert result.structured_content["code"] == code, result.content[0].text
    return result.structured_content


async def front_tab(http_url: str) -> str:
    """The tab in front: Chrome lists pages most recently activated first."""
    async with httpx.AsyncClient(trust_env=False) as http:
        pages = [t for t in (await http.get(f"{http_url}/json/list")).json() if t["type"] == "page"]
    return str(pages[0]["id"])
